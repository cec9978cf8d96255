import Foundation
import ObservedGraph
import Testing

@Suite struct Primitive {
  @Test func primitiveAttributeSetIsNotAChange() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let book = s.books[0]
    try book.setPrimitiveValue("Raw", forKey: "title")
    #expect(book.title == "Raw")
    #expect(try book.primitiveValue(forKey: "title") as? String == "Raw")
    #expect(book.changedValues().isEmpty)
    #expect(book.isUpdated == false)
    #expect(book.hasChanges == false)
    #expect(s.context.hasChanges == false)
    #expect(s.context.updatedObjects.isEmpty)
    try s.context.save()
    #expect(book.title == "Raw")
    #expect(book.hasChanges == false)
  }

  @Test func primitiveRelationshipSetKeepsNoInverse() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let page = s.context.insert(Page.self)
    try s.context.save()
    try page.setPrimitiveValue(s.books[0], forKey: "book")
    #expect(page.book === s.books[0])
    #expect(s.books[0].pages.isEmpty)
    #expect(page.changedValues().isEmpty && s.books[0].changedValues().isEmpty)
    // Complete the other side by hand, so the graph is consistent again.
    try s.books[0].setPrimitiveValue([page], forKey: "pages")
    #expect(s.books[0].pages == [page])
    s.context._checkInvariants()
    try s.fiction.setPrimitiveValue([s.books[0], s.books[1], s.books[2]], forKey: "books")
    #expect(s.books[2].category === s.science)
    #expect(s.science.books == [s.books[2]])
    try s.fiction.setPrimitiveValue([s.books[0], s.books[1]], forKey: "books")
    #expect(s.context.hasChanges == false)
    #expect(s.context.updatedObjects.isEmpty)
    s.context._checkInvariants()
  }

  @Test func bracketedPrimitiveSetsAreChanges() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let book = s.books[0]
    // The CSV import pattern: several keys bracketed, primitive sets inside.
    for key in ["title", "price", "isbn"] { book.willChangeValue(forKey: key) }
    try book.setPrimitiveValue("Imported", forKey: "title")
    try book.setPrimitiveValue(99.5, forKey: "price")
    try book.setPrimitiveValue("978-0", forKey: "isbn")
    for key in ["isbn", "price", "title"] { book.didChangeValue(forKey: key) }
    let changed = book.changedValues()
    #expect(Set(changed.keys) == ["title", "price", "isbn"])
    #expect(changed["title"] as? String == "Imported")
    #expect(changed["price"] as? Double == 99.5)
    #expect(changed["isbn"] as? String == "978-0")
    #expect(book.isUpdated && book.hasChanges && s.context.hasChanges)
    #expect(s.context.updatedObjects == [book])
    let committed = try book.committedValues(forKeys: ["title", "price", "isbn"])
    #expect(committed["title"] as? String == "The first book")
    #expect(committed["price"] as? Double == 10)
    #expect(committed["isbn"] == nil)
    try s.context.save()
    #expect(book.changedValues().isEmpty && !book.isUpdated)
    #expect(try book.committedValues(forKeys: ["title"])["title"] as? String == "Imported")
  }

  @Test func importIntoNewObjects() throws {
    let context = ObjectContext(model: BookStore.model)
    let rows = [("Dune", 9.0), ("Emma", 4.5)]
    var books: [Book] = []
    for row in rows {
      let book = context.insert(Book.self)
      book.willChangeValue(forKey: "title")
      book.willChangeValue(forKey: "price")
      try book.setPrimitiveValue(row.0, forKey: "title")
      try book.setPrimitiveValue(row.1, forKey: "price")
      book.didChangeValue(forKey: "price")
      book.didChangeValue(forKey: "title")
      books.append(book)
    }
    #expect(books.map(\.title) == ["Dune", "Emma"])
    #expect(Set(books[0].changedValues().keys) == ["title", "price"])
    #expect(books[1].changedValues()["price"] as? Double == 4.5)
    try context.save()
    #expect(context.hasChanges == false)
  }

  @Test func bracketWithoutChangeIsNoChange() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let book = s.books[0]
    book.willChangeValue(forKey: "title")
    book.willChangeValue(forKey: "title")
    try book.setPrimitiveValue("Temporary", forKey: "title")
    try book.setPrimitiveValue("The first book", forKey: "title")
    book.didChangeValue(forKey: "title")
    book.didChangeValue(forKey: "title")
    #expect(book.changedValues().isEmpty)
    #expect(book.isUpdated == false)
    // Nested brackets count once, at the outermost close.
    book.willChangeValue(forKey: "price")
    book.willChangeValue(forKey: "price")
    try book.setPrimitiveValue(1.0, forKey: "price")
    book.didChangeValue(forKey: "price")
    #expect(book.isUpdated == false)
    book.didChangeValue(forKey: "price")
    #expect(Set(book.changedValues().keys) == ["price"])
  }

  @Test func equalValuesAreNoChange() throws {
    let s = BookStore.scenario()
    let page = s.context.insert(Page.self)
    page.book = s.books[0]
    try s.context.save()
    let book = s.books[0]
    book.title = book.title
    book.price = 10
    try book.setValue("The first book", forKey: "title")
    try book.setValue(10, forKey: "price")
    try book.setValue(nil, forKey: "isbn")
    book.category = s.fiction
    try book.setValue(s.fiction, forKey: "category")
    book.pages = [page]
    try book.setValue([page], forKey: "pages")
    try book.mutableOrderedSet(forKey: "pages").insert(page, at: 0)
    try s.fiction.mutableSet(forKey: "books").insert(book)
    for object in [book, s.fiction, page] as [ManagedObject] {
      #expect(object.isUpdated == false, "\(object)")
      #expect(object.changedValues().isEmpty, "\(object)")
    }
    #expect(s.context.hasChanges == false)
  }

  @Test func equalToManySetIsNoChange() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let members = s.fiction.books
    s.fiction.books = members
    try s.fiction.setValue(Set(s.fiction.books), forKey: "books")
    try s.fiction.setValue([s.books[1], s.books[0]], forKey: "books")
    #expect(s.fiction.isUpdated == false)
    #expect(s.fiction.changedValues().isEmpty)
    #expect(s.context.hasChanges == false)
  }
}
