/// Key-value coding: reading and writing properties by name, and along key paths.
extension ManagedObject {
  /// The value of the property named `key`.
  ///
  /// Attributes return their value (nil when empty); to-one relationships the object; unordered
  /// to-many relationships a `Set<ManagedObject>`; ordered ones an `[ManagedObject]`; fetched
  /// properties (``FetchedPropertyDescription``) an `[ManagedObject]`, fetched on first use.
  ///
  /// Reading never depends on the object's state: a deleted object (and one out of its context)
  /// returns its last attribute values and the relationships it has now — empty, since deleting
  /// emptied them — exactly as its typed properties do. A fault is fulfilled first.
  ///
  /// ```swift
  /// let title = try book.value(forKey: "title") as? String
  /// ```
  /// - Parameter key: A property name of the object's entity.
  /// - Returns: The value.
  /// - Throws: ``ObjectGraphError/Kind/unknownKey``; ``ObjectGraphError/Kind/objectNotFound`` for
  ///   a fault whose object no longer exists.
  /// - Complexity: O(n) for a to-many relationship of n objects (the collection is copied).
  public func value(forKey key: String) throws -> Any? {
    guard let property = entity.propertiesByName[key] else {
      if let fetched = entity.fetchedByName[key] {
        return try usableContext(key: key).fetchedObjects(fetched, of: self)
      }
      return try value(forUndefinedKey: key)
    }
    try fulfilFault(key: key)
    if property.isToMany { try loadToMany(property) }
    return publicValue(property, tracking: true)
  }

  /// Sets the property named `key` through the observed mutation path.
  ///
  /// The value is converted where that loses nothing (an `Int` for an `int16` attribute, when it
  /// fits; see ``AttributeType``). A relationship value is an object (to-one) or any sequence of
  /// objects (to-many); the inverse is kept on the other side at once. Setting a to-many
  /// relationship this way is one change, announced as a setting with the whole old and new value.
  ///
  /// ```swift
  /// try book.setValue("Dune", forKey: "title")
  /// try book.setValue(fiction, forKey: "category")
  /// ```
  /// - Parameters:
  ///   - value: The new value; nil clears it.
  ///   - key: A property name of the object's entity.
  /// - Throws: ``ObjectGraphError`` naming entity, key and value: `unknownKey`, `wrongType`,
  ///   `nilNotAllowed`, `wrongEntity`, `otherContext`, `deletedObject` (the object or the value is
  ///   deleted), `invalidObject` (the object's context is gone). The graph is unchanged when it
  ///   throws.
  public func setValue(_ value: Any?, forKey key: String) throws {
    let property = try property(forKey: key)
    let context = try usableContext(key: key)
    try fulfilFault(key: key)
    guard property.isRelationship else {
      // A value of exactly the type of an attribute kept in a typed field, set quietly, goes
      // straight into the field (the general path would accept it as it is too).
      if let value, let field = entity.fields[property.slot], type(of: value) == field.valueType,
        context.isQuietSet(self, property.slot)
      {
        return context.setQuietly(self, property) { field.storeExactly(value, in: self) }
      }
      // Otherwise straight to the plan of one edit.
      let new = try context.validatedAttribute(value, for: property, of: self)
      // A quiet set needs neither the old value nor the comparison.
      if context.isQuietSet(self, property.slot) {
        return context.setQuietly(self, property, new)
      }
      let old = read(property.slot, tracking: false)
      return context.performAttribute(
        self, property, old: old, new: new, changes: property.differs(old, new))
    }
    try context.performPreloaded(context.request(setting: value, of: property, on: self))
  }

  /// The value at the end of a key path such as `"category.name"` or `"books.price"`.
  ///
  /// Each component but the last must be a relationship. A nil to-one link ends the walk with nil.
  /// A to-many link maps the rest of the path over its members and yields the `Set<AnyHashable>` of
  /// the non-nil results (sets and ordered relationships at the end are flattened into it). Paths
  /// of any length are walked without recursion.
  ///
  /// ```swift
  /// let name = try book.value(forKeyPath: "category.name") as? String
  /// let prices = try category.value(forKeyPath: "books.price") as? Set<AnyHashable>
  /// ```
  /// - Parameter keyPath: Keys separated by dots.
  /// - Returns: The value.
  /// - Throws: The errors of ``value(forKey:)`` for any component; ``ObjectGraphError/Kind/unknownKey``
  ///   for an empty path, an empty component (`"category..name"`), or an attribute in the middle.
  /// - Complexity: O(*k*) in the keys of the path for to-one links; through a to-many link,
  ///   O(*m*) in the members reached (loading faults on the way).
  public func value(forKeyPath keyPath: String) throws -> Any? {
    let keys = try keyPathComponents(keyPath)
    var objects: [ManagedObject] = [self]
    var throughToMany = false
    for key in keys.dropLast() {
      var next: [ManagedObject] = []
      var seen = Set<ObjectIdentifier>()
      for object in objects {
        let property = try object.relationship(forKey: key, inPath: keyPath, root: entity.name)
        try object.fulfilFault(key: key)
        _ = object.read(property.slot, tracking: true)
        throughToMany = throughToMany || property.isToMany
        for member in object.members(property) where seen.insert(ObjectIdentifier(member)).inserted
        {
          next.append(member)
        }
      }
      objects = next
    }
    let last = keys[keys.count - 1]
    guard throughToMany else { return try objects.first?.value(forKey: last) ?? nil }
    var result = Set<AnyHashable>()
    for object in objects {
      switch try object.value(forKey: last) {
      case let set as Set<AnyHashable>: result.formUnion(set)
      case let set as Set<ManagedObject>: result.formUnion(set.map(AnyHashable.init))
      case let list as [ManagedObject]: result.formUnion(list.map(AnyHashable.init))
      case let hashable as AnyHashable: result.insert(hashable)
      default: break
      }
    }
    return result
  }

  /// Sets the value at the end of a key path such as `"category.name"`.
  ///
  /// The path is followed as in ``value(forKeyPath:)``; the last key is set on the object reached, or
  /// on every object reached through a to-many link. Nothing is set when a to-one link is nil.
  ///
  /// ```swift
  /// try book.setValue("Classics", forKeyPath: "category.name")
  /// ```
  /// - Parameters:
  ///   - value: The new value.
  ///   - keyPath: Keys separated by dots.
  /// - Throws: The errors of ``setValue(_:forKey:)``; when it throws, nothing was set.
  /// - Complexity: O(*k*) in the keys of the path, plus the cost of the final set.
  public func setValue(_ value: Any?, forKeyPath keyPath: String) throws {
    let keys = try keyPathComponents(keyPath)
    var targets: [ManagedObject] = [self]
    for key in keys.dropLast() {
      var next: [ManagedObject] = []
      for target in targets {
        let property = try target.relationship(forKey: key, inPath: keyPath, root: entity.name)
        try target.fulfilFault(key: key)
        next += target.members(property)
      }
      targets = context?.uniqued(next) ?? next
    }
    let last = keys[keys.count - 1]
    // Check every target before changing any, so a failure leaves the graph unchanged.
    var requests: [(ObjectContext, ObjectContext.Request)] = []
    var held: [ManagedObject] = []
    for target in targets {
      let property = try target.property(forKey: last)
      let context = try target.usableContext(key: last)
      let request = try context.request(setting: value, of: property, on: target)
      held += try context.preload(for: request)
      requests.append((context, request))
    }
    for (context, request) in requests { context.perform(request) }
    withExtendedLifetime(held) {}
  }

  // MARK: Checks

  /// The components of a key path; empty ones (`""`, `"a..b"`, `"a."`) are refused.
  func keyPathComponents(_ keyPath: String) throws -> [String] {
    let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !keys.contains(where: \.isEmpty) else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: keyPath, value: keyPath,
        reason: keyPath.isEmpty
          ? "the key path is empty"
          : "the key path '\(ObjectGraphError.shorten(keyPath))' has an empty component")
    }
    return keys
  }

  /// The relationship named `key` in the middle of a key path.
  func relationship(forKey key: String, inPath keyPath: String, root: String) throws -> Property {
    // The error names the path's first entity with the whole path, and the reason the entity
    // at fault.
    guard let property = entity.propertiesByName[key] else {
      throw ObjectGraphError(
        .unknownKey, entity: root, key: keyPath, value: key,
        reason: "\(entity.name) has no property '\(ObjectGraphError.shorten(key))' (key path "
          + "'\(ObjectGraphError.shorten(keyPath))')")
    }
    guard property.isRelationship else {
      throw ObjectGraphError(
        .unknownKey, entity: root, key: keyPath, value: key,
        reason: "'\(key)' in key path '\(ObjectGraphError.shorten(keyPath))' is an attribute of "
          + "\(entity.name), so the path cannot go on")
    }
    return property
  }

  /// The context of an object that may change, or an error saying why it cannot: it was deleted,
  /// left its context, or its context is gone.
  func usableContext(key: @autoclosure () -> String?) throws -> ObjectContext {
    // The common case first, with nothing to build.
    if lifecycle == .registered && !isDeletedFlag, let context = link?.context { return context }
    try checkChangeable(key: key())
    return link!.context!
  }

  /// Throws unless the object is registered in a live context and not deleted.
  func checkChangeable(key: String?) throws {
    let context = link?.context
    switch lifecycle {
    case .registered where context != nil:
      guard isDeletedFlag else { return }
      throw ObjectGraphError(
        .deletedObject, entity: entity.name, key: key, value: objectID.description,
        reason: "\(objectID) was deleted; a deleted object cannot be changed or related")
    case .detached where context != nil:
      throw ObjectGraphError(
        .deletedObject, entity: entity.name, key: key, value: objectID.description,
        reason: "\(objectID) is not in its context any more (its deletion was saved, or its "
          + "insertion undone)")
    default:
      throw ObjectGraphError(
        .invalidObject, entity: entity.name, key: key, value: objectID.description,
        reason: "\(objectID) no longer belongs to a context (the context was reset or released)")
    }
  }
}

extension ObjectContext {
  /// The request that sets `property` of `object` to a value given by name, after checking it.
  func request(setting value: Any?, of property: Property, on object: ManagedObject) throws
    -> Request
  {
    if property.isToMany {
      return .replaceMembers(
        object, property, try validatedObjects(value, for: property, of: object))
    }
    if property.isRelationship {
      return .toOne(object, property, try validatedObject(value, for: property, of: object))
    }
    let new = try validatedAttribute(value, for: property, of: object)
    let old = object.read(property.slot, tracking: false)
    return .attribute(object, property, old: old, new: new, changes: property.differs(old, new))
  }

  /// Converts and checks a value for an attribute.
  func validatedAttribute(_ value: Any?, for property: Property, of object: ManagedObject) throws
    -> Any?
  {
    // A value already of the held type (the common case) needs no unwrapping or conversion.
    if let value, property.attributeAccepts!(value) { return value }
    let type = property.attributeType!
    guard let value = unboxed(value) else {
      guard property.isOptionalAttribute else {
        throw ObjectGraphError(
          .nilNotAllowed, entity: object.entity.name, key: property.name, value: "nil",
          reason: "nil is not allowed: '\(property.name)' is not optional")
      }
      return nil
    }
    guard let held = type.heldValue(value) else {
      throw ObjectGraphError(
        .wrongType, entity: object.entity.name, key: property.name,
        value: ObjectGraphError.describe(value),
        reason: "\(ObjectGraphError.describe(value)) is not a value of type \(type)")
    }
    return held
  }

  /// Checks an object for a to-one relationship.
  func validatedObject(_ value: Any?, for property: Property, of owner: ManagedObject) throws
    -> ManagedObject?
  {
    guard let value = unboxed(value) else { return nil }
    guard let object = value as? ManagedObject else {
      throw ObjectGraphError(
        .wrongType, entity: owner.entity.name, key: property.name,
        value: ObjectGraphError.describe(value),
        reason: "\(ObjectGraphError.describe(value)) is not an object of entity "
          + "\(property.destination!.name)")
    }
    try checkRelatable(object, for: property, of: owner)
    return object
  }

  /// Checks the objects for a to-many relationship; accepts any sequence of objects.
  func validatedObjects(_ value: Any?, for property: Property, of owner: ManagedObject) throws
    -> [ManagedObject]
  {
    guard let value = unboxed(value) else { return [] }
    guard let sequence = value as? any Sequence else {
      throw ObjectGraphError(
        .wrongType, entity: owner.entity.name, key: property.name,
        value: ObjectGraphError.describe(value),
        reason: "\(ObjectGraphError.describe(value)) is not a collection of "
          + "\(property.destination!.name) objects")
    }
    var objects: [ManagedObject] = []
    for element in sequence {
      guard let object = element as? ManagedObject else {
        throw ObjectGraphError(
          .wrongType, entity: owner.entity.name, key: property.name,
          value: ObjectGraphError.describe(element),
          reason: "\(ObjectGraphError.describe(element)) is not an object of entity "
            + "\(property.destination!.name)")
      }
      objects.append(object)
    }
    return try checkedMembers(objects, for: property, of: owner)
  }

  /// Checks objects for a to-many relationship. Members it holds already pass: a deleted one left
  /// by a no-action rule does not make the relationship unassignable.
  func checkedMembers(_ objects: [ManagedObject], for property: Property, of owner: ManagedObject)
    throws -> [ManagedObject]
  {
    let collection = owner.collection(property)
    for object in objects where collection?.contains(object) != true {
      try checkRelatable(object, for: property, of: owner)
    }
    return objects
  }

  /// An object may join a relationship when it is of this context, not deleted, and of the
  /// destination entity (checked in that order, so an object of another context — even one of a
  /// model built from the same classes — is reported as such).
  func checkRelatable(_ object: ManagedObject, for property: Property, of owner: ManagedObject)
    throws
  {
    do {
      try checkUsable(object, key: property.name)
    } catch let error as ObjectGraphError {
      // Name the relationship being set (the owner's entity and key), as the other checks do.
      throw ObjectGraphError(
        error.kind.code, entity: owner.entity.name, key: property.name,
        value: object.objectID.description,
        reason: error.kind == .deletedObject
          ? "\(object.objectID) was deleted and cannot join '\(property.name)'" : error.reason)
    }
    let destination = property.destination!
    guard object.entity.isKind(of: destination) else {
      throw ObjectGraphError(
        .wrongEntity, entity: owner.entity.name, key: property.name,
        value: object.objectID.description,
        reason:
          "\(object.objectID) is \(Self.article(object.entity.name)) \(object.entity.name), "
          + "not \(Self.article(destination.name)) \(destination.name)")
    }
  }

  /// "an" before an entity name that starts with a vowel letter ("an Asset"), "a" otherwise.
  private static func article(_ name: String) -> String {
    name.first.map { "AEIOUaeiou".contains($0) } == true ? "an" : "a"
  }
}

/// Unwraps an `Optional` hidden inside `Any` (for example a `String?` passed as `Any`), however
/// deeply nested.
func unboxed(_ value: Any?) -> Any? {
  guard let value else { return nil }
  if let optional = value as? any OptionalBox { return optional.unboxed }
  return value
}

/// Lets ``unboxed(_:)`` see through an `Optional` stored in an `Any`.
protocol OptionalBox {
  var unboxed: Any? { get }
}

extension Optional: OptionalBox {
  var unboxed: Any? {
    switch self {
    case .some(let wrapped):
      if let inner = wrapped as? any OptionalBox { return inner.unboxed }
      return wrapped
    case .none: return nil
    }
  }
}
