import Foundation

/// One side of a ``FetchComparison``: a key path read from the object being tested, a constant, a
/// list of expressions, a variable to substitute later, or the object itself.
///
/// Build expressions directly, as a filter-building interface would, or let
/// ``FetchPredicate/init(format:_:)`` parse them from text. Constants hold a ``StoredValue``, the
/// closed set of attribute values, so a predicate is a `Sendable`, `Hashable` value; an object is
/// held by its ``ObjectID``.
///
/// ```swift
/// let title = FetchExpression.keyPath("title")
/// let value = FetchExpression.constant(.string("The first book"))
/// let cheap = FetchExpression.aggregate([.constant(.integer(5)), .constant(.integer(10))])
/// let count = FetchExpression.keyPath("books.@count")
/// ```
///
/// A key path is keys separated by dots. It may end in a collection operator after a to-many step:
/// `books.@count`, or `books.@sum.price`, `books.@avg.price`, `books.@min.price`,
/// `books.@max.price` (the operator followed by the rest of the path to read from each member).
///
/// Its ``description`` is the expression in predicate-format syntax: `category.name`, `"Dune"`,
/// `12.5`, `{1, 2}`, `$limit`, `SELF`. Values with no literal of their own print as a `CAST`:
/// `CAST(721692000.0, "NSDate")`, `CAST("3.25", "NSDecimalNumber")`, `CAST("…", "UUID")`,
/// `CAST("…", "URL")`, `CAST("<base64>", "Data")`, `CAST("og://…", "ObjectID")`, and a double
/// that is not finite `CAST("nan", "Double")`; the parser reads them back.
public enum FetchExpression: Hashable, Sendable, CustomStringConvertible {
  /// A key path read from the object being tested, such as `"title"`, `"category.name"` or
  /// `"books.@count"`.
  case keyPath(String)
  /// A constant value; nil is the constant `nil`.
  case constant(StoredValue?)
  /// An object, by its identifier (what `%@` makes of a ``ManagedObject`` argument).
  case object(ObjectID)
  /// A list of expressions: the right side of `IN` (`{1, 2, 3}`) and `BETWEEN` (`{low, high}`).
  /// An element that is itself a collection (a nested list, a to-many key path) is flattened into
  /// the list when evaluated.
  indirect case aggregate([FetchExpression])
  /// A variable, `$name`, replaced by ``FetchPredicate/substituting(_:)``; evaluating a predicate
  /// that still holds one throws.
  case variable(String)
  /// The object being tested itself, `SELF`.
  case evaluatedObject

  /// The constant `nil`.
  public static let null = FetchExpression.constant(nil)

  /// The expression in predicate-format syntax, which ``FetchPredicate/init(format:_:)`` parses
  /// back to an equal expression.
  public var description: String {
    switch self {
    case .keyPath(let path): return PredicateSyntax.spell(keyPath: path)
    case .constant(nil): return "nil"
    case .constant(let value?): return PredicateSyntax.spell(value)
    case .object(let id):
      return "CAST(\(PredicateSyntax.quote(id.uriRepresentation.absoluteString)), \"ObjectID\")"
    case .aggregate(let elements):
      return "{" + elements.map(\.description).joined(separator: ", ") + "}"
    case .variable(let name): return "$" + name
    case .evaluatedObject: return "SELF"
    }
  }

  /// The expression with every variable named in `variables` replaced by its value.
  func substituting(_ variables: [String: FetchExpression]) -> FetchExpression {
    switch self {
    case .variable(let name): return variables[name] ?? self
    case .aggregate(let elements): return .aggregate(elements.map { $0.substituting(variables) })
    default: return self
    }
  }
}
