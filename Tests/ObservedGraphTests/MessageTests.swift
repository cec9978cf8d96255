import Foundation
import Testing

@testable import ObservedGraph

/// Messages a new user met: each names the entity a key path starts at, quotes what it names,
/// and says its prefix once.
@Suite struct MessageTests {
  @Test(arguments: ["category.bogus.name", "category.name.length"])
  func aKeyPathErrorNamesTheEntityThePathStartsAt(_ path: String) throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let wrongStep =
      path.hasSuffix("length") ? "'name' in key path" : "BookCategory has no property 'bogus'"
    let observed = #expect(throws: ObjectGraphError.self) {
      _ = try book.observe(keyPath: path, options: [.new]) { _ in }
    }
    let read = #expect(throws: ObjectGraphError.self) { _ = try book.value(forKeyPath: path) }
    let written = #expect(throws: ObjectGraphError.self) {
      try book.setValue("x", forKeyPath: path)
    }
    for error in [observed, read, written] {
      #expect(error?.kind == .unknownKey && error?.entity == "Book" && error?.key == path)
      #expect(
        error?.description.hasPrefix("Book.\(path): ") == true, "\(String(describing: error))")
      #expect(error?.description.contains(wrongStep) == true, "\(String(describing: error))")
    }
  }

  @Test(arguments: ["", "Magazine"])
  func anUnknownEntityNameIsQuoted(_ name: String) {
    let context = ObjectContext(model: BookStore.model)
    let inserted = #expect(throws: ObjectGraphError.self) {
      try context.insertObject(forEntityName: name)
    }
    let fetched = #expect(throws: ObjectGraphError.self) {
      try context.fetch(FetchRequest<ManagedObject>(entityName: name))
    }
    for error in [inserted, fetched] {
      #expect(error?.kind == .unknownEntity)
      #expect(error?.reason == "the model has no entity named '\(name)'")
    }
  }
}
