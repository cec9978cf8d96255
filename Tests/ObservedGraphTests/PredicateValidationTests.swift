import Foundation
import ObservedGraph
import Testing

/// A predicate that fails validation, and the error it must give.
struct PredicateValidationCase: Sendable, CustomTestStringConvertible {
  let format: String
  let entity: String
  let kind: ObjectGraphError.Kind
  let errorEntity: String
  let key: String
  let value: String?
  var testDescription: String { "\(entity): \(format)" }

  init(
    _ format: String, on entity: String = "Book", _ kind: ObjectGraphError.Kind,
    _ errorEntity: String, key: String, value: String? = nil
  ) {
    self.format = format
    self.entity = entity
    self.kind = kind
    self.errorEntity = errorEntity
    self.key = key
    self.value = value
  }

  static let all: [PredicateValidationCase] = [
    PredicateValidationCase("nosuch == 1", .unknownKey, "Book", key: "nosuch", value: "nosuch"),
    PredicateValidationCase(
      "price < 3 AND category.nosuch == 1", .unknownKey, "BookCategory", key: "category.nosuch",
      value: "nosuch"),
    PredicateValidationCase(
      "'x' IN category.books.nosuch", .unknownKey, "Book", key: "category.books.nosuch",
      value: "nosuch"),
    PredicateValidationCase(
      "title.length == 1", .unknownKey, "Book", key: "title.length", value: "title"),
    PredicateValidationCase(
      "category.name.first == 'a'", .unknownKey, "BookCategory", key: "category.name.first",
      value: "name"),
    PredicateValidationCase(
      "NOT (price == 'abc')", .wrongType, "Book", key: "price", value: "\"abc\" (a string)"),
    PredicateValidationCase("title < 3", .wrongType, "Book", key: "title", value: "3 (a number)"),
    PredicateValidationCase(
      "title IN {'a', 3}", .wrongType, "Book", key: "title", value: "3 (a number)"),
    PredicateValidationCase(
      "price BETWEEN {1, 'x'}", .wrongType, "Book", key: "price", value: "\"x\" (a string)"),
    PredicateValidationCase(
      "price BEGINSWITH '1'", .wrongType, "Book", key: "price",
      value: "price is a double attribute"),
    PredicateValidationCase(
      "category.name == 1", .wrongType, "Book", key: "category.name", value: "1 (a number)"),
    PredicateValidationCase(
      "books.@count == 'x'", on: "BookCategory", .wrongType, "BookCategory",
      key: "books.@count", value: "\"x\" (a string)"),
    PredicateValidationCase(
      "category == 'Fiction'", .wrongType, "Book", key: "category", value: "\"Fiction\""),
    PredicateValidationCase(
      "books.@sum.title > 1", on: "BookCategory", .wrongType, "Book", key: "books.@sum.title",
      value: "title"),
    PredicateValidationCase(
      "category.@count == 1", .notToMany, "Book", key: "category.@count", value: "@count"),
    PredicateValidationCase(
      "title.@count == 1", .unknownKey, "Book", key: "title.@count", value: "title"),
    PredicateValidationCase(
      "ANY title == 'x'", .notToMany, "Book", key: "title"),
    PredicateValidationCase(
      "ALL category.name == 'x'", .notToMany, "Book", key: "category.name"),
    PredicateValidationCase(
      "books.title == 'x'", on: "BookCategory", .invalidPredicate, "BookCategory",
      key: "books.title"),
    PredicateValidationCase(
      "pages.number IN books", on: "BookCategory", .unknownKey, "BookCategory",
      key: "pages.number", value: "pages"),
    PredicateValidationCase(
      "price IN 3", .invalidPredicate, "Book", key: "price"),
    PredicateValidationCase("price == {1, 2}", .invalidPredicate, "Book", key: "price"),
    PredicateValidationCase("title CONTAINS {'a'}", .invalidPredicate, "Book", key: "title"),
    PredicateValidationCase(
      "price BETWEEN {{1, 2}, 3}", .invalidPredicate, "Book", key: "price"),
    PredicateValidationCase(
      "price BETWEEN {pages.number, 3}", .invalidPredicate, "Book", key: "price"),
    PredicateValidationCase(
      "title MATCHES '(a'", .invalidPredicate, "Book", key: "title", value: "\"(a\""),
    PredicateValidationCase(
      "price IN 'abc'", .wrongType, "Book", key: "price", value: "\"abc\" (a string)"),
    PredicateValidationCase(
      "title == category.books.title", .invalidPredicate, "Book", key: "title"),
  ]
}

@Suite struct PredicateValidation {
  @Test(arguments: PredicateValidationCase.all)
  func rejects(_ row: PredicateValidationCase) throws {
    let context = ObjectContext(model: BookStore.model)
    let entity = try #require(BookStore.model.entity(named: row.entity))
    let predicate = try FetchPredicate(format: row.format)
    expectGraphError(row.kind, entity: row.errorEntity, key: row.key, value: row.value, in: context)
    {
      try predicate.validate(for: entity)
    }
  }

  @Test func reasonNamesTheComponent() throws {
    let entity = try #require(BookStore.model.entity(named: "Book"))
    let error = #expect(throws: ObjectGraphError.self) {
      try FetchPredicate(format: "category.nmae == 'x'").validate(for: entity)
    }
    #expect(
      error?.description
        == "BookCategory.category.nmae: BookCategory has no property 'nmae' (component 2 of key "
        + "path 'category.nmae')")
  }

  @Test func objectsOfTheWrongEntity() throws {
    let s = BookStore.scenario()
    let entity = try #require(BookStore.model.entity(named: "Book"))
    expectGraphError(.wrongType, entity: "Book", key: "category", in: s.context) {
      try FetchPredicate(format: "category == %@", s.books[1]).validate(for: entity)
    }
    try FetchPredicate(format: "category == %@", s.fiction).validate(for: entity)
  }

  @Test func unknownCollectionOperator() throws {
    // The parser refuses it; a tree built by hand reaches validation.
    let context = ObjectContext(model: BookStore.model)
    let entity = try #require(BookStore.model.entity(named: "BookCategory"))
    let predicate = FetchPredicate.comparison(
      FetchComparison(.keyPath("books.@foo.price"), .equal, .constant(.integer(1))))
    expectGraphError(
      .unknownKey, entity: "BookCategory", key: "books.@foo.price", value: "@foo", in: context
    ) {
      try predicate.validate(for: entity)
    }
  }

  @Test func hungBetweenBounds() throws {
    let entity = try #require(BookStore.model.entity(named: "Book"))
    let predicate = FetchPredicate.comparison(
      FetchComparison(.keyPath("price"), .between, .aggregate([.constant(.integer(1))])))
    let error = #expect(throws: ObjectGraphError.self) { try predicate.validate(for: entity) }
    #expect(error?.kind == .invalidPredicate)
    #expect(error?.key == "price")
  }

  static let valid: [(String, String)] = [
    ("Book", "title == 'x' AND price < 3 AND price BETWEEN {1, 2.5} AND isbn == nil"),
    ("Book", "title BEGINSWITH[cd] 'a' OR title LIKE '*' OR title MATCHES '.*' OR title IN 'abc'"),
    ("Book", "category == nil OR category.name IN {'a', 'b'} OR SELF == $x OR price < $limit"),
    ("Book", "ANY pages.number < 3 AND ALL pages.text != '' AND NONE pages.number == 2"),
    ("Book", "pages.@count > 1 AND pages.@sum.number < 3 AND pages.@max.text == 'a'"),
    ("Book", "category.books.@count > 1 AND 'x' IN category.books.title"),
    ("BookCategory", "books.title CONTAINS 'x' AND ANY books.price > CAST('1', 'NSDecimalNumber')"),
    (
      "BookCategory",
      "books.@avg.price > 1 AND books.@min.title == 'a' AND books.@sum.pages.number > 0"
    ),
    ("Book", "TRUEPREDICATE AND NOT FALSEPREDICATE"),
  ]

  @Test(arguments: valid)
  func accepts(_ entityName: String, _ format: String) throws {
    let entity = try #require(BookStore.model.entity(named: entityName))
    #expect(throws: Never.self) { try FetchPredicate(format: format).validate(for: entity) }
  }
}
