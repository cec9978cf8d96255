/// The change state of an object: flags, changed values and committed values.
extension ManagedObject {
  /// Whether the object was inserted since the context was last saved (and not deleted since).
  public var isInserted: Bool { isInsertedFlag && !isDeletedFlag && lifecycle == .registered }

  /// Whether the object was saved before and has changed since.
  public var isUpdated: Bool {
    !isInsertedFlag && !isDeletedFlag && !changes.isEmpty && lifecycle == .registered
  }

  /// Whether the object was deleted: from ``ObjectContext/delete(_:)`` on, until an undo takes the
  /// delete back.
  ///
  /// A deleted object stays in its context — ``ObjectContext/registeredObjects`` lists it,
  /// ``context`` is its context — until the next save, which takes it out: then ``context`` is nil
  /// while `isDeleted` stays true. This holds whether or not the object was ever saved; an object
  /// inserted and deleted since the last save is simply not written by the save (it is not in
  /// ``ObjectContext/deletedObjects``). Reading a deleted object works (its attributes keep their
  /// last values, its relationships are empty); changing it throws or, for typed setters, stops
  /// the program.
  ///
  /// ```swift
  /// try context.delete(book)
  /// #expect(book.isDeleted && book.context === context)
  /// try context.save()
  /// #expect(book.isDeleted && book.context == nil)
  /// ```
  public var isDeleted: Bool { isDeletedFlag && lifecycle != .invalid }

  /// Whether a save would write something for the object: it is inserted, updated, or deleted
  /// after having been saved.
  public var hasChanges: Bool {
    isInserted || isUpdated || (isDeletedFlag && !isInsertedFlag && lifecycle == .registered)
  }

  /// The properties changed since the object was inserted or last saved, with their current values.
  ///
  /// Primitive sets outside a `willChangeValue`/`didChangeValue` pair are not changes; setting a value
  /// equal to the current one is not a change either.
  ///
  /// ```swift
  /// book.price = 9
  /// #expect(book.changedValues()["price"] as? Double == 9)
  /// ```
  /// - Returns: Each changed key mapped to its current value (to-many: a `Set` or an `Array`).
  /// - Complexity: O(*p*) in the object's properties.
  public func changedValues() -> [String: Any] {
    var values: [String: Any] = [:]
    for slot in changes.changedSlots {
      let property = entity.properties[slot]
      // Only persistent properties are reported, as in Core Data.
      if property.attribute?.isTransient == true { continue }
      values[property.name] = publicValue(property, tracking: false) ?? Optional<Any>.none as Any
    }
    return values
  }

  /// The values the given properties had when the object was last saved.
  ///
  /// An object never saved has no committed values and returns an empty dictionary.
  ///
  /// - Parameter keys: Property names, or nil for every persistent (non-transient) property.
  /// - Returns: Each key mapped to its committed value (nil values are left out).
  /// - Throws: ``ObjectGraphError/Kind/unknownKey`` for a key the entity does not have.
  /// - Complexity: O(*p*) in the keys asked for (every property for nil).
  public func committedValues(forKeys keys: [String]? = nil) throws -> [String: Any] {
    let persistent = entity.properties.filter { $0.attribute?.isTransient != true }.map(\.name)
    let properties = try (keys ?? persistent).map { try property(forKey: $0) }
    guard !isInsertedFlag else { return [:] }
    var values: [String: Any] = [:]
    for property in properties {
      let committed: Any?
      if changes.contains(property.slot) {
        committed = changes.originals[property.slot].flatMap { committedValue($0, property) }
      } else {
        committed = publicValue(property, tracking: false)
      }
      if let committed { values[property.name] = committed }
    }
    return values
  }

  /// A committed value in the form ``value(forKey:)`` returns; related objects that left memory
  /// are left out.
  private func committedValue(_ snapshot: SnapshotValue, _ property: Property) -> Any? {
    let context = link?.context
    switch snapshot {
    case .attribute(let stored):
      return property.heldValue(of: stored) ?? nil
    case .toOne(let id):
      return id.flatMap { context?.registry.anyObject(for: $0) }
    case .toMany(let ids):
      let objects = ids.compactMap { context?.registry.anyObject(for: $0) }
      return property.isOrdered ? objects : Set(objects) as Any
    }
  }

  /// The property named `key`, or an `unknownKey` error naming the entity and key.
  func property(forKey key: String) throws -> Property {
    guard let property = entity.propertiesByName[key] else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: key, value: key,
        reason: "\(entity.name) has no property '\(ObjectGraphError.shorten(key))'")
    }
    return property
  }
}
