/// The change state of an object: flags, changed values and committed values.
extension ManagedObject {
  /// Whether the object was inserted since the context was last saved (and not deleted since).
  public var isInserted: Bool { isInsertedFlag && !isDeletedFlag && lifecycle == .registered }

  /// Whether the object was saved before and has changed since.
  public var isUpdated: Bool {
    !isInsertedFlag && !isDeletedFlag && !changes.isEmpty && lifecycle == .registered
  }

  /// Whether the object will be deleted from the store at the next save: it was saved before and
  /// deleted since.
  ///
  /// As in Core Data, an object inserted and deleted before a save is not "deleted": it was never
  /// stored, has no changes, and leaves ``ObjectContext/registeredObjects`` at once (undo brings it
  /// back). After a save, deleted objects leave the context and this is false again.
  public var isDeleted: Bool { isDeletedFlag && !isInsertedFlag && lifecycle == .registered }

  /// Whether the object is inserted, updated or deleted.
  public var hasChanges: Bool { isInserted || isUpdated || isDeleted }

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
  public func changedValues() -> [String: Any] {
    var values: [String: Any] = [:]
    for slot in changes.slots {
      let property = entity.properties[slot]
      // Only persistent properties are reported, as in Core Data.
      if property.attribute?.isTransient == true { continue }
      values[property.name] = publicValue(property) ?? Optional<Any>.none as Any
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
  public func committedValues(forKeys keys: [String]? = nil) throws -> [String: Any] {
    let persistent = entity.properties.filter { $0.attribute?.isTransient != true }.map(\.name)
    let properties = try (keys ?? persistent).map { try property(forKey: $0) }
    guard !isInsertedFlag else { return [:] }
    var values: [String: Any] = [:]
    for property in properties {
      let stored: Any?
      if changes.contains(property.slot) {
        stored = changes.originals[property.slot] ?? nil
      } else {
        stored = committedStorage(property)
      }
      guard let stored else { continue }
      if property.isToMany, let members = stored as? [ManagedObject], !property.isOrdered {
        values[property.name] = Set(members)
      } else {
        values[property.name] = stored
      }
    }
    return values
  }

  /// The property named `key`, or an `unknownKey` error naming the entity and key.
  func property(forKey key: String) throws -> Property {
    guard let property = entity.propertiesByName[key] else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: key, value: key,
        reason: "\(entity.name) has no property '\(key)'")
    }
    return property
  }
}
