/// Key-value coding: reading and writing properties by name, and along key paths.
extension ManagedObject {
  /// The value of the property named `key`.
  ///
  /// Attributes return their value (nil when empty); to-one relationships the object; unordered
  /// to-many relationships a `Set<ManagedObject>`; ordered ones an `[ManagedObject]`.
  ///
  /// ```swift
  /// let title = try book.value(forKey: "title") as? String
  /// ```
  /// - Parameter key: A property name of the object's entity.
  /// - Returns: The value.
  /// - Throws: ``ObjectGraphError/Kind/unknownKey``; ``ObjectGraphError/Kind/deletedObject`` for a
  ///   relationship of a deleted object; ``ObjectGraphError/Kind/invalidObject`` after a reset.
  /// - Complexity: O(n) for a to-many relationship of n objects (the collection is copied).
  public func value(forKey key: String) throws -> Any? {
    guard let property = entity.propertiesByName[key] else {
      return try value(forUndefinedKey: key)
    }
    try checkReadable(property)
    if let registrar = swiftObservation?.registrar {
      registrar.access(self, keyPath: ManagedObject.observationKeyPath(property.slot))
    }
    return publicValue(property)
  }

  /// Sets the property named `key` through the observed mutation path.
  ///
  /// The value is converted where that loses nothing (an `Int` for an `int16` attribute, when it
  /// fits). A relationship value is an object (to-one) or any sequence of objects (to-many); the
  /// inverse is kept on the other side at once.
  ///
  /// ```swift
  /// try book.setValue("Dune", forKey: "title")
  /// try book.setValue(fiction, forKey: "category")
  /// ```
  /// - Parameters:
  ///   - value: The new value; nil clears it.
  ///   - key: A property name of the object's entity.
  /// - Throws: ``ObjectGraphError`` naming entity, key and value: `unknownKey`, `wrongType`,
  ///   `nilNotAllowed`, `wrongEntity`, `otherContext`, `deletedObject`, `invalidObject`. The graph is
  ///   unchanged when it throws.
  public func setValue(_ value: Any?, forKey key: String) throws {
    let property = try property(forKey: key)
    let context = try usableContext(key: key)
    if property.isRelationship {
      try checkRelationshipUsable(property)
      if property.isToMany {
        var objects = try context.validatedObjects(value, for: property, of: self)
        // An unordered relationship set to the members it has is no change, whatever the order.
        let current = members(property)
        if !property.isOrdered,
          Set(objects.map(ObjectIdentifier.init)) == Set(current.map(ObjectIdentifier.init))
        {
          objects = current
        }
        context.replaceObjects(self, property, with: objects)
      } else {
        let object = try context.validatedObject(value, for: property, of: self)
        context.setToOne(self, property, object)
      }
    } else {
      let stored = try context.validatedAttribute(value, for: property, of: self)
      context.setAttribute(self, property, stored)
    }
  }

  /// The value at the end of a key path such as `"category.name"` or `"books.price"`.
  ///
  /// Each component but the last must be a relationship. A nil to-one link ends the walk with nil.
  /// A to-many link maps the rest of the path over its members and yields the `Set<AnyHashable>` of
  /// the non-nil results (a set of sets is flattened).
  ///
  /// ```swift
  /// let name = try book.value(forKeyPath: "category.name") as? String
  /// let prices = try category.value(forKeyPath: "books.price") as? Set<AnyHashable>
  /// ```
  /// - Parameter keyPath: Keys separated by dots.
  /// - Returns: The value.
  /// - Throws: The errors of ``value(forKey:)`` for any component; `notToMany`-free: an attribute in
  ///   the middle of a path throws ``ObjectGraphError/Kind/unknownKey`` naming the component.
  public func value(forKeyPath keyPath: String) throws -> Any? {
    try value(forPath: keyPath.split(separator: ".").map(String.init)[...], whole: keyPath)
  }

  private func value(forPath path: ArraySlice<String>, whole: String) throws -> Any? {
    guard let key = path.first else { return self }
    let rest = path.dropFirst()
    guard !rest.isEmpty else { return try value(forKey: key) }
    let property = try property(forKey: key)
    guard property.isRelationship else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: whole, value: key,
        reason: "'\(key)' in key path '\(whole)' is an attribute, so the path cannot go on")
    }
    try checkReadable(property)
    if !property.isToMany {
      return try toOne(property)?.value(forPath: rest, whole: whole)
    }
    var result = Set<AnyHashable>()
    for member in members(property) {
      let value = try member.value(forPath: rest, whole: whole)
      if let set = value as? Set<AnyHashable> {
        result.formUnion(set)
      } else if let list = value as? [ManagedObject] {
        // An ordered to-many at the end of the path is flattened like an unordered one.
        result.formUnion(list.map(AnyHashable.init))
      } else if let hashable = value as? AnyHashable {
        result.insert(hashable)
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
  public func setValue(_ value: Any?, forKeyPath keyPath: String) throws {
    var keys = keyPath.split(separator: ".").map(String.init)
    guard let last = keys.popLast() else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: keyPath, value: keyPath,
        reason: "the key path is empty")
    }
    var targets: [ManagedObject] = [self]
    for key in keys {
      var next: [ManagedObject] = []
      for target in targets {
        let property = try target.property(forKey: key)
        guard property.isRelationship else {
          throw ObjectGraphError(
            .unknownKey, entity: target.entity.name, key: keyPath, value: key,
            reason: "'\(key)' in key path '\(keyPath)' is an attribute, so the path cannot go on")
        }
        try target.checkReadable(property)
        next += target.members(property)
      }
      targets = next
    }
    // Check every target before changing any, so a failure leaves the graph unchanged.
    for target in targets {
      let property = try target.property(forKey: last)
      let context = try target.usableContext(key: last)
      if property.isRelationship {
        try target.checkRelationshipUsable(property)
        if property.isToMany {
          _ = try context.validatedObjects(value, for: property, of: target)
        } else {
          _ = try context.validatedObject(value, for: property, of: target)
        }
      } else {
        _ = try context.validatedAttribute(value, for: property, of: target)
      }
    }
    for target in targets { try target.setValue(value, forKey: last) }
  }

  // MARK: Checks

  /// The live context of the object, or an error saying why it has none.
  func usableContext(key: String?) throws -> ObjectContext {
    guard let context = _context, lifecycle != .invalid, lifecycle != .prototype else {
      throw ObjectGraphError(
        .invalidObject, entity: entity.name, key: key, value: shortDescription,
        reason: "\(shortDescription) no longer belongs to a context (it was reset or released)")
    }
    try context.checkUsable(self, key: key)
    return context
  }

  /// Relationships of deleted objects may not be used.
  func checkRelationshipUsable(_ property: Property) throws {
    guard isDeletedFlag else { return }
    throw ObjectGraphError(
      .deletedObject, entity: entity.name, key: property.name, value: shortDescription,
      reason: "\(shortDescription) was deleted; its relationship '\(property.name)' cannot be used")
  }

  func checkReadable(_ property: Property) throws {
    if lifecycle == .invalid {
      throw ObjectGraphError(
        .invalidObject, entity: entity.name, key: property.name, value: shortDescription,
        reason: "\(shortDescription) no longer belongs to a context (it was reset or released)")
    }
    if property.isRelationship { try checkRelationshipUsable(property) }
  }

  // MARK: Typed access

  /// The typed attribute setter: the value's type was checked by the compiler, so comparing it
  /// with the stored value needs one cast. Inlinable (benchmark row "typed attribute set") so the
  /// comparison is specialized for the property's type in the caller's module.
  @inlinable
  final func _setTypedAttribute<Value: AttributeValue>(_ value: Value, slot: Int) {
    let old = storage[slot]
    let changes: Bool
    if let old {
      changes = (old as? Value).map { $0 != value } ?? true
    } else {
      changes = value._storage != nil
    }
    _commitTypedSet(slot: slot, old: old, new: value._storage, changes: changes)
  }

  /// The non-generic rest of a typed attribute set.
  @usableFromInline
  final func _commitTypedSet(slot: Int, old: Any?, new: Any?, changes: Bool) {
    let property = entity.properties[slot]
    guard let context = _context, lifecycle == .registered else {
      preconditionFailure(
        "ObservedGraph: cannot set \(entity.name).\(property.name) of \(shortDescription): "
          + "it no longer belongs to a context")
    }
    context.setAttribute(self, property, old: old, new: new, changes: changes)
  }

  /// The typed relationship setter: misuse the compiler cannot see stops the program.
  final func _setTypedRelationship(_ objects: [ManagedObject], slot: Int) {
    let property = entity.properties[slot]
    do {
      if property.isToMany {
        try setValue(objects, forKey: property.name)
      } else {
        try setValue(objects.first, forKey: property.name)
      }
    } catch {
      preconditionFailure("ObservedGraph: \(error)")
    }
  }
}

extension ObjectContext {
  /// Converts and checks a value for an attribute.
  func validatedAttribute(_ value: Any?, for property: Property, of object: ManagedObject) throws
    -> Any?
  {
    // Benchmark row "KVC set by string key": a value already of the stored type (the common case)
    // needs no unwrapping or conversion.
    if let value, property.attributeAccepts!(value) { return value }
    let type = property.attributeType!
    guard let value = flatten(value) else {
      guard property.isOptionalAttribute else {
        throw ObjectGraphError(
          .nilNotAllowed, entity: object.entity.name, key: property.name, value: "nil",
          reason: "nil is not allowed: '\(property.name)' is not optional")
      }
      return nil
    }
    guard let stored = type.storageValue(value) else {
      throw ObjectGraphError(
        .wrongType, entity: object.entity.name, key: property.name,
        value: ObjectGraphError.describe(value),
        reason: "\(ObjectGraphError.describe(value)) is not a value of type \(type)")
    }
    return stored
  }

  /// Checks an object for a to-one relationship.
  func validatedObject(_ value: Any?, for property: Property, of owner: ManagedObject) throws
    -> ManagedObject?
  {
    guard let value = flatten(value) else { return nil }
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
    guard let value = flatten(value) else { return [] }
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
      try checkRelatable(object, for: property, of: owner)
      objects.append(object)
    }
    return objects
  }

  /// An object may join a relationship when it is of the destination entity, of this context and
  /// not deleted.
  func checkRelatable(_ object: ManagedObject, for property: Property, of owner: ManagedObject)
    throws
  {
    let destination = property.destination!
    guard object.entity.isKind(of: destination) else {
      throw ObjectGraphError(
        .wrongEntity, entity: owner.entity.name, key: property.name,
        value: object.shortDescription,
        reason: "\(object.shortDescription) is a \(object.entity.name), not a \(destination.name)")
    }
    do {
      try checkUsable(object, key: property.name)
    } catch let error as ObjectGraphError {
      // Name the relationship being set (the owner's entity and key), as the other checks do.
      throw ObjectGraphError(
        error.kind.code, entity: owner.entity.name, key: property.name,
        value: object.shortDescription, reason: error.reason)
    }
    if object.isDeletedFlag {
      throw ObjectGraphError(
        .deletedObject, entity: owner.entity.name, key: property.name,
        value: object.shortDescription,
        reason: "\(object.shortDescription) was deleted and cannot join '\(property.name)'")
    }
  }

  /// Unwraps an `Optional` hidden inside `Any` (for example a `String?` passed as `Any`).
  func flatten(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? any _OptionalBox { return optional._unboxed }
    return value
  }
}

/// Lets `flatten` see through an `Optional` stored in an `Any`.
protocol _OptionalBox {
  var _unboxed: Any? { get }
}

extension Optional: _OptionalBox {
  var _unboxed: Any? {
    switch self {
    case .some(let wrapped):
      if let inner = wrapped as? any _OptionalBox { return inner._unboxed }
      return wrapped
    case .none: return nil
    }
  }
}
