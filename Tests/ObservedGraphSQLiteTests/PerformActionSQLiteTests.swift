import Foundation
import ObservedGraph
import Testing
import UndoLog

@testable import ObservedGraphSQLite

private struct ActionFailed: Error, Equatable {}

/// A save inside an action: the file keeps what the save wrote, whatever the action does next.
@Suite struct PerformActionSQLiteTests {
  /// A body that saves and then throws: the context's changes are taken back, so the objects
  /// differ from the file again; the file keeps the save; a second context reads the saved value.
  @Test func aSaveInAFailedActionStaysInTheFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, books) = try SQLiteStoreTests.savedShop(at: url)
    let log = UndoLog()
    context.undoLog = log
    let dune = books[0]
    #expect(throws: ActionFailed()) {
      try context.performAction("Reprice") {
        dune.price = 20
        try context.save()
        throw ActionFailed()
      }
    }
    #expect(dune.price == 12.5, "the context's change was taken back")
    #expect(dune.isUpdated && dune.changedValues().keys.sorted() == ["price"])
    #expect(log.undoCount == 0 && log.redoCount == 0 && log.groupingLevel == 0)
    let reader = PersistentContainer(store: store).newContext()
    let read = try #require(reader.object(with: dune.objectID) as? ShopBook)
    #expect(read.price == 20, "the file kept the save")
    try context.save()
    let again = PersistentContainer(store: store).newContext()
    #expect((again.object(with: dune.objectID) as? ShopBook)?.price == 12.5)
  }

  /// A body that saves and returns: the save is part of the action, whose undo makes the object
  /// differ from the file until the next save.
  @Test func aSaveInASuccessfulActionIsUndoneLikeAnyAfterASave() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (_, context, books) = try SQLiteStoreTests.savedShop(at: url)
    let log = UndoLog()
    context.undoLog = log
    let emma = books[1]
    try context.performAction("Rename and Save") {
      emma.title = "Emma, again"
      try context.save()
    }
    #expect(!emma.hasChanges && log.undoActionName == "Rename and Save")
    try log.undo()
    #expect(emma.title == "Emma" && emma.isUpdated)
  }
}
