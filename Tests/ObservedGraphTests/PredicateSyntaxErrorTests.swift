import Foundation
import ObservedGraph
import Testing

/// One malformed format: its arguments and the exact error.
struct PredicateSyntaxErrorCase: Sendable, CustomTestStringConvertible {
  let format: String
  let arguments: [String]
  let kind: PredicateSyntaxError.Kind
  let position: Int
  let expected: String
  let found: String
  var testDescription: String { format }

  init(
    _ format: String, _ arguments: [String] = [],
    _ kind: PredicateSyntaxError.Kind = .unexpectedToken,
    at position: Int, expected: String, found: String
  ) {
    self.format = format
    self.arguments = arguments
    self.kind = kind
    self.position = position
    self.expected = expected
    self.found = found
  }

  static let end = "the end of the string"

  static let all: [PredicateSyntaxErrorCase] = [
    PredicateSyntaxErrorCase("price < AND x", at: 8, expected: "a value", found: "\"AND\""),
    PredicateSyntaxErrorCase("", at: 0, expected: "a value", found: end),
    PredicateSyntaxErrorCase("   ", at: 3, expected: "a value", found: end),
    PredicateSyntaxErrorCase("price <", at: 7, expected: "a value", found: end),
    PredicateSyntaxErrorCase("price", at: 5, expected: "a comparison operator", found: end),
    PredicateSyntaxErrorCase("price 3", at: 6, expected: "a comparison operator", found: "\"3\""),
    PredicateSyntaxErrorCase("price == 1 AND", at: 14, expected: "a value", found: end),
    PredicateSyntaxErrorCase("(price == 1", at: 11, expected: "\")\"", found: end),
    PredicateSyntaxErrorCase(
      "price == 1)", at: 10, expected: "AND, OR or the end of the string", found: "\")\""),
    PredicateSyntaxErrorCase(
      "title == 'a' 'b'", at: 13, expected: "AND, OR or the end of the string", found: "\"'b'\""),
    PredicateSyntaxErrorCase("ANY == 3", at: 4, expected: "a value", found: "\"==\""),
    PredicateSyntaxErrorCase("NOT", at: 3, expected: "a value", found: end),
    PredicateSyntaxErrorCase("SELF. == 1", at: 6, expected: "a key", found: "\"==\""),
    PredicateSyntaxErrorCase("a.in == 1", at: 2, expected: "a key", found: "\"in\""),
    PredicateSyntaxErrorCase("a.1 == 1", at: 2, expected: "a key", found: "\"1\""),
    PredicateSyntaxErrorCase("title ==[c 'a'", at: 11, expected: "\"]\"", found: "\"'a'\""),
    PredicateSyntaxErrorCase(
      "title LIKE[x] 'a'", [], .unknownOperator, at: 11, expected: "c, d or cd", found: "\"x\""),
    PredicateSyntaxErrorCase(
      "title LIKE[] 'a'", [], .unknownOperator, at: 11, expected: "c, d or cd", found: "\"]\""),
    PredicateSyntaxErrorCase(
      "title == 'abc", [], .unterminatedString, at: 9, expected: "a closing '", found: end),
    PredicateSyntaxErrorCase(
      "title == \"abc\\", [], .unterminatedString, at: 9, expected: "a closing \"", found: end),
    PredicateSyntaxErrorCase(
      "title == \"a\\q\"", [], .invalidEscape, at: 11,
      expected: "an escape: \\\" \\' \\\\ \\n \\r \\t \\0 \\uXXXX \\u{X…}", found: "\"\\q\""),
    PredicateSyntaxErrorCase(
      "title == \"\\u12\"", [], .invalidEscape, at: 10,
      expected: "\\uXXXX or \\u{X…} naming a Unicode scalar", found: "\"\\u12\""),
    PredicateSyntaxErrorCase(
      "title == \"\\u{D800}\"", [], .invalidEscape, at: 10,
      expected: "\\uXXXX or \\u{X…} naming a Unicode scalar", found: "\"\\u{D800}\""),
    PredicateSyntaxErrorCase(
      "price ~ 3", [], .invalidToken, at: 6,
      expected: "a key, a value, an operator or a parenthesis", found: "\"~\""),
    PredicateSyntaxErrorCase(
      "a == 1 & b == 2", [], .invalidToken, at: 7,
      expected: "a key, a value, an operator or a parenthesis", found: "\"&\""),
    PredicateSyntaxErrorCase(
      "price == %s", [], .invalidToken, at: 9, expected: "%@, %K, %d, %i or %f", found: "\"%s\""),
    PredicateSyntaxErrorCase(
      "price == %", [], .invalidToken, at: 9, expected: "%@, %K, %d, %i or %f", found: "\"%\""),
    PredicateSyntaxErrorCase(
      "title == $", [], .invalidToken, at: 9, expected: "a name after \"$\"", found: end),
    PredicateSyntaxErrorCase(
      "# == 1", [], .invalidToken, at: 0, expected: "a name after \"#\"", found: "\" \""),
    PredicateSyntaxErrorCase(
      "title == %@", [], .missingArgument, at: 9, expected: "an argument for %@",
      found: "no more arguments"),
    PredicateSyntaxErrorCase(
      "%K == %@", ["title"], .missingArgument, at: 6, expected: "an argument for %@",
      found: "no more arguments"),
    PredicateSyntaxErrorCase(
      "title == %@", ["a", "b"], .unusedArguments, at: 11, expected: "no more arguments",
      found: "1 unused argument"),
    PredicateSyntaxErrorCase(
      "title == 'a'", ["a", "b"], .unusedArguments, at: 12, expected: "no more arguments",
      found: "2 unused arguments"),
    PredicateSyntaxErrorCase(
      "%K == 1", ["12"], .wrongArgument, at: 0, expected: "a key path string for %K",
      found: "12"),
    PredicateSyntaxErrorCase(
      "%K == 1", ["a..b"], .wrongArgument, at: 0, expected: "a key path string for %K",
      found: "\"a..b\""),
    PredicateSyntaxErrorCase(
      "price == %d", ["2.5"], .wrongArgument, at: 9, expected: "an integer for %d", found: "2.5"),
    PredicateSyntaxErrorCase(
      "price == %f", ["x"], .wrongArgument, at: 9, expected: "a number for %f", found: "\"x\""),
    PredicateSyntaxErrorCase(
      "books.@foo == 1", [], .unknownOperator, at: 6,
      expected: "@count, @sum, @avg, @min or @max", found: "\"@foo\""),
    PredicateSyntaxErrorCase(
      "books.@count.x == 1", at: 12, expected: "the end of the key path after @count",
      found: "\".\""),
    PredicateSyntaxErrorCase(
      "books.@sum == 1", at: 11, expected: "\".\" and a key after @sum", found: "\"==\""),
    PredicateSyntaxErrorCase("@count == 1", at: 0, expected: "a value", found: "\"@count\""),
    PredicateSyntaxErrorCase(
      "price == 99999999999999999999", [], .invalidNumber, at: 9, expected: "a 64-bit integer",
      found: "\"99999999999999999999\""),
    PredicateSyntaxErrorCase(
      "price == 0x", [], .invalidNumber, at: 9, expected: "a 64-bit integer", found: "\"0x\""),
    PredicateSyntaxErrorCase(
      "price == 12abc", [], .invalidNumber, at: 9, expected: "a number", found: "\"12abc\""),
    PredicateSyntaxErrorCase(
      "price == 1e999", [], .invalidNumber, at: 9, expected: "a finite number",
      found: "\"1e999\""),
    PredicateSyntaxErrorCase(
      "price BETWEEN 3", at: 14, expected: "two bounds {low, high} after BETWEEN", found: "\"3\""),
    PredicateSyntaxErrorCase(
      "price BETWEEN {1, 2, 3}", at: 14, expected: "two bounds {low, high} after BETWEEN",
      found: "\"{\""),
    PredicateSyntaxErrorCase("price IN {1, 2", at: 14, expected: "\",\" or \"}\"", found: end),
    PredicateSyntaxErrorCase("price IN {1 2}", at: 12, expected: "\",\" or \"}\"", found: "\"2\""),
    PredicateSyntaxErrorCase(
      "d == CAST('x', 'NSDate')", at: 10, expected: "seconds since 2001-01-01 for NSDate",
      found: "\"x\""),
    PredicateSyntaxErrorCase(
      "d == CAST('x', 'UUID')", at: 10, expected: "a UUID string", found: "\"x\""),
    PredicateSyntaxErrorCase(
      "d == CAST(1, 'Foo')", [], .unknownOperator, at: 13,
      expected: "NSDate, NSDecimalNumber, Double, UUID, URL, Data or ObjectID",
      found: "\"'Foo'\""),
    PredicateSyntaxErrorCase(
      "d == CAST(1, 2)", at: 13, expected: "a type name string", found: "\"2\""),
    PredicateSyntaxErrorCase(
      String(repeating: "(", count: 300) + "a == 1" + String(repeating: ")", count: 300),
      at: 201, expected: "at most 200 levels of nesting", found: "\"(\""),
    PredicateSyntaxErrorCase(
      String(repeating: "NOT ", count: 300) + "a == 1", at: 804,
      expected: "at most 200 levels of nesting", found: "\"NOT\""),
    PredicateSyntaxErrorCase(
      "a IN " + String(repeating: "{", count: 300), at: 206,
      expected: "at most 200 levels of nesting", found: "\"{\""),
  ]

  /// The arguments: numbers where they read as numbers, else strings.
  var values: [(any FetchArgument)?] {
    arguments.map { text in
      if let integer = Int(text) { return integer }
      if let double = Double(text) { return double }
      return text
    }
  }
}

@Suite struct PredicateSyntaxErrors {
  @Test(arguments: PredicateSyntaxErrorCase.all)
  func reports(_ row: PredicateSyntaxErrorCase) throws {
    let error = #expect(throws: PredicateSyntaxError.self) {
      try FetchPredicate(format: row.format, arguments: row.values)
    }
    #expect(error?.kind == row.kind)
    #expect(error?.position == row.position)
    #expect(error?.expected == row.expected)
    #expect(error?.found == row.found)
    #expect(error?.format == row.format)
  }

  @Test func description() throws {
    let error = #expect(throws: PredicateSyntaxError.self) {
      try FetchPredicate(format: "price < AND x")
    }
    #expect(error?.description == "price < AND x: at 8, expected a value, found \"AND\"")
    let long = #expect(throws: PredicateSyntaxError.self) {
      try FetchPredicate(format: String(repeating: "a", count: 300) + " <")
    }
    #expect(
      long?.description == String(repeating: "a", count: 120)
        + "… (302 characters): at 302, expected a value, found the end of the string")
  }

  @Test func positionsCountCharacters() throws {
    // "é" written as e + combining accent is one character.
    let error = #expect(throws: PredicateSyntaxError.self) {
      try FetchPredicate(format: "'e\u{301}' == ~")
    }
    #expect(error?.position == 7)
  }
}

/// Formats whose description parses back to the same tree.
private let roundTripFormats: [String] = [
  "title == 'The first book'",
  "title != \"x\" AND price < 3 AND price <= 3.5 AND price > -2 AND price >= 1e-9",
  "price BETWEEN {10, 12.5}",
  "title BEGINSWITH[c] 'a' OR title ENDSWITH[d] 'b' OR title CONTAINS[cd] 'c'",
  "title LIKE 'T*?k' AND title MATCHES '^[A-Z].*$'",
  "price IN {1, 2, 3} AND 'x' IN books.title AND title IN 'long text'",
  "ANY books.price < 11 AND ALL books.price > 1 AND NONE books.title == 'x'",
  "books.@count == 2 OR books.@sum.price > 1 OR books.@avg.price < 2",
  "books.@min.price == 1 AND books.@max.title == 'z'",
  "category.name == 'Fiction' AND category == nil",
  "flag == YES AND other == NO",
  "(a == 1 OR b == 2) AND NOT (c == 3 AND d == 4) AND NOT NOT e == 5",
  "(a == 1 AND b == 2) AND c == 3",
  "a == 1 OR (b == 2 OR c == 3)",
  "TRUEPREDICATE AND NOT FALSEPREDICATE",
  "price < $limit AND SELF == $object AND SELF IN {$a, $b}",
  "#in == 1 AND #AND.#or == 2 AND #self == 3",
  "title == 'quote \" and \\' and \\\\ and \\n \\t \\r \\0 \\u0001 \\u{7F} é 😀'",
  "price == -9223372036854775808 AND price == 9223372036854775807",
  "price == 0.1 AND price == 1e+300 AND price == 5e-324 AND price == -0.0",
  "d == CAST(-100.25, 'NSDate') AND e == CAST('3.25', 'NSDecimalNumber')",
  "u == CAST('00000000-0000-0000-0000-000000000001', 'UUID') AND v == CAST('a:b', 'URL')",
  "w == CAST('AAEC/w==', 'Data') AND x == CAST('inf', 'Double') AND y == CAST('-inf', 'Double')",
  "a IN {} AND b IN {{1, 2}, {}}",
]

@Suite struct PredicateRoundTrip {
  @Test(arguments: roundTripFormats)
  func formats(_ format: String) throws {
    let parsed = try FetchPredicate(format: format)
    let again = try FetchPredicate(format: parsed.description)
    #expect(again == parsed, "\(parsed.description)")
    #expect(again.description == parsed.description)
  }

  @Test func descriptions() throws {
    let cases: [(String, String)] = [
      ("title = 'a'", "title == \"a\""),
      ("a <> 1 && b =< 2 || !c => 3", "(a != 1 AND b <= 2) OR NOT c >= 3"),
      ("some books.price < 1", "ANY books.price < 1"),
      ("title like[dc] 'a'", "title LIKE[cd] \"a\""),
      ("SELF.price == 1.0", "price == 1.0"),
      ("x == NULL", "x == nil"),
      ("x == 0x10", "x == 16"),
      ("d == CAST(5, 'NSDate')", "d == CAST(5.0, \"NSDate\")"),
    ]
    for (format, description) in cases {
      #expect(try FetchPredicate(format: format).description == description)
    }
  }

  @Test func builtTrees() throws {
    let s = BookStore.scenario()
    let trees: [FetchPredicate] = [
      .comparison(FetchComparison(.keyPath("category"), .equal, .object(s.fiction.objectID))),
      .comparison(
        FetchComparison(
          .keyPath("d"), .in,
          .aggregate([
            .constant(.date(Date(timeIntervalSinceReferenceDate: 721_692_000.123))),
            .constant(.decimal(Decimal(string: "-0.001")!)),
            .constant(.url(URL(string: "https://example.com/a?b=c#d")!)),
            .constant(.data(Data((0..<40).map { UInt8($0 * 6) }))),
            .constant(.string("\u{0}\u{1B}\u{7F}\u{85}")),
          ]))),
      .not(.and([.constant(true), .or([.constant(false), .not(.constant(false))])])),
      .and([.and([.constant(true), .constant(false)]), .or([.constant(true), .constant(true)])]),
      .comparison(FetchComparison(.keyPath("Self"), .equal, .keyPath("and.not"))),
    ]
    for tree in trees {
      #expect(try FetchPredicate(format: tree.description) == tree, "\(tree)")
    }
    // The exceptions the documentation names.
    #expect(FetchPredicate.and([]).description == "TRUEPREDICATE")
    #expect(FetchPredicate.or([]).description == "FALSEPREDICATE")
    #expect(
      FetchPredicate.and([.or([.constant(true), .constant(false)])]).description
        == "TRUEPREDICATE OR FALSEPREDICATE")
    #expect(
      FetchPredicate.not(.and([.or([.constant(true), .constant(false)])])).description
        == "NOT (TRUEPREDICATE OR FALSEPREDICATE)")
  }
}

@Suite struct PredicateFuzzing {
  static let vocabulary = [
    "title", "price", "books", "category", "pages", "number", "isbn", "name", ".", "@count", "@sum",
    "@foo", "==", "=", "!=", "<>", "<", "<=",
    "=<", ">", ">=", "=>", "AND", "OR", "NOT", "&&", "||", "!", "(", ")", "{", "}", ",", "[c]",
    "[cd]", "[", "]", "BETWEEN", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH",
    "ANY", "ALL", "NONE", "SOME", "'a'", "\"b\\\"\"", "'", "\"", "\\", "12", "-3", "2.5",
    "1e", "0x", "nil", "YES", "TRUEPREDICATE", "FALSEPREDICATE", "$v", "$", "%@", "%K", "%d",
    "%f", "%", "#", "#in", "SELF", "CAST", "'NSDate'", "é", "e\u{301}", "😀", " ", "\n", "~",
    "SUBQUERY", "-",
  ]

  static let valid = [
    "title == 'The first book' AND price BETWEEN {1, 2}",
    "ANY books.title LIKE[cd] 'a*' OR NOT (books.@count > 2)",
    "d == CAST(1.5, 'NSDate') AND x IN {1, 'a', nil, $v}",
  ]

  /// Key paths of `Book`, valid and not.
  static let keyPaths = [
    "title", "price", "isbn", "category", "category.name", "category.books.price",
    "category.books.@count", "category.books.@avg.price", "category.books.@max.title", "pages",
    "pages.number", "pages.@count", "pages.@sum.number", "pages.book.title", "nosuch",
    "category.nosuch", "title.count", "category.@count",
  ]

  /// A random expression: a key path, a constant, a list, an object or SELF.
  static func expression(_ random: inout SplitMix64, objects: [ObjectID]) -> FetchExpression {
    switch random.below(10) {
    case 0...3: return .keyPath(random.pick(keyPaths)!)
    case 4:
      return .constant(
        .string(random.pick(["The first book", "é", "e\u{301}", "", "a*", ".*", "("])!))
    case 5: return .constant(.integer(Int64(random.below(30)) - 5))
    case 6:
      return .constant(
        random.pick([
          .double(Double(random.below(400)) / 8), .bool(random.chance(50)),
          .date(Date(timeIntervalSinceReferenceDate: Double(random.below(1000)))),
          .decimal(Decimal(random.below(100)) / 4),
        ])!)
    case 7: return .null
    case 8:
      return .aggregate(
        (0..<random.below(4)).map { _ in
          random.chance(50)
            ? .constant(.integer(Int64(random.below(20)))) : .constant(.string("The first book"))
        })
    default: return random.chance(50) ? .object(random.pick(objects)!) : .evaluatedObject
    }
  }

  /// A random predicate whose printed form parses back to it: AND and OR have two or three parts.
  static func tree(_ random: inout SplitMix64, objects: [ObjectID], depth: Int) -> FetchPredicate {
    let choice = depth == 0 ? 0 : random.below(6)
    switch choice {
    case 0, 1, 2:
      if random.chance(5) { return .constant(random.chance(50)) }
      var options: FetchComparison.Options = []
      if random.chance(20) { options.insert(.caseInsensitive) }
      if random.chance(20) { options.insert(.diacriticInsensitive) }
      let op = random.pick(FetchComparison.Operator.allCases)!
      var right = expression(&random, objects: objects)
      if op == .between, random.chance(80) {
        // The parser accepts two bounds, a key path or a variable after BETWEEN.
        right = .aggregate([expression(&random, objects: objects), .constant(.integer(9))])
      } else if op == .between {
        right = .keyPath(random.pick(keyPaths)!)
      }
      return .comparison(
        FetchComparison(
          expression(&random, objects: objects), op, right,
          modifier: random.chance(70) ? .direct : random.pick(FetchComparison.Modifier.allCases)!,
          options: options))
    case 3:
      return .and(
        (0..<(2 + random.below(2))).map { _ in tree(&random, objects: objects, depth: depth - 1) })
    case 4:
      return .or(
        (0..<(2 + random.below(2))).map { _ in tree(&random, objects: objects, depth: depth - 1) })
    default:
      return .not(tree(&random, objects: objects, depth: depth - 1))
    }
  }

  @Test func neverTraps() throws {
    let seed = SplitMix64.seed(fallback: 0x5EED_F00D)
    var random = SplitMix64(seed: seed)
    var parsed = 0
    var failed = 0
    var validated = 0
    let shelf = PredicateShelf()
    let entity = try #require(BookStore.model.entity(named: "Book"))
    let objects = shelf.books.map(\.objectID) + shelf.categories.map(\.objectID)
    for round in 0..<6000 {
      var format: String
      switch round % 4 {
      case 0:
        format = (0..<random.below(12)).map { _ in random.pick(Self.vocabulary)! }
          .joined(separator: random.chance(70) ? " " : "")
      case 1:
        let text = Array(Self.tree(&random, objects: objects, depth: 2).description)
        format = String(text.prefix(random.below(text.count + 1)))
      case 2:
        var text = Array(Self.tree(&random, objects: objects, depth: 2).description)
        for _ in 0..<(1 + random.below(3)) {
          let position = random.below(text.count)
          switch random.below(3) {
          case 0: text.remove(at: position)
          case 1: text.insert(random.pick(Array("(){}[]'\"\\%$@#.,=<>!&| aZ9-"))!, at: position)
          default: text.swapAt(position, random.below(text.count))
          }
        }
        format = String(text)
      default:
        // A tree built at random prints as text that parses back to it.
        let tree = Self.tree(&random, objects: objects, depth: 3)
        format = tree.description
        #expect(
          try FetchPredicate(format: format) == tree, "seed \(seed), round \(round): \(format)")
      }
      let arguments: [(any FetchArgument)?] =
        round % 4 == 3
        ? []
        : (0..<random.below(3)).map { _ in random.chance(50) ? "title" : 3 }
      do {
        let predicate = try FetchPredicate(format: format, arguments: arguments)
        parsed += 1
        // Whatever parses prints as text that parses back to the same tree.
        let again = try FetchPredicate(format: predicate.description)
        #expect(again == predicate, "seed \(seed), round \(round): \(format)")
        // Checking and evaluating it answers or throws a graph error, and never traps; what
        // passes the check (with no variables) evaluates without error.
        var valid = true
        do {
          try predicate.validate(for: entity)
        } catch is ObjectGraphError {
          valid = false
        }
        validated += valid ? 1 : 0
        for book in [shelf.books[0], shelf.books[7]] {
          do {
            _ = try predicate.evaluate(with: book)
          } catch let error as ObjectGraphError {
            #expect(
              !valid || predicate.description.contains("$"),
              "seed \(seed), round \(round): \(predicate) passed validation but threw \(error)")
          }
        }
      } catch let error as PredicateSyntaxError {
        failed += 1
        #expect(error.position >= 0 && error.position <= format.count, "\(format)")
        #expect(!error.expected.isEmpty && !error.found.isEmpty)
      } catch {
        Issue.record("seed \(seed), round \(round): \(format) threw \(error)")
      }
    }
    // Both outcomes occur, so the loop tests something.
    #expect(
      parsed > 100 && failed > 100 && validated > 100,
      "parsed \(parsed), failed \(failed), validated \(validated)")
  }
}
