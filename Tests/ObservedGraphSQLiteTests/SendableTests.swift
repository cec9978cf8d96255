import Foundation
import ObservedGraph
import ObservedGraphSQLite
import Testing

/// What crosses isolation domains: object identifiers, change values and the did-save change set
/// are `Sendable`; another task reads them, and finds the objects through a context of its own.
/// (That a context and its objects cannot cross is checked by the compiler:
/// `Scripts/check-isolation.sh`.)
@Suite struct SendableTests {
  /// Compiles only for a `Sendable` type.
  static func sendable<T: Sendable>(_: T.Type) -> String { "\(T.self)" }

  @Test func theValuesThatCrossAreSendable() {
    let names = [
      Self.sendable(ObjectID.self),
      Self.sendable(SavedObjects.self),
      Self.sendable(ObjectsDidChange.self),
      Self.sendable(ObservedChange<String>.self),
      Self.sendable(ObservedChange<[Int]>.self),
      Self.sendable(ChangeKind.self),
      Self.sendable(ChangeRecorder.Record.self),
      Self.sendable(FetchedResults<LeakBook>.IdentifiedChange.self),
      Self.sendable(FetchPredicate.self),
      Self.sendable(ObjectGraphError.self),
      Self.sendable(ObjectModel.self),
    ]
    #expect(names.count == 11)
  }

  /// Saves on a file, hands every did-save change set and the identifiers to a detached task, which
  /// opens the file with a store and a context of its own and reads the objects they name.
  @Test func aDidSaveChangeSetCrossesToAnotherTask() async throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("sendable.sqlite")
    let model = LifetimeSQLiteTests.model
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).viewContext
    var saves: [SavedObjects] = []
    let token = context.onDidSave { saves.append($0) }
    let books = ["Dune", "Emma", "Ubik"].map { title in
      let book = context.insert(LeakBook.self)
      book.title = title
      return book
    }
    try context.save()
    books[0].title = "Dune Messiah"
    try context.delete(books[2])
    try context.save()
    token.invalidate()
    try store.close()
    #expect(saves.count == 2)

    let sent = saves
    let ids = books.map(\.objectID)
    let seen = try await Task.detached { () -> [String] in
      let store = try SQLiteStore(url: url, model: model)
      defer { try? store.close() }
      let context = PersistentContainer(store: store).viewContext
      var lines: [String] = []
      for (index, saved) in sent.enumerated() {
        for id in saved.inserted + saved.updated {
          // An object a later save deleted is gone from the file.
          let book = try? context.existingObject(with: id) as? LeakBook
          lines.append("\(index) \(book?.title ?? "gone")")
        }
        for id in saved.deleted {
          lines.append("\(index) \(id == ids[2] ? "Ubik" : "?") deleted")
          #expect(throws: ObjectGraphError.self) { try context.existingObject(with: id) }
        }
      }
      return lines
    }.value
    #expect(
      seen == ["0 Dune Messiah", "0 Emma", "0 gone", "1 Dune Messiah", "1 Ubik deleted"]
    )
  }

  /// Change values — what an observer hears, objects-did-change events, live results' changes by
  /// identifier — are read in another task; the objects-did-change stream is consumed there.
  @Test func changeValuesCrossToAnotherTask() async throws {
    let context = ObjectContext(model: LifetimeSQLiteTests.model)
    let events = context.objectsDidChange
    let consumer = Task.detached { () -> [String] in
      var lines: [String] = []
      for await event in events {
        lines.append("\(event.inserted.count) in, \(event.updated.count) updated")
        if lines.count == 2 { break }
      }
      return lines
    }
    let book = context.insert(LeakBook.self)
    var heard: [ObservedChange<String>] = []
    let token = book.observe(\.title, options: [.old, .new]) { _, change in heard.append(change) }
    let results = try FetchedResults(
      context: context,
      request: FetchRequest<LeakBook>(matching: nil, sortedBy: [FetchSort("title")]))
    context.processPendingChanges()
    var identified: [FetchedResults<LeakBook>.IdentifiedChange] = []
    let resultsToken = results.onChange { identified.append(.init($0)) }
    book.title = "Dune"
    context.insert(LeakBook.self).title = "Emma"
    context.processPendingChanges()
    token.invalidate()
    resultsToken.invalidate()

    let changes = heard
    let sentChanges = identified
    let id = book.objectID
    let read = await Task.detached { () -> [String] in
      changes.map { "\($0.kind) \($0.oldValue ?? "-") -> \($0.newValue ?? "-")" }
        + sentChanges.map { change in
          "\(change.difference.insertions.count) in, updated \(change.updated.contains(id))"
        }
    }.value
    #expect(read == ["setting  -> Dune", "1 in, updated true"])
    #expect(await consumer.value == ["1 in, 0 updated", "1 in, 1 updated"])
  }
}
