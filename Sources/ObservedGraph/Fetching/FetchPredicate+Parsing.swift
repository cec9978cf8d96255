import Foundation

extension FetchPredicate {
  /// Parses a predicate from NSPredicate-style text, taking `%@`, `%K`, `%d`, `%i` and `%f` from
  /// `arguments` in order.
  ///
  /// The syntax is the table in ``FetchPredicate``. `%@` takes any ``FetchArgument`` (a string
  /// stays a string constant: use `%K` for a key path), `%K` a string naming a key path, `%d` and
  /// `%i` an integer, `%f` a number (as a double). Parsing checks only the syntax; check keys and
  /// types against an entity with ``validate(for:)``.
  ///
  /// ```swift
  /// let p = try FetchPredicate(format: "title BEGINSWITH[c] %@ AND %K < %f", "the", "price", 12.5)
  /// print(p)  // title BEGINSWITH[c] "the" AND price < 12.5
  /// ```
  /// - Parameters:
  ///   - format: The predicate text.
  ///   - arguments: The values of the format's `%` placeholders, in order; `nil` for the constant
  ///     nil.
  /// - Throws: ``PredicateSyntaxError`` giving the position, what was expected and what was found:
  ///   malformed text, too few or too many arguments, an argument of the wrong kind for its
  ///   placeholder. Any text either parses or throws.
  /// - Complexity: O(n) in the length of the format.
  public init(format: String, _ arguments: (any FetchArgument)?...) throws {
    try self.init(format: format, arguments: arguments)
  }

  /// Parses a predicate from NSPredicate-style text with its arguments in an array; see
  /// ``init(format:_:)``.
  ///
  /// ```swift
  /// let values: [(any FetchArgument)?] = ["Dune", nil]
  /// let p = try FetchPredicate(format: "title == %@ OR isbn == %@", arguments: values)
  /// ```
  /// - Parameters:
  ///   - format: The predicate text.
  ///   - arguments: The values of the format's `%` placeholders, in order.
  /// - Throws: ``PredicateSyntaxError``.
  /// - Complexity: O(n) in the length of the format.
  public init(format: String, arguments: [(any FetchArgument)?]) throws {
    var parser = PredicateParser(
      format: format, tokens: try PredicateLexer.tokens(of: format),
      arguments: arguments.map { $0?.fetchExpression ?? .null })
    self = try parser.parse()
  }
}

/// A recursive-descent parser over the lexer's tokens. Nesting is limited, so that no text can
/// exhaust the stack.
struct PredicateParser {
  let format: String
  let tokens: [PredicateToken]
  let arguments: [FetchExpression]
  var index = 0
  var nextArgument = 0
  var depth = 0
  static let maximumDepth = 200

  init(format: String, tokens: [PredicateToken], arguments: [FetchExpression]) {
    self.format = format
    self.tokens = tokens
    self.arguments = arguments
  }

  var current: PredicateToken { tokens[index] }

  mutating func advance() -> PredicateToken {
    let token = tokens[index]
    if index < tokens.count - 1 { index += 1 }
    return token
  }

  func error(
    _ code: PredicateSyntaxError.Kind.Code = .unexpectedToken, expected: String,
    at token: PredicateToken? = nil, found: String? = nil
  ) -> PredicateSyntaxError {
    let token = token ?? current
    return PredicateSyntaxError(
      code, format: format, position: token.position, expected: expected,
      found: found ?? token.found)
  }

  /// Consumes the current token when it is one of `keywords` (words, case-insensitive) or
  /// `symbols`.
  mutating func accept(_ keywords: Set<String> = [], _ symbols: Set<String> = []) -> Bool {
    if let keyword = current.keyword, keywords.contains(keyword) {
      _ = advance()
      return true
    }
    if case .symbol(let symbol) = current.kind, symbols.contains(symbol) {
      _ = advance()
      return true
    }
    return false
  }

  mutating func expect(_ symbol: String) throws {
    guard accept([], [symbol]) else { throw error(expected: "\"\(symbol)\"") }
  }

  mutating func parse() throws -> FetchPredicate {
    let predicate = try parseOr()
    guard current.kind == .end else {
      throw error(expected: "AND, OR or the end of the string")
    }
    guard nextArgument == arguments.count else {
      let unused = arguments.count - nextArgument
      throw error(
        .unusedArguments, expected: "no more arguments",
        found: "\(unused) unused argument\(unused == 1 ? "" : "s")")
    }
    return predicate
  }

  mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
    guard depth < Self.maximumDepth else {
      throw error(expected: "at most \(Self.maximumDepth) levels of nesting")
    }
    depth += 1
    defer { depth -= 1 }
    return try body(&self)
  }

  mutating func parseOr() throws -> FetchPredicate {
    var parts = [try parseAnd()]
    while accept(["OR"], ["||"]) { parts.append(try parseAnd()) }
    return parts.count == 1 ? parts[0] : .or(parts)
  }

  mutating func parseAnd() throws -> FetchPredicate {
    var parts = [try parseNot()]
    while accept(["AND"], ["&&"]) { parts.append(try parseNot()) }
    return parts.count == 1 ? parts[0] : .and(parts)
  }

  mutating func parseNot() throws -> FetchPredicate {
    if accept(["NOT"], ["!"]) { return .not(try nested { try $0.parseNot() }) }
    if accept([], ["("]) {
      let inner = try nested { try $0.parseOr() }
      try expect(")")
      return inner
    }
    if accept(["TRUEPREDICATE"]) { return .constant(true) }
    if accept(["FALSEPREDICATE"]) { return .constant(false) }
    return .comparison(try parseComparison())
  }

  mutating func parseComparison() throws -> FetchComparison {
    var modifier = FetchComparison.Modifier.direct
    if accept(["ANY", "SOME"]) {
      modifier = .any
    } else if accept(["ALL"]) {
      modifier = .all
    } else if accept(["NONE"]) {
      modifier = .none
    }
    let left = try parseExpression()
    guard let op = Self.comparisonOperator(current) else {
      throw error(expected: "a comparison operator")
    }
    _ = advance()
    let options = try parseOptions()
    let rightToken = current
    let right = try parseExpression()
    if op == .between {
      switch right {
      case .aggregate(let bounds) where bounds.count == 2: break
      case .keyPath, .variable: break
      default:
        throw error(expected: "two bounds {low, high} after BETWEEN", at: rightToken)
      }
    }
    return FetchComparison(left, op, right, modifier: modifier, options: options)
  }

  static func comparisonOperator(_ token: PredicateToken) -> FetchComparison.Operator? {
    switch token.kind {
    case .symbol(let symbol):
      switch symbol {
      case "==", "=": return .equal
      case "!=", "<>": return .notEqual
      case "<": return .lessThan
      case "<=", "=<": return .lessThanOrEqual
      case ">": return .greaterThan
      case ">=", "=>": return .greaterThanOrEqual
      default: return nil
      }
    case .word(let word):
      let upper = word.uppercased()
      guard upper != "BETWEEN" else { return .between }
      return FetchComparison.Operator.allCases.first {
        $0.rawValue == upper && $0.rawValue.first!.isLetter
      }
    default: return nil
    }
  }

  mutating func parseOptions() throws -> FetchComparison.Options {
    guard accept([], ["["]) else { return [] }
    let token = advance()
    var options: FetchComparison.Options = []
    guard case .word(let letters) = token.kind, !letters.isEmpty else {
      throw error(.unknownOperator, expected: "c, d or cd", at: token)
    }
    for letter in letters.lowercased() {
      switch letter {
      case "c": options.insert(.caseInsensitive)
      case "d": options.insert(.diacriticInsensitive)
      default: throw error(.unknownOperator, expected: "c, d or cd", at: token)
      }
    }
    try expect("]")
    return options
  }

  mutating func takeArgument(_ token: PredicateToken) throws -> FetchExpression {
    guard nextArgument < arguments.count else {
      throw error(
        .missingArgument, expected: "an argument for %\(tokenLetter(token))", at: token,
        found: "no more arguments")
    }
    defer { nextArgument += 1 }
    return arguments[nextArgument]
  }

  func tokenLetter(_ token: PredicateToken) -> Character {
    if case .argument(let letter) = token.kind { return letter }
    return "@"
  }

  mutating func parseExpression() throws -> FetchExpression {
    let token = current
    switch token.kind {
    case .string(let text):
      _ = advance()
      return .constant(.string(text))
    case .integer(let number):
      _ = advance()
      return .constant(.integer(number))
    case .double(let number):
      _ = advance()
      return .constant(.double(number))
    case .variable(let name):
      _ = advance()
      return .variable(name)
    case .escapedWord(let name):
      _ = advance()
      return try parseKeyPath(first: name)
    case .argument(let letter):
      _ = advance()
      let argument = try convert(try takeArgument(token), for: letter, at: token)
      guard case .keyPath(let path) = argument, current.kind == .symbol(".") else {
        return argument
      }
      return try parseKeyPath(first: path)
    case .symbol("{"):
      _ = advance()
      return try nested { try $0.parseAggregate() }
    case .word(let word):
      switch word.uppercased() {
      case "NIL", "NULL":
        _ = advance()
        return .null
      case "TRUE", "YES":
        _ = advance()
        return .constant(.bool(true))
      case "FALSE", "NO":
        _ = advance()
        return .constant(.bool(false))
      case "SELF":
        _ = advance()
        guard accept([], ["."]) else { return .evaluatedObject }
        return try parseKeyPath(first: try parseKeyComponent())
      case "CAST":
        _ = advance()
        return try parseCast()
      case let upper where PredicateSyntax.reserved.contains(upper):
        throw error(expected: "a value")
      default:
        _ = advance()
        return try parseKeyPath(first: word)
      }
    default:
      throw error(expected: "a value")
    }
  }

  /// The argument for `%<letter>`, converted as the letter asks.
  func convert(_ argument: FetchExpression, for letter: Character, at token: PredicateToken)
    throws -> FetchExpression
  {
    func wrong(_ expected: String) -> PredicateSyntaxError {
      error(.wrongArgument, expected: expected, at: token, found: argument.description)
    }
    switch letter {
    case "K":
      guard case .constant(.string(let path)) = argument,
        !path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
      else { throw wrong("a key path string for %K") }
      return .keyPath(path)
    case "d", "i":
      guard case .constant(.integer) = argument else { throw wrong("an integer for %\(letter)") }
      return argument
    case "f":
      switch argument {
      case .constant(.double): return argument
      case .constant(.integer(let number)): return .constant(.double(Double(number)))
      case .constant(.decimal(let number)):
        return .constant(.double(NSDecimalNumber(decimal: number).doubleValue))
      default: throw wrong("a number for %f")
      }
    default:
      return argument
    }
  }

  mutating func parseAggregate() throws -> FetchExpression {
    var elements: [FetchExpression] = []
    if accept([], ["}"]) { return .aggregate(elements) }
    repeat {
      elements.append(try parseExpression())
    } while accept([], [","])
    guard accept([], ["}"]) else { throw error(expected: "\",\" or \"}\"") }
    return .aggregate(elements)
  }

  /// A key after a dot: a word (keywords allowed only escaped) or an escaped word.
  mutating func parseKeyComponent() throws -> String {
    switch current.kind {
    case .word(let word) where !PredicateSyntax.isReserved(word):
      _ = advance()
      return word
    case .escapedWord(let word):
      _ = advance()
      return word
    default:
      throw error(expected: "a key")
    }
  }

  mutating func parseKeyPath(first: String) throws -> FetchExpression {
    var components = [first]
    while accept([], ["."]) {
      if case .collectionOperator(let name) = current.kind {
        let token = advance()
        guard PredicateSyntax.collectionOperators.contains(name) else {
          throw error(
            .unknownOperator, expected: "@count, @sum, @avg, @min or @max", at: token)
        }
        components.append("@" + name)
        if name == "count" {
          if current.kind == .symbol(".") {
            throw error(expected: "the end of the key path after @count")
          }
          break
        }
        guard accept([], ["."]) else { throw error(expected: "\".\" and a key after @\(name)") }
      }
      components.append(try parseKeyComponent())
    }
    return .keyPath(components.joined(separator: "."))
  }

  mutating func parseCast() throws -> FetchExpression {
    try expect("(")
    let valueToken = current
    let value = try parseExpression()
    try expect(",")
    let typeToken = current
    guard case .string(let type) = typeToken.kind else {
      throw error(expected: "a type name string", at: typeToken)
    }
    _ = advance()
    try expect(")")
    func wrongValue(_ expected: String) -> PredicateSyntaxError {
      error(expected: expected, at: valueToken, found: value.description)
    }
    switch (type, value) {
    case ("NSDate", .constant(.integer(let seconds))):
      return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(seconds))))
    case ("NSDate", .constant(.double(let seconds))):
      return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
    case ("NSDate", _): throw wrongValue("seconds since 2001-01-01 for NSDate")
    case ("NSDecimalNumber", .constant(.string("NaN"))):
      return .constant(.decimal(.nan))  // what `Decimal.nan.description` prints
    case ("NSDecimalNumber", .constant(.string(let text))):
      guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
        throw wrongValue("a decimal number string")
      }
      return .constant(.decimal(number))
    case ("NSDecimalNumber", .constant(.integer(let number))):
      return .constant(.decimal(Decimal(number)))
    case ("NSDecimalNumber", _): throw wrongValue("a decimal number string")
    case ("Double", .constant(.string(let text))):
      guard let number = Double(text) else { throw wrongValue("a number string") }
      return .constant(.double(number))
    case ("Double", .constant(.integer(let number))): return .constant(.double(Double(number)))
    case ("Double", .constant(.double)): return value
    case ("Double", _): throw wrongValue("a number string")
    case ("UUID", .constant(.string(let text))):
      guard let uuid = UUID(uuidString: text) else { throw wrongValue("a UUID string") }
      return .constant(.uuid(uuid))
    case ("UUID", _): throw wrongValue("a UUID string")
    case ("URL", .constant(.string(let text))):
      guard let url = URL(string: text) else { throw wrongValue("a URL string") }
      return .constant(.url(url))
    case ("URL", _): throw wrongValue("a URL string")
    case ("Data", .constant(.string(let text))):
      guard let data = Data(base64Encoded: text) else { throw wrongValue("a base64 string") }
      return .constant(.data(data))
    case ("Data", _): throw wrongValue("a base64 string")
    case ("ObjectID", .constant(.string(let text))):
      guard let url = URL(string: text), let id = ObjectID(uriRepresentation: url) else {
        throw wrongValue("an object identifier URI")
      }
      return .object(id)
    case ("ObjectID", _): throw wrongValue("an object identifier URI")
    default:
      throw error(
        .unknownOperator, expected: "NSDate, NSDecimalNumber, Double, UUID, URL, Data or ObjectID",
        at: typeToken)
    }
  }
}
