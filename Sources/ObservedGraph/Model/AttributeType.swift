import Foundation

/// The type of an attribute: which Swift values it holds, how they convert to and from
/// ``StoredValue``, and how two of them compare.
///
/// Every attribute of an ``EntityDescription`` has a type. The type decides which values
/// ``ManagedObject/setValue(_:forKey:)`` accepts and how a value set by name is converted, how an
/// old and a new value are compared to decide whether a set changed anything, and the stored form
/// stores, snapshots and undo steps keep:
///
/// | type | Swift value | stored as | accepted by name besides the exact type |
/// |---|---|---|---|
/// | ``string`` | `String` | ``StoredValue/string(_:)`` | |
/// | ``bool`` | `Bool` | ``StoredValue/bool(_:)`` | |
/// | ``int16``, ``int32``, ``int64``, ``int`` | `Int16`, `Int32`, `Int64`, `Int` | ``StoredValue/integer(_:)`` | any integer that fits |
/// | ``float`` | `Float` | ``StoredValue/double(_:)`` | a `Double` within `Float`'s range (rounded to the nearest `Float`), an integer `Float` holds exactly |
/// | ``double`` | `Double` | ``StoredValue/double(_:)`` | a `Float`, an integer `Double` holds exactly |
/// | ``decimal`` | `Decimal` | ``StoredValue/decimal(_:)`` | |
/// | ``date`` | `Date` | ``StoredValue/date(_:)`` | |
/// | ``data`` | `Data` | ``StoredValue/data(_:)`` | |
/// | ``uuid`` | `UUID` | ``StoredValue/uuid(_:)`` | |
/// | ``url`` | `URL` | ``StoredValue/url(_:)`` | |
/// | ``transformable(_:)`` | any `Codable` value type | ``StoredValue/data(_:)``, its JSON | |
///
/// ```swift
/// let price = AttributeDescription(name: "price", type: .double, defaultValue: 0.0)
/// let tags = AttributeDescription(name: "tags", type: .transformable([String].self))
/// let same = try AttributeType(name: "double")   // the name form, as models in JSON use
/// ```
public struct AttributeType: Sendable, Hashable, CustomStringConvertible {
  enum Kind: String, Sendable, CaseIterable {
    case string, bool, int16, int32, int64, int, float, double, decimal, date, data, uuid, url
    case transformable
  }

  let kind: Kind
  /// The Swift type values are held as.
  public let valueType: any Sendable.Type
  /// The type's name: `string`, `int16`, … or `transformable(Dimensions)`; see ``init(name:transformableTypes:)``.
  public let name: String
  let accepts: @Sendable (Any) -> Bool
  let coerce: @Sendable (Any) -> Any?
  let equal: @Sendable (Any, Any) -> Bool
  let toStored: @Sendable (Any) throws -> StoredValue
  let fromStored: @Sendable (StoredValue) -> (any Sendable)?

  /// The type's name.
  public var description: String { name }

  /// Types are equal when their names are.
  public static func == (lhs: AttributeType, rhs: AttributeType) -> Bool { lhs.name == rhs.name }

  /// Hashes the name.
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }

  // MARK: Conversions

  /// The stored form of a value of this type.
  ///
  /// ```swift
  /// try AttributeType.int16.storedValue(of: Int16(7))   // .integer(7)
  /// ```
  /// - Parameter value: A value of ``valueType``, or one ``ManagedObject/setValue(_:forKey:)``
  ///   would convert to it.
  /// - Returns: The stored value.
  /// - Throws: ``ObjectGraphError/Kind/wrongType`` when the value is not of this type, or a
  ///   `Codable` value fails to encode.
  public func storedValue(of value: Any) throws -> StoredValue {
    guard let live = accepts(value) ? value : coerce(value) else {
      throw ObjectGraphError(
        .wrongType, entity: "", value: ObjectGraphError.describe(value),
        reason: "\(ObjectGraphError.describe(value)) is not a value of type \(name)")
    }
    return try toStored(live)
  }

  /// The value a stored form stands for, as a value of ``valueType``.
  ///
  /// ```swift
  /// try AttributeType.int16.value(from: .integer(7)) as? Int16   // 7
  /// ```
  /// - Parameter stored: A stored value.
  /// - Returns: The value.
  /// - Throws: ``ObjectGraphError/Kind/wrongType`` when the stored case does not belong to this
  ///   type, an integer does not fit, or data does not decode.
  public func value(from stored: StoredValue) throws -> any Sendable {
    guard let value = fromStored(stored) else {
      throw ObjectGraphError(
        .wrongType, entity: "", value: stored.description,
        reason: "\(stored) is not a stored value of type \(name)")
    }
    return value
  }

  // MARK: Builders

  static func exact<T: Equatable & Sendable>(
    _ kind: Kind, _ type: T.Type, toStored: @escaping @Sendable (T) -> StoredValue,
    fromStored: @escaping @Sendable (StoredValue) -> T?
  ) -> AttributeType {
    AttributeType(
      kind: kind, valueType: type, name: kind.rawValue,
      accepts: { Swift.type(of: $0) == T.self || $0 is T },
      coerce: { $0 as? T },
      equal: { lhs, rhs in
        guard let lhs: T = unbox(lhs), let rhs: T = unbox(rhs) else { return false }
        return lhs == rhs
      },
      toStored: { toStored(unbox($0)!) },
      fromStored: { fromStored($0) })
  }

  static func integer<T: FixedWidthInteger & Sendable>(_ kind: Kind, _ type: T.Type)
    -> AttributeType
  {
    AttributeType(
      kind: kind, valueType: type, name: kind.rawValue,
      accepts: { Swift.type(of: $0) == T.self || $0 is T },
      coerce: { value in
        if let value = value as? any BinaryInteger { return T(exactly: value) }
        return nil
      },
      equal: { lhs, rhs in
        guard let lhs: T = unbox(lhs), let rhs: T = unbox(rhs) else { return false }
        return lhs == rhs
      },
      toStored: { .integer(Int64((unbox($0) as T?)!)) },
      fromStored: { stored in
        guard case .integer(let value) = stored else { return nil }
        return T(exactly: value)
      })
  }

  static func floating<T: BinaryFloatingPoint & Sendable>(_ kind: Kind, _ type: T.Type)
    -> AttributeType
  {
    AttributeType(
      kind: kind, valueType: type, name: kind.rawValue,
      accepts: { Swift.type(of: $0) == T.self || $0 is T },
      coerce: { value in
        if let value = value as? Double { return T.fits(value) ? T(value) : nil }
        if let value = value as? Float { return T.fits(Double(value)) ? T(value) : nil }
        if let value = value as? any BinaryInteger { return T(exactly: value) }
        return nil
      },
      equal: { lhs, rhs in
        guard let lhs: T = unbox(lhs), let rhs: T = unbox(rhs) else { return false }
        return lhs == rhs
      },
      toStored: { .double(Double((unbox($0) as T?)!)) },
      fromStored: { stored in
        guard case .double(let value) = stored, T.fits(value) else { return nil }
        return T(value)
      })
  }

  /// Text, held as `String`.
  public static let string = exact(
    .string, String.self, toStored: { .string($0) },
    fromStored: { if case .string(let value) = $0 { value } else { nil } })
  /// A Boolean, held as `Bool`.
  public static let bool = exact(
    .bool, Bool.self, toStored: { .bool($0) },
    fromStored: { if case .bool(let value) = $0 { value } else { nil } })
  /// A 16-bit integer, held as `Int16`; any integer that fits is accepted by name.
  public static let int16 = integer(.int16, Int16.self)
  /// A 32-bit integer, held as `Int32`; any integer that fits is accepted by name.
  public static let int32 = integer(.int32, Int32.self)
  /// A 64-bit integer, held as `Int64`; any integer that fits is accepted by name.
  public static let int64 = integer(.int64, Int64.self)
  /// A platform integer, held as `Int` and stored as a 64-bit integer.
  public static let int = integer(.int, Int.self)
  /// A single-precision number, held as `Float`. By name it accepts a `Double` within `Float`'s
  /// finite range (rounded to the nearest `Float`; `nan` and infinities pass through) and an
  /// integer it holds exactly; a `Double` beyond the range throws rather than becoming infinite.
  public static let float = floating(.float, Float.self)
  /// A double-precision number, held as `Double`; floats and integers held exactly are converted
  /// by name.
  public static let double = floating(.double, Double.self)
  /// A decimal number, held as `Decimal`.
  public static let decimal = exact(
    .decimal, Decimal.self, toStored: { .decimal($0) },
    fromStored: { if case .decimal(let value) = $0 { value } else { nil } })
  /// A point in time, held as `Date`.
  public static let date = exact(
    .date, Date.self, toStored: { .date($0) },
    fromStored: { if case .date(let value) = $0 { value } else { nil } })
  /// Raw bytes, held as `Data`.
  public static let data = exact(
    .data, Data.self, toStored: { .data($0) },
    fromStored: { if case .data(let value) = $0 { value } else { nil } })
  /// A universally unique identifier, held as `UUID`.
  public static let uuid = exact(
    .uuid, UUID.self, toStored: { .uuid($0) },
    fromStored: { if case .uuid(let value) = $0 { value } else { nil } })
  /// A URL, held as `URL`.
  public static let url = exact(
    .url, URL.self, toStored: { .url($0) },
    fromStored: { if case .url(let value) = $0 { value } else { nil } })

  /// Any `Codable` value type, held as itself and stored as its JSON (Core Data's "transformable"
  /// attribute). Standard-library collections of such values (`[String]`, `Set<Int>`,
  /// `[String: String]`, …) use it without any conformance of yours.
  ///
  /// ```swift
  /// struct Dimensions: Codable, Hashable, Sendable { var width, height: Double }
  /// let size = AttributeDescription(name: "size", type: .transformable(Dimensions.self))
  /// ```
  /// - Parameter type: The Swift type of the values.
  /// - Returns: An attribute type that accepts exactly values of `type`, named
  ///   `transformable(<type>)`.
  public static func transformable<T: Codable & Hashable & Sendable>(_ type: T.Type)
    -> AttributeType
  {
    AttributeType(
      kind: .transformable, valueType: type, name: "transformable(\(T.self))",
      accepts: { Swift.type(of: $0) == T.self || $0 is T },
      coerce: { $0 as? T },
      equal: { lhs, rhs in
        guard let lhs: T = unbox(lhs), let rhs: T = unbox(rhs) else { return false }
        return lhs == rhs
      },
      toStored: { .data(try CodableValues.encode((unbox($0) as T?)!)) },
      fromStored: { stored in
        guard case .data(let data) = stored else { return nil }
        return try? CodableValues.decode(T.self, from: data)
      })
  }

  /// Converts a value given by name to the held representation, or nil when it does not fit.
  func heldValue(_ value: Any) -> Any? {
    if accepts(value) { return value }
    return coerce(value)
  }
}

extension BinaryFloatingPoint {
  /// Whether converting `value` to this type keeps it finite when it was finite.
  fileprivate static func fits(_ value: Double) -> Bool {
    !value.isFinite || Self(value).isFinite
  }
}

/// The JSON form of `Codable` attribute values: sorted keys, so that equal values give equal bytes;
/// doubles JSON cannot write are written as text. A set is written as an array of its elements in
/// the byte order of their JSON, not in its iteration order, which differs between equal sets.
enum CodableValues {
  static func encode<T: Encodable>(_ value: T) throws -> Data {
    if let set = value as? any CanonicalSet { return try set.canonicalJSON() }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return try encoder.encode(value)
  }

  static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return try decoder.decode(type, from: data)
  }
}

/// A set whose JSON does not depend on its iteration order.
private protocol CanonicalSet {
  func canonicalJSON() throws -> Data
}

extension Set: CanonicalSet where Element: Encodable {
  /// A JSON array of the elements' JSON texts, sorted by their bytes.
  fileprivate func canonicalJSON() throws -> Data {
    let elements = try map { try CodableValues.encode($0) }
      .sorted { $0.lexicographicallyPrecedes($1) }
    return Data("[".utf8) + Data(elements.joined(separator: Data(",".utf8))) + Data("]".utf8)
  }
}

extension AttributeType.Kind {
  /// For a type that has a NaN (`Float`, `Double`, `Decimal`, `Date` by its interval), whether a
  /// held value of the type is NaN; nil for the other types. Unboxed as ``AttributeType``'s own
  /// closures unbox (a save tests each such value of an inserted object).
  var nanTest: (@Sendable (Any) -> Bool)? {
    switch self {
    case .float: { (unbox($0) as Float?)?.isNaN ?? false }
    case .double: { (unbox($0) as Double?)?.isNaN ?? false }
    case .decimal: { (unbox($0) as Decimal?)?.isNaN ?? false }
    case .date: { (unbox($0) as Date?)?.timeIntervalSinceReferenceDate.isNaN ?? false }
    default: nil
    }
  }
}

/// A held value as a `T`: taken out of its box as it is when its dynamic type is exactly `T` (the
/// common case: values are checked on the way in), with the runtime's general cast otherwise. The
/// attribute type's equality unboxes both of its values, and undo compares values on every step it
/// records or replays.
private func unbox<T>(_ value: Any) -> T? {
  guard type(of: value) == T.self else { return value as? T }
  func open<Held>(_ held: Held) -> T { unsafeBitCast(held, to: T.self) }
  return _openExistential(value, do: open)
}
