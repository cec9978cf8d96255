import Foundation

/// The name form of attribute types, and their archived form (the name as a string), so a model
/// can be written as JSON and read back.
extension AttributeType: Codable {
  /// The user-info key under which a decoder finds the Swift types that transformable attributes
  /// may name: a `[any (Codable & Hashable & Sendable).Type]`.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.userInfo[AttributeType.transformableTypesKey] = [Dimensions.self, [String].self]
  /// let entity = try decoder.decode(EntityDescription.self, from: json)
  /// ```
  public static let transformableTypesKey = CodingUserInfoKey(
    rawValue: "ObservedGraph.AttributeType.transformableTypes")!

  /// The type with the given name: `string`, `bool`, `int16`, `int32`, `int64`, `int`, `float`,
  /// `double`, `decimal`, `date`, `data`, `uuid`, `url`, or `transformable(<type>)` for one of
  /// `transformableTypes`.
  ///
  /// ```swift
  /// let type = try AttributeType(name: "int32")                      // .int32
  /// let size = try AttributeType(name: "transformable(Dimensions)",
  ///                              transformableTypes: [Dimensions.self])
  /// ```
  /// - Parameters:
  ///   - name: A type's ``name``.
  ///   - transformableTypes: The `Codable` types a transformable name may refer to, matched by
  ///     ``name``.
  /// - Throws: ``ObjectGraphError/Kind/unknownType`` naming the name when no type has it.
  public init(
    name: String, transformableTypes: [any (Codable & Hashable & Sendable).Type] = []
  ) throws {
    if let builtIn = Self.builtIn[name] {
      self = builtIn
      return
    }
    for type in transformableTypes {
      let candidate = Self.transformable(opening: type)
      if candidate.name == name {
        self = candidate
        return
      }
    }
    let known = Kind.allCases.filter { $0 != .transformable }.map(\.rawValue)
    throw ObjectGraphError(
      .unknownType, entity: "", value: ObjectGraphError.shorten(name),
      reason: "no attribute type is named '\(ObjectGraphError.shorten(name))'; the names are "
        + known.joined(separator: ", ")
        + (name.hasPrefix("transformable(")
          ? ", and transformable(<type>) for the types given in transformableTypes" : ""))
  }

  /// Writes the type's ``name``.
  ///
  /// ```swift
  /// try JSONEncoder().encode(AttributeType.double)   // "double"
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(name)
  }

  /// Reads a type from its name; transformable types are looked up in the decoder's
  /// ``transformableTypesKey``.
  ///
  /// ```swift
  /// let type = try JSONDecoder().decode(AttributeType.self, from: Data(#""uuid""#.utf8))
  /// ```
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError.dataCorrupted` naming an unknown type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    let types =
      decoder.userInfo[Self.transformableTypesKey] as? [any (Codable & Hashable & Sendable).Type]
      ?? []
    do {
      try self.init(name: name, transformableTypes: types)
    } catch let error as ObjectGraphError {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: error.reason
          + " (list transformable types under AttributeType.transformableTypesKey)")
    }
  }

  private static let builtIn: [String: AttributeType] = Dictionary(
    uniqueKeysWithValues: [
      string, bool, int16, int32, int64, int, float, double, decimal, date, data, uuid, url,
    ].map { ($0.name, $0) })

  private static func transformable<T: Codable & Hashable & Sendable>(opening type: T.Type)
    -> AttributeType
  {
    transformable(type)
  }
}
