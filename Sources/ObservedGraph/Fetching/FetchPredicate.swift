/// A condition on objects, as Core Data's `NSPredicate`: a tree of comparisons joined by `AND`,
/// `OR` and `NOT`, built directly or parsed from NSPredicate-style text, checked against an
/// entity and evaluated on objects in memory.
///
/// Build a predicate from parts, as a filter-building interface does:
///
/// ```swift
/// let byTitle = FetchPredicate.comparison(
///   FetchComparison(.keyPath("title"), .equal, .constant(.string("The first book"))))
/// ```
///
/// or parse it, with `%@` arguments taken from Swift values:
///
/// ```swift
/// let cheap = try FetchPredicate(format: "price < %@ AND category.name == 'Fiction'", 12)
/// try cheap.validate(for: bookEntity)        // unknown keys, impossible types
/// let matches = try cheap.evaluate(with: book)
/// ```
///
/// Its ``description`` is the predicate in the same syntax, and parsing it gives back an equal
/// tree. The exceptions are trees the parser never makes: `.and([])` prints as `TRUEPREDICATE`,
/// `.or([])` as `FALSEPREDICATE`, a one-element `AND` or `OR` as its element, a key path with a
/// key that is not an identifier (letters, digits, `_`) prints as it is, and the parser refuses a
/// `BETWEEN` whose right side is not two bounds, a key path or a variable.
///
/// ## Syntax
///
/// Keywords are case-insensitive; whitespace is free. `NOT` binds tightest, then `AND`, then `OR`.
///
/// | syntax | meaning |
/// |---|---|
/// | `a == b`, `a = b` | equal |
/// | `a != b`, `a <> b` | not equal |
/// | `<`, `<=` / `=<`, `>`, `>=` / `=>` | order: numbers by value, strings by Swift's `<`, dates by time |
/// | `a BETWEEN {low, high}` | `low <= a <= high` |
/// | `BEGINSWITH`, `ENDSWITH`, `CONTAINS` | string prefix, suffix, substring; `CONTAINS` on a collection: membership |
/// | `LIKE` | whole-string pattern: `*` any run of characters, `?` one character; `\*` `\?` themselves (written `'\\*'` in a literal) |
/// | `MATCHES` | the whole string matches a regular expression (Swift `Regex` syntax) |
/// | `a IN {1, 2}`, `a IN books.title`, `a IN "text"` | membership in a list, in a to-many key path's values, or substring |
/// | `[c]`, `[d]`, `[cd]` after an operator | case-, diacritic-, or both-insensitive string comparison |
/// | `ANY` / `SOME`, `ALL`, `NONE` before a comparison | quantify over a to-many left side |
/// | `AND` / `&&`, `OR` / `\|\|`, `NOT` / `!`, `( … )` | logic |
/// | `TRUEPREDICATE`, `FALSEPREDICATE` | constants |
/// | `title`, `category.name`, `SELF.title`, `#in` | key paths (`#` escapes a keyword) |
/// | `books.@count`, `books.@sum.price`, `@avg`, `@min`, `@max` | collection operators after a to-many key |
/// | `SELF` | the object tested |
/// | `"text"`, `'text'` | strings; escapes `\"` `\'` `\\` `\n` `\r` `\t` `\0` `\uXXXX` `\u{X…}` |
/// | `12`, `-3`, `2.5`, `1e-3` | numbers: integers (64-bit) and doubles |
/// | `TRUE` / `YES`, `FALSE` / `NO`, `nil` / `NULL` | constants |
/// | `{1, 2, 3}` | a list |
/// | `$name` | a variable, see ``substituting(_:)`` |
/// | `%@`, `%K`, `%d` / `%i`, `%f` | the next argument: a value, a key path, an integer, a number |
/// | `CAST(721692000.0, "NSDate")`, `CAST("1.5", "NSDecimalNumber")`, `CAST("…", "UUID")`, `CAST("…", "URL")`, `CAST("<base64>", "Data")`, `CAST("og://…", "ObjectID")`, `CAST("inf", "Double")` | constants without a literal of their own (what ``description`` prints for them) |
///
/// Not supported: `SUBQUERY`, `FUNCTION`, arithmetic, parentheses around an expression
/// (`(price) < 3`), a collection operator at the start of a key path (`@sum.books.price`),
/// `@distinctUnionOfObjects` and the other collection operators, index access (`[FIRST]`, `[1]`),
/// `%s`, `%lu` and the other C formats, `%%`, and block or custom-selector predicates.
///
/// ## Semantics, and where they differ from NSPredicate
///
/// Values compare as Swift compares them: strings with `String`'s `==` and `<` (canonical
/// equivalence: a precomposed "é" equals "e" followed by a combining accent; substring tests work on
/// whole characters); integers, doubles and decimals by value across types; dates by time; objects
/// by identity. `[c]` and `[d]` fold both strings with Foundation's
/// `folding(options:locale:)` first (full case folding: "Straße" equals "STRASSE"). Values of
/// different kinds are never equal and never ordered (NSPredicate would compare `YES` with `1`).
///
/// - nil equals only nil; an ordering comparison, `BETWEEN`, and any string operator with nil on
///   either side is false (GNUstep's NSPredicate answers true for `nil <= nil`).
/// - A to-one step through nil makes the key path nil, or an empty collection when a to-many
///   step follows (`ANY category.books.price > 1` is false for a book without a category).
/// - A key path through a to-many relationship yields a collection. It must be quantified with
///   `ANY`, `ALL` or `NONE`, or reduced with a collection operator, or stand on the right of `IN`
///   or on the left of `CONTAINS`; compared directly it throws (a Core Data fetch throws "to-many
///   key not allowed here"; in-memory NSPredicate compares the set with the value and answers
///   false).
/// - `ALL` and `NONE` are true on an empty collection, `ANY` false.
/// - `BEGINSWITH`, `ENDSWITH`, `CONTAINS` with an empty right string are true, as Swift's
///   `hasPrefix("")` is (NSPredicate answers false).
/// - `LIKE`'s `?` matches exactly one character (GNUstep's translation to a regular expression
///   lets it match none).
/// - `MATCHES` uses Swift `Regex` (grapheme-cluster semantics, ICU-like syntax, compiled at each
///   evaluation); `[c]` ignores case, `[d]` folds diacritics in the string and the pattern.
/// - A `Float` attribute compares as the `Double` it widens to: `0.1` as a `Float` does not equal
///   the constant `0.1`.
/// - `@sum` and `@avg` of no values are 0 and nil, `@min` and `@max` nil; nil member values are
///   skipped.
public enum FetchPredicate: Hashable, Sendable, CustomStringConvertible {
  /// `TRUEPREDICATE` (true) or `FALSEPREDICATE` (false).
  case constant(Bool)
  /// A comparison of two expressions.
  case comparison(FetchComparison)
  /// True when every subpredicate is; true when there are none.
  indirect case and([FetchPredicate])
  /// True when some subpredicate is; false when there are none.
  indirect case or([FetchPredicate])
  /// True when the subpredicate is false.
  indirect case not(FetchPredicate)

  /// The predicate in predicate-format syntax; ``init(format:_:)`` parses it back to an equal
  /// predicate.
  ///
  /// ```swift
  /// let predicate = FetchPredicate.and([.constant(true), .not(.constant(false))])
  /// print(predicate)  // TRUEPREDICATE AND NOT FALSEPREDICATE
  /// ```
  public var description: String {
    switch self {
    case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .comparison(let comparison): return comparison.description
    case .and(let parts): return Self.join(parts, "AND", empty: "TRUEPREDICATE")
    case .or(let parts): return Self.join(parts, "OR", empty: "FALSEPREDICATE")
    case .not(let inner): return "NOT " + inner.operandDescription
    }
  }

  /// The description, in parentheses when it prints as an `AND` or `OR` of several parts.
  private var operandDescription: String {
    isCompound ? "(\(description))" : description
  }

  /// Whether the description joins several parts with `AND` or `OR`.
  private var isCompound: Bool {
    switch self {
    case .and(let parts), .or(let parts):
      return parts.count > 1 || parts.first?.isCompound == true
    default: return false
    }
  }

  private static func join(_ parts: [FetchPredicate], _ keyword: String, empty: String) -> String {
    guard parts.count > 1 else { return parts.first?.description ?? empty }
    return parts.map(\.operandDescription).joined(separator: " \(keyword) ")
  }

  /// The predicate with each variable (`$name`) named in `variables` replaced by its value.
  ///
  /// Variables not named stay; evaluating a predicate that still holds one throws.
  ///
  /// ```swift
  /// let template = try FetchPredicate(format: "price < $limit")
  /// let cheap = template.substituting(["limit": 12])
  /// print(cheap)  // price < 12
  /// ```
  /// - Parameter variables: Values by variable name (without the `$`).
  /// - Returns: The predicate with the variables replaced.
  /// - Complexity: O(n) in the size of the predicate.
  public func substituting(_ variables: [String: any FetchArgument]) -> FetchPredicate {
    substituting(expressions: variables.mapValues(\.fetchExpression))
  }

  func substituting(expressions variables: [String: FetchExpression]) -> FetchPredicate {
    switch self {
    case .constant: return self
    case .comparison(var comparison):
      comparison.left = comparison.left.substituting(variables)
      comparison.right = comparison.right.substituting(variables)
      return .comparison(comparison)
    case .and(let parts): return .and(parts.map { $0.substituting(expressions: variables) })
    case .or(let parts): return .or(parts.map { $0.substituting(expressions: variables) })
    case .not(let inner): return .not(inner.substituting(expressions: variables))
    }
  }
}
