/// A comparison of two expressions: the building block of a ``FetchPredicate``.
///
/// A comparison has a left and a right ``FetchExpression``, an ``Operator``, a ``Modifier`` that
/// says how a to-many left side is quantified, and string ``Options``.
///
/// ```swift
/// // title == "The first book"
/// let byTitle = FetchComparison(
///   .keyPath("title"), .equal, .constant(.string("The first book")))
/// // ANY books.title BEGINSWITH[cd] "e"
/// let anyE = FetchComparison(
///   .keyPath("books.title"), .beginsWith, .constant(.string("e")), modifier: .any,
///   options: [.caseInsensitive, .diacriticInsensitive])
/// let predicate = FetchPredicate.comparison(byTitle)
/// ```
public struct FetchComparison: Hashable, Sendable, CustomStringConvertible {
  /// How the two sides are compared.
  public enum Operator: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `==` (also spelled `=`): equal values.
    case equal = "=="
    /// `!=` (also spelled `<>`): different values.
    case notEqual = "!="
    /// `<`: the left value orders before the right.
    case lessThan = "<"
    /// `<=` (also spelled `=<`).
    case lessThanOrEqual = "<="
    /// `>`: the left value orders after the right.
    case greaterThan = ">"
    /// `>=` (also spelled `=>`).
    case greaterThanOrEqual = ">="
    /// `BETWEEN`: within `{low, high}`, both bounds included.
    case between = "BETWEEN"
    /// `BEGINSWITH`: the left string starts with the right one.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`: the left string ends with the right one.
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: the left string contains the right one, or the left collection contains the
    /// right value.
    case contains = "CONTAINS"
    /// `LIKE`: the left string matches the right pattern, where `*` matches any run of characters
    /// and `?` exactly one; `\*`, `\?` and `\\` match themselves (in a quoted literal the
    /// backslash is itself escaped: `'a\\*'`).
    case like = "LIKE"
    /// `MATCHES`: the whole left string matches the right regular expression.
    case matches = "MATCHES"
    /// `IN`: the left value is an element of the right list or to-many key path, or the left string
    /// occurs in the right string.
    case `in` = "IN"

    /// The operator's spelling in predicate-format syntax.
    public var description: String { rawValue }
  }

  /// How a comparison treats a collection on its left side.
  public enum Modifier: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The left side is one value.
    case direct = ""
    /// `ANY` (also spelled `SOME`): at least one element of the left collection satisfies the
    /// comparison; false for an empty collection.
    case any = "ANY"
    /// `ALL`: every element satisfies it; true for an empty collection.
    case all = "ALL"
    /// `NONE`: no element satisfies it (`NOT ANY`); true for an empty collection.
    case none = "NONE"

    /// The modifier's keyword, empty for ``direct``.
    public var description: String { rawValue }
  }

  /// How strings are compared: `[c]`, `[d]`, `[cd]`.
  public struct Options: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The options' bits.
    public let rawValue: Int

    /// Options from their bits.
    ///
    /// - Parameter rawValue: The bits: 1 for case-insensitive, 2 for diacritic-insensitive.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `[c]`: letters compare without regard to case, beyond ASCII ("Straße" equals "STRASSE").
    public static let caseInsensitive = Options(rawValue: 1)
    /// `[d]`: letters compare without regard to diacritics ("école" equals "ecole").
    public static let diacriticInsensitive = Options(rawValue: 2)

    /// `[c]`, `[d]`, `[cd]`, or empty.
    public var description: String {
      let letters =
        (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
      return letters.isEmpty ? "" : "[\(letters)]"
    }
  }

  /// The left side: the value tested, a collection when the modifier is not ``Modifier/direct``.
  public var left: FetchExpression
  /// The operator.
  public var `operator`: Operator
  /// The right side.
  public var right: FetchExpression
  /// How a collection on the left is quantified.
  public var modifier: Modifier
  /// How strings are compared.
  public var options: Options

  /// Creates a comparison.
  ///
  /// ```swift
  /// let cheap = FetchComparison(.keyPath("price"), .lessThan, .constant(.integer(12)))
  /// ```
  /// - Parameters:
  ///   - left: The left expression.
  ///   - operator: The operator.
  ///   - right: The right expression.
  ///   - modifier: How a to-many left side is quantified; ``Modifier/direct`` by default.
  ///   - options: How strings are compared; none by default.
  public init(
    _ left: FetchExpression, _ operator: Operator, _ right: FetchExpression,
    modifier: Modifier = .direct, options: Options = []
  ) {
    self.left = left
    self.operator = `operator`
    self.right = right
    self.modifier = modifier
    self.options = options
  }

  /// The comparison in predicate-format syntax: `ANY books.title BEGINSWITH[c] "e"`.
  public var description: String {
    let prefix = modifier == .direct ? "" : "\(modifier.rawValue) "
    return "\(prefix)\(left) \(`operator`.rawValue)\(options) \(right)"
  }
}
