import Foundation

/// A Swift type that can be the value of an ``Attribute`` property.
///
/// The library conforms `String`, `Bool`, the integer and floating-point types, `Decimal`, `Date`,
/// `Data`, `UUID`, `URL` and `Optional` of any of them. Conform your own `Codable` types through
/// ``TransformableValue``.
///
/// ```swift
/// final class Book: ManagedObject {
///   @Attribute var title: String = ""
///   @Attribute var subtitle: String? = nil
/// }
/// ```
public protocol AttributeValue: Hashable, Sendable {
  /// The attribute type a property of this Swift type has in the model.
  static var attributeType: AttributeType { get }
  /// Whether nil is a valid value (true for `Optional`).
  static var isOptionalValue: Bool { get }
  /// Converts stored storage to a value of this type; the storage was validated on the way in.
  static func _fromStorage(_ storage: Any?) -> Self
  /// This value in storage form: nil for an empty optional.
  var _storage: (any Sendable)? { get }
}

extension AttributeValue {
  /// Non-optional types do not accept nil.
  public static var isOptionalValue: Bool { false }
  /// Reads a stored value of exactly this type.
  public static func _fromStorage(_ storage: Any?) -> Self {
    guard let value = storage as? Self else {
      preconditionFailure(
        "ObservedGraph: stored value \(String(describing: storage)) is not \(Self.self)")
    }
    return value
  }
  /// The value itself.
  public var _storage: (any Sendable)? { self }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
  /// The wrapped type's attribute type.
  public static var attributeType: AttributeType { Wrapped.attributeType }
  /// Optionals accept nil.
  public static var isOptionalValue: Bool { true }
  /// Reads nil or a wrapped value.
  public static func _fromStorage(_ storage: Any?) -> Self {
    guard let storage else { return nil }
    return Wrapped._fromStorage(storage)
  }
  /// nil, or the wrapped value's storage.
  public var _storage: (any Sendable)? { self.flatMap { $0._storage } }
}

/// A `Codable` value type stored in an attribute as itself (Core Data's "transformable").
///
/// ```swift
/// struct Dimensions: TransformableValue { var width = 0.0, height = 0.0 }
/// final class Page: ManagedObject { @Attribute var size = Dimensions() }
/// ```
public protocol TransformableValue: AttributeValue, Codable {}

extension TransformableValue {
  /// `AttributeType.transformable(Self.self)`.
  public static var attributeType: AttributeType { .transformable(Self.self) }
}

extension String: AttributeValue {
  /// ``AttributeType/string``.
  public static var attributeType: AttributeType { .string }
}
extension Bool: AttributeValue {
  /// ``AttributeType/bool``.
  public static var attributeType: AttributeType { .bool }
}
extension Int16: AttributeValue {
  /// ``AttributeType/int16``.
  public static var attributeType: AttributeType { .int16 }
}
extension Int32: AttributeValue {
  /// ``AttributeType/int32``.
  public static var attributeType: AttributeType { .int32 }
}
extension Int64: AttributeValue {
  /// ``AttributeType/int64``.
  public static var attributeType: AttributeType { .int64 }
}
extension Int: AttributeValue {
  /// ``AttributeType/int``.
  public static var attributeType: AttributeType { .int }
}
extension Float: AttributeValue {
  /// ``AttributeType/float``.
  public static var attributeType: AttributeType { .float }
}
extension Double: AttributeValue {
  /// ``AttributeType/double``.
  public static var attributeType: AttributeType { .double }
}
extension Decimal: AttributeValue {
  /// ``AttributeType/decimal``.
  public static var attributeType: AttributeType { .decimal }
}
extension Date: AttributeValue {
  /// ``AttributeType/date``.
  public static var attributeType: AttributeType { .date }
}
extension Data: AttributeValue {
  /// ``AttributeType/data``.
  public static var attributeType: AttributeType { .data }
}
extension UUID: AttributeValue {
  /// ``AttributeType/uuid``.
  public static var attributeType: AttributeType { .uuid }
}
extension URL: AttributeValue {
  /// ``AttributeType/url``.
  public static var attributeType: AttributeType { .url }
}
