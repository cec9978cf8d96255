import Foundation

/// A Swift value that can stand in a predicate: an argument of ``FetchPredicate/init(format:_:)``
/// (`%@`, `%K`, `%d`, `%i`, `%f`) or a value for a variable in
/// ``FetchPredicate/substituting(_:)``.
///
/// The library's conformances cover every attribute value type: `String`, `Bool`, the integer
/// types, `Double`, `Float`, `Decimal`, `Date`, `Data`, `UUID`, `URL`; also ``StoredValue``,
/// ``ManagedObject`` and ``ObjectID`` (compared by identity), ``FetchExpression`` itself, an
/// `Optional` of any of them (nil becomes the constant `nil`), and arrays and sets of them (a list,
/// for `IN` and `BETWEEN`).
///
/// ```swift
/// let cheap = try FetchPredicate(format: "price < %@ AND category == %@", 12.5, fiction)
/// let some = try FetchPredicate(format: "title IN %@", ["Dune", "Emma"])
/// ```
///
/// Conform a type of your own when it has an obvious constant form:
///
/// ```swift
/// extension Genre: FetchArgument {
///   var fetchExpression: FetchExpression { .constant(.string(rawValue)) }
/// }
/// ```
public protocol FetchArgument {
  /// The value as an expression, usually a ``FetchExpression/constant(_:)``.
  var fetchExpression: FetchExpression { get }
}

extension FetchExpression: FetchArgument {
  /// The expression itself.
  public var fetchExpression: FetchExpression { self }
}

extension StoredValue: FetchArgument {
  /// The constant holding this value.
  public var fetchExpression: FetchExpression { .constant(self) }
}

extension String: FetchArgument {
  /// The string constant.
  public var fetchExpression: FetchExpression { .constant(.string(self)) }
}

extension Substring: FetchArgument {
  /// The string constant.
  public var fetchExpression: FetchExpression { .constant(.string(String(self))) }
}

extension Bool: FetchArgument {
  /// The Boolean constant.
  public var fetchExpression: FetchExpression { .constant(.bool(self)) }
}

extension Int: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension Int8: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension Int16: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension Int32: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension Int64: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(self)) }
}

extension UInt: FetchArgument {
  /// The integer constant; a value above `Int64.max` becomes the nearest `Double`.
  public var fetchExpression: FetchExpression { unsignedConstant(UInt64(self)) }
}

extension UInt8: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension UInt16: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension UInt32: FetchArgument {
  /// The integer constant.
  public var fetchExpression: FetchExpression { .constant(.integer(Int64(self))) }
}

extension UInt64: FetchArgument {
  /// The integer constant; a value above `Int64.max` becomes the nearest `Double`.
  public var fetchExpression: FetchExpression { unsignedConstant(self) }
}

/// An unsigned integer as an integer constant when it fits, else as a double.
private func unsignedConstant(_ value: UInt64) -> FetchExpression {
  if let exact = Int64(exactly: value) { return .constant(.integer(exact)) }
  return .constant(.double(Double(value)))
}

extension Double: FetchArgument {
  /// The floating-point constant.
  public var fetchExpression: FetchExpression { .constant(.double(self)) }
}

extension Float: FetchArgument {
  /// The floating-point constant, widened to `Double` as a `Float` attribute's value is.
  public var fetchExpression: FetchExpression { .constant(.double(Double(self))) }
}

extension Decimal: FetchArgument {
  /// The decimal constant.
  public var fetchExpression: FetchExpression { .constant(.decimal(self)) }
}

extension Date: FetchArgument {
  /// The date constant.
  public var fetchExpression: FetchExpression { .constant(.date(self)) }
}

extension Data: FetchArgument {
  /// The data constant.
  public var fetchExpression: FetchExpression { .constant(.data(self)) }
}

extension UUID: FetchArgument {
  /// The identifier constant.
  public var fetchExpression: FetchExpression { .constant(.uuid(self)) }
}

extension URL: FetchArgument {
  /// The URL constant.
  public var fetchExpression: FetchExpression { .constant(.url(self)) }
}

extension ObjectID: FetchArgument {
  /// The object with this identifier.
  public var fetchExpression: FetchExpression { .object(self) }
}

extension ManagedObject: FetchArgument {
  /// The object, by its identifier: a comparison with it compares identity.
  public var fetchExpression: FetchExpression { .object(objectID) }
}

extension Optional: FetchArgument where Wrapped: FetchArgument {
  /// The wrapped value's expression, or the constant `nil`.
  public var fetchExpression: FetchExpression { self?.fetchExpression ?? .null }
}

extension Array: FetchArgument where Element: FetchArgument {
  /// A list of the elements' expressions, in order.
  public var fetchExpression: FetchExpression { .aggregate(map(\.fetchExpression)) }
}

extension Set: FetchArgument where Element: FetchArgument {
  /// A list of the elements' expressions, in the set's order.
  public var fetchExpression: FetchExpression { .aggregate(map(\.fetchExpression)) }
}
