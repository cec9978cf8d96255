import UndoLog

/// Undo integration.
///
/// Recording: the mutation path hands the edits of each change to the ``UndoRecorder`` just before
/// it applies them; one ``GraphUndoStep`` holds the inverse of the whole change (the change and all
/// its inverse upkeep, or the delete of one object with what its rules did) together with each
/// slot's change-tracking state before the change. Everything one user event does lands in the
/// log's event group, closed by `processPendingChanges()`.
///
/// Replaying: a step finds its context among the log's participants and asks it to replay; the
/// replay is a ``ObjectContext/Request/replay(_:)`` request, planned from the recorded identifiers
/// and values against the graph as it is, and performed by the one mutation path. So observers
/// hear ordinary changes with both sides of every relationship in agreement, the path records the
/// opposite step (while undoing, the log files it on the redo stack), and the apply phase puts each
/// slot's change-tracking state back as it was before the change. Restored objects get
/// ``ManagedObject/awake(fromSnapshotEvents:)`` once each when the undo or redo is over.
extension ObjectContext {
  /// The undo log that records every change made through the context, or `nil` (the default) to
  /// record nothing.
  ///
  /// Attribute sets, relationship changes (both sides together), inserts, deletes (with everything
  /// their delete rules did) and manual `willChangeValue`/`didChangeValue` brackets are recorded.
  /// Everything between two ``processPendingChanges()`` calls is one undo group. Primitive sets
  /// outside a bracket, sets of an equal value, denied deletes and anything done while the log's
  /// registration is disabled record nothing. ``reset()`` empties the log.
  ///
  /// Undo and redo restore values, both sides of every relationship (with the order of ordered
  /// ones), inserted and deleted objects, and the change-tracking state (`isInserted`, `isUpdated`,
  /// `isDeleted`, `hasChanges`, `changedValues()`); observers hear them as ordinary changes.
  ///
  /// Steps are values (``GraphUndoStep``): the log's history can be archived with
  /// `UndoLog.history()` and restored into a new log given to the same context.
  ///
  /// ```swift
  /// context.undoLog = UndoLog()
  /// book.title = "Dune"
  /// context.processPendingChanges()   // the user event ends: one undo group
  /// try context.undoLog?.undo()       // book.title is back, book.hasChanges as before
  /// try context.undoLog?.redo()       // book.title == "Dune"
  /// ```
  ///
  /// The log is not retained by anything else; several contexts may share one log (each finds its
  /// own steps by the store their objects belong to).
  public var undoLog: UndoLog? {
    get { recorder.log }
    set {
      recorder.attach(newValue, to: self)
      link.voidQuietBits()  // sets are recorded now: no set is quiet by an older test
    }
  }

  /// The object an entry of an ``AttributeColumn`` names, when the entry can be replayed
  /// quietly: the object is registered and in memory, nothing observes it and nothing taps the
  /// context's changes, and the slot is still tracked as changed (it was when the set was made,
  /// unless a save came since).
  @usableFromInline
  func quietReplayTarget(key: Int64, entity: EntityDescription, slot: Int) -> ManagedObject? {
    guard let object = registry.registeredObject(key: key), object.entity === entity,
      !object.isFaultFlag, object.observers == nil, !center.hasTaps,
      object.changes.contains(slot)
    else { return nil }
    return object
  }

  /// Replays a set quietly (see ``quietReplayTarget(key:entity:slot:)``): what the mutation path
  /// does for it with nobody to tell — the store inside Swift Observation's calls, the slot's
  /// pending state, and the object noted as restored. The slot stays tracked as changed, with the
  /// committed value it has; the caller records the inverse.
  @usableFromInline
  func replayQuietly(_ object: ManagedObject, _ slot: Int, store: () -> Void) {
    object.registrar?.willSet(object, slot)
    generation &+= 1
    store()
    center.notePending(object, slot)
    object.registrar?.didSet(object, slot)
    recorder.noteRestored(object, .undoUpdate)
    #if OBSERVEDGRAPH_INVARIANTS
      let edit = Edit.set(object, object.entity.properties[slot], old: nil, new: nil)
      checkAfterMutation(SingleEdit(PlannedEdit(edit)))
    #endif
  }

  // MARK: Planning a replay

  /// The edits that take back recorded changes (given in the order they were recorded), against
  /// the graph as it is: objects are looked up by identifier (and brought back from their
  /// snapshot if they left memory), members that are gone or already in place are left out, and
  /// old values are read from storage — coalescing keeps the oldest step of a run, whose recorded
  /// value is the run's first, so the current value is the one to take back.
  func planReplay(_ changes: [RecordedChange]) -> EditList {
    var plan = EditPlan()
    /// The value each slot will hold after the edits planned so far.
    var planned = SlotTable<Any?>()
    var plannedMembers = SlotTable<[ManagedObject]>()
    /// The members each to-many slot will hold after the edits planned so far.
    var membership = SlotTable<Set<ObjectIdentifier>>()
    for change in changes.reversed() {
      switch change {
      case .attribute(let id, let slot, let value, let before):
        guard let object = resolve(id), let property = property(of: object, slot),
          !property.isRelationship, let new = property.heldValue(of: value)
        else { continue }
        let key = SlotKey(object, slot)
        let current = planned[key] ?? object.read(slot, tracking: false)
        guard property.differs(current, new) else { continue }
        // A step of one change (every attribute set) needs no table of planned values: one
        // allocation and two hashes fewer per replayed step (benchmark row "undo, redo of 1M
        // attribute steps").
        if changes.count > 1 { planned[key] = new }
        plan.append(replaying(.set(object, property, old: current, new: new), before))
      case .toOne(let id, let slot, let value, let before):
        guard let object = resolve(id), let property = property(of: object, slot),
          property.isToOne
        else { continue }
        let new = value.flatMap(resolve)
        if value != nil && new == nil { continue }
        let key = SlotKey(object, slot)
        let current: Any? = planned[key] ?? object.toOne(property)
        guard !identical(current, new) else { continue }
        planned[key] = new
        plan.append(replaying(.set(object, property, old: current, new: new), before))
      case .insert(let id, let slot, let members, let indexes, let before):
        guard let owner = resolve(id), let property = property(of: owner, slot), property.isToMany
        else { continue }
        let key = SlotKey(owner, slot)
        var current = membership[key] ?? Set(owner.members(property).map(ObjectIdentifier.init))
        var kept: [ManagedObject] = []
        var keptIndexes: [Int] = []
        for (offset, member) in members.enumerated() {
          guard let member = resolve(member), current.insert(ObjectIdentifier(member)).inserted
          else { continue }
          kept.append(member)
          if offset < indexes.count { keptIndexes.append(indexes[offset]) }
        }
        membership[key] = current
        guard !kept.isEmpty else { continue }
        plan.append(
          replaying(.insert(owner, property, objects: kept, indexes: keptIndexes), before))
      case .remove(let id, let slot, let members, _, let before):
        guard let owner = resolve(id), let property = property(of: owner, slot), property.isToMany
        else { continue }
        let key = SlotKey(owner, slot)
        var current = membership[key] ?? Set(owner.members(property).map(ObjectIdentifier.init))
        let present = members.compactMap(resolve).filter {
          current.remove(ObjectIdentifier($0)) != nil
        }
        membership[key] = current
        guard !present.isEmpty else { continue }
        // Indexes of an ordered removal describe the state before it: the recorded order, which
        // the edits planned before this one in the step restored.
        let order = owner.members(property)
        let positioned = present.map { member in
          (property.isOrdered ? order.firstIndex { $0 === member } ?? 0 : 0, member)
        }.sorted { $0.0 < $1.0 }
        plan.append(
          replaying(
            .remove(
              owner, property, objects: positioned.map(\.1),
              indexes: property.isOrdered ? positioned.map(\.0) : []), before))
      case .replace(let id, let slot, let members, let before):
        guard let owner = resolve(id), let property = property(of: owner, slot), property.isToMany
        else { continue }
        let key = SlotKey(owner, slot)
        let old = plannedMembers[key] ?? owner.members(property)
        let new = members.compactMap(resolve)
        guard !sameMembers(old, new) else { continue }
        plannedMembers[key] = new
        membership[key] = Set(new.map(ObjectIdentifier.init))
        plan.append(replaying(.replace(owner, property, old: old, new: new), before))
      case .lifecycle(let id, var lifecycle, let snapshot):
        let existing = registry.anyObject(for: id)
        guard
          let object = existing
            ?? (lifecycle.removesObject ? nil : restoreObject(id, lifecycle, from: snapshot)),
          owns(object)
        else { continue }
        if lifecycle == .uninsert && !object.isInsertedFlag {
          // Saved since it was inserted: taking the insertion back now deletes a saved object.
          lifecycle = .delete
        }
        guard applies(lifecycle, to: object) else { continue }
        if lifecycle.removesObject {
          // Relationships the recorded changes do not empty (made without being recorded) are
          // cut too: an object leaving the graph keeps no partner pointing at it.
          for property in object.entity.relationshipProperties
          where !plan.touches(object, property) {
            planDetach(&plan, object, property, keepingNoAction: false)
          }
        }
        var edit = PlannedEdit(.lifecycle(object, lifecycle))
        edit.isReplay = true
        plan.append(edit)
      }
    }
    return plan.finish()
  }

  private func identical(_ held: Any?, _ object: ManagedObject?) -> Bool {
    (held.map { $0 as AnyObject }) === object
  }

  private func replaying(_ edit: Edit, _ before: SlotTracking) -> PlannedEdit {
    var planned = PlannedEdit(edit)
    planned.restoring = before
    planned.isReplay = true
    return planned
  }

  /// The object with an identifier, registered or detached, as long as it belongs here.
  private func resolve(_ id: ObjectID) -> ManagedObject? {
    guard id.storeIdentifier == registry.storeIdentifier,
      let object = registry.anyObject(for: id) ?? fault(for: id), owns(object)
    else { return nil }
    return object
  }

  private func property(of object: ManagedObject, _ slot: Int) -> Property? {
    slot >= 0 && slot < object.entity.properties.count ? object.entity.properties[slot] : nil
  }

  /// Whether a lifecycle change can apply to the object as it is now.
  private func applies(_ change: LifecycleChange, to object: ManagedObject) -> Bool {
    switch change {
    case .insert: object.lifecycle == .detached && !object.isDeletedFlag
    case .uninsert: object.lifecycle == .registered && object.isInsertedFlag
    case .delete: object.isLive
    case .undelete: object.isDeletedFlag
    }
  }

  /// Brings back an object that left memory, from the values its undo step kept: a new instance
  /// with the same identifier, detached until the replayed change registers it.
  private func restoreObject(
    _ id: ObjectID, _ change: LifecycleChange, from snapshot: ObjectSnapshot?
  ) -> ManagedObject? {
    guard let snapshot, id.storeIdentifier == registry.storeIdentifier,
      let entity = model.entity(named: id.entityName), !entity.isAbstract
    else { return nil }
    let object = makeObject(entity, id)
    for value in snapshot.values where value.slot < entity.properties.count {
      let property = entity.properties[value.slot]
      guard !property.isRelationship, let held = property.heldValue(of: value.value) else {
        continue
      }
      object.fill(held, at: value.slot)
    }
    // It left as a deleted object (its deletion was saved) or as an undone insert.
    object.isDeletedFlag = change == .undelete
    registry.detach(object)
    return object
  }
}
