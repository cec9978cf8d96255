import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

@Suite("Rollback and refresh")
struct RollbackRefreshTests {
  /// A container whose store holds Fiction (Dune with two pages, Emma) and Science (no books).
  static func saved() throws -> (
    PersistentContainer, ObjectContext, BookCategory, BookCategory, Book, Book
  ) {
    let container = PersistentContainer(model: BookStore.model)
    let context = container.viewContext
    let fiction = context.insert(BookCategory.self)
    fiction.name = "Fiction"
    let science = context.insert(BookCategory.self)
    science.name = "Science"
    let dune = context.insert(Book.self)
    dune.title = "Dune"
    dune.category = fiction
    dune.pages = [context.insert(Page.self), context.insert(Page.self)]
    let emma = context.insert(Book.self)
    emma.title = "Emma"
    emma.category = fiction
    try context.save()
    return (container, context, fiction, science, dune, emma)
  }

  @Test func rollbackPutsEveryObjectBackToItsSavedState() throws {
    let (_, context, fiction, science, dune, emma) = try Self.saved()
    context.undoLog = UndoLog()
    let pages = dune.pages
    let before = GraphSnapshot(context)
    dune.title = "Dune Messiah"
    dune.category = science
    dune.pages = [pages[1]]
    let new = context.insert(Book.self)
    new.title = "New"
    new.category = fiction
    try context.delete(emma)
    context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = context.onObjectsDidChange { events.append($0) }
    var heard: [String] = []
    let observer = dune.observe(\.title, options: [.old, .new]) { _, change in
      heard.append("\(change.oldValue ?? "") -> \(change.newValue ?? "")")
    }
    context.rollback()
    #expect(GraphSnapshot(context) == before, "the graph is the saved one")
    #expect(!context.hasChanges && context.insertedObjects.isEmpty)
    #expect(dune.title == "Dune" && dune.category === fiction && dune.pages == pages)
    #expect(fiction.books == [dune, emma] && science.books.isEmpty)
    #expect(pages[0].book === dune)
    #expect(new.context == nil && !new.isInserted, "the inserted object left")
    #expect(emma.context === context && !emma.isDeleted && emma.category === fiction)
    #expect(heard == ["Dune Messiah -> Dune"], "observers hear the values go back")
    #expect(events.count == 1)
    #expect(events.first?.inserted.contains(emma.objectID) == true, "the deleted object is back")
    #expect(events.first?.deleted.contains(new.objectID) == true, "the inserted one left")
    #expect(context.undoLog?.canUndo == false, "the undo log is emptied")
    _ = (token, observer)
  }

  @Test func rollbackOfNothingDoesNothing() throws {
    let (_, context, _, _, _, _) = try Self.saved()
    var events = 0
    let token = context.onObjectsDidChange { _ in events += 1 }
    context.rollback()
    #expect(events == 0 && !context.hasChanges)
    _ = token
  }

  @Test func refreshTurnsAnObjectIntoAFaultThatLoadsAndAwakensAgain() throws {
    let container = PersistentContainer(model: LifecycleHookTests.model)
    let store = container.store.identifier
    let writer = container.newContext()
    let novel = writer.insert(HookedNovel.self)
    novel.title = "Dune"
    try writer.save()
    let context = container.newContext()
    let dune = try #require(context.object(with: novel.objectID) as? HookedNovel)
    _ = dune.title
    _ = HookLog.shared.take(store)
    try context.refresh(dune, mergeChanges: false)
    #expect(dune.isFault)
    #expect(
      HookLog.shared.take(store) == ["willTurnIntoFault Dune", "didTurnIntoFault"],
      "values are readable in willTurnIntoFault")
    #expect(dune.title == "Dune")
    #expect(HookLog.shared.take(store) == ["awakeFromFetch Dune"], "loaded and awakened again")
    // A fault, an inserted object: nothing to do.
    try context.refresh(context.insert(HookedNovel.self), mergeChanges: false)
    #expect(HookLog.shared.take(store).isEmpty)
  }

  @Test func refreshWithoutMergingTakesBackUnsavedChangesOnBothSides() throws {
    let (_, context, fiction, science, dune, _) = try Self.saved()
    dune.title = "Draft"
    dune.category = science
    #expect(science.books == [dune])
    try context.refresh(dune, mergeChanges: false)
    #expect(dune.isFault)
    #expect(dune.title == "Dune" && dune.category === fiction)
    #expect(science.books.isEmpty && fiction.books.contains(dune))
    #expect(!dune.hasChanges)
  }

  @Test func refreshWithMergingKeepsUnsavedChangesOnTheStoresValues() throws {
    let (container, context, _, _, dune, _) = try Self.saved()
    // Another context saves a new title and price.
    let other = container.newContext()
    let otherDune = try #require(other.object(with: dune.objectID) as? Book)
    otherDune.title = "Dune (revised)"
    otherDune.price = 20
    try other.save()
    dune.price = 15  // unsaved here
    var heard: [String] = []
    let observer = dune.observe(\.title, options: [.new]) { _, change in
      heard.append(change.newValue ?? "")
    }
    try context.refresh(dune, mergeChanges: true)
    #expect(dune.title == "Dune (revised)" && dune.price == 15)
    #expect(heard == ["Dune (revised)"])
    #expect(dune.changedValues().keys.sorted() == ["price"])
    #expect(try dune.committedValues(forKeys: ["price"])["price"] as? Double == 20)
    _ = observer
  }

  @Test func undoWorksAcrossASaveAndARefresh() throws {
    let (_, context, _, _, dune, _) = try Self.saved()
    context.undoLog = UndoLog()
    dune.title = "Dune Messiah"
    context.processPendingChanges()
    try context.save()
    try context.refresh(dune, mergeChanges: false)
    #expect(dune.isFault)
    try context.undoLog?.undo()
    #expect(dune.title == "Dune" && dune.hasChanges)
    try context.undoLog?.redo()
    #expect(dune.title == "Dune Messiah")
  }

  @Test func aRefreshedObjectNobodyHoldsLeavesMemory() throws {
    let (_, context, _, _, dune, _) = try Self.saved()
    weak var page: Page?
    do {
      page = dune.pages.first
      try context.refresh(dune, mergeChanges: false)
    }
    #expect(page == nil, "the book's pages were only held by the book")
  }
}
