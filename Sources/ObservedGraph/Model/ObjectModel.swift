/// A validated set of entities: the schema every object of a context follows.
///
/// A model is built once, checked as a whole, and then never changes; several contexts can share it.
/// Build it from ``ManagedObject`` subclasses whose properties use ``Attribute`` and
/// ``Relationship``, or from hand-written ``EntityDescription`` values for generic objects.
///
/// ```swift
/// let model = try ObjectModel(types: [BookCategory.self, Book.self, Page.self])
/// let inventory = try ObjectModel(entities: [assetEntity, locationEntity])
/// ```
///
/// A model may also keep named fetch requests, ``FetchRequestTemplate``s, given when it is built
/// (``init(entities:fetchRequestTemplates:version:)``); like the entities, they never change afterwards.
public final class ObjectModel: Sendable, CustomStringConvertible {
  /// The model's entities, in the order given.
  public let entities: [EntityDescription]
  let entitiesByName: [String: EntityDescription]
  let entitiesByClass: [ObjectIdentifier: EntityDescription]
  /// The model's fetch request templates, in the order given.
  public let fetchRequestTemplates: [FetchRequestTemplate]
  let templatesByName: [String: FetchRequestTemplate]
  /// The model's version identifier, or nil when none was given. A store keeps it in its file;
  /// a ``MigrationPlan`` lists the versions of a model in order.
  public let version: ModelVersion?

  /// Builds and validates a model from entity descriptions.
  ///
  /// The descriptions are copied, so one description may serve several models.
  ///
  /// - Parameter entities: The entities, in any order; parents need not come first.
  /// - Throws: ``ObjectGraphError`` naming both sides when two entities or properties share a name, a
  ///   parent or destination entity is unknown, an inverse is missing, unknown, an attribute, leads
  ///   to another entity or does not point back, or a default value has the wrong type.
  /// - Complexity: O(number of properties × inheritance depth).
  public convenience init(entities: [EntityDescription]) throws {
    try self.init(entities: entities, fetchRequestTemplates: [])
  }

  /// Builds and validates a model from entity descriptions and fetch request templates.
  ///
  /// The templates are checked against the entities (see ``FetchRequestTemplate``) and cannot be
  /// changed afterwards: a model in use never changes, as Core Data's.
  ///
  /// ```swift
  /// let model = try ObjectModel(
  ///   entities: [teamEntity],
  ///   fetchRequestTemplates: [
  ///     FetchRequestTemplate(
  ///       name: "TeamsInColor", entityName: "Team",
  ///       predicate: try FetchPredicate(format: "uniformColor == $color"))
  ///   ])
  /// ```
  /// - Parameters:
  ///   - entities: The entities, in any order; parents need not come first.
  ///   - fetchRequestTemplates: Named fetch requests, whose names must differ.
  ///   - version: The model's version identifier (see ``MigrationPlan``), or nil.
  /// - Throws: The errors of ``init(entities:)``; for a template, ``ObjectGraphError`` naming it:
  ///   `invalidName` for an empty name, `duplicateTemplate` for a name given twice,
  ///   `unknownEntity` for an entity the model does not have, and the errors of
  ///   ``FetchPredicate/validate(for:)`` for a predicate (apart from its variables) or a sort key
  ///   that does not fit the entity.
  /// - Complexity: O(number of properties × inheritance depth + size of the templates).
  public init(
    entities: [EntityDescription], fetchRequestTemplates: [FetchRequestTemplate],
    version: ModelVersion? = nil
  ) throws {
    let copies = entities.map { $0.unresolvedCopy() }
    var byName: [String: EntityDescription] = [:]
    var byClass: [ObjectIdentifier: EntityDescription] = [:]
    var sharedClasses: Set<ObjectIdentifier> = []
    for (index, entity) in copies.enumerated() {
      try Self.checkName(entity.name, entity: entity.name, key: nil)
      guard byName[entity.name] == nil else {
        throw ObjectGraphError(
          .duplicateEntity, entity: entity.name,
          reason: "the model has two entities named \(entity.name)")
      }
      entity.index = index
      byName[entity.name] = entity
      if entity.objectClass != ManagedObject.self {
        let key = ObjectIdentifier(entity.objectClass)
        if byClass[key] != nil { sharedClasses.insert(key) }
        byClass[key] = entity
      }
    }
    // A class several entities share (one that overrides hooks but declares no properties) says
    // nothing about which entity to insert: `insert(_:)` needs a class of one entity.
    for key in sharedClasses { byClass[key] = nil }
    try Self.linkParents(copies, byName: byName)
    for entity in Self.parentsFirst(copies) { try Self.layOutProperties(of: entity) }
    for entity in copies { try Self.resolveRelationships(of: entity, byName: byName) }
    for entity in Self.parentsFirst(copies) { try Self.layOutFetchedProperties(of: entity, byName) }
    for entity in copies {
      entity.deletesQuietly = entity.relationshipProperties.allSatisfy(\.deletesQuietly)
    }
    for entity in copies { try Self.checkClass(of: entity) }
    for entity in copies { Self.prepareStorage(of: entity) }
    self.templatesByName = try Self.checkTemplates(fetchRequestTemplates, byName: byName)
    self.fetchRequestTemplates = fetchRequestTemplates
    self.entities = copies
    self.entitiesByName = byName
    self.entitiesByClass = byClass
    self.version = version
  }

  /// Builds and validates a model from `ManagedObject` subclasses.
  ///
  /// Each class becomes an entity named by its ``ManagedObject/entityName``; its ``Attribute`` and
  /// ``Relationship`` properties become the entity's properties, with the wrappers' initial values
  /// as defaults. A class whose superclass is another `ManagedObject` subclass becomes a sub-entity
  /// of that class's entity (the superclass is added to the model if it is not listed).
  ///
  /// ```swift
  /// let league = try ObjectModel(types: [Team.self, Person.self, Player.self])
  /// ```
  /// - Parameter types: The classes.
  /// - Throws: The errors of ``init(entities:)``.
  /// - Complexity: O(*e* × *p*) in the entities and their properties: each class is read once,
  ///   then the whole model is checked.
  public convenience init(types: [ManagedObject.Type]) throws {
    try self.init(types: types, fetchRequestTemplates: [])
  }

  /// Builds and validates a model from `ManagedObject` subclasses and fetch request templates.
  ///
  /// ```swift
  /// let league = try ObjectModel(
  ///   types: [Team.self, Person.self, Player.self],
  ///   fetchRequestTemplates: [
  ///     FetchRequestTemplate(
  ///       name: "GreenTeams", entityName: "Team",
  ///       predicate: try FetchPredicate(format: "uniformColor == 'Green'"))
  ///   ])
  /// ```
  /// - Parameters:
  ///   - types: The classes, as in ``init(types:)``.
  ///   - fetchRequestTemplates: Named fetch requests, whose names must differ.
  ///   - version: The model's version identifier (see ``MigrationPlan``), or nil.
  /// - Throws: The errors of ``init(entities:fetchRequestTemplates:version:)``.
  /// - Complexity: O(*e* × *p*) in the entities and their properties, plus the size of the
  ///   templates.
  public convenience init(
    types: [ManagedObject.Type], fetchRequestTemplates: [FetchRequestTemplate] = [],
    version: ModelVersion? = nil
  ) throws {
    var ordered: [ManagedObject.Type] = []
    var seen: Set<ObjectIdentifier> = []
    func add(_ type: ManagedObject.Type) {
      guard type != ManagedObject.self, seen.insert(ObjectIdentifier(type)).inserted else { return }
      if let superclass = managedSuperclass(type) { add(superclass) }
      ordered.append(type)
    }
    types.forEach(add)
    try self.init(
      entities: ordered.map { try Self.describe($0) },
      fetchRequestTemplates: fetchRequestTemplates, version: version)
  }

  /// The entity named `name`, or nil.
  ///
  /// - Parameter name: An entity name.
  /// - Returns: The model's entity description.
  public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

  /// The entity objects of class `type` belong to, or nil if the class is not in the model.
  ///
  /// - Parameter type: A `ManagedObject` subclass.
  /// - Returns: The model's entity description.
  public func entity(for type: ManagedObject.Type) -> EntityDescription? {
    entitiesByClass[ObjectIdentifier(type)]
  }

  /// `ObjectModel(A, B, C)`.
  public var description: String { "ObjectModel(\(entities.map(\.name).joined(separator: ", ")))" }
}

// MARK: - Building

extension ObjectModel {
  static func describe(_ type: ManagedObject.Type) throws -> EntityDescription {
    var attributes: [AttributeDescription] = []
    var relationships: [RelationshipDescription] = []
    for declaration in try declarations(of: type, allLevels: false, entity: type.entityName) {
      switch declaration {
      case .attribute(var attribute):
        attribute.rules = type.rules(forKey: attribute.name)
        attribute.isIndexed = type.indexedKeys.contains(attribute.name)
        attributes.append(attribute)
      case .relationship(let relationship): relationships.append(relationship)
      }
    }
    let parent = managedSuperclass(type).map { $0.entityName }
    return EntityDescription(
      name: type.entityName, parent: parent, isAbstract: type.isAbstract, attributes: attributes,
      relationships: relationships, objectClass: type,
      fetchedProperties: type.fetchedProperties, originalName: type.originalEntityName)
  }

  /// The properties a class declares with wrappers: its own, or with `allLevels` also those of
  /// its `ManagedObject` superclasses. A wrapper that contradicts itself throws an error naming
  /// `entity`, the entity the class describes.
  static func declarations(of type: ManagedObject.Type, allLevels: Bool, entity: String) throws
    -> [Declaration]
  {
    var declarations: [Declaration] = []
    let (prototype, originalNames) = DeclaredOriginalNames.reading(type)
    var names = originalNames[...]
    var mirror: Mirror? = Mirror(reflecting: prototype)
    while let current = mirror {
      for child in current.children {
        guard let label = child.label, label.hasPrefix("_"),
          let wrapper = child.value as? any PropertyWrapperDeclaring
        else { continue }
        do {
          var declaration = try wrapper.declaration(name: String(label.dropFirst()))
          if wrapper.declaresOriginalName {
            let name = names.popFirst()
            switch declaration {
            case .attribute(var attribute):
              attribute.originalName = name
              declaration = .attribute(attribute)
            case .relationship(var relationship):
              relationship.originalName = name
              declaration = .relationship(relationship)
            }
            guard name != nil else {
              throw ObjectGraphError(
                .invalidClass, entity: entity, key: String(label.dropFirst()),
                reason: "the original name \(label.dropFirst()) declares could not be read: its "
                  + "class made fewer original names than it declares")
            }
          }
          declarations.append(declaration)
        } catch let error as ObjectGraphError {
          // The wrapper knows its destination's entity, not its own.
          throw ObjectGraphError(
            error.kind.code, entity: entity, key: error.key, value: error.value,
            reason: error.reason)
        }
      }
      mirror = allLevels ? current.superclassMirror : nil
    }
    return declarations
  }

  static func linkParents(_ entities: [EntityDescription], byName: [String: EntityDescription])
    throws
  {
    for entity in entities {
      guard let parentName = entity.parentName else { continue }
      guard let parent = byName[parentName] else {
        throw ObjectGraphError(
          .unknownParent, entity: entity.name, value: parentName,
          reason: "the parent entity \(parentName) is not in the model")
      }
      entity.parent = parent
      parent.children.append(WeakEntity(entity: entity))
    }
    for entity in entities {
      var steps = 0
      var current = entity.parent
      while let ancestor = current {
        steps += 1
        if ancestor === entity || steps > entities.count {
          throw ObjectGraphError(
            .inheritanceCycle, entity: entity.name,
            reason: "\(entity.name) inherits from itself through "
              + "\(entity.parent?.name ?? ancestor.name)")
        }
        current = ancestor.parent
      }
    }
  }

  static func parentsFirst(_ entities: [EntityDescription]) -> [EntityDescription] {
    func depth(_ entity: EntityDescription) -> Int {
      var depth = 0
      var current = entity.parent
      while let ancestor = current {
        depth += 1
        current = ancestor.parent
      }
      return depth
    }
    return entities.enumerated().sorted {
      (depth($0.element), $0.offset) < (depth($1.element), $1.offset)
    }.map(\.element)
  }

  /// Checks an entity's fetched properties (names, destinations, predicates and sort keys) and
  /// adds them to its parent's.
  static func layOutFetchedProperties(
    of entity: EntityDescription, _ byName: [String: EntityDescription]
  ) throws {
    var fetched = entity.parent?.fetchedByName ?? [:]
    for property in entity.fetchedProperties {
      try checkName(property.name, entity: entity.name, key: property.name)
      if entity.propertiesByName[property.name] != nil || fetched[property.name] != nil {
        throw ObjectGraphError(
          .duplicateProperty, entity: entity.name, key: property.name,
          reason: "\(entity.name).\(property.name) is declared twice (also as a fetched property "
            + "or a property)")
      }
      guard let destination = byName[property.destination] else {
        throw ObjectGraphError(
          .unknownDestination, entity: entity.name, key: property.name,
          value: property.destination,
          reason: "the fetched property \(entity.name).\(property.name) fetches "
            + "\(property.destination), which the model does not have")
      }
      try property.predicate.validate(for: destination)
      for sort in property.sortDescriptors {
        try FetchPredicate.comparison(
          FetchComparison(.keyPath(sort.keyPath), .equal, .constant(nil))
        ).validate(for: destination)
      }
      fetched[property.name] = property
    }
    entity.fetchedByName = fetched
  }

  static func layOutProperties(of entity: EntityDescription) throws {
    var properties = entity.parent?.properties ?? []
    var byName = entity.parent?.propertiesByName ?? [:]
    func claim(_ name: String) throws {
      if let existing = byName[name] {
        throw ObjectGraphError(
          .duplicateProperty, entity: entity.name, key: name,
          reason: "\(entity.name).\(name) is declared twice (also as \(existing.qualifiedName))")
      }
    }
    for attribute in entity.attributes {
      try checkName(attribute.name, entity: entity.name, key: attribute.name)
      try claim(attribute.name)
      let property = Property(slot: properties.count, attribute: attribute, owner: entity)
      property.heldDefault = try heldDefault(of: attribute, in: entity)
      property.rules = try CheckedRules(attribute, entity: entity.name)
      properties.append(property)
      byName[attribute.name] = property
    }
    for relationship in entity.relationships {
      try checkName(relationship.name, entity: entity.name, key: relationship.name)
      try checkCounts(relationship, entity: entity.name)
      try claim(relationship.name)
      let property = Property(slot: properties.count, relationship: relationship, owner: entity)
      properties.append(property)
      byName[relationship.name] = property
    }
    entity.properties = properties
    entity.propertiesByName = byName
    entity.relationshipProperties = properties.filter(\.isRelationship)
    entity.toManyProperties = properties.filter(\.isToMany)
    entity.denyingRelationships = entity.relationshipProperties.filter { $0.deleteRule == .deny }
    entity.cascadingRelationships = entity.relationshipProperties.filter {
      $0.deleteRule == .cascade
    }
    entity.attributeProperties = properties.filter { !$0.isRelationship }
    entity.nanCapableSlots = properties.filter { $0.nanTest != nil }.map(\.slot)
  }

  static func heldDefault(of attribute: AttributeDescription, in entity: EntityDescription) throws
    -> Any?
  {
    guard let value = attribute.defaultValue else { return nil }
    guard let stored = attribute.type.heldValue(value) else {
      throw ObjectGraphError(
        .invalidDefault, entity: entity.name, key: attribute.name,
        value: ObjectGraphError.describe(value),
        reason:
          "the default \(ObjectGraphError.describe(value)) is not a value of type \(attribute.type)"
      )
    }
    return stored
  }

  static func resolveRelationships(
    of entity: EntityDescription, byName: [String: EntityDescription]
  ) throws {
    for property in entity.properties where property.owner === entity {
      guard let relationship = property.relationship else { continue }
      let here = property.qualifiedName
      guard let destination = byName[relationship.destination] else {
        throw ObjectGraphError(
          .unknownDestination, entity: entity.name, key: property.name,
          value: relationship.destination,
          reason: "\(here) leads to \(relationship.destination), which is not in the model")
      }
      property.destination = destination
      guard let inverseSpec = relationship.inverse else {
        throw ObjectGraphError(
          .missingInverse, entity: entity.name, key: property.name,
          reason: "\(here) declares no inverse on \(destination.name); name one, "
            + "or declare `inverse: .noInverse` to have none")
      }
      guard let inverseName = inverseSpec.name else { continue }
      guard let inverse = destination.propertiesByName[inverseName] else {
        throw ObjectGraphError(
          .unknownInverse, entity: entity.name, key: property.name, value: inverseName,
          reason: "\(here) names inverse \(destination.name).\(inverseName), which does not exist")
      }
      guard let inverseRelationship = inverse.relationship else {
        throw ObjectGraphError(
          .inverseNotRelationship, entity: entity.name, key: property.name, value: inverseName,
          reason: "\(here) names inverse \(inverse.qualifiedName), which is an attribute")
      }
      guard let back = byName[inverseRelationship.destination], entity.isKind(of: back) else {
        throw ObjectGraphError(
          .inverseWrongEntity, entity: entity.name, key: property.name, value: inverseName,
          reason: "\(here) names inverse \(inverse.qualifiedName), which leads to "
            + "\(inverseRelationship.destination), not \(entity.name)")
      }
      guard inverseRelationship.inverse?.name == property.name else {
        let other = inverseRelationship.inverse?.name.map { "'\($0)'" } ?? "none"
        throw ObjectGraphError(
          .inverseMismatch, entity: entity.name, key: property.name, value: inverseName,
          reason: "\(here) names inverse \(inverse.qualifiedName), but \(inverse.qualifiedName) "
            + "names \(other) as its inverse, not '\(property.name)'")
      }
      property.inverse = inverse
    }
  }

  /// Names must be usable in key paths and object identifiers: not empty, no `.` or `/`.
  static func checkName(_ name: String, entity: String, key: String?) throws {
    let what = key == nil ? "entity" : "property"
    guard name.isEmpty || name.contains(".") || name.contains("/") else { return }
    throw ObjectGraphError(
      .invalidName, entity: key == nil ? "" : entity, key: key.map { _ in name },
      value: "\"\(ObjectGraphError.shorten(name))\"",
      reason: name.isEmpty
        ? (key == nil ? "an entity name is empty" : "a property name is empty in entity \(entity)")
        : "the \(what) name '\(ObjectGraphError.shorten(name))' contains '.' or '/', which key "
          + "paths and object identifiers use as separators")
  }

  static func checkCounts(_ relationship: RelationshipDescription, entity: String) throws {
    let (minimum, maximum) = (relationship.minCount, relationship.maxCount)
    let problem: String
    if minimum < 0 || maximum < 0 {
      problem = "a count cannot be negative"
    } else if maximum > 0 && minimum > maximum {
      problem = "the minimum is above the maximum"
    } else {
      return
    }
    throw ObjectGraphError(
      .invalidCount, entity: entity, key: relationship.name, value: "\(minimum)...\(maximum)",
      reason: "minCount \(minimum) and maxCount \(maximum): \(problem)")
  }

  /// The entity's class must describe it: its property wrappers (at every level of its class
  /// hierarchy) name properties of the entity with the same kind and type, and a sub-entity's class
  /// inherits from its parent's.
  static func checkClass(of entity: EntityDescription) throws {
    let objectClass = entity.objectClass
    if let parent = entity.parent, parent.objectClass != ManagedObject.self {
      if !inherits(objectClass, from: parent.objectClass) {
        throw ObjectGraphError(
          .invalidClass, entity: entity.name, value: String(describing: objectClass),
          reason: "the class \(objectClass) of \(entity.name) does not inherit from "
            + "\(parent.objectClass), the class of its parent entity \(parent.name)")
      }
      // A class without typed properties (one that overrides hooks) may serve a parent and its
      // sub-entity alike; a class with typed properties describes one entity.
      if objectClass == parent.objectClass,
        !(try declarations(of: objectClass, allLevels: true, entity: entity.name)).isEmpty
      {
        throw ObjectGraphError(
          .invalidClass, entity: entity.name, value: String(describing: objectClass),
          reason: "\(entity.name) and its parent entity \(parent.name) both make objects of "
            + "class \(objectClass), which declares typed properties; give \(entity.name) a "
            + "subclass of it")
      }
    }
    guard objectClass != ManagedObject.self else { return }
    for declaration in try declarations(of: objectClass, allLevels: true, entity: entity.name) {
      let name: String
      switch declaration {
      case .attribute(let attribute): name = attribute.name
      case .relationship(let relationship): name = relationship.name
      }
      func mismatch(_ detail: String) -> ObjectGraphError {
        ObjectGraphError(
          .invalidClass, entity: entity.name, key: name, value: String(describing: objectClass),
          reason: "the class \(objectClass) declares '\(name)' \(detail)")
      }
      guard let property = entity.propertiesByName[name] else {
        throw mismatch("but \(entity.name) has no such property")
      }
      switch declaration {
      case .attribute(let declared):
        guard let attribute = property.attribute else {
          throw mismatch("as an attribute, but in \(entity.name) it is a relationship")
        }
        guard attribute.type == declared.type, attribute.isOptional == declared.isOptional else {
          throw mismatch(
            "as \(declared.isOptional ? "optional " : "")\(declared.type), but in "
              + "\(entity.name) it is \(attribute.isOptional ? "optional " : "")\(attribute.type)")
        }
      case .relationship(let declared):
        guard let relationship = property.relationship, let destination = property.destination
        else {
          throw mismatch("as a relationship, but in \(entity.name) it is an attribute")
        }
        guard relationship.isToMany == declared.isToMany,
          relationship.isOrdered == declared.isOrdered
        else {
          throw mismatch(
            "as \(shape(declared)), but in \(entity.name) it is \(shape(relationship))")
        }
        let declaredClass = declaredDestination(of: objectClass, named: name)
        if let declaredClass, !inherits(destination.objectClass, from: declaredClass) {
          throw mismatch(
            "with objects of class \(declaredClass), but its destination \(destination.name) "
              + "makes objects of class \(destination.objectClass)")
        }
      }
    }
  }

  private static func shape(_ relationship: RelationshipDescription) -> String {
    relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
  }

  private static func declaredDestination(of type: ManagedObject.Type, named name: String)
    -> ManagedObject.Type?
  {
    var mirror: Mirror? = Mirror(reflecting: type.init(ObjectBootstrap.prototype))
    while let current = mirror {
      for child in current.children where child.label == "_" + name {
        if let wrapper = child.value as? any PropertyWrapperDeclaring {
          return wrapper.destinationClass
        }
      }
      mirror = current.superclassMirror
    }
    return nil
  }

  static func prepareStorage(of entity: EntityDescription) {
    prepareFields(of: entity)
    let inStorage = entity.properties.filter { entity.fields[$0.slot] == nil }
    entity.initialStorage = ContiguousArray(inStorage.map(\.heldDefault))
    entity.storageIndex = ContiguousArray(repeating: -1, count: entity.properties.count)
    for (index, property) in inStorage.enumerated() { entity.storageIndex[property.slot] = index }
    entity.observationKeyPaths = ContiguousArray(
      entity.properties.flatMap { ManagedObject.observationKeyPaths($0.slot) })
    entity.notifiesAutomatically = entity.properties.map {
      entity.objectClass.automaticallyNotifiesObservers(forKey: $0.name)
    }
  }
}

extension ObjectModel {
  /// Finds where the entity's class keeps each property it declares with a wrapper: the
  /// wrapper's offset in an object (by which a wrapper finds its slot), and for ``Attribute`` the
  /// typed field that holds the value.
  static func prepareFields(of entity: EntityDescription) {
    entity.fields = ContiguousArray(repeating: nil, count: entity.properties.count)
    entity.fieldDefaults = []
    entity.slotsByWrapperOffset = []
    entity.wrapperSlots = []
    entity.loadedKeyDestinations = []
    guard entity.objectClass != ManagedObject.self else { return }
    let prototype = entity.objectClass.init(ObjectBootstrap.prototype)
    var wrappers: [String: any PropertyWrapperDeclaring] = [:]
    var mirror: Mirror? = Mirror(reflecting: prototype)
    while let current = mirror {
      for child in current.children {
        if let label = child.label, let wrapper = child.value as? any PropertyWrapperDeclaring {
          wrappers[label] = wrapper
        }
      }
      mirror = current.superclassMirror
    }
    guard !wrappers.isEmpty else { return }
    let offsets = FieldLayout.offsets(of: prototype)
    for property in entity.properties {
      let label = "_" + property.name
      guard let wrapper = wrappers[label], let offset = offsets[label] else { continue }
      if entity.slotsByWrapperOffset.count <= offset {
        entity.slotsByWrapperOffset.append(
          contentsOf: repeatElement(-1, count: offset + 1 - entity.slotsByWrapperOffset.count))
      }
      entity.slotsByWrapperOffset[offset] = Int32(property.slot)
      entity.wrapperSlots.append((offset + type(of: wrapper).slotOffset, Int32(property.slot)))
      guard let wrapper = wrapper as? any FieldDeclaring else { continue }
      let field = wrapper.fieldAccess(at: offset, label: label, in: prototype)
      entity.fields[property.slot] = field
      if property.isToOne, let destination = property.destination,
        let access = field as? RelationshipFieldAccess
      {
        entity.loadedKeyDestinations.append(
          LoadedKeyDestination(keyOffset: access.keyOffset, destination: destination))
      }
      if property.differs(field.load(prototype), property.heldDefault) {
        entity.fieldDefaults.append((field, property.heldDefault))
      }
    }
  }
}

/// Whether `type` is `ancestor` or one of its subclasses.
func inherits(_ type: AnyClass, from ancestor: AnyClass) -> Bool {
  var current: AnyClass? = type
  while let candidate = current {
    if candidate == ancestor { return true }
    current = _getSuperclass(candidate)
  }
  return false
}

/// The superclass of `type` when it is itself a `ManagedObject` subclass (not `ManagedObject`).
func managedSuperclass(_ type: ManagedObject.Type) -> ManagedObject.Type? {
  guard let superclass = _getSuperclass(type) as? ManagedObject.Type,
    superclass != ManagedObject.self
  else { return nil }
  return superclass
}
