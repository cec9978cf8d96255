/// Validation, saving and resetting.
extension ObjectContext {
  /// Posts pending changes (``processPendingChanges()``), then validates and commits every change:
  /// inserted objects become saved objects, changed values become committed values, and deleted
  /// objects leave the context.
  ///
  /// The context keeps its objects in memory; persistent stores arrive with the store issue. Nothing
  /// to save is a successful no-op.
  ///
  /// ```swift
  /// try context.save()
  /// #expect(!book.isInserted)
  /// ```
  /// - Throws: The validation error of the one invalid object, or ``ObjectGraphError/Kind/multipleErrors``
  ///   listing all of them; nothing is committed when it throws.
  public func save() throws {
    // As in Core Data, a save first ends the current user event: observers hear what is pending.
    processPendingChanges()
    var errors: [ObjectGraphError] = []
    // Sorted so that the combined error lists objects in insertion order on every run.
    for object in dirty.values.sorted(by: { $0.objectID.number < $1.objectID.number }) {
      do {
        if object.isInserted {
          try object.validateForInsert()
        } else if object.isUpdated {
          try object.validateForUpdate()
        }
      } catch let error as ObjectGraphError {
        errors += error.kind == .multipleErrors ? error.underlying : [error]
      }
    }
    if let error = ObjectGraphError.combining(errors) { throw error }
    for object in dirty.values {
      object.isInsertedFlag = false
      object.changes.removeAll()
      if object.isDeletedFlag {
        // A saved delete: the object leaves the context for good (it stays in `limbo` only so that
        // it can be invalidated with the context).
        registry[object.objectID] = nil
        object.lifecycle = .unregistered
        limbo[ObjectIdentifier(object)] = object
      }
    }
    dirty.removeAll()
    checkInvariants()
  }

  /// Forgets every object: each becomes invalid (using it throws
  /// ``ObjectGraphError/Kind/invalidObject``), and the context is empty.
  ///
  /// ```swift
  /// context.reset()
  /// #expect(context.registeredObjects.isEmpty)
  /// ```
  public func reset() {
    for object in registry.values { object.invalidate() }
    for object in limbo.values { object.invalidate() }
    registry.removeAll()
    limbo.removeAll()
    dirty.removeAll()
    brackets.removeAll()
    didReset()
  }
}

extension ManagedObject {
  /// The model's checks: non-optional attributes and relationships have a value, and to-many
  /// relationships respect their count limits.
  func validateProperties() throws {
    var errors: [ObjectGraphError] = []
    for property in entity.properties {
      if let attribute = property.attribute {
        if !attribute.isOptional && storage[property.slot] == nil {
          errors.append(missing(property))
        }
        continue
      }
      let relationship = property.relationship!
      let count = members(property).count
      if !property.isToMany {
        if !relationship.isOptional && count == 0 { errors.append(missing(property)) }
        continue
      }
      if count == 0 && !relationship.isOptional && relationship.minCount == 0 {
        errors.append(missing(property))
      }
      guard count > 0 || !relationship.isOptional else { continue }
      if relationship.minCount > 0 && count < relationship.minCount {
        errors.append(
          ObjectGraphError(
            .tooFewObjects, entity: entity.name, key: property.name, value: "\(count)",
            reason: "'\(property.name)' holds \(count) objects, fewer than its minimum "
              + "\(relationship.minCount)"))
      }
      if relationship.maxCount > 0 && count > relationship.maxCount {
        errors.append(
          ObjectGraphError(
            .tooManyObjects, entity: entity.name, key: property.name, value: "\(count)",
            reason: "'\(property.name)' holds \(count) objects, more than its maximum "
              + "\(relationship.maxCount)"))
      }
    }
    if let error = ObjectGraphError.combining(errors) { throw error }
  }

  private func missing(_ property: Property) -> ObjectGraphError {
    ObjectGraphError(
      .missingValue, entity: entity.name, key: property.name, value: "nil",
      reason: "\(shortDescription) has no value for non-optional '\(property.name)'")
  }
}

extension ObjectGraphError {
  /// nil for no errors, the error itself for one, a `multipleErrors` error for several.
  static func combining(_ errors: [ObjectGraphError]) -> ObjectGraphError? {
    guard let first = errors.first else { return nil }
    guard errors.count > 1 else { return first }
    return ObjectGraphError(
      .multipleErrors, entity: first.entity,
      reason: "\(errors.count) validation errors: "
        + errors.map(\.description).joined(separator: "; "),
      underlying: errors)
  }
}
