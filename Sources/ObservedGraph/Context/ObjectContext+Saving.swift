/// Validation, saving and resetting.
extension ObjectContext {
  /// Posts pending changes (``processPendingChanges()``), then validates and commits every change:
  /// inserted objects become saved objects, changed values become committed values, and deleted
  /// objects leave the context (their ``ManagedObject/context`` becomes nil).
  ///
  /// A context on a store (see ``PersistentContainer``) gives the store every change in one
  /// ``PersistentStore/save(_:)``, which writes all of them or none; only then does the context
  /// commit. A context without a store keeps its saved objects itself. Nothing to save is a
  /// successful no-op that does not call the store. The undo history stays: undoing a delete after
  /// the save brings the object back as a new insert.
  ///
  /// ```swift
  /// try context.save()
  /// #expect(!book.isInserted)
  /// ```
  /// - Throws: ``ObjectGraphError/Kind/transactionInProgress`` in a transaction's body (use
  ///   `transaction(save: true)`). The validation error of the one invalid object, or
  ///   ``ObjectGraphError/Kind/multipleErrors`` listing all of them — among them ``ObjectGraphError/Kind/invalidValue`` for NaN in a
  ///   saved `Double`, `Float`, `Decimal` or `Date` attribute, which no store keeps exactly,
  ///   whatever the objects' validation methods do; or what the store throws. Nothing is
  ///   committed when it throws: the context and the store are as they were.
  /// - Complexity: O(*n*) in the changed objects and their properties (validation, the store's
  ///   changes and the commit), plus the store's cost of writing them.
  public func save() throws {
    try refuseInTransaction("save()")
    // As in Core Data, a save first ends the current user event: observers hear what is pending.
    processPendingChanges()
    let prepared = try prepareSave()
    let leaving = try writeSave()
    finishSave(prepared, leaving: leaving)
  }

  /// What a save found to write before writing it.
  struct PreparedSave {
    /// The objects saved, which hear `willSave` and `didSave`.
    let saving: [ManagedObject]
    /// What the save events name.
    let saved: SavedObjects
  }

  /// The first phase of a save: `willSave` of each object about to be saved, the validation, and
  /// the will-save event. Throws the validation's errors.
  func prepareSave() throws -> PreparedSave {
    // Each object about to be saved hears `willSave` once; what it changes there is saved too.
    let saving = tracker.dirty.filter { $0.lifecycle == .registered && $0.hasChanges }
      .sorted { $0.objectKey < $1.objectKey }
    for object in saving where object.lifecycle == .registered { object.willSave() }
    processPendingChanges()
    try validateForSave()
    let saved = SavedObjects(tracker.changeSet(), author: author)
    if !saved.isEmpty { saveSubscribers.post(.willSave, saved) }
    return PreparedSave(saving: saving, saved: saved)
  }

  /// The second phase: the store writes every change (all or none) and the change tracking
  /// commits. Returns the deleted objects that leave the context. Throws what the store throws,
  /// before the tracking commits.
  func writeSave() throws -> [ManagedObject] {
    if let store {
      let changes = storeChanges()
      if !changes.isEmpty { try store.save(changes) }
    }
    generation &+= 1
    return tracker.commit()
  }

  /// The last phase: `didSave`, the saved deletes leave, the did-save event.
  func finishSave(_ prepared: PreparedSave, leaving: [ManagedObject]) {
    for object in prepared.saving { object.didSave() }
    for object in leaving where object.lifecycle == .registered {
      // A saved delete: the object leaves the context, turned into a fault as Core Data does
      // (its last values stay readable); undo can still bring it back.
      object.willTurnIntoFault()
      registry.detach(object)
      object.didTurnIntoFault()
    }
    checkAfterBatch(prepared.saving + leaving)
    if !prepared.saved.isEmpty { saveSubscribers.post(.didSave, prepared.saved) }
  }

  /// Validates every object a save writes; throws them all in one error.
  private func validateForSave() throws {
    var errors: [ObjectGraphError] = []
    // Sorted so that the combined error lists objects in insertion order on every run.
    let dirty = tracker.dirty.filter { $0.lifecycle == .registered }
    for object in dirty.sorted(by: { $0.objectKey < $1.objectKey }) {
      do {
        if object.isInserted {
          try object.validateForInsert()
        } else if object.isUpdated {
          try object.validateForUpdate()
        } else if object.isDeleted && !object.isInsertedFlag {
          try object.validateForDelete()
        }
      } catch let error as ObjectGraphError {
        errors += error.kind == .multipleErrors ? error.underlying : [error]
      }
      // Whatever the validation overrides do: a value no store keeps exactly is never written.
      if !object.isDeletedFlag {
        errors +=
          object.isInsertedFlag
          ? object.unstorableValues(object.entity.nanCapableSlots)
          : object.unstorableValues(object.changes.changedSlots)
      }
    }
    if let error = ObjectGraphError.combining(errors) { throw error }
  }

  /// The changes the next save writes: inserted objects, updated ones with their changed
  /// persistent keys, and deleted ones that were saved before.
  var pendingChangeSet: ChangeSet { tracker.changeSet() }

  /// The changes the next save gives the store, with their values.
  func storeChanges() -> StoreChanges {
    var changes = StoreChanges()
    for object in tracker.dirty where object.lifecycle == .registered {
      if object.isDeletedFlag {
        if !object.isInsertedFlag { changes.deleted.append(object.objectID) }
      } else if object.isInsertedFlag {
        changes.inserted.append(object.stored(object.entity.properties.indices))
      } else if !object.changes.isEmpty {
        let stored = object.stored(object.changes.changedSlots)
        if stored.properties.contains(where: { $0 != .omitted }) { changes.updated.append(stored) }
      }
    }
    changes.inserted.sort { $0.id.key < $1.id.key }
    changes.updated.sort { $0.id.key < $1.id.key }
    changes.deleted.sort { $0.key < $1.key }
    return changes
  }

  /// Forgets every object: each becomes invalid (changing it throws
  /// ``ObjectGraphError/Kind/invalidObject``; reading it gives its last attribute values), the
  /// context is empty, and its undo log is emptied.
  ///
  /// ```swift
  /// context.reset()
  /// #expect(context.registeredObjects.isEmpty)
  /// ```
  /// - Precondition: The context's undo log is not undoing or redoing: an observer of a change
  ///   that undo or redo replays cannot reset the context under it (the program stops with a
  ///   message that says so). Reset after `undo()` or `redo()` returns. No transaction's body is
  ///   running (see ``transaction(actionName:origin:_:)``): the program stops with a message.
  /// - Complexity: O(*n*) in the registered objects.
  public func reset() {
    trapInTransaction("reset()")
    if let log = recorder.log, log.isUndoing || log.isRedoing {
      let name = log.undoActionName
      let replay = log.isUndoing ? "undo" : "redo"
      preconditionFailure(
        "ObservedGraph: reset() during \(replay) of "
          + (name.isEmpty ? "an unnamed group" : "\"\(name)\"")
          + "; call it after \(replay)() returns")
    }
    generation &+= 1
    link.voidQuietBits()
    registry.invalidateAll()
    tracker.discardAll()
    center.discardPending()
    brackets.removeAll()
    recorder.didReset()
    faulting.removeAll()
  }
}

extension ManagedObject {
  /// The object as a store keeps it, with the values of the persistent properties in `slots` and
  /// the others omitted.
  func stored(_ slots: some Sequence<Int>) -> StoredObject {
    let properties = entity.properties
    var values = [StoredProperty](repeating: .omitted, count: properties.count)
    for slot in slots {
      let property = properties[slot]
      if property.attribute?.isTransient == true { continue }
      values[slot] =
        switch property.snapshot(of: read(slot, tracking: false)) {
        case .attribute(let value): .attribute(value)
        case .toOne(let id): .toOne(id)
        case .toMany(let ids): .toMany(ids)
        }
    }
    return StoredObject(id: objectID, properties: values)
  }

  /// The model's checks: non-optional attributes and relationships have a value, attributes
  /// follow their rules, and to-many relationships respect their count limits.
  func validateProperties() throws {
    var errors: [ObjectGraphError] = []
    for property in entity.properties {
      if let attribute = property.attribute {
        let value = read(property.slot, tracking: false)
        if let value, let rules = property.rules {
          errors += rules.violations(
            of: value, stored: property.storedValue(of: value), property: property,
            entity: entity.name)
        } else if value == nil && !attribute.isOptional {
          errors.append(missing(property))
        }
        continue
      }
      let relationship = property.relationship!
      // A to-many fault loads here, where a store's failure throws out of the save.
      if property.isToMany { try loadToMany(property) }
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

  /// The errors of the values among `slots` that no store keeps exactly: NaN in a `Double`,
  /// `Float`, `Decimal` or `Date` attribute that is saved (not transient). SQLite keeps a NaN
  /// as NULL, which would load as nil or not at all; a save refuses it instead.
  func unstorableValues(_ slots: [Int]) -> [ObjectGraphError] {
    var errors: [ObjectGraphError] = []
    for slot in slots {
      let property = entity.properties[slot]
      guard let isNaN = property.nanTest, let value = read(slot, tracking: false), isNaN(value)
      else { continue }
      errors.append(
        ObjectGraphError(
          .invalidValue, entity: entity.name, key: property.name,
          value: ObjectGraphError.describe(value),
          reason: "\(objectID).\(property.name) is NaN (not a number), which a store cannot keep: "
            + "SQLite would keep it as NULL; the save wrote nothing"))
    }
    return errors
  }

  private func missing(_ property: Property) -> ObjectGraphError {
    ObjectGraphError(
      .missingValue, entity: entity.name, key: property.name, value: "nil",
      reason: "\(objectID) has no value for non-optional '\(property.name)'")
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
