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
  /// ``undoHistory()`` and restored into a new log given to a context of the same store and
  /// model with ``restoreUndoHistory(_:)``.
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
      if newValue !== recorder.log { untracked.removeAll() }
      recorder.attach(newValue, to: self)
      originTrackingChanged()
      audienceWidened()  // sets are recorded now: no set is quiet by an older answer
    }
  }

  /// A transaction's own log replaces `log` (the context's, or nil) for the length of its body
  /// and commit: it records every origin.
  func attachPrivateLog(_ privateLog: UndoLog, over log: UndoLog?) {
    logBeneathPrivate = .some(log)
    recorder.attach(privateLog, to: self)
    originTrackingChanged()
    audienceWidened()
  }

  /// The transaction's own log goes, and `log` is back.
  func detachPrivateLog(restoring log: UndoLog?) {
    logBeneathPrivate = nil
    recorder.attach(log, to: self)
    originTrackingChanged()
    audienceWidened()
  }

  /// The label of an archived history under which ``undoHistory()`` writes the model's
  /// ``ObjectModel/versionHash``.
  public static let undoHistoryModelLabel = "ObservedGraph.versionHash"

  /// The history of the context's undo log, labelled with the model it was recorded with: its
  /// ``ObjectModel/versionHash`` under ``undoHistoryModelLabel`` (and its version, when it has
  /// one), for ``restoreUndoHistory(_:)`` to check. The steps name properties by their place in
  /// the model, which a migration can change.
  ///
  /// ```swift
  /// context.processPendingChanges()
  /// let json = try JSONEncoder().encode(try context.undoHistory())
  /// ```
  /// - Returns: The log's history with its labels.
  /// - Throws: ``ObjectGraphError/Kind/invalidObject`` when the context has no undo log; what
  ///   `UndoLog.history()` throws.
  public func undoHistory() throws -> UndoLog.History {
    guard let log = undoLog else {
      throw ObjectGraphError(
        .invalidObject, entity: "", reason: "the context has no undo log to take a history of")
    }
    var history = try log.history()
    history.labels[Self.undoHistoryModelLabel] = model.versionHash
    if let version = model.version {
      history.labels["ObservedGraph.modelVersion"] = version.description
    }
    return history
  }

  /// Restores an archived history into the context's undo log, after checking that it was
  /// recorded with the context's model.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
  /// context.undoLog = UndoLog()
  /// try context.restoreUndoHistory(try decoder.decode(UndoLog.History.self, from: json))
  /// ```
  /// - Parameter history: A history ``undoHistory()`` made.
  /// - Throws: ``ObjectGraphError/Kind/otherModelVersion`` for a history recorded with another
  ///   model (a file migrated since, or an app of another version), or one without the label
  ///   (taken with `UndoLog.history()`); ``ObjectGraphError/Kind/invalidObject`` when the context
  ///   has no undo log; what `UndoLog.restore(_:)` throws. The log is then unchanged.
  public func restoreUndoHistory(_ history: UndoLog.History) throws {
    guard let log = undoLog else {
      throw ObjectGraphError(
        .invalidObject, entity: "", reason: "the context has no undo log to restore a history into")
    }
    let recorded = history.labels[Self.undoHistoryModelLabel]
    guard recorded == model.versionHash else {
      let version = history.labels["ObservedGraph.modelVersion"].map { " (version \($0))" } ?? ""
      throw ObjectGraphError(
        .otherModelVersion, entity: "", value: recorded ?? "none",
        reason: recorded == nil
          ? "the undo history has no model label: take it with undoHistory() to restore it here"
          : "the undo history was recorded with another model\(version) than the context's "
            + "(version hash \(model.versionHash.prefix(12))…): its steps would change the wrong "
            + "properties")
    }
    try log.restore(history)
  }

  /// The object an entry of an ``AttributeColumn`` names, when the entry can be replayed
  /// quietly: the object is registered and in memory, the change's audience is at most the
  /// registrar and the undo recorder (which the column's replay serves), and the slot is still
  /// tracked as changed (it was when the set was made, unless a save came since).
  @usableFromInline
  func quietReplayTarget(key: Int64, entity: EntityDescription, slot: Int) -> ManagedObject? {
    guard let object = registry.registeredObject(key: key), object.entity === entity,
      !object.isFaultFlag, audience(of: object).isSubset(of: [.registrar, .undoRecorder]),
      object.changes.contains(slot)
    else { return nil }
    return object
  }

  /// Applies the undo or redo of a set recorded in an undo column, whose object is a
  /// ``quietReplayTarget(key:entity:slot:)``: an edit planned by the column itself, with the store
  /// made by `store` (the column's typed code) and the slot's change queued as pending news. The
  /// slot stays tracked as changed, with the committed value it has; the object is noted as
  /// restored. The caller records the inverse.
  @usableFromInline
  func applyColumnEntry(_ object: ManagedObject, _ slot: Int, store: () -> Void) {
    apply(object, slot: slot, tracking: .pending, isReplay: true, store: store)
    #if OBSERVEDGRAPH_INVARIANTS
      let edit = Edit.set(object, object.entity.properties[slot], old: nil, new: nil)
      checkAfterMutation(SingleEdit(PlannedEdit(edit)))
    #endif
  }

  // MARK: Planning a replay

  /// The edits that take back recorded changes (given in the order they were recorded), against
  /// the graph as it is when the step is applied — after whatever observers of the steps applied
  /// before it did: objects are looked up by identifier (and brought back from their snapshot if
  /// they left memory), members that are gone or already in place are left out, and old values
  /// are read from storage — coalescing keeps the oldest step of a run, whose recorded value is
  /// the run's first, so the current value is the one to take back.
  ///
  /// The recorded values win: a slot gets the value or the members the step recorded, whatever
  /// was done to it since. What cannot be put back is left out: no relationship of an object
  /// that is deleted or out of the context at that point of the step is changed, and no object
  /// in that state joins one (unless a no-action rule lets the relationship keep it, as it may
  /// keep it after a delete). Indexes of an ordered insertion are kept within the relationship
  /// as it is. Then ``keepInverses(_:)`` makes the other side of every link the plan makes or
  /// breaks agree, as the planning of an ordinary change does: the step records both sides of
  /// its change, but an observer of an earlier step may have moved, related or deleted objects
  /// since, so a partner it did not know of may still hold an object the step takes away.
  func planReplay(_ changes: [RecordedChange]) -> EditList {
    var plan = EditPlan()
    // What an untracked origin changed since is left alone, and reported once the replay applied
    // (``onUndoSkip(_:)``); a plan made again starts its report again.
    plannedSkips.removeAll()
    let skipping = !untracked.isEmpty && !overwritesUntracked && !takesBackTransaction
    // Objects the replay takes out of the graph: their relationships go with them, whoever made
    // them (reported by `reportRemoved`).
    var leaving = Set<ObjectID>()
    if skipping {
      for case .lifecycle(let id, let lifecycle, _) in changes
      where lifecycle.removesObject && untracked.origin(id, -1) == nil {
        leaving.insert(id)
      }
    }
    /// Whether the change of `id`'s `property` is left alone: its entry, or for a link between
    /// the object and a partner (`partners`: for a to-one, the partner it has and the one it
    /// would get), the entry of the link on either side (the other side's inverse upkeep would
    /// otherwise undo the skip).
    func skipped(
      _ id: ObjectID, _ property: Property, partners: [ManagedObject?] = [],
      _ value: UndoSkip.Value
    ) -> Bool {
      guard skipping, !leaving.contains(id),
        !partners.contains(where: { $0.map { leaving.contains($0.objectID) } ?? false })
      else { return false }
      var origin =
        property.isToMany
        ? partners.lazy.compactMap { $0 }.compactMap {
          self.untracked.origin(id, property.slot, member: $0.objectID)
        }.first
        : untracked.origin(id, property.slot)
      if origin == nil, let inverse = property.inverse {
        origin =
          partners.lazy.compactMap { $0 }.compactMap {
            self.untracked.origin(
              $0.objectID, inverse.slot, member: inverse.isToMany ? id : nil)
          }.first
        // A member that joins takes its to-one side from the owner it has: that link changes
        // too (a no-action delete may have left only the member's side of it).
        if origin == nil, property.isToMany, !inverse.isToMany {
          origin =
            partners.lazy.compactMap { $0 }.compactMap { member -> ChangeOrigin? in
              guard let holder = member.toOne(inverse), holder.objectID != id else { return nil }
              return self.untracked.origin(holder.objectID, property.slot, member: member.objectID)
            }.first
        }
      }
      guard let origin else { return false }
      plannedSkips.append(UndoSkip(object: id, key: property.name, value: value, origin: origin))
      return true
    }
    /// The value each slot will hold after the edits planned so far.
    var planned = SlotTable<Any?>()
    var plannedMembers = SlotTable<[ManagedObject]>()
    /// The members each to-many slot will hold after the edits planned so far.
    var membership = SlotTable<Set<ObjectIdentifier>>()
    /// Whether the objects whose lifecycle the plan changes are live after the edits planned so
    /// far (slot -1); any other object is as it is.
    var alive = SlotTable<Bool>()
    func isLive(_ object: ManagedObject) -> Bool {
      alive[SlotKey(object, -1)] ?? object.isLive
    }
    /// Whether `member` may be held by the relationship: live, or kept there by a no-action rule
    /// on its side, as after a delete.
    func mayJoin(_ member: ManagedObject, _ property: Property) -> Bool {
      isLive(member) || (member.link === link && keepsDeadMembers(property))
    }
    for change in changes.reversed() {
      switch change {
      case .attribute(let id, let slot, let value, let before):
        guard let object = resolve(id), let property = property(of: object, slot),
          !property.isRelationship, let new = property.heldValue(of: value)
        else { continue }
        let key = SlotKey(object, slot)
        let current = planned[key] ?? object.read(slot, tracking: false)
        guard property.differs(current, new), !skipped(id, property, .attribute(value)) else {
          continue
        }
        // A step of one change (every attribute set) needs no table of planned values: one
        // allocation and two hashes fewer per replayed step.
        if changes.count > 1 { planned[key] = new }
        plan.append(replaying(.set(object, property, old: current, new: new), before))
      case .toOne(let id, let slot, let value, let before):
        guard let object = resolve(id), let property = property(of: object, slot),
          property.isToOne, isLive(object)
        else { continue }
        let new = value.flatMap(resolve)
        if value != nil && new == nil { continue }
        if let new, !mayJoin(new, property) { continue }
        let key = SlotKey(object, slot)
        let current: Any? = planned[key] ?? object.toOne(property)
        guard !identical(current, new),
          !skipped(id, property, partners: [current as? ManagedObject, new], .toOne(value))
        else { continue }
        planned[key] = new
        plan.append(replaying(.set(object, property, old: current, new: new), before))
      case .insert(let id, let slot, let members, let indexes, let before):
        guard let owner = resolve(id), let property = property(of: owner, slot), property.isToMany,
          isLive(owner)
        else { continue }
        let key = SlotKey(owner, slot)
        var current = membership[key] ?? Set(owner.members(property).map(ObjectIdentifier.init))
        let count = current.count
        var kept: [ManagedObject] = []
        var keptIndexes: [Int] = []
        for (offset, memberID) in members.enumerated() {
          guard let member = resolve(memberID), mayJoin(member, property),
            !current.contains(ObjectIdentifier(member)),
            !skipped(id, property, partners: [member], .member(memberID, joins: true))
          else { continue }
          current.insert(ObjectIdentifier(member))
          // Positions after the insertion, ascending, within the relationship as it is now (an
          // observer may have taken members out since the step was recorded).
          if offset < indexes.count { keptIndexes.append(min(indexes[offset], count + kept.count)) }
          kept.append(member)
        }
        membership[key] = current
        guard !kept.isEmpty else { continue }
        plan.append(
          replaying(.insert(owner, property, objects: kept, indexes: keptIndexes), before))
      case .remove(let id, let slot, let members, _, let before):
        guard let owner = resolve(id), let property = property(of: owner, slot), property.isToMany,
          isLive(owner)
        else { continue }
        let key = SlotKey(owner, slot)
        var current = membership[key] ?? Set(owner.members(property).map(ObjectIdentifier.init))
        let present = members.compactMap(resolve).filter {
          current.contains(ObjectIdentifier($0))
            && !skipped(id, property, partners: [$0], .member($0.objectID, joins: false))
            && current.remove(ObjectIdentifier($0)) != nil
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
        guard let owner = resolve(id), let property = property(of: owner, slot), property.isToMany,
          isLive(owner)
        else { continue }
        let key = SlotKey(owner, slot)
        let old = plannedMembers[key] ?? owner.members(property)
        var new = uniqued(members.compactMap(resolve).filter { mayJoin($0, property) })
        if skipping {
          // Members an untracked origin added or took out since stay as they are.
          let before = Set(old.map(ObjectIdentifier.init))
          let after = Set(new.map(ObjectIdentifier.init))
          new.removeAll {
            !before.contains(ObjectIdentifier($0))
              && skipped(id, property, partners: [$0], .member($0.objectID, joins: true))
          }
          new += old.filter {
            !after.contains(ObjectIdentifier($0))
              && skipped(id, property, partners: [$0], .member($0.objectID, joins: false))
          }
        }
        guard !sameMembers(old, new) else { continue }
        plannedMembers[key] = new
        membership[key] = Set(new.map(ObjectIdentifier.init))
        plan.append(replaying(.replace(owner, property, old: old, new: new), before))
      case .lifecycle(let id, var lifecycle, let snapshot):
        // An object an untracked origin inserted or deleted since stays as it is.
        if skipping, let origin = untracked.origin(id, -1) {
          plannedSkips.append(
            UndoSkip(
              object: id, key: "@lifecycle",
              value: .lifecycle(inserted: !lifecycle.removesObject), origin: origin))
          continue
        }
        // A saved object that left memory comes back as a fault to be taken out again (an
        // insert undone, or a delete redone, after a save); one to be put back, from its values.
        var existing = registry.anyObject(for: id)
        if let fault = existing, !lifecycle.removesObject, isGone(fault) {
          // A fault made for an object whose deletion was saved (a no-action reference named it):
          // it becomes the object the step brings back, so that reference finds it again.
          existing = restore(fault, lifecycle, from: snapshot)
        }
        guard
          let object = existing
            ?? (lifecycle.removesObject
              ? fault(for: id) : restoreObject(id, lifecycle, from: snapshot)),
          owns(object)
        else { continue }
        if lifecycle == .uninsert && !object.isInsertedFlag {
          // Saved since it was inserted: taking the insertion back now deletes a saved object.
          lifecycle = .delete
        }
        guard applies(lifecycle, to: object) else { continue }
        if lifecycle.removesObject && skipping { reportRemoved(object) }
        if lifecycle.removesObject {
          // Relationships the recorded changes do not empty (made without being recorded) are
          // cut too: an object leaving the graph keeps no partner pointing at it.
          for property in object.entity.relationshipProperties
          where !plan.touches(object, property) {
            planDetach(&plan, object, property, keepingNoAction: false)
          }
        }
        alive[SlotKey(object, -1)] = !lifecycle.removesObject
        var edit = PlannedEdit(.lifecycle(object, lifecycle))
        edit.isReplay = true
        plan.append(edit)
      }
    }
    var edits = plan.finish()
    keepInverses(&edits)
    return edits
  }

  /// An object an undo or redo takes out of the graph: the relationships an untracked origin
  /// made it part of go with it, and are reported (``UndoSkip/Kind/removed``).
  private func reportRemoved(_ object: ManagedObject) {
    let id = object.objectID
    let entries = untracked.entries(of: id).sorted {
      ($0.key.slot, $0.key.member?.key ?? 0) < ($1.key.slot, $1.key.member?.key ?? 0)
    }
    for (entry, origin) in entries {
      let property = object.entity.properties[entry.slot]
      guard property.isRelationship else { continue }
      let value: UndoSkip.Value
      if let member = entry.member {
        guard object.members(property).contains(where: { $0.objectID == member }) else { continue }
        value = .member(member, joins: false)
      } else {
        guard let partner = object.toOne(property) else { continue }
        value = .toOne(partner.objectID)
      }
      plannedSkips.append(
        UndoSkip(object: id, key: property.name, value: value, origin: origin, kind: .removed))
    }
  }

  /// Whether a relationship may keep a member that is deleted or out of the context: only when
  /// the member's side has a no-action rule (or there is none), which leaves such references
  /// behind on purpose.
  private func keepsDeadMembers(_ property: Property) -> Bool {
    (property.inverse?.deleteRule ?? .noAction) == .noAction
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
    return restore(makeObject(entity, id), change, from: snapshot)
  }

  /// Whether an object is a fault for a row the store no longer has.
  private func isGone(_ object: ManagedObject) -> Bool {
    object.isFaultFlag && object.lifecycle == .registered && (try? object.fulfilFault()) == nil
  }

  /// Puts the values an undo step kept into an object, detached until the replayed change
  /// registers it again.
  private func restore(
    _ object: ManagedObject, _ change: LifecycleChange, from snapshot: ObjectSnapshot?
  ) -> ManagedObject? {
    guard let snapshot else { return nil }
    let entity = object.entity
    object.isFaultFlag = false
    for value in snapshot.values where value.slot < entity.properties.count {
      let property = entity.properties[value.slot]
      guard !property.isRelationship, let held = property.heldValue(of: value.value) else {
        continue
      }
      object.fill(held, at: value.slot)
    }
    // It left as a deleted object (its deletion was saved) or as an undone insert.
    tracker.noteLeft(object, deleted: change == .undelete)
    registry.detach(object)
    return object
  }
}

// MARK: Inverse upkeep of a replay

extension ObjectContext {
  /// Makes both sides of every link a replayed plan makes or breaks agree once it is applied:
  /// the inverse upkeep that ``planLink(_:_:_:to:via:)`` and ``planUnlink(_:_:_:from:via:)`` do
  /// for an ordinary change, worked out against what the plan leaves rather than what storage
  /// holds now (the plan changes both sides of the links it recorded, and may change a slot more
  /// than once).
  ///
  /// For each link the plan makes or breaks, and keeps so to its end, the other side is read as
  /// the plan leaves it. When it disagrees — an observer of an earlier step moved, related or
  /// deleted objects the step does not know of — it follows, as with a user's change: an object
  /// that joins a to-many whose inverse is to-one leaves the partner that holds it now (a
  /// steal), a to-one that goes back to an object clears that object's previous partner, and a
  /// partner that still holds an object the plan takes away lets it go. Nothing is done for an
  /// object that is deleted or out of the context when the plan ends, nor for a fault whose row
  /// is gone. The edits are appended to the plan (a set merges into the plan's set of the same
  /// slot); they are tracked as new changes, recorded with the step's opposite, and heard by
  /// observers like the rest. A plan whose links already agree — every replay of a history no
  /// observer changed — gets no edit.
  func keepInverses(_ edits: inout EditList) {
    let count = edits.count
    guard (0..<count).contains(where: { edits[$0].property?.inverse != nil }) else { return }
    var upkeep = InverseUpkeep()
    swap(&upkeep.edits, &edits)
    defer { swap(&upkeep.edits, &edits) }
    for position in 0..<count { upkeep.note(position) }
    for position in 0..<count where upkeep.edits[position].changes {
      guard let property = upkeep.edits[position].property, property.inverse != nil else {
        continue
      }
      let owner = upkeep.edits[position].object
      switch upkeep.edits[position].edit.change {
      case .set:
        let old = upkeep.edits[position].edit.old.map { heldReference($0, as: ManagedObject.self) }
        let new = upkeep.edits[position].edit.new.map { heldReference($0, as: ManagedObject.self) }
        if let old, old !== new { upkeep.keep(owner, property, old, linked: false, in: self) }
        if let new { upkeep.keep(owner, property, new, linked: true, in: self) }
      case .insert(let objects, _):
        for member in objects { upkeep.keep(owner, property, member, linked: true, in: self) }
      case .remove(let objects, _):
        for member in objects { upkeep.keep(owner, property, member, linked: false, in: self) }
      case .replace(let old, let new):
        let oldIDs = Set(old.map(ObjectIdentifier.init))
        let newIDs = Set(new.map(ObjectIdentifier.init))
        for member in old where !newIDs.contains(ObjectIdentifier(member)) {
          upkeep.keep(owner, property, member, linked: false, in: self)
        }
        for member in new where !oldIDs.contains(ObjectIdentifier(member)) {
          upkeep.keep(owner, property, member, linked: true, in: self)
        }
      case .lifecycle:
        break
      }
    }
    upkeep.finish(from: count)
  }
}

/// What ``ObjectContext/keepInverses(_:)`` works with: the plan, what it leaves in each
/// relationship slot it changes (to-ones with the position of their last set, to-manys as the
/// members joined and left, or the whole content once replaced), which objects it brings back or
/// takes out, and the upkeep edits appended so far.
private struct InverseUpkeep {
  var edits = EditList()
  private var toOne = SlotTable<(object: ManagedObject?, position: Int)>()
  private var toMany = SlotTable<Members>()
  /// Whether the objects whose lifecycle the plan changes are live at its end (slot -1).
  private var alive = SlotTable<Bool>()
  /// The upkeep insertions and removals, one edit per slot each: its position and objects.
  private var insertions = SlotTable<Int>()
  private var removals = SlotTable<Int>()
  private var lists: [(position: Int, objects: [ManagedObject])] = []

  /// A to-many slot's members at the end of the plan, against what storage holds now.
  struct Members {
    /// The whole content, once the plan replaced it.
    var whole: Set<ObjectIdentifier>?
    /// Members that are not in storage now and join; members that are, and leave.
    var joined = Set<ObjectIdentifier>()
    var left = Set<ObjectIdentifier>()

    mutating func insert(_ member: ManagedObject) {
      let id = ObjectIdentifier(member)
      if whole != nil {
        whole!.insert(id)
      } else if left.remove(id) == nil {
        joined.insert(id)
      }
    }

    mutating func remove(_ member: ManagedObject) {
      let id = ObjectIdentifier(member)
      if whole != nil {
        whole!.remove(id)
      } else if joined.remove(id) == nil {
        left.insert(id)
      }
    }
  }

  /// Notes what the edit at `position` leaves.
  mutating func note(_ position: Int) {
    let object = edits[position].object
    guard let property = edits[position].property else {
      if case .lifecycle(let change) = edits[position].edit.change {
        alive[SlotKey(object, -1)] = !change.removesObject
      }
      return
    }
    guard property.inverse != nil else { return }
    switch edits[position].edit.change {
    case .set:
      let new = edits[position].edit.new.map { heldReference($0, as: ManagedObject.self) }
      toOne[SlotKey(object, property.slot)] = (new, position)
    case .insert(let objects, _):
      changeMembers(object, property) { members in
        for member in objects { members.insert(member) }
      }
    case .remove(let objects, _):
      changeMembers(object, property) { members in
        for member in objects { members.remove(member) }
      }
    case .replace(_, let new):
      changeMembers(object, property) { members in
        members = Members(whole: Set(new.map(ObjectIdentifier.init)))
      }
    case .lifecycle:
      break
    }
  }

  /// Changes a to-many slot's entry in place: taken out of the table first, so that its sets are
  /// not copied.
  private mutating func changeMembers(
    _ object: ManagedObject, _ property: Property, _ body: (inout Members) -> Void
  ) {
    let key = SlotKey(object, property.slot)
    var members = toMany[key] ?? Members()
    toMany[key] = nil
    body(&members)
    toMany[key] = members
  }

  /// Whether the object is live when the plan ends.
  private func isLive(_ object: ManagedObject) -> Bool {
    alive[SlotKey(object, -1)] ?? object.isLive
  }

  /// Whether the other side of a link can be kept: live when the plan ends, and not a fault
  /// whose row is gone (see ``ObjectContext/isReachable(_:)``).
  private func isReachable(_ object: ManagedObject) -> Bool {
    isLive(object) && (!object.isFaultFlag || (try? object.fulfilFault()) != nil)
  }

  /// Whether `owner`'s relationship holds `member` when the plan ends.
  private func holds(_ owner: ManagedObject, _ property: Property, _ member: ManagedObject)
    -> Bool
  {
    let key = SlotKey(owner, property.slot)
    guard property.isToMany else {
      if let entry = toOne[key] { return entry.object === member }
      return owner.toOne(property) === member
    }
    if let members = toMany[key] {
      let id = ObjectIdentifier(member)
      if let whole = members.whole { return whole.contains(id) }
      if members.joined.contains(id) { return true }
      if members.left.contains(id) { return false }
    }
    return owner.collection(property)?.contains(member) == true
  }

  /// The object a to-one relationship points at when the plan ends.
  private func target(_ owner: ManagedObject, _ property: Property) -> ManagedObject? {
    if let entry = toOne[SlotKey(owner, property.slot)] { return entry.object }
    return owner.toOne(property)
  }

  /// Makes `member`'s side of the link from `owner`'s `property` agree with it: holding `owner`
  /// when `linked`, not holding it otherwise — when the plan leaves the link so. An owner that is
  /// deleted or out of the context when the plan ends makes no link, and one that leaves keeps
  /// the partners a no-action rule leaves pointing at it, as its delete does.
  mutating func keep(
    _ owner: ManagedObject, _ property: Property, _ member: ManagedObject, linked: Bool,
    in context: ObjectContext
  ) {
    guard let inverse = property.inverse, !(member === owner && inverse === property),
      holds(owner, property, member) == linked,
      isLive(owner) || !linked && property.deleteRule != .noAction,
      isReachable(member), holds(member, inverse, owner) != linked
    else { return }
    guard linked else {
      if inverse.isToMany {
        append(member, inverse, owner, inserting: false)
      } else {
        set(member, inverse, to: nil)
      }
      return
    }
    if inverse.isToMany {
      append(member, inverse, owner, inserting: true)
      return
    }
    // The member leaves the partner its to-one points at now (a steal).
    if let previous = target(member, inverse), previous !== owner, isReachable(previous),
      holds(previous, property, member)
    {
      if property.isToMany {
        append(previous, property, member, inserting: false)
      } else {
        set(previous, property, to: nil)
      }
    }
    set(member, inverse, to: owner)
  }

  /// Sets a to-one slot: the plan's set of the slot takes the new value, or an upkeep set is
  /// appended.
  private mutating func set(
    _ object: ManagedObject, _ property: Property, to new: ManagedObject?
  ) {
    let key = SlotKey(object, property.slot)
    if let entry = toOne[key] {
      let old = edits[entry.position].edit.old.map { heldReference($0, as: ManagedObject.self) }
      edits[entry.position].edit.new = new
      edits[entry.position].changes = old !== new
      toOne[key] = (new, entry.position)
      return
    }
    toOne[key] = (new, edits.count)
    appendUpkeep(.set(object, property, old: object.toOne(property), new: new))
  }

  /// Adds `member` to the upkeep insertion (or removal) of a to-many slot, made on first use.
  private mutating func append(
    _ object: ManagedObject, _ property: Property, _ member: ManagedObject, inserting: Bool
  ) {
    let key = SlotKey(object, property.slot)
    if let list = inserting ? insertions[key] : removals[key] {
      lists[list].objects.append(member)
    } else {
      if inserting { insertions[key] = lists.count } else { removals[key] = lists.count }
      lists.append((edits.count, [member]))
      let change: Edit.Change =
        inserting ? .insert(objects: [], indexes: []) : .remove(objects: [], indexes: [])
      appendUpkeep(Edit(object: object, property: property, change: change))
    }
    changeMembers(object, property) { members in
      if inserting { members.insert(member) } else { members.remove(member) }
    }
  }

  private mutating func appendUpkeep(_ edit: Edit) {
    var planned = PlannedEdit(edit)
    planned.isReplay = true  // its object is restored by the undo or redo; nothing to restore
    edits.append(planned)
  }

  /// Puts the objects of the upkeep insertions and removals in their edits, with the indexes of
  /// ordered ones: an insertion at the end, a removal from where the members are when it
  /// applies.
  mutating func finish(from start: Int) {
    for list in lists {
      let owner = edits[list.position].object
      guard let property = edits[list.position].property else { continue }
      let objects = list.objects
      var indexes: [Int] = []
      if case .insert = edits[list.position].edit.change {
        if property.isOrdered {
          let count = members(before: list.position, owner, property).count
          indexes = Array(count..<count + objects.count)
        }
        edits[list.position].edit.change = .insert(objects: objects, indexes: indexes)
        continue
      }
      guard property.isOrdered else {
        edits[list.position].edit.change = .remove(objects: objects, indexes: [])
        continue
      }
      let order = members(before: list.position, owner, property)
      let positioned = objects.map { member in
        (order.firstIndex { $0 === member } ?? 0, member)
      }.sorted { $0.0 < $1.0 }
      edits[list.position].edit.change = .remove(
        objects: positioned.map(\.1), indexes: positioned.map(\.0))
    }
  }

  /// The members of an ordered to-many just before the edit at `position` applies: storage now,
  /// then the plan's edits of the slot before it, as `apply` stores them.
  private func members(before position: Int, _ owner: ManagedObject, _ property: Property)
    -> [ManagedObject]
  {
    var members = owner.members(property)
    for index in 0..<position
    where edits[index].object === owner && edits[index].property?.slot == property.slot {
      switch edits[index].edit.change {
      case .insert(let objects, let indexes):
        if indexes.isEmpty {
          members += objects
        } else {
          for (member, index) in zip(objects, indexes) {
            if index < members.count {
              members.insert(member, at: index)
            } else {
              members.append(member)
            }
          }
        }
      case .remove(let objects, _):
        let leaving = Set(objects.map(ObjectIdentifier.init))
        members.removeAll { leaving.contains(ObjectIdentifier($0)) }
      case .replace(_, let new):
        members = new
      case .set, .lifecycle:
        break
      }
    }
    return members
  }
}
