/// The error ``FetchPredicate/init(format:_:)`` throws for text it cannot parse, or arguments that
/// do not fit it: where, what was expected, and what was found.
///
/// ```swift
/// do {
///   _ = try FetchPredicate(format: "price < AND x")
/// } catch let error as PredicateSyntaxError {
///   print(error)  // price < AND x: at 8, expected a value, found "AND"
///   // error.position == 8, error.expected == "a value", error.found == "\"AND\""
/// }
/// ```
public struct PredicateSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong. New kinds may be added in later versions.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    enum Code: String, Sendable {
      case unexpectedToken, invalidToken, unterminatedString, invalidEscape, invalidNumber
      case unknownOperator, missingArgument, unusedArguments, wrongArgument
    }
    let code: Code
    /// The kind's name, such as `unexpectedToken`.
    public var description: String { code.rawValue }

    /// A token that does not fit where it stands: `price < AND x`, a missing `)`.
    public static let unexpectedToken = Self(code: .unexpectedToken)
    /// A character that begins no token: `price ~ 3`, `%s`, `$` without a name.
    public static let invalidToken = Self(code: .invalidToken)
    /// A string literal without its closing quote.
    public static let unterminatedString = Self(code: .unterminatedString)
    /// An unknown escape sequence in a string literal, such as `\q`.
    public static let invalidEscape = Self(code: .invalidEscape)
    /// A number that does not fit: an integer beyond 64 bits.
    public static let invalidNumber = Self(code: .invalidNumber)
    /// An unknown collection operator (`@first`), comparison option (`[x]`) or `CAST` type.
    public static let unknownOperator = Self(code: .unknownOperator)
    /// A `%@`, `%K`, `%d`, `%i` or `%f` with no argument left for it.
    public static let missingArgument = Self(code: .missingArgument)
    /// More arguments than the format uses.
    public static let unusedArguments = Self(code: .unusedArguments)
    /// An argument of the wrong kind: `%K` given something other than a string, `%d` a
    /// non-integer.
    public static let wrongArgument = Self(code: .wrongArgument)
  }

  /// What went wrong.
  public let kind: Kind
  /// The format string parsed (shortened in ``description`` when very long).
  public let format: String
  /// Where, as an offset in characters (Swift `Character`s) from the start of the format.
  public let position: Int
  /// What the parser expected there, such as `a value` or `")"`.
  public let expected: String
  /// What it found, such as `"AND"` (quoted) or `the end of the string`.
  public let found: String

  init(_ code: Kind.Code, format: String, position: Int, expected: String, found: String) {
    self.kind = Kind(code: code)
    self.format = format
    self.position = position
    self.expected = expected
    self.found = found
  }

  /// `<format>: at <position>, expected <expected>, found <found>`.
  public var description: String {
    "\(ObjectGraphError.shorten(format)): at \(position), expected \(expected), found \(found)"
  }
}
