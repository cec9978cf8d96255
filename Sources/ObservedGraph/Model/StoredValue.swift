import Foundation

/// One attribute value in the form stores, snapshots, undo steps and archives keep: a closed set
/// of `Sendable`, `Codable` cases that every ``AttributeType`` converts to and from.
///
/// Integer types (`Int16`, `Int32`, `Int64`, `Int`) are ``integer(_:)``; `Float` and `Double` are
/// ``double(_:)`` (a `Float` widens without loss); `Codable` values (transformable attributes and
/// standard-library collections such as `[String]`) are ``data(_:)`` holding their JSON encoding,
/// written with sorted keys (and a set's elements in the byte order of their JSON) so that equal
/// values give equal bytes. An attribute with no value is `nil` where a `StoredValue?` is expected.
///
/// ```swift
/// let price = try AttributeType.double.storedValue(of: 12.5)   // .double(12.5)
/// let back = try AttributeType.double.value(from: price) as? Double  // 12.5
/// ```
///
/// The ``AttributeType`` documentation says, type by type, which case a value is stored as.
public enum StoredValue: Hashable, Sendable, CustomStringConvertible {
  /// A signed integer: `Int16`, `Int32`, `Int64` and `Int` attributes.
  case integer(Int64)
  /// A floating-point number: `Float` and `Double` attributes.
  case double(Double)
  /// A decimal number: `Decimal` attributes.
  case decimal(Decimal)
  /// Text: `String` attributes.
  case string(String)
  /// A Boolean: `Bool` attributes.
  case bool(Bool)
  /// A point in time: `Date` attributes.
  case date(Date)
  /// Bytes: `Data` attributes, and the JSON encoding of `Codable` values.
  case data(Data)
  /// A universally unique identifier: `UUID` attributes.
  case uuid(UUID)
  /// A URL: `URL` attributes.
  case url(URL)

  /// The case and its value, such as `double(12.5)` or `string("Dune")`.
  public var description: String {
    switch self {
    case .integer(let value): "integer(\(value))"
    case .double(let value): "double(\(value))"
    case .decimal(let value): "decimal(\(value))"
    case .string(let value): "string(\(String(reflecting: value)))"
    case .bool(let value): "bool(\(value))"
    case .date(let value): "date(\(value.timeIntervalSinceReferenceDate))"
    case .data(let value): "data(\(value.count) bytes)"
    case .uuid(let value): "uuid(\(value.uuidString))"
    case .url(let value): "url(\(value.absoluteString))"
    }
  }

  /// The name of the case, for error messages.
  var caseName: String {
    switch self {
    case .integer: "integer"
    case .double: "double"
    case .decimal: "decimal"
    case .string: "string"
    case .bool: "bool"
    case .date: "date"
    case .data: "data"
    case .uuid: "uuid"
    case .url: "url"
    }
  }
}
