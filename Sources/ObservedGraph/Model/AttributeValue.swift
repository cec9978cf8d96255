import Foundation

/// A Swift type that can be the value of an ``Attribute`` property.
///
/// The library conforms `String`, `Bool`, the integer and floating-point types, `Decimal`, `Date`,
/// `Data`, `UUID`, `URL`, arrays, sets and dictionaries of attribute values (`[String]`,
/// `Set<Int>`, `[String: Double]`, `[Dimensions]`, …), and `Optional` of any of them. Conform your own `Codable` types through ``TransformableValue``. The one requirement
/// names the ``AttributeType``, which converts values to and from ``StoredValue``.
///
/// ```swift
/// final class Book: ManagedObject {
///   @Attribute var title: String = ""
///   @Attribute var subtitle: String? = nil
///   @Attribute var keywords: [String] = []
/// }
/// ```
public protocol AttributeValue: Hashable, Sendable {
  /// The attribute type a property of this Swift type has in the model.
  ///
  /// ```swift
  /// Int16.attributeType   // .int16
  /// ```
  static var attributeType: AttributeType { get }
}

/// Marks `Optional` attribute values: the model makes their attributes optional.
protocol OptionalAttributeValue {
  /// The wrapped value, or nil.
  var wrappedValue: (any Sendable)? { get }
}

extension Optional: OptionalAttributeValue where Wrapped: AttributeValue {
  var wrappedValue: (any Sendable)? { self.map { $0 } }
}

extension AttributeValue {
  /// Whether nil is a valid value of this type (true for `Optional`).
  static var isOptionalValue: Bool { Self.self is any OptionalAttributeValue.Type }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
  /// The wrapped type's attribute type; the attribute is optional.
  ///
  /// ```swift
  /// String?.attributeType   // .string
  /// ```
  public static var attributeType: AttributeType { Wrapped.attributeType }
}

/// A `Codable` value type held in an attribute as itself and stored as its JSON (Core Data's
/// "transformable").
///
/// ```swift
/// struct Dimensions: TransformableValue { var width = 0.0, height = 0.0 }
/// final class Page: ManagedObject { @Attribute var size = Dimensions() }
/// ```
public protocol TransformableValue: AttributeValue, Codable {}

extension TransformableValue {
  /// `AttributeType.transformable(Self.self)`.
  ///
  /// ```swift
  /// Dimensions.attributeType.name   // "transformable(Dimensions)"
  /// ```
  public static var attributeType: AttributeType { .transformable(Self.self) }
}

extension Array: AttributeValue where Element: AttributeValue & Codable {
  /// `AttributeType.transformable(Self.self)`: the array is stored as its JSON.
  ///
  /// ```swift
  /// [String].attributeType.name   // "transformable(Array<String>)"
  /// ```
  public static var attributeType: AttributeType { .transformable(Self.self) }
}

extension Set: AttributeValue where Element: AttributeValue & Codable {
  /// `AttributeType.transformable(Self.self)`: the set is stored as its JSON.
  ///
  /// ```swift
  /// Set<Int>.attributeType.name   // "transformable(Set<Int>)"
  /// ```
  public static var attributeType: AttributeType { .transformable(Self.self) }
}

extension Dictionary: AttributeValue
where Key: AttributeValue & Codable, Value: AttributeValue & Codable {
  /// `AttributeType.transformable(Self.self)`: the dictionary is stored as its JSON.
  ///
  /// ```swift
  /// [String: String].attributeType.name   // "transformable(Dictionary<String, String>)"
  /// ```
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
