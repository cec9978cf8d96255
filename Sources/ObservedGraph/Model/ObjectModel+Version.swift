/// A model's version: what a store keeps to tell whether a file was made by the same model.
extension ObjectModel {
  /// The model's version hash: 64 hexadecimal digits of SHA-256 over the model's names and types
  /// (``versionLines``), the same in every process and on every platform.
  ///
  /// Two models have the same hash when they have the same entities, parents and abstractness,
  /// and each entity the same attributes (name, type, optionality, transience) and relationships
  /// (name, destination, inverse, to-one or to-many, ordered, count limits), whatever the order
  /// of their declaration. Default values, delete rules, attribute rules, indexes and the classes
  /// of the objects are not part of it: they do not change what a store holds (a store creates a
  /// missing index when it opens). As in Core Data, a store refuses a file whose hash differs
  /// from its model's.
  ///
  /// ```swift
  /// let model = try ObjectModel(types: [Book.self, BookCategory.self])
  /// print(model.versionHash)   // for example "3f9a…"; the same on the next launch
  /// ```
  public var versionHash: String {
    SHA256.hex(Array(versionLines.joined(separator: "\n").utf8))
  }

  /// The lines the version hash is computed from, one per entity and one per property, sorted:
  /// `Book price attribute double optional:false transient:false`.
  ///
  /// ```swift
  /// model.versionLines.first   // "Book entity parent:- abstract:false"
  /// ```
  public var versionLines: [String] {
    entities.flatMap(Self.versionLines(of:)).sorted()
  }

  /// What differs between this model and `other` (for example the model a file was made by), as
  /// one difference per entity or property, sorted: empty when both have the same
  /// ``versionHash``.
  ///
  /// ```swift
  /// for difference in model.differences(from: storedModel) { print(difference) }
  /// // Book.price: attribute double optional:false transient:false here,
  /// //   attribute decimal optional:false transient:false there
  /// ```
  ///
  /// - Parameter other: The model to compare with.
  /// - Returns: The differences, each naming its entity and property.
  /// - Complexity: O(*n* log *n*) in the entities and properties of both models.
  public func differences(from other: ObjectModel) -> [ModelDifference] {
    var differences: [ModelDifference] = []
    let here = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
    let there = Dictionary(uniqueKeysWithValues: other.entities.map { ($0.name, $0) })
    for name in Set(here.keys).union(there.keys).sorted() {
      guard let mine = here[name], let theirs = there[name] else {
        differences.append(
          ModelDifference(
            entity: name, property: nil, here: here[name] == nil ? nil : "entity",
            there: there[name] == nil ? nil : "entity"))
        continue
      }
      let myEntity = Self.entityLine(of: mine)
      let theirEntity = Self.entityLine(of: theirs)
      if myEntity != theirEntity {
        differences.append(
          ModelDifference(entity: name, property: nil, here: myEntity, there: theirEntity))
      }
      let myProperties = Self.propertyLines(of: mine)
      let theirProperties = Self.propertyLines(of: theirs)
      for property in Set(myProperties.keys).union(theirProperties.keys).sorted()
      where myProperties[property] != theirProperties[property] {
        differences.append(
          ModelDifference(
            entity: name, property: property, here: myProperties[property],
            there: theirProperties[property]))
      }
    }
    return differences
  }

  // MARK: Lines

  private static func versionLines(of entity: EntityDescription) -> [String] {
    ["\(entity.name) \(entityLine(of: entity))"]
      + propertyLines(of: entity).map { "\(entity.name) \($0.key) \($0.value)" }
  }

  private static func entityLine(of entity: EntityDescription) -> String {
    "entity parent:\(entity.parentName ?? "-") abstract:\(entity.isAbstract)"
  }

  /// The entity's own properties (inherited ones belong to the parent's lines), by name.
  private static func propertyLines(of entity: EntityDescription) -> [String: String] {
    var lines: [String: String] = [:]
    for attribute in entity.attributes {
      lines[attribute.name] =
        "attribute \(attribute.type.name) optional:\(attribute.isOptional) "
        + "transient:\(attribute.isTransient)"
    }
    for relationship in entity.relationships {
      let inverse = relationship.inverse.map { $0.name ?? "none" } ?? "-"
      lines[relationship.name] =
        "relationship \(relationship.destination) inverse:\(inverse) "
        + "\(relationship.isToMany ? "to-many" : "to-one") ordered:\(relationship.isOrdered) "
        + "optional:\(relationship.isOptional) count:\(relationship.minCount)-\(relationship.maxCount)"
    }
    return lines
  }
}

/// One way two models differ: an entity or a property that one has and the other has not, or
/// has differently.
///
/// ```swift
/// print(difference)   // Author: only there
/// ```
public struct ModelDifference: Equatable, Sendable, CustomStringConvertible {
  /// The entity's name.
  public let entity: String
  /// The property's name; nil when the entity itself differs.
  public let property: String?
  /// The entity or property in this model, as its version line says it; nil when it has none.
  public let here: String?
  /// The same in the other model; nil when it has none.
  public let there: String?

  /// A difference, as ``ObjectModel/differences(from:)`` finds it.
  ///
  /// - Parameters:
  ///   - entity: The entity's name.
  ///   - property: The property's name, or nil for the entity.
  ///   - here: This model's line, or nil.
  ///   - there: The other model's line, or nil.
  public init(entity: String, property: String?, here: String?, there: String?) {
    self.entity = entity
    self.property = property
    self.here = here
    self.there = there
  }

  /// `Book.price: attribute double … here, attribute decimal … there`, or `Author: only there`
  /// (an entity or property this model does not have).
  public var description: String {
    let name = property.map { "\(entity).\($0)" } ?? entity
    switch (here, there) {
    case (nil, _): return "\(name): only there"
    case (_, nil): return "\(name): only here"
    case (let here?, let there?): return "\(name): \(here) here, \(there) there"
    }
  }
}
