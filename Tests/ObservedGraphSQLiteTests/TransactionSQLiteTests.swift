import Foundation
import ObservedGraph
import Testing
import UndoLog

@testable import ObservedGraphSQLite

private struct Thrown: Error, Equatable {}

/// Transactions on a store: `save()` cannot run in a body; `transaction(save: true)` saves at the
/// commit, and a save that fails takes back the body's changes only.
@Suite struct TransactionSQLiteTests {
  /// A body that saves: the save throws, the body rethrows it, and neither the context nor the
  /// file keeps anything of it.
  @Test func aSaveInTheBodyThrowsAndNothingStays() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (_, context, books) = try SQLiteStoreTests.savedShop(at: url)
    let log = UndoLog()
    context.undoLog = log
    let dune = books[0]
    let before = try SQLiteStoreTests.dump(url.path)
    #expect {
      try context.transaction(actionName: "Reprice") {
        dune.price = 20
        try context.save()
      }
    } throws: { error in
      (error as? ObjectGraphError)?.kind == .transactionInProgress
    }
    #expect(dune.price == 12.5 && !context.hasChanges)
    #expect(log.undoCount == 0 && log.redoCount == 0 && log.groupingLevel == 0)
    #expect(try SQLiteStoreTests.dump(url.path) == before)
  }

  /// `transaction(save: true)` writes the body's changes and those pending before it, at the
  /// commit; the commit is one undo group, whose undo makes the objects differ from the file.
  @Test func aTransactionThatSavesWritesEveryPendingChange() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, books) = try SQLiteStoreTests.savedShop(at: url)
    let log = UndoLog()
    context.undoLog = log
    let (dune, emma) = (books[0], books[1])
    emma.title = "Emma, again"
    var saves: [String] = []
    let token = context.onDidSave { saved in saves.append("\(saved.updated.count) updated") }
    defer { token.invalidate() }
    try context.transaction(actionName: "Reprice", save: true) {
      dune.price = 20
      #expect(saves.isEmpty)
    }
    #expect(saves == ["2 updated"])
    #expect(!context.hasChanges && log.undoActionName == "Reprice")
    let reader = PersistentContainer(store: store).newContext()
    #expect((reader.object(with: dune.objectID) as? ShopBook)?.price == 20)
    #expect((reader.object(with: emma.objectID) as? ShopBook)?.title == "Emma, again")
    try log.undo()
    #expect(dune.price == 12.5 && dune.isUpdated)
  }

  /// A failure injected at every statement of the commit's save: the body's changes are taken
  /// back, heard by no one; changes pending before the call stay pending; the file is as it was.
  /// Then the save succeeds and the file holds everything.
  @Test(arguments: [StoreFaultTests.Shape.everything, .manyToMany, .deletes])
  func aFailureAtAnyStatementOfTheCommitsSaveTakesBackTheBodyOnly(
    _ shape: StoreFaultTests.Shape
  ) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let ids = try StoreFaultTests.makeLibrary(at: url)
    let store = try SQLiteStore(url: url, model: StoreFaultTests.model, options: shape.options)
    let context = PersistentContainer(store: store).newContext()
    let objects = StoreFaultTests.Objects(context: context, ids: ids)
    try objects["B"].setValue("Records", forKey: "name")  // pending before the transaction
    let held = ids.values.compactMap { context.object(with: $0) }
    let expected = try StoreFaultTests.snapshot(of: context, held)
    let file = try SQLiteStoreTests.dump(url.path)
    let recorder = ChangeRecorder(context: context)
    let failed = try StoreFaultTests.failingEachStatement(of: store, "\(shape)") {
      try context.transaction(actionName: "Edit", save: true) { try shape.edit(objects) }
    } check: { (step: Int) throws in
      #expect(recorder.isEmpty, "\(shape) step \(step): heard")
      #expect(try SQLiteStoreTests.dump(url.path) == file, "\(shape) step \(step): the file")
      #expect(
        try StoreFaultTests.snapshot(of: context, held) == expected,
        "\(shape) step \(step): the context")
      #expect(context.updatedObjects.map(\.objectID) == [ids["B"]!], "\(shape) step \(step)")
    }
    guard let failed else { return }
    #expect(failed > 4, "\(shape): the save ran \(failed) statements, each failed once")
    #expect(!context.hasChanges && !recorder.isEmpty)
    let all = Array(context.registeredObjects)
    let deleted = held.filter(\.isDeleted).map(\.objectID)
    try store.close()
    try StoreFaultTests.expectTheFileHolds(
      url, all.filter { !deleted.contains($0.objectID) }, deleted: deleted, "\(shape)")
  }
}
