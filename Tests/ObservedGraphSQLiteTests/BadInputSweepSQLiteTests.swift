import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

// The SQLite store's throwing API with bad input: each row calls one API with one kind of bad
// input on a saved store in a real file and checks that the error names what was wrong and that
// the file (every row of every table) and the context are as before. Damaged and truncated files
// are tested in SQLiteStoreFileTests and SQLiteStoreTests; a closed store's loads and saves in
// SQLiteStoreTests (`aClosedStoreThrowsOnEveryUse`); a value a column cannot hold in
// SQLiteStoreModelTests.

/// A saved shop in a file, its store and a context on it.
final class SQLiteSweepWorld {
  let folder: SQLiteConnectionTests.Folder
  let url: URL
  let store: SQLiteStore
  let context: ObjectContext
  let books: [ShopBook]

  init() throws {
    folder = try SQLiteConnectionTests.Folder()
    url = folder.url.appendingPathComponent("shop.sqlite")
    (store, context, books) = try SQLiteStoreTests.savedShop(at: url)
  }

  func id(_ entity: String, _ key: Int64, store identifier: UUID? = nil) -> ObjectID {
    ObjectID(storeIdentifier: identifier ?? store.identifier, entityName: entity, key: key)
  }

  /// A stored object of `entity` with `values` by name and every other property omitted.
  func row(_ entity: String, _ key: Int64, _ values: [String: StoredProperty] = [:])
    -> StoredObject
  {
    let names = store.model.entity(named: entity)?.propertyNames ?? ["name"]
    return StoredObject(id: id(entity, key), properties: names.map { values[$0] ?? .omitted })
  }

  /// What must not change: the file's rows and what the context shows.
  func snapshot() throws -> [String] {
    let objects = context.registeredObjects.map { object in
      "\(object.objectID) \(object.isFault ? "fault" : "\(object.changedValues().keys.sorted())")"
    }
    return try SQLiteStoreTests.dump(url.path) + objects.sorted()
      + ["hasChanges \(context.hasChanges)"]
  }
}

/// One SQLite store API called with one kind of bad input, and what the error must say.
struct SQLiteSweepRow: Sendable, CustomTestStringConvertible {
  let api: String
  let input: String
  /// The error's kind and text the message must contain; nil kind for another error (a
  /// ``SQLiteError``, or the file's own).
  let kind: ObjectGraphError.Kind?
  /// Whether the API accepts the input by design (a load of what the file does not hold finds
  /// nothing): no error, and nothing changes.
  var accepts = false
  let mentions: [String]
  let body: @Sendable (SQLiteSweepWorld) throws -> Void

  init(
    _ api: String, _ input: String, _ kind: ObjectGraphError.Kind?, _ mentions: [String],
    _ body: @escaping @Sendable (SQLiteSweepWorld) throws -> Void
  ) {
    self.api = api
    self.input = input
    self.kind = kind
    self.mentions = mentions
    self.body = body
  }

  var testDescription: String { "\(api): \(input)" }

  /// A row whose API finds nothing for the input and changes nothing.
  static func findsNothing(
    _ api: String, _ input: String, _ body: @escaping @Sendable (SQLiteSweepWorld) throws -> Void
  ) -> SQLiteSweepRow {
    var row = SQLiteSweepRow(api, input, nil, [], body)
    row.accepts = true
    return row
  }

  static let all: [SQLiteSweepRow] = [
    findsNothing("loadObjects(_:)", "identifier of another store") { w in
      let found = try w.store.loadObjects([w.id("ShopBook", 2, store: UUID())])
      #expect(found.isEmpty)
    },
    findsNothing("loadObjects(_:)", "unknown entity") { w in
      let found = try w.store.loadObjects([w.id("Author", 2)])
      #expect(found.isEmpty)
    },
    findsNothing("loadMembers(of:relationship:)", "unknown key") { w in
      let found = try w.store.loadMembers(of: w.id("Shop", 1), relationship: "owners")
      #expect(found.isEmpty)
    },
    findsNothing("loadMembers(of:relationship:)", "an attribute") { w in
      let found = try w.store.loadMembers(of: w.id("Shop", 1), relationship: "name")
      #expect(found.isEmpty)
    },
    findsNothing("loadMembers(of:relationship:)", "a to-one relationship") { w in
      let found = try w.store.loadMembers(of: w.books[0].objectID, relationship: "shop")
      #expect(found.isEmpty)
    },
    SQLiteSweepRow("save(_:)", "object of an unknown entity", .unknownEntity, ["Author"]) { w in
      try w.store.save(StoreChanges(inserted: [w.row("Author", 99)]))
    },
    SQLiteSweepRow("save(_:)", "too few properties", .wrongType, ["ShopBook"]) { w in
      var row = w.row("ShopBook", 99)
      row.properties.removeLast()
      try w.store.save(StoreChanges(inserted: [row]))
    },
    SQLiteSweepRow("save(_:)", "key of an existing object", .duplicateObject, ["ShopBook"]) { w in
      try w.store.save(
        StoreChanges(inserted: [w.row("ShopBook", w.books[0].objectID.key)]))
    },
    SQLiteSweepRow("save(_:)", "object of another store", .otherStore, ["ShopBook"]) { w in
      var row = w.row("ShopBook", 99)
      row.id = w.id("ShopBook", 99, store: UUID())
      try w.store.save(StoreChanges(inserted: [row]))
    },
    SQLiteSweepRow("save(_:)", "update of a missing object", .objectNotFound, ["ShopBook#999"]) {
      w in
      try w.store.save(
        StoreChanges(updated: [w.row("ShopBook", 999, ["title": .attribute(.string("x"))])]))
    },
    SQLiteSweepRow("fetch through a context", "unknown key", .unknownKey, ["ShopBook", "author"]) {
      w in
      _ = try w.context.fetch(
        FetchRequest<ShopBook>(matching: FetchPredicate(format: "author == 'x'")))
    },
    SQLiteSweepRow("count(for:) through a context", "unknown key", .unknownKey, ["author"]) { w in
      _ = try w.context.count(
        for: FetchRequest<ShopBook>(matching: FetchPredicate(format: "author > 1")))
    },
    findsNothing("count(_:) of the store", "predicate with an unknown key") { w in
      let entity = try #require(w.store.model.entity(named: "ShopBook"))
      _ = try w.store.count(
        StoreFetch(entity: entity, predicate: FetchPredicate(format: "author > 1")))
    },
    SQLiteSweepRow("fetch through a context", "closed store", nil, ["closed"]) { w in
      try w.store.close()
      _ = try w.context.fetch(FetchRequest<ShopBook>(matching: nil))
    },
    SQLiteSweepRow("count(for:) through a context", "closed store", nil, ["closed"]) { w in
      try w.store.close()
      _ = try w.context.count(for: FetchRequest<ShopBook>(matching: nil))
    },
    SQLiteSweepRow("existingObject(with:)", "closed store", nil, ["closed"]) { w in
      let another = PersistentContainer(store: w.store).newContext()
      try w.store.close()
      _ = try another.existingObject(with: w.books[1].objectID).value(forKey: "title")
    },
    SQLiteSweepRow("SQLiteStore(url:model:)", "a model the file was not made for", nil, []) { w in
      let other = try ObjectModel(entities: [
        EntityDescription(
          name: "Shop",
          attributes: [AttributeDescription(name: "name", type: .int64, defaultValue: Int64(0))])
      ])
      _ = try SQLiteStore(url: w.url, model: other)
    },
  ]
}

@Suite("Bad input sweep, SQLite store")
struct BadInputSweepSQLite {
  @Test(arguments: SQLiteSweepRow.all)
  func rejects(_ row: SQLiteSweepRow) throws {
    let world = try SQLiteSweepWorld()
    let before = try world.snapshot()
    if row.accepts {
      try row.body(world)
      try world.store.close()
      #expect(try world.snapshot() == before)
      return
    }
    let thrown = #expect(throws: (any Error).self) { try row.body(world) }
    let text = thrown.map { "\($0)" } ?? ""
    if let kind = row.kind {
      let error = try #require(thrown as? ObjectGraphError, "\(text)")
      #expect(error.kind == kind, "\(error)")
    }
    for mention in row.mentions {
      #expect(text.contains(mention), "\(text)")
    }
    try world.store.close()
    // The file holds what it held; read again, so is the context's view of it.
    #expect(try world.snapshot() == before)
  }
}
