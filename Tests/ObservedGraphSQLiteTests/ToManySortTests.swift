import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// A sort key path through a to-many relationship has no single value: a fetch and a count
/// refuse it with `notToMany` in the SQLite store as in memory, with the same key and reason.
@Suite struct ToManySortTests {
  /// A context on a store of each kind, holding the shop of ``SQLiteStoreTests/savedShop(at:)``
  /// and a second shop, saved.
  static func contexts(_ folder: SQLiteConnectionTests.Folder) throws -> [(String, ObjectContext)] {
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (_, sqlite, _) = try SQLiteStoreTests.savedShop(at: url)
    let memory = PersistentContainer(store: InMemoryStore(model: SQLiteStoreTests.shop))
      .viewContext
    for context in [sqlite, memory] {
      if context === memory {
        let shop = context.insert(Shop.self)
        let book = context.insert(ShopBook.self)
        book.shop = shop
        book.pages = [context.insert(ShopPage.self)]
      }
      context.insert(Shop.self).name = "Second"
      context.insert(ShopBook.self).title = "Solo"
      try context.save()
    }
    return [("SQLite", sqlite), ("in memory", memory)]
  }

  static let sorts: [(entity: String, keyPath: String, limit: Int)] = [
    ("Shop", "books.price", 0), ("ShopBook", "pages.text", 0), ("ShopBook", "shop.books.title", 0),
    ("ShopBook", "pages.text", 1),
  ]

  @Test func aFetchAndACountRefuseASortThroughAToManyInEveryStore() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let contexts = try Self.contexts(folder)
    for (entity, keyPath, limit) in Self.sorts {
      var errors: [String: [String]] = [:]
      for (name, context) in contexts {
        var request = FetchRequest<ManagedObject>(
          entityName: entity, sortDescriptors: [FetchSort(keyPath)])
        request.fetchLimit = limit
        let fetched = #expect(throws: ObjectGraphError.self, "\(name) \(keyPath)") {
          _ = try context.fetch(request)
        }
        let counted = #expect(throws: ObjectGraphError.self, "\(name) count \(keyPath)") {
          _ = try context.count(for: request)
        }
        errors[name] = [fetched, counted].map { error in
          guard let error else { return "nothing thrown" }
          return "\(error.kind) \(error.entity) \(error.key ?? "") \(error.reason)"
        }
      }
      #expect(errors["SQLite"] == errors["in memory"], "\(keyPath)")
      #expect(
        errors["SQLite"]?.allSatisfy { $0.hasPrefix("notToMany \(entity) \(keyPath) ") } == true,
        "\(errors)")
    }
  }

  @Test func theSQLiteStoreRefusesItWithoutTwoObjectsToCompare() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let store = try SQLiteStore(url: url, model: SQLiteStoreTests.shop)
    let context = PersistentContainer(store: store).viewContext
    let request = FetchRequest<Shop>(matching: nil, sortedBy: [FetchSort("books.price")])
    for body in [{ _ = try context.fetch(request) }, { _ = try context.count(for: request) }] {
      let error = #expect(throws: ObjectGraphError.self) { try body() }
      #expect(error?.kind == .notToMany && error?.key == "books.price")
    }
    // A sort through to-one steps only is a sort.
    let sorted = FetchRequest<ShopBook>(matching: nil, sortedBy: [FetchSort("shop.name")])
    #expect(try context.fetch(sorted).isEmpty)
    try store.close()
  }
}
