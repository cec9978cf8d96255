import Foundation

// The archived form of model descriptions, so that a generic editor can keep a model as JSON:
//
// {"name": "Book", "parent": null, "isAbstract": false,
//  "attributes": [{"name": "title", "type": "string", "defaultValue": {"string": ""},
//                  "isOptional": false, "isTransient": false}],
//  "relationships": [{"name": "category", "destination": "BookCategory", "inverse": "books",
//                     "isToMany": false, "isOrdered": false, "deleteRule": "nullify",
//                     "isOptional": true, "minCount": 0, "maxCount": 0}]}
//
// Default values are written in their stored form (`StoredValue`); a relationship with no inverse
// on purpose writes `"noInverse": true` instead of `"inverse"`. Decoded entities describe generic
// objects (`ManagedObject`): classes are code, not data.

extension AttributeDescription: Codable {
  private enum CodingKeys: String, CodingKey {
    case name, type, defaultValue, isOptional, isTransient, rules, isIndexed, originalName
  }

  /// Writes the attribute; its default value in stored form.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(AttributeDescription(name: "title", type: .string))
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: ``ObjectGraphError/Kind/invalidDefault`` when the default value is not of the
  ///   attribute's type; what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(type, forKey: .type)
    if let defaultValue {
      do {
        try container.encode(try type.storedValue(of: defaultValue), forKey: .defaultValue)
      } catch let error as ObjectGraphError {
        throw ObjectGraphError(
          .invalidDefault, entity: "", key: name, value: error.value, reason: error.reason)
      }
    }
    try container.encode(isOptional, forKey: .isOptional)
    try container.encode(isTransient, forKey: .isTransient)
    // Written only when used, so that the JSON of a model without them stays as it was.
    if !rules.isEmpty { try container.encode(rules, forKey: .rules) }
    if isIndexed { try container.encode(true, forKey: .isIndexed) }
    try container.encodeIfPresent(originalName, forKey: .originalName)
  }

  /// Reads an attribute written by ``encode(to:)``.
  ///
  /// ```swift
  /// let title = try JSONDecoder().decode(AttributeDescription.self, from: json)
  /// ```
  /// - Parameter decoder: The decoder; transformable types are found under
  ///   ``AttributeType/transformableTypesKey``.
  /// - Throws: `DecodingError` for a missing field, an unknown type, or a default value that is not
  ///   a stored value of the type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let name = try container.decode(String.self, forKey: .name)
    let type = try container.decode(AttributeType.self, forKey: .type)
    var defaultValue: (any Sendable)?
    if let stored = try container.decodeIfPresent(StoredValue.self, forKey: .defaultValue) {
      guard let value = type.fromStored(stored) else {
        throw DecodingError.dataCorruptedError(
          forKey: .defaultValue, in: container,
          debugDescription: "\(stored) is not a stored value of type \(type)")
      }
      defaultValue = value
    }
    self.init(
      name: name, type: type, defaultValue: defaultValue,
      isOptional: try container.decodeIfPresent(Bool.self, forKey: .isOptional),
      isTransient: try container.decodeIfPresent(Bool.self, forKey: .isTransient) ?? false,
      rules: try container.decodeIfPresent(AttributeRules.self, forKey: .rules)
        ?? AttributeRules(),
      isIndexed: try container.decodeIfPresent(Bool.self, forKey: .isIndexed) ?? false,
      originalName: try container.decodeIfPresent(String.self, forKey: .originalName))
  }
}

extension RelationshipDescription: Codable {
  private enum CodingKeys: String, CodingKey {
    case name, destination, inverse, noInverse, isToMany, isOrdered, deleteRule, isOptional
    case minCount, maxCount, originalName
  }

  /// Writes the relationship.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(
  ///   RelationshipDescription(name: "books", destination: "Book", inverse: "category", toMany: true))
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(destination, forKey: .destination)
    switch inverse {
    case .named(let inverse): try container.encode(inverse, forKey: .inverse)
    case .noInverse: try container.encode(true, forKey: .noInverse)
    case nil: break
    }
    try container.encode(isToMany, forKey: .isToMany)
    try container.encode(isOrdered, forKey: .isOrdered)
    try container.encode(deleteRule, forKey: .deleteRule)
    try container.encode(isOptional, forKey: .isOptional)
    try container.encode(minCount, forKey: .minCount)
    try container.encode(maxCount, forKey: .maxCount)
    try container.encodeIfPresent(originalName, forKey: .originalName)
  }

  /// Reads a relationship written by ``encode(to:)``; absent flags take the initializer's defaults.
  ///
  /// ```swift
  /// let books = try JSONDecoder().decode(RelationshipDescription.self, from: json)
  /// ```
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for a missing name or destination, or an unknown delete rule.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var inverse: Inverse?
    if let name = try container.decodeIfPresent(String.self, forKey: .inverse) {
      inverse = .named(name)
    } else if try container.decodeIfPresent(Bool.self, forKey: .noInverse) == true {
      inverse = .noInverse
    }
    self.init(
      name: try container.decode(String.self, forKey: .name),
      destination: try container.decode(String.self, forKey: .destination),
      inverse: inverse,
      toMany: try container.decodeIfPresent(Bool.self, forKey: .isToMany) ?? false,
      ordered: try container.decodeIfPresent(Bool.self, forKey: .isOrdered) ?? false,
      deleteRule: try container.decodeIfPresent(DeleteRule.self, forKey: .deleteRule) ?? .nullify,
      isOptional: try container.decodeIfPresent(Bool.self, forKey: .isOptional) ?? true,
      minCount: try container.decodeIfPresent(Int.self, forKey: .minCount) ?? 0,
      maxCount: try container.decodeIfPresent(Int.self, forKey: .maxCount) ?? 0,
      originalName: try container.decodeIfPresent(String.self, forKey: .originalName))
  }
}

extension DeleteRule: Codable {}

extension FetchedPropertyDescription: Codable {
  private enum CodingKeys: String, CodingKey {
    case name, destination, predicate, sortDescriptors
  }

  /// Writes the fetched property, its predicate as text (its ``FetchPredicate/description``,
  /// which parses back to the same predicate).
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(bargains)
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(destination, forKey: .destination)
    try container.encode(predicate.description, forKey: .predicate)
    if !sortDescriptors.isEmpty { try container.encode(sortDescriptors, forKey: .sortDescriptors) }
  }

  /// Reads a fetched property written by ``encode(to:)``.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for a missing field or a predicate that does not parse (the
  ///   error's description gives the ``PredicateSyntaxError``).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let predicate = try container.decodePredicate(forKey: .predicate)
    self.init(
      name: try container.decode(String.self, forKey: .name),
      destination: try container.decode(String.self, forKey: .destination),
      predicate: predicate,
      sortDescriptors: try container.decodeIfPresent([FetchSort].self, forKey: .sortDescriptors)
        ?? [])
  }
}

extension EntityDescription: Codable {
  private enum CodingKeys: String, CodingKey {
    case name, parent, isAbstract, attributes, relationships, fetchedProperties, originalName
  }

  /// Writes the entity's declared parts: name, parent's name, abstractness, its own attributes,
  /// relationships and fetched properties. The class is not written.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(model.entities)
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the attributes' encoding throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encodeIfPresent(parentName, forKey: .parent)
    try container.encode(isAbstract, forKey: .isAbstract)
    try container.encode(attributes, forKey: .attributes)
    try container.encode(relationships, forKey: .relationships)
    if !fetchedProperties.isEmpty {
      try container.encode(fetchedProperties, forKey: .fetchedProperties)
    }
    try container.encodeIfPresent(originalName, forKey: .originalName)
  }

  /// Reads an entity written by ``encode(to:)``, for generic objects (``ManagedObject``).
  ///
  /// ```swift
  /// let entities = try JSONDecoder().decode([EntityDescription].self, from: json)
  /// let model = try ObjectModel(entities: entities)
  /// ```
  /// - Parameter decoder: The decoder; transformable types are found under
  ///   ``AttributeType/transformableTypesKey``.
  /// - Throws: `DecodingError` for a missing or malformed field.
  public convenience init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      name: try container.decode(String.self, forKey: .name),
      parent: try container.decodeIfPresent(String.self, forKey: .parent),
      isAbstract: try container.decodeIfPresent(Bool.self, forKey: .isAbstract) ?? false,
      attributes: try container.decodeIfPresent([AttributeDescription].self, forKey: .attributes)
        ?? [],
      relationships: try container.decodeIfPresent(
        [RelationshipDescription].self, forKey: .relationships) ?? [],
      fetchedProperties: try container.decodeIfPresent(
        [FetchedPropertyDescription].self, forKey: .fetchedProperties) ?? [],
      originalName: try container.decodeIfPresent(String.self, forKey: .originalName))
  }
}

extension KeyedDecodingContainer {
  /// A predicate kept as its text, parsed.
  ///
  /// - Throws: `DecodingError` when the text is missing or does not parse (the error's
  ///   description gives the ``PredicateSyntaxError``).
  func decodePredicate(forKey key: Key) throws -> FetchPredicate {
    let text = try decode(String.self, forKey: key)
    do {
      return try FetchPredicate(format: text)
    } catch {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self, debugDescription: "\(error)")
    }
  }
}
