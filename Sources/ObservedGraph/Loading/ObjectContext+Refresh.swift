import UndoLog

/// Rolling back and refreshing: putting objects back to their saved state, and turning objects
/// back into faults.
extension ObjectContext {
  /// Puts every object back to its last saved state: objects inserted since the save leave the
  /// context, deleted ones come back with their relationships, and changed values and
  /// relationships get their saved values back.
  ///
  /// Observers hear it as ordinary changes (both sides of every relationship in agreement), and
  /// the next objects-did-change event lists what it did; each restored object gets
  /// ``ManagedObject/awake(fromSnapshotEvents:)`` with ``SnapshotEvents/rollback``. As in Core
  /// Data, the undo log is emptied.
  ///
  /// ```swift
  /// book.title = "Draft"
  /// let page = context.insert(Page.self)
  /// context.rollback()
  /// #expect(book.title == "Dune" && page.context == nil && !context.hasChanges)
  /// ```
  /// - Precondition: No transaction's body is running (see ``transaction(actionName:origin:_:)``: a
  ///   throw from the body takes its changes back); otherwise the program stops with a message.
  /// - Complexity: O(*n*) in the changed objects and the values and relationship members they
  ///   changed.
  public func rollback() {
    trapInTransaction("rollback()")
    processPendingChanges()
    let dirty = tracker.dirty.filter { $0.lifecycle == .registered }
      .sorted { $0.objectKey < $1.objectKey }
    guard !dirty.isEmpty else {
      // Nothing to put back, but the history still goes: its steps lead away from the saved state.
      undoLog?.removeAllActions()
      return
    }
    // Replayed from the last change to the first: deleted objects come back first, then saved
    // slots get their committed values, then inserted objects are emptied and leave.
    var changes: [RecordedChange] = []
    for object in dirty where object.isInsertedFlag && !object.isDeletedFlag {
      changes.append(.lifecycle(object.objectID, .uninsert, snapshot: nil))
      for property in object.entity.relationshipProperties {
        changes.append(
          property.isToMany
            ? .replace(object.objectID, slot: property.slot, members: [], before: .changed)
            : .toOne(object.objectID, slot: property.slot, value: nil, before: .changed))
      }
    }
    for object in dirty where !object.isInsertedFlag {
      changes += committedValues(of: object, slots: object.changes.changedSlots)
    }
    for object in dirty where object.isDeletedFlag && !object.isInsertedFlag {
      changes.append(.lifecycle(object.objectID, .undelete, snapshot: nil))
    }
    let log = undoLog
    log?.disableRegistration()
    recorder.collectingRestored(reporting: .rollback) { perform(.replay(changes)) }
    // Objects inserted and deleted since the save were never part of the saved state.
    for object in dirty where object.isInsertedFlag && object.isDeletedFlag {
      tracker.forget(object)
      registry.detach(object)
    }
    processPendingChanges()
    if let log {
      try? log.enableRegistration()
      log.removeAllActions()
    }
    checkAfterBatch(dirty)
  }

  /// The changes that give slots of a saved object their committed values back, tracked as
  /// unchanged.
  private func committedValues(of object: ManagedObject, slots: [Int]) -> [RecordedChange] {
    slots.compactMap { slot in
      guard let original = object.changes.originals[slot] else { return nil }
      let id = object.objectID
      return switch original {
      case .attribute(let value): .attribute(id, slot: slot, value: value, before: .unchanged)
      case .toOne(let other): .toOne(id, slot: slot, value: other, before: .unchanged)
      case .toMany(let members): .replace(id, slot: slot, members: members, before: .unchanged)
      }
    }
  }

  /// Turns an object back into a fault, or brings its saved values up to date.
  ///
  /// With `mergeChanges` false, the object's unsaved changes are taken back first (as
  /// ``rollback()`` would for this object alone, its relationships' other sides following, and
  /// observers hearing it); then ``ManagedObject/willTurnIntoFault()`` runs with the values still
  /// readable, the values are dropped, and ``ManagedObject/didTurnIntoFault()`` runs. The next
  /// read loads the values again from the store and calls ``ManagedObject/awakeFromFetch()``.
  /// An object nothing else references may then leave memory.
  ///
  /// With `mergeChanges` true, the object's attributes it has not changed take the store's current
  /// values (observers hear those that differ), and the committed values of the ones it changed
  /// become the store's: its unsaved changes stay on top. Relationships keep what the context
  /// holds: merging other contexts' relationship changes comes with merging between contexts.
  ///
  /// Nothing happens for an object of another context, a fault, an inserted or deleted object,
  /// or in a context without a store (there is nothing to load again).
  ///
  /// ```swift
  /// try context.refresh(book, mergeChanges: false)
  /// #expect(book.isFault)
  /// print(book.title)   // loaded again: awakeFromFetch runs
  /// ```
  /// - Parameters:
  ///   - object: The object to refresh.
  ///   - mergeChanges: Whether to keep its unsaved changes on top of the store's values (true),
  ///     or to take them back and turn it into a fault (false).
  /// - Throws: What the store throws when `mergeChanges` is true; the object is unchanged then.
  ///   ``ObjectGraphError/Kind/transactionInProgress`` for an object that the body of the
  ///   transaction in progress changed (other objects refresh as usual).
  /// - Complexity: O(*p*) in the object's properties, plus, with `mergeChanges` true, one load
  ///   from the store; taking back changed relationships costs what setting them costs.
  public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
    if let journal, journal.changed(object) {
      throw ObjectGraphError(
        .transactionInProgress, entity: object.entity.name, value: "\(object.objectID)",
        reason: "the transaction in progress changed the object; refresh it after the transaction")
    }
    if object.link === link { faulting.forgetFetchedResults(of: object.objectKey) }
    if object.isFaultFlag, object.marks & ManagedObject.prefilledMark != 0, object.link === link {
      // A fault whose values a to-many load put in place: they go, it loads them when read.
      object.marks &= ~ManagedObject.prefilledMark
      dropValues(of: object)
      return
    }
    guard let store, object.link === link, object.lifecycle == .registered, !object.isFaultFlag,
      !object.isInsertedFlag, !object.isDeletedFlag
    else { return }
    if mergeChanges {
      try merge(object, with: store)
    } else {
      turnIntoFault(object)
    }
  }

  private func turnIntoFault(_ object: ManagedObject) {
    if !object.changes.isEmpty {
      let changes = committedValues(of: object, slots: object.changes.changedSlots)
      let log = undoLog
      log?.disableRegistration()
      for change in changes { restoreWithInverses(change, of: object) }
      if let log { try? log.enableRegistration() }
      tracker.forgetChanges(of: object)
    }
    object.willTurnIntoFault()
    dropValues(of: object)
    object.isFaultFlag = true
    object.didTurnIntoFault()
    checkAfterBatch([object])
  }

  /// Puts every slot back to its default: the values' memory is released. A to-one whose
  /// inverse is a to-many keeps its object's key, so that the next load can tell the other side
  /// if the object moved meanwhile (see `ObjectContext.settleLoadedOwners(_:)`).
  private func dropValues(of object: ManagedObject) {
    generation &+= 1
    for property in object.entity.properties {
      if property.isToOne, property.inverse?.isToMany == true {
        object.keepToOneKey(object.toOneKey(property), property)
      } else {
        object.fill(property.isRelationship ? nil : property.heldDefault, at: property.slot)
      }
    }
  }

  /// Takes one slot back to its committed value through the mutation path, with inverse upkeep.
  private func restoreWithInverses(_ change: RecordedChange, of object: ManagedObject) {
    guard let slot = change.slot else { return }
    let property = object.entity.properties[slot]
    switch change {
    case .attribute(_, _, let value, _):
      guard let held = property.heldValue(of: value) else { return }
      perform(
        .attribute(
          object, property, old: object.read(slot, tracking: false), new: held, changes: true))
    case .toOne(_, _, let value, _):
      perform(.toOne(object, property, value.flatMap(self.object(with:))))
    case .replace(_, _, let members, _):
      perform(.assignMembers(object, property, members.compactMap(self.object(with:))))
    default:
      return
    }
  }

  private func merge(_ object: ManagedObject, with store: any PersistentStore) throws {
    guard let stored = try store.loadObject(object.objectID),
      stored.properties.count == object.entity.properties.count
    else { return }
    var changes: [RecordedChange] = []
    for property in object.entity.properties where !property.isRelationship {
      guard case .attribute(let value) = stored.properties[property.slot] else { continue }
      if object.changes.contains(property.slot) {
        tracker.setCommittedValue(.attribute(value), of: object, property.slot)
      } else {
        changes.append(
          .attribute(object.objectID, slot: property.slot, value: value, before: .unchanged))
      }
    }
    let log = undoLog
    log?.disableRegistration()
    recorder.collectingRestored(reporting: .refresh) { perform(.replay(changes)) }
    if let log { try? log.enableRegistration() }
    // The store's values are the saved ones: the slots they replaced are not changes.
    for case .attribute(_, let slot, _, _) in changes {
      tracker.restore(object, slot, to: .unchanged)
    }
    tracker.forgetIfClean(object)
  }
}
