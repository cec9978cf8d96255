import Foundation
import ObservedGraph
import Testing

@Suite struct Errors {
  @Test func unknownKey() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let c = s.context
    expectGraphError(.unknownKey, entity: "Book", key: "author", value: "author", in: c) {
      _ = try book.value(forKey: "author")
    }
    expectGraphError(.unknownKey, entity: "Book", key: "author", value: "author", in: c) {
      try book.setValue("Herbert", forKey: "author")
    }
    expectGraphError(.unknownKey, entity: "BookCategory", key: "label", in: c) {
      _ = try book.value(forKeyPath: "category.label")
    }
    expectGraphError(.unknownKey, entity: "BookCategory", key: "label", in: c) {
      try book.setValue("x", forKeyPath: "category.label")
    }
    expectGraphError(.unknownKey, entity: "Book", key: "authors", in: c) {
      _ = try book.mutableSet(forKey: "authors")
    }
    expectGraphError(.unknownKey, entity: "Book", key: "authors", in: c) {
      _ = try book.mutableOrderedSet(forKey: "authors")
    }
    expectGraphError(.unknownKey, entity: "Book", key: "author", in: c) {
      _ = try book.primitiveValue(forKey: "author")
    }
    expectGraphError(.unknownKey, entity: "Book", key: "author", in: c) {
      try book.setPrimitiveValue("x", forKey: "author")
    }
    expectGraphError(.unknownKey, entity: "Book", key: "author", in: c) {
      _ = try book.committedValues(forKeys: ["title", "author"])
    }
  }

  @Test func wrongType() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let c = s.context
    expectGraphError(.wrongType, entity: "Book", key: "title", value: "12", in: c) {
      try book.setValue(12, forKey: "title")
    }
    expectGraphError(.wrongType, entity: "Book", key: "price", value: "cheap", in: c) {
      try book.setValue("cheap", forKey: "price")
    }
    expectGraphError(.wrongType, entity: "Book", key: "category", value: "Fiction", in: c) {
      try book.setValue("Fiction", forKey: "category")
    }
    expectGraphError(.wrongType, entity: "Book", key: "pages", value: "3", in: c) {
      try book.setValue(3, forKey: "pages")
    }
    expectGraphError(.wrongType, entity: "BookCategory", key: "books", value: "7", in: c) {
      try s.fiction.setValue([s.books[2], 7] as [Any], forKey: "books")
    }
    expectGraphError(.wrongType, entity: "Book", key: "title", in: c) {
      try book.setPrimitiveValue(1.5, forKey: "title")
    }
    let inventory = ObjectContext(model: Inventory.model)
    let item = try inventory.insertObject(forEntityName: "Inventory")
    expectGraphError(.wrongType, entity: "Inventory", key: "count", value: "100000", in: inventory)
    {
      try item.setValue(100_000, forKey: "count")
    }
    expectGraphError(.wrongType, entity: "Inventory", key: "date", value: "today", in: inventory) {
      try item.setValue("today", forKey: "date")
    }
  }

  @Test func nilForNonOptionalAttribute() throws {
    let s = BookStore.scenario()
    expectGraphError(.nilNotAllowed, entity: "Book", key: "title", value: "nil", in: s.context) {
      try s.books[0].setValue(nil, forKey: "title")
    }
    let none: Double? = nil
    expectGraphError(.nilNotAllowed, entity: "Book", key: "price", in: s.context) {
      try s.books[0].setValue(none as Any, forKey: "price")
    }
    expectGraphError(.nilNotAllowed, entity: "BookCategory", key: "name", in: s.context) {
      try s.fiction.setValue(nil, forKeyPath: "name")
    }
  }

  @Test func wrongEntity() throws {
    let s = BookStore.scenario()
    let c = s.context
    let page = c.insert(Page.self)
    let short = page.objectID.description
    expectGraphError(.wrongEntity, entity: "Book", key: "category", value: short, in: c) {
      try s.books[0].setValue(page, forKey: "category")
    }
    expectGraphError(.wrongEntity, entity: "BookCategory", key: "books", value: short, in: c) {
      try s.fiction.mutableSet(forKey: "books").insert(page)
    }
    expectGraphError(.wrongEntity, entity: "BookCategory", key: "books", in: c) {
      try s.fiction.setValue([s.books[2], page], forKey: "books")
    }
    expectGraphError(.wrongEntity, entity: "Book", key: "pages", in: c) {
      try s.books[0].mutableOrderedSet(forKey: "pages").append(s.books[1])
    }
    expectGraphError(.wrongEntity, entity: "Page", key: "book", in: c) {
      try page.setPrimitiveValue(s.fiction, forKey: "book")
    }
    let league = ObjectContext(model: League.model)
    let team = league.insert(Team.self)
    let other = league.insert(Team.self)
    expectGraphError(.wrongEntity, entity: "Team", key: "players", in: league) {
      try team.setValue([other], forKey: "players")
    }
    let vehicles = ObjectContext(model: Dynamic.vehicles)
    let lot = try vehicles.make("Lot", "lot")
    let bike = try vehicles.make("Bike", "bmx")
    expectGraphError(.wrongEntity, entity: "Lot", key: "cars", value: "Bike", in: vehicles) {
      try lot.mutableSet(forKey: "cars").insert(bike)
    }
  }

  @Test func objectOfAnotherContext() throws {
    let s = BookStore.scenario()
    let other = BookStore.scenario()
    let foreign = other.fiction
    expectGraphError(.otherContext, entity: "Book", key: "category", in: s.context) {
      try s.books[0].setValue(foreign, forKey: "category")
    }
    expectGraphError(.otherContext, entity: "BookCategory", key: "books", in: s.context) {
      try s.fiction.mutableSet(forKey: "books").insert(other.books[2])
    }
    expectGraphError(.otherContext, entity: "BookCategory", key: "books", in: s.context) {
      try s.fiction.setValue([s.books[2], other.books[2]], forKey: "books")
    }
    expectGraphError(.otherContext, entity: "Book", key: "category", in: s.context) {
      try s.books[0].setValue(foreign, forKeyPath: "category")
    }
    expectGraphError(.otherContext, entity: "BookCategory", in: s.context, extra: [foreign]) {
      try s.context.delete(foreign)
    }
    #expect(GraphSnapshot(other.context).objects.count == 5)
    #expect(foreign.books == [other.books[0], other.books[1]])
  }

  @Test func deletedObjectRelationships() throws {
    let s = BookStore.scenario()
    let c = s.context
    let book = s.books[0]
    let pages = try book.mutableOrderedSet(forKey: "pages")
    let books = try s.science.mutableSet(forKey: "books")
    let loose = c.insert(Page.self)
    try c.delete(book)
    try c.delete(s.science)
    // Reading a deleted object works on every path: its attributes keep their values, its
    // relationships are empty (deleting emptied them).
    #expect(book.title == "The first book")
    #expect(try book.value(forKey: "price") as? Double == 10)
    #expect(try book.value(forKey: "category") == nil && book.category == nil)
    #expect(try book.value(forKey: "pages") as? [Page] == [] && book.pages.isEmpty)
    #expect(try book.value(forKeyPath: "category.name") == nil)
    #expect(try s.science.value(forKey: "books") as? Set<Book> == [] && s.science.books.isEmpty)
    // Changing it fails on every path.
    expectGraphError(.deletedObject, entity: "Book", key: "title", in: c) {
      try book.setValue("x", forKey: "title")
    }
    expectGraphError(.deletedObject, entity: "Book", key: "category", in: c) {
      try book.setPrimitiveValue(s.fiction, forKey: "category")
    }
    expectGraphError(.deletedObject, entity: "Book", key: "category", in: c) {
      try book.setValue(s.fiction, forKey: "category")
    }
    expectGraphError(.deletedObject, entity: "Book", key: "category", in: c) {
      try book.setValue(nil, forKey: "category")
    }
    expectGraphError(.deletedObject, entity: "BookCategory", key: "books", in: c) {
      _ = try s.science.mutableSet(forKey: "books")
    }
    expectGraphError(.deletedObject, entity: "Book", key: "pages", in: c) {
      _ = try book.mutableOrderedSet(forKey: "pages")
    }
    expectGraphError(.deletedObject, entity: "Book", key: "pages", in: c) {
      try pages.append(loose)
    }
    expectGraphError(.deletedObject, entity: "BookCategory", key: "books", in: c) {
      try books.insert(s.books[1])
    }
    expectGraphError(.deletedObject, entity: "BookCategory", key: "books", in: c) {
      try books.removeAll()
    }
    // A deleted object cannot join a live object's relationship either.
    expectGraphError(.deletedObject, entity: "BookCategory", key: "books", in: c) {
      try s.fiction.mutableSet(forKey: "books").insert(book)
    }
    expectGraphError(.deletedObject, entity: "Book", key: "category", in: c) {
      try s.books[1].setValue(s.science, forKey: "category")
    }
    // Saved, a deleted object has left the context: it is deleted or invalid, never usable.
    try c.save()
    let before = GraphSnapshot(c, extra: [book])
    let error = #expect(throws: ObjectGraphError.self) {
      try book.setValue(s.fiction, forKey: "category")
    }
    #expect(error.map { [.deletedObject, .invalidObject].contains($0.kind) } == true)
    #expect(error?.entity == "Book" && error?.key == "category")
    #expect(error?.description.contains("Book.category") == true)
    #expect(GraphSnapshot(c, extra: [book]) == before)
  }

  @Test func invalidObjectAfterReset() throws {
    let s = BookStore.scenario()
    let c = s.context
    let book = s.books[0]
    let id = book.objectID
    c.reset()
    #expect(c.registeredObjects.isEmpty)
    #expect(c.object(with: id) == nil)
    #expect(book.context == nil)
    let old = [book, s.fiction]
    // Reading works (the last attribute values; relationships were dropped), changing fails.
    #expect(try book.value(forKey: "title") as? String == book.title)
    #expect(try book.value(forKeyPath: "category.name") == nil && book.category == nil)
    expectGraphError(.invalidObject, entity: "Book", key: "title", in: c, extra: old) {
      try book.setValue("x", forKey: "title")
    }
    expectGraphError(.invalidObject, entity: "BookCategory", key: "books", in: c, extra: old) {
      _ = try s.fiction.mutableSet(forKey: "books")
    }
    expectGraphError(.invalidObject, entity: "Book", key: "pages", in: c, extra: old) {
      _ = try book.mutableOrderedSet(forKey: "pages")
    }
    expectGraphError(.invalidObject, entity: "Book", in: c, extra: old) {
      try c.delete(book)
    }
    let fresh = c.insert(Book.self)
    expectGraphError(.invalidObject, entity: "Book", key: "category", in: c, extra: old) {
      try fresh.setValue(s.fiction, forKey: "category")
    }
    #expect(fresh.category == nil)
  }

  @Test func indexOutOfRange() throws {
    let context = ObjectContext(model: BookStore.model)
    let book = context.insert(Book.self)
    let first = context.insert(Page.self)
    let extra = context.insert(Page.self)
    book.pages = [first]
    let pages = try book.mutableOrderedSet(forKey: "pages")
    expectGraphError(.indexOutOfRange, entity: "Book", key: "pages", value: "2", in: context) {
      try pages.insert(extra, at: 2)
    }
    expectGraphError(.indexOutOfRange, entity: "Book", key: "pages", value: "-1", in: context) {
      try pages.insert(extra, at: -1)
    }
    expectGraphError(.indexOutOfRange, entity: "Book", key: "pages", value: "1", in: context) {
      try pages.remove(at: 1)
    }
    expectGraphError(.indexOutOfRange, entity: "Book", key: "pages", value: "1", in: context) {
      try pages.move(from: 0, to: 1)
    }
    expectGraphError(.indexOutOfRange, entity: "Book", key: "pages", value: "3", in: context) {
      try pages.move(from: 3, to: 0)
    }
    #expect(book.pages == [first] && extra.book == nil)
  }

  @Test func notToMany() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    for key in ["title", "category", "pages"] {
      expectGraphError(.notToMany, entity: "Book", key: key, in: s.context) {
        _ = try book.mutableSet(forKey: key)
      }
    }
    for key in ["price", "category"] {
      expectGraphError(.notToMany, entity: "Book", key: key, in: s.context) {
        _ = try book.mutableOrderedSet(forKey: key)
      }
    }
    expectGraphError(.notToMany, entity: "BookCategory", key: "books", in: s.context) {
      _ = try s.fiction.mutableOrderedSet(forKey: "books")
    }
  }
}
