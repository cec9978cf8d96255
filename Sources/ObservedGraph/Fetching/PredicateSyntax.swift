import Foundation

/// The spelling of predicate-format text: keywords, how key paths and constants are written, and
/// the lexer that cuts text into tokens.
enum PredicateSyntax {
  /// Words that are not keys unless escaped with `#` (compared upper-cased).
  static let reserved: Set<String> = [
    "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "LIKE", "MATCHES", "BEGINSWITH",
    "ENDSWITH", "CONTAINS", "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "YES",
    "NO", "TRUE", "FALSE", "SELF", "CAST", "SUBQUERY", "FUNCTION",
  ]

  /// The collection operators a key path may hold, without their `@`.
  static let collectionOperators: Set<String> = ["count", "sum", "avg", "min", "max"]

  /// Whether `word` is a keyword.
  static func isReserved(_ word: String) -> Bool { reserved.contains(word.uppercased()) }

  /// Whether `text` lexes as one plain identifier.
  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.first, first.isLetter || first == "_" else { return false }
    return text.allSatisfy(isIdentifierCharacter)
  }

  static func isIdentifierCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "_"
  }

  /// A key path as text, each keyword component escaped with `#`.
  static func spell(keyPath: String) -> String {
    keyPath.split(separator: ".", omittingEmptySubsequences: false).map { part in
      isIdentifier(String(part)) && isReserved(String(part)) ? "#\(part)" : String(part)
    }.joined(separator: ".")
  }

  /// A string literal in double quotes, with the escapes the lexer reads.
  ///
  /// The lexer reads characters (grapheme clusters), so a scalar that would join the quote or an
  /// escape's last character into one character (a combining mark right after them), or one that
  /// joins the character after it (a prepended concatenation mark), is escaped too.
  static func quote(_ text: String) -> String {
    var result = "\""
    var afterSyntax = true
    for scalar in text.unicodeScalars {
      let escaped = afterSyntax
      afterSyntax = true
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _
      where scalar.value < 0x20 || scalar.value == 0x7F
        || (escaped && joinsPrevious(scalar)) || joinsNext(scalar):
        result += "\\u{\(String(scalar.value, radix: 16))}"
      default:
        result.unicodeScalars.append(scalar)
        afterSyntax = false
      }
    }
    return result + "\""
  }

  /// Whether a scalar after a character of the syntax would make one character with it.
  private static func joinsPrevious(_ scalar: Unicode.Scalar) -> Bool {
    var text = "}"
    text.unicodeScalars.append(scalar)
    return text.count == 1
  }

  /// Whether a scalar before a character of the syntax would make one character with it.
  private static func joinsNext(_ scalar: Unicode.Scalar) -> Bool {
    var text = ""
    text.unicodeScalars.append(scalar)
    return (text + "\"").count == 1
  }

  /// A constant as text.
  static func spell(_ value: StoredValue) -> String {
    switch value {
    case .integer(let number): return String(number)
    case .double(let number):
      return number.isFinite ? number.description : "CAST(\(quote(number.description)), \"Double\")"
    case .decimal(let number): return "CAST(\(quote(number.description)), \"NSDecimalNumber\")"
    case .string(let text): return quote(text)
    case .bool(let flag): return flag ? "TRUE" : "FALSE"
    case .date(let date): return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
    case .data(let data): return "CAST(\(quote(data.base64EncodedString())), \"Data\")"
    case .uuid(let uuid): return "CAST(\(quote(uuid.uuidString)), \"UUID\")"
    case .url(let url): return "CAST(\(quote(url.absoluteString)), \"URL\")"
    }
  }
}

/// One token of predicate-format text.
struct PredicateToken {
  enum Kind: Equatable {
    /// A word: a key or a keyword.
    case word(String)
    /// A key escaped with `#`.
    case escapedWord(String)
    case string(String)
    case integer(Int64)
    case double(Double)
    /// `$name`.
    case variable(String)
    /// `@count` and the like, without the `@`.
    case collectionOperator(String)
    /// `%@`, `%K`, `%d`, `%i`, `%f`: the letter.
    case argument(Character)
    /// Punctuation and symbolic operators: `(`, `==`, `&&`, …
    case symbol(String)
    case end
  }

  let kind: Kind
  /// Offset in characters from the start of the text.
  let position: Int
  /// The token's text, for error messages.
  let text: String

  /// The token's upper-cased word when it is an unescaped word.
  var keyword: String? {
    if case .word(let word) = kind { return word.uppercased() }
    return nil
  }

  /// How an error message shows the token.
  var found: String {
    kind == .end ? "the end of the string" : "\"\(ObjectGraphError.shorten(text, to: 40))\""
  }
}

/// Cuts predicate-format text into tokens.
struct PredicateLexer {
  let format: String
  private let characters: [Character]
  private var index = 0

  init(_ format: String) {
    self.format = format
    self.characters = Array(format)
  }

  /// Every token, ending with `.end`.
  static func tokens(of format: String) throws -> [PredicateToken] {
    var lexer = PredicateLexer(format)
    var tokens: [PredicateToken] = []
    while true {
      let token = try lexer.next()
      tokens.append(token)
      if token.kind == .end { return tokens }
    }
  }

  private func error(
    _ code: PredicateSyntaxError.Kind.Code, at position: Int, expected: String, found: String
  ) -> PredicateSyntaxError {
    PredicateSyntaxError(code, format: format, position: position, expected: expected, found: found)
  }

  private func peek(_ offset: Int = 0) -> Character? {
    index + offset < characters.count ? characters[index + offset] : nil
  }

  private func text(from start: Int) -> String { String(characters[start..<index]) }

  private mutating func next() throws -> PredicateToken {
    while let character = peek(), character.isWhitespace { index += 1 }
    let start = index
    guard let character = peek() else {
      return PredicateToken(kind: .end, position: start, text: "")
    }
    func token(_ kind: PredicateToken.Kind) -> PredicateToken {
      PredicateToken(kind: kind, position: start, text: text(from: start))
    }
    if character.isLetter || character == "_" {
      let word = identifier()
      return token(.word(word))
    }
    if character.isASCII,
      character.isNumber
        || (character == "-" && peek(1)?.isASCII == true
          && peek(1)?.isNumber == true)
    {
      return try number(start: start)
    }
    switch character {
    case "\"", "'": return try string(quote: character, start: start)
    case "#", "$", "@":
      index += 1
      guard let first = peek(), first.isLetter || first == "_" else {
        throw error(
          .invalidToken, at: start, expected: "a name after \"\(character)\"",
          found: peek().map { "\"\($0)\"" } ?? "the end of the string")
      }
      let name = identifier()
      switch character {
      case "#": return token(.escapedWord(name))
      case "$": return token(.variable(name))
      default: return token(.collectionOperator(name))
      }
    case "%":
      index += 1
      guard let letter = peek(), "@Kdif".contains(letter) else {
        index = min(index + 1, characters.count)
        throw error(
          .invalidToken, at: start, expected: "%@, %K, %d, %i or %f",
          found: "\"\(text(from: start))\"")
      }
      index += 1
      return token(.argument(letter))
    default: break
    }
    let pairs = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
    if let second = peek(1), pairs.contains(String([character, second])) {
      index += 2
      return token(.symbol(String([character, second])))
    }
    if "()[]{},.=<>!".contains(character) {
      index += 1
      return token(.symbol(String(character)))
    }
    index += 1
    throw error(
      .invalidToken, at: start, expected: "a key, a value, an operator or a parenthesis",
      found: "\"\(character)\"")
  }

  private mutating func identifier() -> String {
    let start = index
    while let character = peek(), PredicateSyntax.isIdentifierCharacter(character) { index += 1 }
    return text(from: start)
  }

  private mutating func number(start: Int) throws -> PredicateToken {
    func invalid(_ expected: String) -> PredicateSyntaxError {
      error(.invalidNumber, at: start, expected: expected, found: "\"\(text(from: start))\"")
    }
    let negative = peek() == "-"
    if negative { index += 1 }
    // 0x…, 0o…, 0b… integers.
    if peek() == "0", let marker = peek(1), let radix = ["x": 16, "o": 8, "b": 2][marker] {
      index += 2
      let digitsStart = index
      while let digit = peek(), digit.isHexDigit || digit.isLetter { index += 1 }
      let digits = String(characters[digitsStart..<index])
      guard let magnitude = UInt64(digits, radix: radix) else { throw invalid("a 64-bit integer") }
      let value: Int64
      if !negative, let exact = Int64(exactly: magnitude) {
        value = exact
      } else if negative, magnitude <= Int64.max.magnitude + 1 {
        value = magnitude == Int64.max.magnitude + 1 ? .min : -Int64(magnitude)
      } else {
        throw invalid("a 64-bit integer")
      }
      return PredicateToken(kind: .integer(value), position: start, text: text(from: start))
    }
    var isDouble = false
    func digits() { while let digit = peek(), digit.isASCII, digit.isNumber { index += 1 } }
    digits()
    if peek() == ".", let next = peek(1), next.isASCII, next.isNumber {
      isDouble = true
      index += 1
      digits()
    }
    if let marker = peek(), marker == "e" || marker == "E" {
      var lookahead = 1
      if let sign = peek(1), sign == "+" || sign == "-" { lookahead = 2 }
      if let digit = peek(lookahead), digit.isASCII, digit.isNumber {
        isDouble = true
        index += lookahead
        digits()
      }
    }
    if let after = peek(), PredicateSyntax.isIdentifierCharacter(after) {
      while let next = peek(), PredicateSyntax.isIdentifierCharacter(next) { index += 1 }
      throw invalid("a number")
    }
    let literal = text(from: start)
    if isDouble {
      guard let value = Double(literal), value.isFinite else { throw invalid("a finite number") }
      return PredicateToken(kind: .double(value), position: start, text: literal)
    }
    guard let value = Int64(literal) else { throw invalid("a 64-bit integer") }
    return PredicateToken(kind: .integer(value), position: start, text: literal)
  }

  private mutating func string(quote: Character, start: Int) throws -> PredicateToken {
    index += 1
    var value = ""
    while true {
      guard let character = peek() else {
        throw error(
          .unterminatedString, at: start, expected: "a closing \(quote)",
          found: "the end of the string")
      }
      index += 1
      if character == quote {
        return PredicateToken(kind: .string(value), position: start, text: text(from: start))
      }
      guard character == "\\" else {
        value.append(character)
        continue
      }
      let escapeStart = index - 1
      guard let escaped = peek() else {
        throw error(
          .unterminatedString, at: start, expected: "a closing \(quote)",
          found: "the end of the string")
      }
      index += 1
      switch escaped {
      case "\"", "'", "\\": value.append(escaped)
      case "n": value.append("\n")
      case "r": value.append("\r")
      case "t": value.append("\t")
      case "0": value.append("\0")
      case "u": value.unicodeScalars.append(try unicodeEscape(start: escapeStart))
      default:
        throw error(
          .invalidEscape, at: escapeStart,
          expected: "an escape: \\\" \\' \\\\ \\n \\r \\t \\0 \\uXXXX \\u{X…}",
          found: "\"\\\(escaped)\"")
      }
    }
  }

  /// The scalar of `\uXXXX` or `\u{X…}`, the `\u` read already.
  private mutating func unicodeEscape(start: Int) throws -> Unicode.Scalar {
    var hex = ""
    if peek() == "{" {
      index += 1
      while let digit = peek(), digit.isHexDigit, hex.count < 8 {
        hex.append(digit)
        index += 1
      }
      guard peek() == "}" else { throw badUnicode(start) }
      index += 1
    } else {
      while let digit = peek(), digit.isHexDigit, hex.count < 4 {
        hex.append(digit)
        index += 1
      }
      guard hex.count == 4 else { throw badUnicode(start) }
    }
    guard !hex.isEmpty, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value)
    else { throw badUnicode(start) }
    return scalar
  }

  private func badUnicode(_ start: Int) -> PredicateSyntaxError {
    error(
      .invalidEscape, at: start, expected: "\\uXXXX or \\u{X…} naming a Unicode scalar",
      found: "\"\(text(from: start))\"")
  }
}
