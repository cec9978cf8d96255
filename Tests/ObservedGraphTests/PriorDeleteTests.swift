import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// A set whose object its own prior observer deletes does not happen: the setter returns,
/// nothing is stored or recorded, the did-observers are not called, and the delete stands.
@Suite struct PriorDeleteTests {
  @Test func aToOneSetWhosePriorObserverDeletesTheObjectDoesNotHappen() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    s.context.processPendingChanges()
    s.context.undoLog = UndoLog()
    var heard: [String] = []
    let token = book.observe(\.category, options: [.prior, .old, .new]) { book, change in
      let old = change.oldValue??.name ?? "nil"
      heard.append(
        change.isPrior ? "prior \(old)" : "did \(old) -> \(change.newValue??.name ?? "nil")")
      if change.isPrior { try? book.context?.delete(book) }
    }
    let recorder = ChangeRecorder(context: s.context)
    book.category = s.science
    // The set's prior call, then the delete's own change of the relationship: its prior call
    // (whose delete does nothing: the delete is under way) and its did call. The set's did call
    // never comes.
    #expect(heard == ["prior Fiction", "prior Fiction", "did Fiction -> nil"])
    #expect(book.isDeleted)
    #expect(book.category == nil, "the delete nullified it; the set did not happen")
    #expect(!s.science.books.contains(book) && !s.fiction.books.contains(book))
    s.context.processPendingChanges()
    #expect(
      recorder.take() == [
        "BookCategory#1.books removal old={Book#3}",
        "Book#3.category setting old=BookCategory#1 new=nil",
        "Book#3.@lifecycle setting new=delete",
      ])
    s.context._checkInvariants()
    // Undo takes back the delete, the one change that happened.
    try s.context.undoLog?.undo()
    #expect(!book.isDeleted && book.category === s.fiction && s.fiction.books.contains(book))
    s.context._checkInvariants()
    _ = token
  }

  @Test func anAttributeSetWhosePriorObserverDeletesTheObjectDoesNotHappen() throws {
    let s = BookStore.scenario()
    let book = s.books[1]
    s.context.processPendingChanges()
    s.context.undoLog = UndoLog()
    var heard: [String] = []
    let token = book.observe(\.title, options: [.prior, .new]) { book, change in
      heard.append(change.isPrior ? "prior" : "did \(change.newValue ?? "?")")
      if change.isPrior { try? book.context?.delete(book) }
    }
    try book.setValue("Renamed", forKey: "title")
    #expect(heard == ["prior"])
    #expect(book.isDeleted && book.title == "The second book")
    try s.context.undoLog?.undo()
    #expect(!book.isDeleted && book.title == "The second book" && book.category === s.fiction)
    #expect(s.context.undoLog?.canUndo == false, "the delete was the one change recorded")
    s.context._checkInvariants()
    _ = token
  }

  @Test func aToManyInsertWhosePriorObserverDeletesTheOwnerDoesNotHappen() throws {
    let s = BookStore.scenario()
    let book = s.books[2]
    s.context.processPendingChanges()
    var heard: [String] = []
    let token = s.fiction.observe(\.books, options: [.prior]) { category, change in
      heard.append(change.isPrior ? "prior" : "did")
      if change.isPrior { try? category.context?.delete(category) }
    }
    try s.fiction.mutableSet(forKey: "books").insert(book)
    #expect(s.fiction.isDeleted)
    #expect(book.category === s.science && s.science.books.contains(book))
    #expect(!heard.isEmpty && heard.allSatisfy { $0 == "prior" || $0 == "did" })
    #expect(s.fiction.books.isEmpty, "the delete emptied it; the insert did not happen")
    s.context._checkInvariants()
    _ = token
  }

  @Test func anObjectACascadeReachesDeletedAgainByItsOwnPriorObserver() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let page = s.context.insert(Page.self)
    page.book = book
    s.context.processPendingChanges()
    var calls = 0
    let token = page.observe(\.book, options: [.prior]) { page, change in
      calls += 1
      if change.isPrior { try? page.context?.delete(page) }
    }
    try s.context.delete(book)
    #expect(book.isDeleted && page.isDeleted && page.book == nil)
    #expect(calls == 3, "the prior call of the cascade, then the inner delete's prior and did")
    s.context._checkInvariants()
    _ = token
  }
}
