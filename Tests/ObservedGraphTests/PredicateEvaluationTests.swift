import Foundation
import ObservedGraph
import Testing

/// A bookstore with non-ASCII and canonically equivalent titles, categories of several sizes (one
/// empty), a book without a category, and one book with pages.
struct PredicateShelf {
  let context: ObjectContext
  let books: [Book]
  let categories: [BookCategory]

  static let society = "Caf\u{E9} Society"  // precomposed é
  static let noir = "Cafe\u{301} Noir"  // e + combining acute
  static let strasse = "Stra\u{DF}e der B\u{FC}cher"
  static let ecole = "\u{C9}COLE des femmes"
  static let first = "The first book"
  static let second = "The second book"
  static let third = "The third book"
  static let orphan = "Orphan"
  static let allTitles: Set<String> = [
    first, second, third, society, noir, strasse, ecole, orphan,
  ]

  init() {
    context = ObjectContext(model: BookStore.model)
    let context = context
    categories = ["Fiction", "Science", "French", "German", "Empty"].map { name in
      let category = context.insert(BookCategory.self)
      category.name = name
      return category
    }
    let rows: [(String, Double, String?, Int?)] = [
      (Self.first, 10, "111", 0), (Self.second, 15, nil, 0), (Self.third, 12, nil, 1),
      (Self.society, 9.5, "222", 2), (Self.noir, 20, nil, 2), (Self.strasse, 7, nil, 3),
      (Self.ecole, 30, nil, 2), (Self.orphan, 0, nil, nil),
    ]
    let categories = categories
    books = rows.map { title, price, isbn, category in
      let book = context.insert(Book.self)
      book.title = title
      book.price = price
      book.isbn = isbn
      book.category = category.map { categories[$0] }
      return book
    }
    for (number, text) in [(1, "one"), (2, "two")] {
      let page = context.insert(Page.self)
      page.number = Int32(number)
      page.text = text
      page.book = books[0]
    }
  }

  /// The titles of the books that satisfy the predicate.
  func titles(_ format: String, _ arguments: (any FetchArgument)?...) throws -> Set<String> {
    let predicate = try FetchPredicate(format: format, arguments: arguments)
    return Set(try books.filter { try predicate.evaluate(with: $0) }.map(\.title))
  }

  /// The names of the categories that satisfy the predicate.
  func names(_ format: String, _ arguments: (any FetchArgument)?...) throws -> Set<String> {
    let predicate = try FetchPredicate(format: format, arguments: arguments)
    return Set(try categories.filter { try predicate.evaluate(with: $0) }.map(\.name))
  }
}

/// A format and the titles (or category names) it selects.
struct PredicateSelectionCase: Sendable, CustomTestStringConvertible {
  let format: String
  let expected: Set<String>
  var testDescription: String { format }
  init(_ format: String, _ expected: Set<String>) {
    self.format = format
    self.expected = expected
  }
}

private typealias S = PredicateShelf

private let bookCases: [PredicateSelectionCase] = [
  PredicateSelectionCase("title == 'The first book'", [S.first]),
  // Canonical equivalence: the constant's precomposed é equals the title's e + accent.
  PredicateSelectionCase("title == \"Caf\u{E9} Noir\"", [S.noir]),
  PredicateSelectionCase("title == \"Cafe\\u0301 Noir\"", [S.noir]),
  PredicateSelectionCase("title == \"Cafe\\u0301 Society\"", [S.society]),
  PredicateSelectionCase("title == 'Cafe Noir'", []),
  PredicateSelectionCase("title ==[d] 'Cafe Noir'", [S.noir]),
  PredicateSelectionCase("title ==[c] 'caf\u{E9} noir'", [S.noir]),
  PredicateSelectionCase("title ==[c] '\u{E9}cole des femmes'", [S.ecole]),
  PredicateSelectionCase("title ==[c] 'ecole des femmes'", []),
  PredicateSelectionCase("title ==[cd] 'ecole des femmes'", [S.ecole]),
  PredicateSelectionCase("title ==[c] 'STRASSE DER B\u{DC}CHER'", [S.strasse]),
  PredicateSelectionCase("title ==[cd] 'strasse der bucher'", [S.strasse]),
  PredicateSelectionCase("title != 'The first book'", S.allTitles.subtracting([S.first])),
  PredicateSelectionCase("title < 'D'", [S.society, S.noir]),
  // Swift orders strings by their scalars (after normalization): "É" (U+00C9) sorts after "T".
  PredicateSelectionCase("title > 'The second book'", [S.third, S.ecole]),
  PredicateSelectionCase("title >= 'The second book'", [S.second, S.third, S.ecole]),
  PredicateSelectionCase("title <=[c] 'orphan'", [S.society, S.noir, S.orphan]),
  PredicateSelectionCase("price < 10", [S.society, S.strasse, S.orphan]),
  PredicateSelectionCase("price <= 10", [S.first, S.society, S.strasse, S.orphan]),
  PredicateSelectionCase("price > 15", [S.noir, S.ecole]),
  PredicateSelectionCase("price >= 15", [S.second, S.noir, S.ecole]),
  PredicateSelectionCase("price == 12", [S.third]),
  PredicateSelectionCase("price == 9.5", [S.society]),
  PredicateSelectionCase("price == CAST('12', 'NSDecimalNumber')", [S.third]),
  PredicateSelectionCase(
    "price < CAST('9.6', 'NSDecimalNumber')", [S.society, S.strasse, S.orphan]),
  PredicateSelectionCase("price BETWEEN {10, 15}", [S.first, S.second, S.third]),
  PredicateSelectionCase("price BETWEEN {10.5, 12}", [S.third]),
  PredicateSelectionCase("price BETWEEN {15, 10}", []),
  PredicateSelectionCase("title BETWEEN {'T', 'U'}", [S.first, S.second, S.third]),
  PredicateSelectionCase("title BEGINSWITH 'The'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title BEGINSWITH 'the'", []),
  PredicateSelectionCase("title BEGINSWITH[c] 'the'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title BEGINSWITH 'Caf\u{E9}'", [S.society, S.noir]),
  PredicateSelectionCase("title BEGINSWITH 'Caf'", [S.society, S.noir]),
  PredicateSelectionCase("title BEGINSWITH 'Cafe'", []),
  PredicateSelectionCase("title BEGINSWITH[d] 'Cafe'", [S.society, S.noir]),
  PredicateSelectionCase("title ENDSWITH 'book'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title ENDSWITH[c] 'FEMMES'", [S.ecole]),
  PredicateSelectionCase("title CONTAINS '\u{E9}'", [S.society, S.noir]),
  PredicateSelectionCase("title CONTAINS[c] '\u{E9}'", [S.society, S.noir, S.ecole]),
  // Whole characters: the e of "Cafe\u{301}" is part of "é", not an "e".
  PredicateSelectionCase(
    "title CONTAINS 'e'", [S.first, S.second, S.third, S.society, S.strasse, S.ecole]),
  PredicateSelectionCase("title CONTAINS 'ss'", []),
  PredicateSelectionCase("title CONTAINS[c] 'ss'", [S.strasse]),
  PredicateSelectionCase("title CONTAINS ''", S.allTitles),
  PredicateSelectionCase("title LIKE 'The * book'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title LIKE 'The ?????? book'", [S.second]),
  PredicateSelectionCase("title LIKE 'the*'", []),
  PredicateSelectionCase("title LIKE[c] 'the*'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title LIKE '*'", S.allTitles),
  PredicateSelectionCase("title LIKE 'Caf? *'", [S.society, S.noir]),
  PredicateSelectionCase("title LIKE 'Orphan?'", []),
  PredicateSelectionCase("title LIKE '*r*h*'", [S.orphan, S.strasse]),
  PredicateSelectionCase("title LIKE 'Orph\\\\*'", []),
  PredicateSelectionCase("title LIKE[cd] '*ECOLE*'", [S.ecole]),
  PredicateSelectionCase("title MATCHES 'The (first|third) book'", [S.first, S.third]),
  PredicateSelectionCase("title MATCHES 'book'", []),
  PredicateSelectionCase("title MATCHES '.*book'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title MATCHES[c] 'the.*'", [S.first, S.second, S.third]),
  PredicateSelectionCase("title MATCHES 'Caf. .*'", [S.society, S.noir]),
  PredicateSelectionCase("title MATCHES[d] 'Cafe .*'", [S.society, S.noir]),
  PredicateSelectionCase("isbn == nil", S.allTitles.subtracting([S.first, S.society])),
  PredicateSelectionCase("isbn != nil", [S.first, S.society]),
  PredicateSelectionCase("nil == isbn", S.allTitles.subtracting([S.first, S.society])),
  PredicateSelectionCase("isbn < '2'", [S.first]),
  PredicateSelectionCase("isbn >= nil", []),
  PredicateSelectionCase("isbn BEGINSWITH '1'", [S.first]),
  PredicateSelectionCase("isbn BEGINSWITH ''", [S.first, S.society]),
  PredicateSelectionCase("category == nil", [S.orphan]),
  PredicateSelectionCase("category.name == 'Fiction'", [S.first, S.second]),
  PredicateSelectionCase("category.name == nil", [S.orphan]),
  PredicateSelectionCase(
    "category.name != 'Fiction'", S.allTitles.subtracting([S.first, S.second])),
  PredicateSelectionCase("category.books.@count == 3", [S.society, S.noir, S.ecole]),
  PredicateSelectionCase("category.books.@sum.price == 59.5", [S.society, S.noir, S.ecole]),
  // Through a nil to-one link: nil, or an empty collection after a to-many step.
  PredicateSelectionCase("category.books.@count == 0", [S.orphan]),
  PredicateSelectionCase("category.books.@avg.price == nil", [S.orphan]),
  PredicateSelectionCase("ALL category.books.price > 100", [S.orphan]),
  PredicateSelectionCase("ANY category.books.price >= 0", S.allTitles.subtracting([S.orphan])),
  PredicateSelectionCase("pages.@count == 2", [S.first]),
  PredicateSelectionCase("pages.@count == 0", S.allTitles.subtracting([S.first])),
  PredicateSelectionCase("ANY pages.text == 'two'", [S.first]),
  PredicateSelectionCase("SOME pages.number == 2.0", [S.first]),
  PredicateSelectionCase("ANY pages.number < 1.5", [S.first]),
  PredicateSelectionCase("ALL pages.number < 3", S.allTitles),
  PredicateSelectionCase("ALL pages.number < 2", S.allTitles.subtracting([S.first])),
  PredicateSelectionCase("NONE pages.number == 2", S.allTitles.subtracting([S.first])),
  PredicateSelectionCase("NOT ANY pages.number == 2", S.allTitles.subtracting([S.first])),
  PredicateSelectionCase("ANY {1, 2, 3} == 2", S.allTitles),
  PredicateSelectionCase("ALL {1, 2, 3} > 1", []),
  PredicateSelectionCase("title IN {'Orphan', 'The third book', 'nope'}", [S.orphan, S.third]),
  PredicateSelectionCase("title IN[c] {'ORPHAN'}", [S.orphan]),
  PredicateSelectionCase("price IN {10, 12.0}", [S.first, S.third]),
  PredicateSelectionCase("isbn IN {nil, '111'}", S.allTitles.subtracting([S.society])),
  PredicateSelectionCase("title IN 'The first book, and more'", [S.first]),
  PredicateSelectionCase("'The second book' IN category.books.title", [S.first, S.second]),
  PredicateSelectionCase("category.books.title CONTAINS 'The third book'", [S.third]),
  PredicateSelectionCase("NOT title BEGINSWITH 'The' AND price > 9", [S.society, S.noir, S.ecole]),
  PredicateSelectionCase("price < 10 OR price > 20", [S.society, S.strasse, S.orphan, S.ecole]),
  PredicateSelectionCase(
    "price < 10 AND (title CONTAINS 'a' OR isbn != nil)", [S.society, S.strasse, S.orphan]),
  PredicateSelectionCase("TRUEPREDICATE", S.allTitles),
  PredicateSelectionCase("FALSEPREDICATE", []),
  PredicateSelectionCase("SELF == SELF", S.allTitles),
]

private let categoryCases: [PredicateSelectionCase] = [
  PredicateSelectionCase("books.@count == 0", ["Empty"]),
  PredicateSelectionCase("books.@count >= 2", ["Fiction", "French"]),
  PredicateSelectionCase("ANY books.price > 19", ["French"]),
  PredicateSelectionCase("ALL books.price < 13", ["Science", "German", "Empty"]),
  PredicateSelectionCase("NONE books.price < 10", ["Fiction", "Science", "Empty"]),
  PredicateSelectionCase("books.@sum.price == 25", ["Fiction"]),
  PredicateSelectionCase("books.@sum.price == 0", ["Empty"]),
  PredicateSelectionCase("books.@avg.price == 12.5", ["Fiction"]),
  PredicateSelectionCase("books.@avg.price == nil", ["Empty"]),
  PredicateSelectionCase("books.@min.price == 9.5", ["French"]),
  PredicateSelectionCase("books.@max.price == 30", ["French"]),
  PredicateSelectionCase("books.@max.title == 'The third book'", ["Science"]),
  PredicateSelectionCase("books.@min.title == nil", ["Empty"]),
  PredicateSelectionCase("books.pages.@count == 2", ["Fiction"]),
  PredicateSelectionCase("books.@sum.pages.number == 3", ["Fiction"]),
  PredicateSelectionCase("ANY books.title BEGINSWITH[cd] 'cafe'", ["French"]),
  PredicateSelectionCase("books.title CONTAINS 'The first book'", ["Fiction"]),
  PredicateSelectionCase("'The third book' IN books.title", ["Science"]),
  PredicateSelectionCase("ANY books.isbn == nil", ["Fiction", "Science", "French", "German"]),
  PredicateSelectionCase("ANY books.pages.number == 2", ["Fiction"]),
  PredicateSelectionCase("ANY books.title IN {'Orphan', 'The third book'}", ["Science"]),
  PredicateSelectionCase("ALL books.category.name == 'French'", ["French", "Empty"]),
  PredicateSelectionCase("ANY books.price BETWEEN {11, 13}", ["Science"]),
]

@Suite struct PredicateEvaluation {
  @Test(arguments: bookCases)
  func books(_ row: PredicateSelectionCase) throws {
    #expect(try PredicateShelf().titles(row.format) == row.expected)
  }

  @Test(arguments: categoryCases)
  func categories(_ row: PredicateSelectionCase) throws {
    #expect(try PredicateShelf().names(row.format) == row.expected)
  }

  @Test func objects() throws {
    let shelf = PredicateShelf()
    let fiction = shelf.categories[0]
    let science = shelf.categories[1]
    #expect(try shelf.titles("category == %@", fiction) == [S.first, S.second])
    #expect(
      try shelf.titles("category != %@", fiction) == S.allTitles.subtracting([S.first, S.second]))
    #expect(
      try shelf.titles("category IN %@", [fiction, science]) == [S.first, S.second, S.third])
    #expect(try shelf.titles("SELF IN %@", [shelf.books[2]]) == [S.third])
    #expect(try shelf.titles("SELF == %@", shelf.books[7].objectID) == [S.orphan])
    #expect(try shelf.names("books CONTAINS %@", shelf.books[4]) == ["French"])
    #expect(try shelf.names("ANY books == %@", shelf.books[0]) == ["Fiction"])
    // Through the printed form, which names the object by its identifier.
    let predicate = try FetchPredicate(format: "category == %@", science)
    let reparsed = try FetchPredicate(format: predicate.description)
    #expect(try shelf.books.filter { try reparsed.evaluate(with: $0) }.map(\.title) == [S.third])
  }

  @Test func variables() throws {
    let shelf = PredicateShelf()
    let template = try FetchPredicate(format: "price < $limit AND title BEGINSWITH $prefix")
    let book = shelf.books[0]
    #expect(
      try template.evaluate(with: book, substitutionVariables: ["limit": 11, "prefix": "The"]))
    #expect(
      try !template.evaluate(with: book, substitutionVariables: ["limit": 10, "prefix": "The"]))
    let half = template.substituting(["limit": 11])
    expectGraphError(.invalidPredicate, entity: "Book", key: "title", in: shelf.context) {
      _ = try half.evaluate(with: book)
    }
    let error = #expect(throws: ObjectGraphError.self) { try half.evaluate(with: book) }
    #expect(error?.reason.contains("$prefix was not substituted") == true)
  }

  @Test func shortCircuit() throws {
    // The failing part is never reached.
    let shelf = PredicateShelf()
    let book = shelf.books[0]
    #expect(
      try FetchPredicate(format: "FALSEPREDICATE AND nosuch == 1").evaluate(with: book) == false)
    #expect(try FetchPredicate(format: "TRUEPREDICATE OR nosuch == 1").evaluate(with: book))
  }

  @Test func errors() throws {
    let shelf = PredicateShelf()
    let book = shelf.books[0]
    let fiction = shelf.categories[0]
    let c = shelf.context
    func evaluate(_ format: String, _ object: ManagedObject) throws {
      _ = try FetchPredicate(format: format).evaluate(with: object)
    }
    expectGraphError(.unknownKey, entity: "Book", key: "nosuch", value: "nosuch", in: c) {
      try evaluate("nosuch == 1", book)
    }
    expectGraphError(.unknownKey, entity: "BookCategory", key: "nosuch", value: "nosuch", in: c) {
      try evaluate("category.nosuch == 1", book)
    }
    expectGraphError(.unknownKey, entity: "Book", key: "title.count", value: "title", in: c) {
      try evaluate("title.count == 1", book)
    }
    expectGraphError(.invalidPredicate, entity: "BookCategory", key: "books.title", in: c) {
      try evaluate("books.title == 'x'", fiction)
    }
    expectGraphError(.invalidPredicate, entity: "Book", key: "title", in: c) {
      try evaluate("title MATCHES '('", book)
    }
    expectGraphError(.invalidPredicate, entity: "Book", key: "price", in: c) {
      try evaluate("price IN 3", book)
    }
    expectGraphError(.invalidPredicate, entity: "Book", key: "price", in: c) {
      _ = try FetchPredicate(format: "price BETWEEN $r").evaluate(
        with: book, substitutionVariables: ["r": 3])
    }
    expectGraphError(.invalidPredicate, entity: "Book", key: "price", in: c) {
      _ = try FetchPredicate(format: "price BETWEEN $r").evaluate(
        with: book, substitutionVariables: ["r": [1, 2, 3]])
    }
    expectGraphError(.notToMany, entity: "Book", key: "title", in: c) {
      try evaluate("ANY title == 'x'", book)
    }
    expectGraphError(.notToMany, entity: "Book", key: "category.@count", value: "@count", in: c) {
      try evaluate("category.@count == 1", book)
    }
    expectGraphError(.wrongType, entity: "BookCategory", key: "books.@sum.title", in: c) {
      try evaluate("books.@sum.title == 1", fiction)
    }
    expectGraphError(.unknownKey, entity: "Book", key: "books.@sum.name", value: "name", in: c) {
      try evaluate("books.@sum.name == 1", fiction)
    }
  }
}

/// A format and whether the default `Specimen` satisfies it.
struct PredicateSpecimenCase: Sendable, CustomTestStringConvertible {
  let format: String
  let expected: Bool
  var testDescription: String { format }
  init(_ format: String, _ expected: Bool) {
    self.format = format
    self.expected = expected
  }

  static let all: [PredicateSpecimenCase] = [
    PredicateSpecimenCase("date == CAST(-978307100, 'NSDate')", true),
    PredicateSpecimenCase("date < CAST(-978307099, 'NSDate')", true),
    PredicateSpecimenCase("date > CAST(-978307100, 'NSDate')", false),
    PredicateSpecimenCase(
      "date BETWEEN {CAST(-978307101, 'NSDate'), CAST(-978307100, 'NSDate')}", true),
    PredicateSpecimenCase("decimal == 3.25", true),
    PredicateSpecimenCase("decimal > 3", true),
    PredicateSpecimenCase("decimal < CAST('3.26', 'NSDecimalNumber')", true),
    PredicateSpecimenCase("uuid == CAST('00000000-0000-0000-0000-000000000001', 'UUID')", true),
    PredicateSpecimenCase("uuid == CAST('00000000-0000-0000-0000-000000000002', 'UUID')", false),
    PredicateSpecimenCase("url == CAST('https://example.com/a', 'URL')", true),
    PredicateSpecimenCase("data == CAST('AQID', 'Data')", true),
    PredicateSpecimenCase("flag == YES", true),
    PredicateSpecimenCase("flag == 1", false),
    PredicateSpecimenCase("flag != 'true'", true),
    PredicateSpecimenCase("flag < TRUE", false),
    PredicateSpecimenCase("small == 16.0", true),
    PredicateSpecimenCase("medium >= 32", true),
    PredicateSpecimenCase("large > 63.5", true),
    PredicateSpecimenCase("large < 64.0000001", true),
    PredicateSpecimenCase("large == 64.0000001", false),
    PredicateSpecimenCase("single == 1.5", true),
    PredicateSpecimenCase("double BETWEEN {2, 3}", true),
    PredicateSpecimenCase("double == CAST('2.5', 'NSDecimalNumber')", true),
    PredicateSpecimenCase("note == nil", true),
    PredicateSpecimenCase("note < 'a'", false),
    PredicateSpecimenCase("note != 'a'", true),
    PredicateSpecimenCase("note BEGINSWITH ''", false),
    PredicateSpecimenCase("text BEGINSWITH ''", true),
    PredicateSpecimenCase("text ENDSWITH ''", true),
    PredicateSpecimenCase("text LIKE ''", false),
    PredicateSpecimenCase("text == 'text' AND text != 'Text'", true),
    PredicateSpecimenCase("size == nil", false),
  ]
}

@Suite struct PredicateValueKinds {
  @Test(arguments: PredicateSpecimenCase.all)
  func specimen(_ row: PredicateSpecimenCase) throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    #expect(try FetchPredicate(format: row.format).evaluate(with: specimen) == row.expected)
  }

  @Test func infinitiesAndNaN() throws {
    // Foundation's Decimal(Double.infinity) traps; comparing with a decimal must not.
    let shelf = PredicateShelf()
    shelf.books[0].price = .infinity
    let fiction = shelf.categories[0]
    #expect(try FetchPredicate(format: "books.@sum.price > %@", Decimal(1)).evaluate(with: fiction))
    #expect(try FetchPredicate(format: "ANY books.price > %@", Decimal(1)).evaluate(with: fiction))
    shelf.books[0].price = .nan
    #expect(
      try !FetchPredicate(format: "ANY books.price == %@", Double.nan).evaluate(with: fiction))
    #expect(try !FetchPredicate(format: "books.@sum.price < 1").evaluate(with: fiction))
    #expect(try !FetchPredicate(format: "books.@sum.price >= 1").evaluate(with: fiction))
    #expect(try FetchPredicate(format: "books.@max.price == 15").evaluate(with: fiction))
    #expect(try FetchPredicate(format: "books.@min.price == 15").evaluate(with: fiction))
    shelf.books[0].price = .infinity
    #expect(try FetchPredicate(format: "books.@sum.price > 1e308").evaluate(with: fiction))
    #expect(try FetchPredicate(format: "books.@max.price > 1e308").evaluate(with: fiction))
    let nan = FetchPredicate.comparison(
      FetchComparison(.keyPath("price"), .equal, .constant(.decimal(.nan))))
    #expect(nan.description == "price == CAST(\"NaN\", \"NSDecimalNumber\")")
    #expect(try FetchPredicate(format: nan.description).description == nan.description)
  }

  @Test func likeEscapes() throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    specimen.text = #"a*b?\"#
    func like(_ pattern: String) throws -> Bool {
      try FetchPredicate(format: "text LIKE %@", pattern).evaluate(with: specimen)
    }
    #expect(try like(#"a\*b\?\\"#))
    #expect(try like(#"a*"#))
    #expect(try like(#"?\*?\??"#))
    #expect(try !like(#"a\*b\?"#))
    #expect(try !like(#"a\?*"#))
    #expect(try !like(#"a\*b\?\\?"#))
    specimen.text = "aXb?c"
    #expect(try !like(#"a\*b*"#))
  }

  @Test func integersCompareExactlyWithDoubles() throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    specimen.large = .max
    func holds(_ format: String, _ arguments: (any FetchArgument)?...) throws -> Bool {
      try FetchPredicate(format: format, arguments: arguments).evaluate(with: specimen)
    }
    #expect(try holds("large == 9223372036854775807"))
    // Int64.max converted to Double would round up to 2^63 and compare equal.
    #expect(try !holds("large == 9223372036854775808.0"))
    #expect(try holds("large < 9223372036854775808.0"))
    #expect(try holds("large > 9.2e18"))
    specimen.single = 0.1
    // A Float widens to the Double nearest it, which is not the Double nearest 0.1.
    #expect(try !holds("single == 0.1"))
    #expect(try holds("single == %@", Float(0.1)))
    specimen.large = .min
    #expect(try holds("large == -9223372036854775808.0"))
    #expect(try holds("large < -9.2e18"))
  }
}
