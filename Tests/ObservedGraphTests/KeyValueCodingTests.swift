import Foundation
import ObservedGraph
import Testing

/// A value through the typed wrapper of `Specimen`, by key.
private func typedValue(_ specimen: Specimen, _ key: String) -> AnyHashable {
  switch key {
  case "text": return specimen.text
  case "flag": return specimen.flag
  case "small": return specimen.small
  case "medium": return specimen.medium
  case "large": return specimen.large
  case "single": return specimen.single
  case "double": return specimen.double
  case "decimal": return specimen.decimal
  case "date": return specimen.date
  case "data": return specimen.data
  case "uuid": return specimen.uuid
  case "url": return specimen.url
  case "size": return specimen.size
  default: fatalError("no typed property \(key)")
  }
}

/// An integer given by name to an integer or floating-point attribute, and what is stored (nil:
/// the value does not fit and the set throws `wrongType`).
struct CoercionCase: Sendable, CustomTestStringConvertible {
  let key: String
  let input: any Sendable
  let stored: (any Hashable & Sendable)?

  var testDescription: String { "\(input) (\(type(of: input))) → \(key)" }

  static let all: [CoercionCase] = [
    CoercionCase(key: "small", input: 12, stored: Int16(12)),
    CoercionCase(key: "small", input: -32_768, stored: Int16.min),
    CoercionCase(key: "small", input: Int64(32_767), stored: Int16.max),
    CoercionCase(key: "small", input: 32_768, stored: nil),
    CoercionCase(key: "small", input: 40_000, stored: nil),
    CoercionCase(key: "medium", input: UInt8(7), stored: Int32(7)),
    CoercionCase(key: "medium", input: Int64(Int32.max) + 1, stored: nil),
    CoercionCase(key: "large", input: 5, stored: Int64(5)),
    CoercionCase(key: "large", input: UInt64.max, stored: nil),
    CoercionCase(key: "scratch", input: Int16(9), stored: 9),
    CoercionCase(key: "double", input: 3, stored: 3.0),
    CoercionCase(key: "single", input: 2, stored: Float(2)),
  ]
}

@Suite struct KeyValueCoding {
  @Test(arguments: AttributeCase.all)
  func attributeByKey(_ row: AttributeCase) throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    let initial = try #require(try specimen.value(forKey: row.key) as? any Hashable)
    #expect(AnyHashable(initial) == AnyHashable(row.defaultValue))
    try specimen.setValue(row.newValue, forKey: row.key)
    let stored = try #require(try specimen.value(forKey: row.key))
    #expect(sameType(stored, row.newValue))
    let hashable = try #require(stored as? any Hashable)
    #expect(AnyHashable(hashable) == AnyHashable(row.newValue))
    #expect(typedValue(specimen, row.key) == AnyHashable(row.newValue))
    let before = GraphSnapshot(context)
    let error = #expect(throws: ObjectGraphError.self) {
      try specimen.setValue(row.wrongValue, forKey: row.key)
    }
    #expect(error?.kind == .wrongType)
    #expect(error?.entity == "Specimen")
    #expect(error?.key == row.key)
    #expect(error?.description.contains(row.typeName) == true)
    #expect(GraphSnapshot(context) == before)
  }

  @Test(arguments: CoercionCase.all)
  func integerCoercion(_ row: CoercionCase) throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    guard let expected = row.stored else {
      let before = GraphSnapshot(context)
      let error = #expect(throws: ObjectGraphError.self) {
        try specimen.setValue(row.input, forKey: row.key)
      }
      #expect(error?.kind == .wrongType)
      #expect(error?.key == row.key)
      #expect(error?.value?.contains("\(row.input)") == true)
      #expect(error?.description.contains("\(row.input)") == true)
      #expect(GraphSnapshot(context) == before)
      return
    }
    try specimen.setValue(row.input, forKey: row.key)
    let stored = try #require(try specimen.value(forKey: row.key))
    #expect(sameType(stored, expected))
    #expect(stored as? AnyHashable == AnyHashable(expected))
  }

  @Test func typedWrappersAndKeysAgree() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    book.title = "Typed"
    #expect(try book.value(forKey: "title") as? String == "Typed")
    try book.setValue("By key", forKey: "title")
    #expect(book.title == "By key")
    try book.setValue(nil, forKey: "isbn")
    try book.setValue("978", forKey: "isbn")
    #expect(book.isbn == "978")
    let none: String? = nil
    try book.setValue(none as Any, forKey: "isbn")
    #expect(book.isbn == nil)
    try book.setValue(s.science, forKey: "category")
    #expect(book.category === s.science)
    #expect(s.science.books.contains(book))
    #expect(try s.fiction.set("books") == [s.books[1]])
  }

  @Test func keyPaths() throws {
    let s = BookStore.scenario()
    #expect(try s.books[0].value(forKeyPath: "category.name") as? String == "Fiction")
    #expect(try s.books[0].value(forKeyPath: "title") as? String == "The first book")
    let prices = try s.fiction.value(forKeyPath: "books.price") as? Set<AnyHashable>
    #expect(prices == [10.0, 15.0])
    let titles = try s.books[0].value(forKeyPath: "category.books.title") as? Set<AnyHashable>
    #expect(titles == ["The first book", "The second book"])
    let orphan = s.context.insert(Book.self)
    #expect(try orphan.value(forKeyPath: "category.name") == nil)
    #expect(try s.science.value(forKeyPath: "books.pages") as? Set<AnyHashable> == [])
    let page = s.context.insert(Page.self)
    page.book = s.books[2]
    #expect(try page.value(forKeyPath: "book.category.name") as? String == "Science")
    #expect(try s.science.value(forKeyPath: "books.pages") as? Set<AnyHashable> == [page])
    let names = try s.science.value(forKeyPath: "books.pages.book.category.name")
    #expect(names as? Set<AnyHashable> == ["Science"])
    let members = try s.books[0].value(forKeyPath: "category.books") as? Set<ManagedObject>
    #expect(members == [s.books[0], s.books[1]])
  }

  @Test func setValueForKeyPath() throws {
    let s = BookStore.scenario()
    try s.books[0].setValue("Novels", forKeyPath: "category.name")
    #expect(s.fiction.name == "Novels")
    try s.fiction.setValue(20, forKeyPath: "books.price")
    #expect(s.books[0].price == 20 && s.books[1].price == 20 && s.books[2].price == 12)
    try s.books[2].setValue(s.fiction, forKeyPath: "category.books.category")
    #expect(s.books[2].category === s.fiction)
    #expect(s.fiction.books == Set(s.books) && s.science.books.isEmpty)
    let orphan = s.context.insert(Book.self)
    let before = GraphSnapshot(s.context)
    try orphan.setValue("Nobody", forKeyPath: "category.name")
    #expect(GraphSnapshot(s.context) == before)
    let error = #expect(throws: ObjectGraphError.self) {
      try s.fiction.setValue("free", forKeyPath: "books.price")
    }
    #expect(error?.kind == .wrongType)
    #expect(error?.entity == "Book")
    #expect(error?.key == "price")
    #expect(GraphSnapshot(s.context) == before)
    let middle = #expect(throws: ObjectGraphError.self) {
      try s.books[0].setValue("x", forKeyPath: "title.name")
    }
    #expect(middle?.kind == .unknownKey)
    #expect(middle?.description.contains("title") == true)
    #expect(GraphSnapshot(s.context) == before)
  }

  @Test func mutableSetProxy() throws {
    let s = BookStore.scenario()
    let (a, b, c) = (s.books[0], s.books[1], s.books[2])
    let books = try s.science.mutableSet(forKey: "books")
    #expect(books.count == 1 && books.contains(c) && !books.contains(a))
    try books.insert(a)
    #expect(s.science.books == [a, c])
    #expect(a.category === s.science)
    #expect(s.fiction.books == [b])
    try books.insert(a)
    #expect(books.count == 2)
    try books.remove(c)
    #expect(c.category == nil)
    #expect(s.science.books == [a])
    try books.remove(c)
    try books.formUnion([b, c])
    #expect(s.science.books == [a, b, c])
    #expect(s.fiction.books.isEmpty)
    #expect(Set(books) == [a, b, c])
    try books.subtract([a, b])
    #expect(s.science.books == [c])
    #expect(a.category == nil && b.category == nil && c.category === s.science)
    try books.formUnion([a, b])
    try books.formIntersection([b])
    #expect(s.science.books == [b])
    #expect(a.category == nil && c.category == nil)
    try books.removeAll()
    #expect(s.science.books.isEmpty && b.category == nil)
    s.context._checkInvariants()
  }

  @Test func mutableOrderedSetProxy() throws {
    let context = ObjectContext(model: BookStore.model)
    let book = context.insert(Book.self)
    let p = (0..<4).map { index -> Page in
      let page = context.insert(Page.self)
      page.number = Int32(index)
      return page
    }
    let pages = try book.mutableOrderedSet(forKey: "pages")
    try pages.append(p[0])
    try pages.append(p[1])
    try pages.insert(p[2], at: 0)
    #expect(book.pages == [p[2], p[0], p[1]])
    #expect(Array(pages) == [p[2], p[0], p[1]])
    #expect(pages.count == 3 && pages[1] === p[0] && pages.index(of: p[1]) == 2)
    #expect(pages.index(of: p[3]) == nil)
    #expect(p[2].book === book && p[0].book === book)
    try pages.insert(p[3], at: 3)
    #expect(book.pages == [p[2], p[0], p[1], p[3]])
    try pages.move(from: 3, to: 0)
    #expect(book.pages == [p[3], p[2], p[0], p[1]])
    try pages.move(from: 1, to: 3)
    #expect(book.pages == [p[3], p[0], p[1], p[2]])
    try pages.insert(p[2], at: 0)
    #expect(book.pages == [p[2], p[3], p[0], p[1]])
    try pages.remove(at: 1)
    #expect(book.pages == [p[2], p[0], p[1]])
    #expect(p[3].book == nil)
    try pages.remove(p[0])
    #expect(book.pages == [p[2], p[1]])
    #expect(p[0].book == nil)
    #expect(try book.list("pages") == [p[2], p[1]])
    context._checkInvariants()
  }
}
