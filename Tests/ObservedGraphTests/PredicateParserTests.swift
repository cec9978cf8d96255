import Foundation
import ObservedGraph
import Testing

// Shorthands for expected trees.
private func key(_ path: String) -> FetchExpression { .keyPath(path) }
private func str(_ text: String) -> FetchExpression { .constant(.string(text)) }
private func int(_ number: Int64) -> FetchExpression { .constant(.integer(number)) }
private func dbl(_ number: Double) -> FetchExpression { .constant(.double(number)) }
private func list(_ elements: FetchExpression...) -> FetchExpression { .aggregate(elements) }
private func cmp(
  _ left: FetchExpression, _ op: FetchComparison.Operator, _ right: FetchExpression,
  _ modifier: FetchComparison.Modifier = .direct, _ options: FetchComparison.Options = []
) -> FetchPredicate {
  .comparison(FetchComparison(left, op, right, modifier: modifier, options: options))
}

/// One parse case: the text and the exact tree.
struct PredicateParseCase: Sendable, CustomTestStringConvertible {
  let format: String
  let tree: FetchPredicate
  var testDescription: String { format }
  init(_ format: String, _ tree: FetchPredicate) {
    self.format = format
    self.tree = tree
  }

  static let all: [PredicateParseCase] = [
    // The seed's example, both spellings of equality.
    PredicateParseCase(
      "title = 'The first book'", cmp(key("title"), .equal, str("The first book"))),
    PredicateParseCase(
      "title == \"The first book\"", cmp(key("title"), .equal, str("The first book"))),
    PredicateParseCase("price != 3", cmp(key("price"), .notEqual, int(3))),
    PredicateParseCase("price <> 3", cmp(key("price"), .notEqual, int(3))),
    PredicateParseCase("price < 3", cmp(key("price"), .lessThan, int(3))),
    PredicateParseCase("price <= 3", cmp(key("price"), .lessThanOrEqual, int(3))),
    PredicateParseCase("price =< 3", cmp(key("price"), .lessThanOrEqual, int(3))),
    PredicateParseCase("price > -3", cmp(key("price"), .greaterThan, int(-3))),
    PredicateParseCase("price >= 2.5", cmp(key("price"), .greaterThanOrEqual, dbl(2.5))),
    PredicateParseCase("price => 1e3", cmp(key("price"), .greaterThanOrEqual, dbl(1000))),
    PredicateParseCase("price < -1.5E-2", cmp(key("price"), .lessThan, dbl(-0.015))),
    PredicateParseCase("price == 0x1F", cmp(key("price"), .equal, int(31))),
    PredicateParseCase("price == 0b101", cmp(key("price"), .equal, int(5))),
    PredicateParseCase("price == -0o17", cmp(key("price"), .equal, int(-15))),
    PredicateParseCase(
      "price == -9223372036854775808", cmp(key("price"), .equal, int(Int64.min))),
    PredicateParseCase(
      "price BETWEEN {10, 12}", cmp(key("price"), .between, list(int(10), int(12)))),
    PredicateParseCase("title BEGINSWITH 'The'", cmp(key("title"), .beginsWith, str("The"))),
    PredicateParseCase("title endswith 'book'", cmp(key("title"), .endsWith, str("book"))),
    PredicateParseCase("title Contains 'sec'", cmp(key("title"), .contains, str("sec"))),
    PredicateParseCase("title LIKE 'The*b?ok'", cmp(key("title"), .like, str("The*b?ok"))),
    PredicateParseCase("title MATCHES '.*book'", cmp(key("title"), .matches, str(".*book"))),
    PredicateParseCase(
      "title BEGINSWITH[c] 'the'",
      cmp(
        key("title"), .beginsWith, str("the"), .direct,
        .caseInsensitive)),
    PredicateParseCase(
      "title ==[d] 'cafe'",
      cmp(
        key("title"), .equal, str("cafe"), .direct,
        .diacriticInsensitive)),
    PredicateParseCase(
      "title LIKE[cd] 'cafe*'",
      cmp(
        key("title"), .like, str("cafe*"), .direct,
        [.caseInsensitive, .diacriticInsensitive])),
    PredicateParseCase(
      "title CONTAINS [ DC ] 'x'",
      cmp(
        key("title"), .contains, str("x"), .direct,
        [.caseInsensitive, .diacriticInsensitive])),
    PredicateParseCase("price IN {10, 15.5}", cmp(key("price"), .in, list(int(10), dbl(15.5)))),
    PredicateParseCase("price IN {}", cmp(key("price"), .in, list())),
    PredicateParseCase("'x' IN books.title", cmp(str("x"), .in, key("books.title"))),
    PredicateParseCase("ANY books.price < 11", cmp(key("books.price"), .lessThan, int(11), .any)),
    PredicateParseCase("some books.price < 11", cmp(key("books.price"), .lessThan, int(11), .any)),
    PredicateParseCase("ALL books.price < 11", cmp(key("books.price"), .lessThan, int(11), .all)),
    PredicateParseCase("NONE books.price < 11", cmp(key("books.price"), .lessThan, int(11), .none)),
    PredicateParseCase("books.@count == 2", cmp(key("books.@count"), .equal, int(2))),
    PredicateParseCase(
      "books.@sum.price > 20", cmp(key("books.@sum.price"), .greaterThan, int(20))),
    PredicateParseCase(
      "books.@avg.price > 20", cmp(key("books.@avg.price"), .greaterThan, int(20))),
    PredicateParseCase(
      "category.name == 'Fiction'", cmp(key("category.name"), .equal, str("Fiction"))),
    PredicateParseCase("SELF.title == 'a'", cmp(key("title"), .equal, str("a"))),
    PredicateParseCase("SELF == $book", cmp(.evaluatedObject, .equal, .variable("book"))),
    PredicateParseCase("#in == 1", cmp(key("in"), .equal, int(1))),
    PredicateParseCase("a.#Self.b == 1", cmp(key("a.Self.b"), .equal, int(1))),
    PredicateParseCase("isbn == nil", cmp(key("isbn"), .equal, .null)),
    PredicateParseCase("isbn == NULL", cmp(key("isbn"), .equal, .null)),
    PredicateParseCase("flag == YES", cmp(key("flag"), .equal, .constant(.bool(true)))),
    PredicateParseCase("flag == true", cmp(key("flag"), .equal, .constant(.bool(true)))),
    PredicateParseCase("flag == NO", cmp(key("flag"), .equal, .constant(.bool(false)))),
    PredicateParseCase("flag == False", cmp(key("flag"), .equal, .constant(.bool(false)))),
    PredicateParseCase("price < $limit", cmp(key("price"), .lessThan, .variable("limit"))),
    PredicateParseCase("TRUEPREDICATE", .constant(true)),
    PredicateParseCase("falsepredicate", .constant(false)),
    PredicateParseCase(
      #"title == 'it\'s \"x\" \\ \n\t\u00e9\u{1F600}'"#,
      cmp(key("title"), .equal, str("it's \"x\" \\ \n\t\u{e9}\u{1F600}"))),
    PredicateParseCase("título == 'é'", cmp(key("título"), .equal, str("é"))),
    // Logic and precedence: NOT > AND > OR; parentheses keep their grouping.
    PredicateParseCase(
      "a == 1 AND b == 2 AND c == 3",
      .and([
        cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2)),
        cmp(key("c"), .equal, int(3)),
      ])),
    PredicateParseCase(
      "a == 1 || b == 2 && c == 3",
      .or([
        cmp(key("a"), .equal, int(1)),
        .and([cmp(key("b"), .equal, int(2)), cmp(key("c"), .equal, int(3))]),
      ])),
    PredicateParseCase(
      "(a == 1 OR b == 2) AND c == 3",
      .and([
        .or([cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2))]),
        cmp(key("c"), .equal, int(3)),
      ])),
    PredicateParseCase(
      "(a == 1 AND b == 2) AND c == 3",
      .and([
        .and([cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2))]),
        cmp(key("c"), .equal, int(3)),
      ])),
    PredicateParseCase(
      "NOT a == 1 AND !b == 2",
      .and([.not(cmp(key("a"), .equal, int(1))), .not(cmp(key("b"), .equal, int(2)))])),
    PredicateParseCase("not not TRUEPREDICATE", .not(.not(.constant(true)))),
    PredicateParseCase(
      "NOT (a == 1 or b == 2)",
      .not(.or([cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2))]))),
    PredicateParseCase("  ((a==1))  ", cmp(key("a"), .equal, int(1))),
    PredicateParseCase(
      "d == CAST(100.5, \"NSDate\")",
      cmp(key("d"), .equal, .constant(.date(Date(timeIntervalSinceReferenceDate: 100.5))))),
    PredicateParseCase(
      "d == CAST(\"3.25\", \"NSDecimalNumber\")",
      cmp(key("d"), .equal, .constant(.decimal(Decimal(string: "3.25")!)))),
    PredicateParseCase(
      "u == CAST('00000000-0000-0000-0000-000000000001', 'UUID')",
      cmp(
        key("u"), .equal,
        .constant(.uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)))),
    PredicateParseCase(
      "u == CAST('https://example.com/a', 'URL')",
      cmp(key("u"), .equal, .constant(.url(URL(string: "https://example.com/a")!)))),
    PredicateParseCase(
      "u == CAST('AQID', 'Data')", cmp(key("u"), .equal, .constant(.data(Data([1, 2, 3]))))),
  ]
}

@Suite struct PredicateParsing {
  @Test(arguments: PredicateParseCase.all)
  func parses(_ row: PredicateParseCase) throws {
    #expect(try FetchPredicate(format: row.format) == row.tree)
  }

  @Test func seedTreeBuiltByHand() throws {
    // The seed builds `title = 'The first book'` from expression objects.
    let built = FetchPredicate.comparison(
      FetchComparison(.keyPath("title"), .equal, .constant(.string("The first book"))))
    #expect(try FetchPredicate(format: "title = 'The first book'") == built)
    #expect(built.description == "title == \"The first book\"")
  }

  @Test func arguments() throws {
    let date = Date(timeIntervalSinceReferenceDate: 5)
    let uuid = UUID()
    let url = URL(string: "https://example.com")!
    let none: String? = nil
    let some: String? = "x"
    let p = try FetchPredicate(
      format: "a == %@ AND b == %@ AND c == %@ AND d == %@ AND e == %@ AND f == %@ AND g == %@ "
        + "AND h == %@ AND i == %@ AND j == %@ AND k == %@ AND l == %@ AND m == %@",
      "s", 3, Int16(4), 2.5, Float(0.5), true, date, uuid, url, Decimal(7), Data([9]), none, some)
    let expected: [FetchExpression] = [
      str("s"), int(3), int(4), dbl(2.5), dbl(0.5), .constant(.bool(true)),
      .constant(.date(date)), .constant(.uuid(uuid)), .constant(.url(url)),
      .constant(.decimal(7)), .constant(.data(Data([9]))), .null, str("x"),
    ]
    let keys = "abcdefghijklm".map(String.init)
    #expect(p == .and(zip(keys, expected).map { cmp(key($0), .equal, $1) }))
  }

  @Test func integerArguments() throws {
    let p = try FetchPredicate(
      format: "a IN {%@, %@, %@, %@, %@, %@}", Int8(-8), UInt8(8), UInt16(16), Int32(-32),
      UInt32(32), Int64.min)
    #expect(p == cmp(key("a"), .in, list(int(-8), int(8), int(16), int(-32), int(32), int(.min))))
    // Beyond Int64, an unsigned integer becomes the nearest double.
    #expect(try FetchPredicate(format: "a == %@", UInt64.max) == cmp(key("a"), .equal, dbl(0x1p64)))
    #expect(try FetchPredicate(format: "a == %@", UInt(7)) == cmp(key("a"), .equal, int(7)))
    #expect(
      try FetchPredicate(format: "a == %@", Substring("sub")) == cmp(key("a"), .equal, str("sub")))
    #expect(try FetchPredicate(format: "a IN %@", Set([3])) == cmp(key("a"), .in, list(int(3))))
  }

  @Test func placeholders() throws {
    #expect(
      try FetchPredicate(format: "%K == %@", "category.name", nil)
        == cmp(key("category.name"), .equal, .null))
    #expect(
      try FetchPredicate(format: "%K.name == %d", "category", 3)
        == cmp(key("category.name"), .equal, int(3)))
    #expect(
      try FetchPredicate(format: "price < %i", Int64(3)) == cmp(key("price"), .lessThan, int(3)))
    #expect(try FetchPredicate(format: "price < %f", 3) == cmp(key("price"), .lessThan, dbl(3)))
    #expect(try FetchPredicate(format: "price < %f", 2.5) == cmp(key("price"), .lessThan, dbl(2.5)))
    #expect(
      try FetchPredicate(format: "title IN %@", ["a", "b"])
        == cmp(key("title"), .in, list(str("a"), str("b"))))
    #expect(
      try FetchPredicate(format: "price BETWEEN %@", [1, 2])
        == cmp(key("price"), .between, list(int(1), int(2))))
    // A string argument for %@ is a constant, never a key path.
    #expect(
      try FetchPredicate(format: "%@ == title", "title") == cmp(str("title"), .equal, key("title")))
    #expect(
      try FetchPredicate(format: "title == %@", arguments: ["x"])
        == cmp(key("title"), .equal, str("x")))
  }

  @Test func objectArguments() throws {
    let s = BookStore.scenario()
    let p = try FetchPredicate(format: "category == %@ OR SELF IN %@", s.fiction, [s.books[2]])
    #expect(
      p
        == .or([
          cmp(key("category"), .equal, .object(s.fiction.objectID)),
          cmp(.evaluatedObject, .in, list(.object(s.books[2].objectID))),
        ]))
  }

  @Test func substitution() throws {
    let template = try FetchPredicate(
      format: "price < $limit AND title IN {$a, 'b'} AND $other == 1")
    let filled = template.substituting(["limit": 12, "a": "x"])
    #expect(
      filled
        == .and([
          cmp(key("price"), .lessThan, int(12)),
          cmp(key("title"), .in, list(str("x"), str("b"))),
          cmp(.variable("other"), .equal, int(1)),
        ]))
    let nothing: Int? = nil
    #expect(
      template.substituting(["limit": nothing]).description
        == "price < nil AND title IN {$a, \"b\"} AND $other == 1")
  }
}
