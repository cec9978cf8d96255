import Foundation

/// The type of an attribute: which Swift values it stores and how two of them compare.
///
/// Every attribute of an ``EntityDescription`` has a type. The type decides which values
/// ``ManagedObject/setValue(_:forKey:)`` accepts, how a value is converted when it is set by name
/// (an `Int` set on an ``int16`` attribute is stored as `Int16` when it fits), and how an old and a
/// new value are compared to decide whether a set changed anything.
///
/// ```swift
/// let price = AttributeDescription(name: "price", type: .double, defaultValue: 0.0)
/// let tags = AttributeDescription(name: "tags", type: .transformable([String].self))
/// ```
public struct AttributeType: Sendable, CustomStringConvertible {
  enum Kind: String, Sendable {
    case string, bool, int16, int32, int64, int, float, double, decimal, date, data, uuid, url
    case transformable
  }

  let kind: Kind
  /// The Swift type values are stored as.
  public let valueType: any Sendable.Type
  let name: String
  let accepts: @Sendable (Any) -> Bool
  let coerce: @Sendable (Any) -> Any?
  let equal: @Sendable (Any, Any) -> Bool

  /// A human-readable name of the type, such as `string` or `transformable(Tag)`.
  public var description: String { name }

  static func exact<T: Equatable & Sendable>(_ kind: Kind, _ type: T.Type, name: String? = nil)
    -> AttributeType
  {
    AttributeType(
      kind: kind, valueType: type, name: name ?? kind.rawValue,
      accepts: { $0 is T },
      coerce: { $0 as? T },
      equal: { lhs, rhs in
        guard let lhs = lhs as? T, let rhs = rhs as? T else { return false }
        return lhs == rhs
      })
  }

  static func integer<T: FixedWidthInteger & Sendable>(_ kind: Kind, _ type: T.Type)
    -> AttributeType
  {
    AttributeType(
      kind: kind, valueType: type, name: kind.rawValue,
      accepts: { $0 is T },
      coerce: { value in
        if let value = value as? T { return value }
        if let value = value as? any BinaryInteger { return T(exactly: value) }
        return nil
      },
      equal: { lhs, rhs in
        guard let lhs = lhs as? T, let rhs = rhs as? T else { return false }
        return lhs == rhs
      })
  }

  static func floating<T: BinaryFloatingPoint & Sendable>(_ kind: Kind, _ type: T.Type)
    -> AttributeType
  {
    AttributeType(
      kind: kind, valueType: type, name: kind.rawValue,
      accepts: { $0 is T },
      coerce: { value in
        if let value = value as? T { return value }
        if let value = value as? Double { return T(value) }
        if let value = value as? Float { return T(value) }
        if let value = value as? any BinaryInteger { return T(exactly: value) }
        return nil
      },
      equal: { lhs, rhs in
        guard let lhs = lhs as? T, let rhs = rhs as? T else { return false }
        return lhs == rhs
      })
  }

  /// Text, stored as `String`.
  public static let string = exact(.string, String.self)
  /// A Boolean, stored as `Bool`.
  public static let bool = exact(.bool, Bool.self)
  /// A 16-bit integer, stored as `Int16`; any integer that fits is accepted by name.
  public static let int16 = integer(.int16, Int16.self)
  /// A 32-bit integer, stored as `Int32`; any integer that fits is accepted by name.
  public static let int32 = integer(.int32, Int32.self)
  /// A 64-bit integer, stored as `Int64`; any integer that fits is accepted by name.
  public static let int64 = integer(.int64, Int64.self)
  /// A platform integer, stored as `Int` (persisted as a 64-bit integer).
  public static let int = integer(.int, Int.self)
  /// A single-precision number, stored as `Float`; doubles and integers are converted by name.
  public static let float = floating(.float, Float.self)
  /// A double-precision number, stored as `Double`; floats and integers are converted by name.
  public static let double = floating(.double, Double.self)
  /// A decimal number, stored as `Decimal`.
  public static let decimal = exact(.decimal, Decimal.self)
  /// A point in time, stored as `Date`.
  public static let date = exact(.date, Date.self)
  /// Raw bytes, stored as `Data`.
  public static let data = exact(.data, Data.self)
  /// A universally unique identifier, stored as `UUID`.
  public static let uuid = exact(.uuid, UUID.self)
  /// A URL, stored as `URL`.
  public static let url = exact(.url, URL.self)

  /// Any `Codable` value type, stored as itself (Core Data's "transformable" attribute).
  ///
  /// ```swift
  /// struct Dimensions: Codable, Hashable, Sendable { var width, height: Double }
  /// let size = AttributeDescription(name: "size", type: .transformable(Dimensions.self))
  /// ```
  /// - Parameter type: The Swift type of the values.
  /// - Returns: An attribute type that accepts exactly values of `type`.
  public static func transformable<T: Codable & Hashable & Sendable>(_ type: T.Type)
    -> AttributeType
  {
    exact(.transformable, type, name: "transformable(\(T.self))")
  }

  /// Converts a value given by name to the stored representation, or nil when it does not fit.
  func storageValue(_ value: Any) -> Any? {
    if accepts(value) { return value }
    return coerce(value)
  }
}
