/// The one mutation path. Every non-primitive change — typed setters, key-value coding, proxies,
/// inverse upkeep, delete rules, undo and redo — ends in `perform(_:)` or its single-attribute fast
/// path `setAttribute(_:_:_:)`: will-change notifications, storage, change tracking, undo recording,
/// did-change notifications, in that order.
extension ObjectContext {
  // MARK: Applying edits

  /// Applies the edits of one user-level change.
  func perform(_ edits: [Edit]) {
    guard !edits.isEmpty else { return }
    let delivery = willApply(edits)
    recordUndo(of: edits)
    for edit in edits { apply(edit) }
    didApply(edits, delivery)
    checkInvariants()
  }

  /// Stores one edit and tracks it (`perform` recorded the undo of all its edits before).
  private func apply(_ edit: Edit) {
    let object = edit.object
    let property = edit.property
    if edit.changes {
      track(object, property, original: object.committedStorage(property))
      notePending(object, property.slot)
    }
    store(edit)
  }

  /// Records an edit whose storage change was already made (a manual will/did bracket around
  /// primitive sets): tracked with the bracket's old value, recorded for undo, and announced.
  func performApplied(_ edit: Edit, _ delivery: Delivery?, original: Any?, asSetting: Bool) {
    if edit.changes {
      recordUndo(ofBracketed: edit)
      track(edit.object, edit.property, original: original)
      notePending(edit.object, edit.property.slot)
    }
    if asSetting {
      didApplyBracket(edit, delivery)
    } else {
      didApply([edit], delivery)
    }
    checkInvariants()
  }

  /// Changes storage only.
  func store(_ edit: Edit) {
    let object = edit.object
    let property = edit.property
    switch edit {
    case .set(_, _, _, let new, _):
      object.storage[property.slot] = new
    case .insert(_, _, let objects, let indexes):
      let collection = object.makeCollection(property)
      if indexes.isEmpty {
        for member in objects { collection.insert(member) }
      } else {
        for (member, index) in zip(objects, indexes) { collection.insert(member, at: index) }
      }
    case .remove(_, _, let objects, _):
      guard let collection = object.collection(property) else { return }
      for member in objects where collection.contains(member) { collection.remove(member) }
    case .replace(_, _, _, let new):
      let collection = object.makeCollection(property)
      collection.removeAll()
      for member in new { collection.insert(member) }
    }
  }

  /// Marks `property` of `object` changed, remembering its committed value the first time.
  func track(_ object: ManagedObject, _ property: Property, original: @autoclosure () -> Any?) {
    let slot = property.slot
    guard !object.changes.contains(slot) else { return }
    if object.changes.isEmpty { noteDirty(object) }
    if !object.isInsertedFlag {
      object.changes.originals[slot] = original()
    }
    object.changes.insert(slot)
  }

  // MARK: Attributes

  /// Sets a validated attribute value in storage form: the hot path of every attribute set.
  func setAttribute(_ object: ManagedObject, _ property: Property, _ new: Any?) {
    let old = object.storage[property.slot]
    setAttribute(object, property, old: old, new: new, changes: property.differs(old, new))
  }

  /// Sets an attribute whose old value and change were already worked out.
  ///
  /// One attribute set is one edit of one slot, so it runs the phases of `perform` inline, without
  /// the edit list and delivery arrays (benchmark rows "typed attribute set", "same with 1 observer
  /// getting old+new", "same with undo recording on", "KVC set" and "undo, redo of 1M attribute
  /// steps"): Swift Observation will-set and prior calls, undo recording, tracking, the store,
  /// did-set and the observers' calls. Change recorders and sets on objects being deleted take
  /// the general path.
  func setAttribute(
    _ object: ManagedObject, _ property: Property, old: Any?, new: Any?, changes: Bool
  ) {
    let log = undo.log
    guard taps.isEmpty, log == nil || (!object.isDeletedFlag && undo.passedVictims == nil) else {
      perform([.set(object, property, old: old, new: new, changes: changes)])
      return
    }
    let slot = property.slot
    let observation = object.swiftObservation
    let observers = object.observers?.bySlot[slot]
    let notify = observers != nil && object.entity.notifiesAutomatically[slot]
    if let observation {
      observation.registrar.willSet(object, keyPath: ManagedObject.observationKeyPath(slot))
    }
    if notify, let observers { announceSetting(to: observers, old: old, new: nil, isPrior: true) }
    if changes {
      if let log, log.isRegistrationEnabled {
        recordUndo(ofOne: .set(object, property, old: old, new: new, changes: changes), in: log)
      }
      track(object, property, original: old)
      notePending(object, slot)
    }
    object.storage[slot] = new
    if let observation {
      observation.registrar.didSet(object, keyPath: ManagedObject.observationKeyPath(slot))
    }
    if notify, let observers { announceSetting(to: observers, old: old, new: new, isPrior: false) }
    checkInvariants()
  }

  // MARK: Relationships

  /// Sets a to-one relationship, keeping inverses.
  func setToOne(_ owner: ManagedObject, _ property: Property, _ new: ManagedObject?) {
    let old = owner.toOne(property)
    var plan = EditPlan()
    plan.append(.set(owner, property, old: old, new: new, changes: old !== new))
    if old !== new, let inverse = property.inverse {
      if let old { planUnlink(&plan, old, inverse, from: owner) }
      if let new { planLink(&plan, new, inverse, to: owner, via: property) }
    }
    plan.finish()
    perform(plan.edits)
  }

  /// Adds objects to a to-many relationship (at `index` when ordered; at the end otherwise),
  /// keeping inverses. Objects already in an ordered relationship are moved to the new place.
  func insertObjects(
    _ objects: [ManagedObject], into owner: ManagedObject, _ property: Property, at index: Int?
  ) {
    let current = owner.members(property)
    if property.isOrdered, let index,
      objects.contains(where: { owner.collection(property)?.contains($0) == true })
    {
      // Moving members: the result is a reordering plus additions; a setting of the whole list.
      var list = current.filter { member in !objects.contains { $0 === member } }
      let position = min(index, list.count)
      list.insert(contentsOf: uniqued(objects), at: position)
      replaceObjects(owner, property, with: list)
      return
    }
    let collection = owner.collection(property)
    let added = uniqued(objects).filter { collection?.contains($0) != true }
    guard !added.isEmpty else { return }
    var plan = EditPlan()
    let start = property.isOrdered ? min(index ?? current.count, current.count) : 0
    let indexes = property.isOrdered ? Array(start..<start + added.count) : []
    plan.append(.insert(owner, property, objects: added, indexes: indexes))
    if let inverse = property.inverse {
      for member in added { planLink(&plan, member, inverse, to: owner, via: property) }
    }
    plan.finish()
    perform(plan.edits)
  }

  /// Removes objects from a to-many relationship, keeping inverses. Non-members are ignored.
  func removeObjects(_ objects: [ManagedObject], from owner: ManagedObject, _ property: Property) {
    guard let collection = owner.collection(property) else { return }
    let removed = uniqued(objects).filter { collection.contains($0) }
    guard !removed.isEmpty else { return }
    var plan = EditPlan()
    for member in removed { plan.remove(member, from: owner, property) }
    if let inverse = property.inverse {
      for member in removed { planUnlink(&plan, member, inverse, from: owner) }
    }
    plan.finish()
    perform(plan.edits)
  }

  /// Replaces the whole content of a to-many relationship, keeping inverses.
  func replaceObjects(_ owner: ManagedObject, _ property: Property, with objects: [ManagedObject]) {
    let old = owner.members(property)
    let new = uniqued(objects)
    var plan = EditPlan()
    plan.append(.replace(owner, property, old: old, new: new))
    if let inverse = property.inverse {
      let newIDs = Set(new.map(ObjectIdentifier.init))
      let oldIDs = Set(old.map(ObjectIdentifier.init))
      for member in old where !newIDs.contains(ObjectIdentifier(member)) {
        planUnlink(&plan, member, inverse, from: owner)
      }
      for member in new where !oldIDs.contains(ObjectIdentifier(member)) {
        planLink(&plan, member, inverse, to: owner, via: property)
      }
    }
    plan.finish()
    perform(plan.edits)
  }

  /// Plans making `target`'s `inverse` point at (or contain) `owner`, taking `target` away from the
  /// owner it had before ("stealing").
  private func planLink(
    _ plan: inout EditPlan, _ target: ManagedObject, _ inverse: Property,
    to owner: ManagedObject, via property: Property
  ) {
    guard target.isLive, !(target === owner && inverse === property) else { return }
    if inverse.isToMany {
      let count = target.collection(inverse)?.count ?? 0
      guard target.collection(inverse)?.contains(owner) != true else { return }
      plan.append(
        .insert(target, inverse, objects: [owner], indexes: inverse.isOrdered ? [count] : []))
      return
    }
    let previous = target.toOne(inverse)
    guard previous !== owner else { return }
    if let previous, previous.isLive {
      if property.isToMany {
        plan.remove(target, from: previous, property)
      } else {
        plan.append(.set(previous, property, old: target, new: nil, changes: true))
      }
    }
    plan.append(.set(target, inverse, old: previous, new: owner, changes: true))
  }

  /// Plans removing `owner` from `target`'s `inverse`.
  private func planUnlink(
    _ plan: inout EditPlan, _ target: ManagedObject, _ inverse: Property, from owner: ManagedObject
  ) {
    guard target.isLive else { return }
    if inverse.isToMany {
      if target.collection(inverse)?.contains(owner) == true {
        plan.remove(owner, from: target, inverse)
      }
    } else if target.toOne(inverse) === owner {
      plan.append(.set(target, inverse, old: owner, new: nil, changes: true))
    }
  }

  private func uniqued(_ objects: [ManagedObject]) -> [ManagedObject] {
    var seen = Set<ObjectIdentifier>()
    return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
  }
}
