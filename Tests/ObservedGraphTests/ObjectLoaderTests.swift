import Foundation
import Testing

@testable import ObservedGraph

/// A store of its own that reads rows itself gives each value to the context's loader by the
/// property's name: the values land in the objects, whatever order the entity declares its
/// properties in.
@Suite("A store's loader")
struct ObjectLoaderTests {
  @Test func valuesGivenByNameLandInTheirProperties() throws {
    let rows: [NamedRowStore.Row] = [
      .init(key: 2, title: "Dune", price: 9.5, isbn: "978-0441013593", category: 1),
      .init(key: 3, title: "Emma", price: 4, isbn: nil, category: nil),
    ]
    let context = ObjectContext(store: NamedRowStore(model: BookStore.model, rows: rows))
    let books = try context.fetch(
      FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("title")]))
    #expect(books.map(\.title) == ["Dune", "Emma"])
    #expect(books.map(\.price) == [9.5, 4])
    #expect(books.map(\.isbn) == ["978-0441013593", nil])
    #expect(books.map { $0.category?.objectID.key } == [1, nil])
    #expect(books.map(\.objectID.key) == [2, 3])
  }

  @Test func aRowWhoseObjectIsInMemoryChangesNothing() throws {
    let store = NamedRowStore(
      model: BookStore.model, rows: [.init(key: 2, title: "Dune", price: 9.5)])
    let context = ObjectContext(store: store)
    let book = try #require(try context.fetch(FetchRequest<Book>(matching: nil)).first)
    book.title = "Changed"
    store.rows[0].title = "Dune again"
    let again = try context.fetch(FetchRequest<Book>(matching: nil))
    #expect(again.first === book)
    #expect(book.title == "Changed")
  }
}

/// A store whose fetch reads its own rows of books and gives each value by name
/// (`ObjectLoader.setAttribute(_:forKey:)`, `setToOne(_:entity:forKey:)`).
final class NamedRowStore: RowStore {
  struct Row {
    var key: Int64
    var title: String
    var price: Double = 0
    var isbn: String? = nil
    var category: Int64? = nil
  }

  var rows: [Row]
  /// The name the rows' titles are given under (a test of a wrong name changes it).
  var attributeName = "title"

  init(model: ObjectModel, rows: [Row]) {
    self.rows = rows
    super.init(model: model)
  }

  override func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool {
    let book = model.entitiesByName["Book"]!
    let category = model.entitiesByName["BookCategory"]!
    for row in rows where loader.beginObject(book, key: row.key) {
      // In an order of the store's own, not the entity's.
      loader.setToOne(row.category, entity: category, forKey: "category")
      loader.setAttribute(row.isbn.map { .string($0) }, forKey: "isbn")
      loader.setAttribute(.double(row.price), forKey: "price")
      loader.setAttribute(.string(row.title), forKey: attributeName)
    }
    return false
  }
}
