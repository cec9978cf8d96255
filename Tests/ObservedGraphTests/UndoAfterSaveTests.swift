import Foundation
import ObservedGraph
import Testing
import UndoLog

@Suite("Undo of a delete after a save")
struct UndoAfterSaveTests {
  @Test func savedDeleteComesBackAsAnInsertWithItsCascade() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    let book = s.books[0]
    let pages = (0..<2).map { _ in s.context.insert(Page.self) }
    book.pages = pages
    s.context.processPendingChanges()
    try s.context.save()

    try s.context.delete(book)
    s.context.processPendingChanges()
    try s.context.save()
    #expect(!s.context.registeredObjects.contains(book))
    #expect(book.context == nil && book.isDeleted)
    #expect(throws: ObjectGraphError.self) { try book.setValue([Page](), forKey: "pages") }

    try log.undo()
    #expect(s.context.registeredObjects.isSuperset(of: [book] + pages))
    #expect(book.isInserted && pages.allSatisfy(\.isInserted))
    #expect(book.pages == pages && pages.allSatisfy { $0.book === book })
    #expect(book.category === s.fiction && s.fiction.books.contains(book))
    s.context._checkInvariants()
    try s.context.save()
    #expect(!book.hasChanges)

    try log.redo()
    #expect(book.isDeleted && s.fiction.books == [s.books[1]])
    s.context._checkInvariants()
  }
}
