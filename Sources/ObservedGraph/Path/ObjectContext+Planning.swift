/// Planning: from a request and the graph as it is, the edits of one change — the change itself,
/// the inverse upkeep on the other side, objects taken from their previous owner, delete rules.
/// Nothing changes while planning.
extension ObjectContext {
  /// The edits of a request. With `replanning`, a prior observer changed the graph since the
  /// request was made: everything is read again, and a change whose objects were deleted
  /// meanwhile is dropped.
  func makePlan(_ request: Request, replanning: Bool) -> EditList {
    switch request {
    case .attribute(let object, let property, let old, let new, let changes):
      guard replanning else {
        return EditList(PlannedEdit(.set(object, property, old: old, new: new), changes: changes))
      }
      guard object.isLive else { return EditList() }
      let current = object.read(property.slot, tracking: false)
      return EditList(
        PlannedEdit(
          .set(object, property, old: current, new: new),
          changes: property.differs(current, new)))
    case .toOne(let owner, let property, let new):
      return planToOne(owner, property, new)
    case .insertMembers(let owner, let property, let objects, let index):
      return planInsert(objects, into: owner, property, at: index)
    case .removeMembers(let owner, let property, let objects):
      return planRemove(objects, from: owner, property)
    case .replaceMembers(let owner, let property, let objects):
      return planReplace(owner, property, with: objects)
    case .assignMembers(let owner, let property, let objects):
      return planAssign(owner, property, objects)
    case .insertObject(let object):
      guard object.lifecycle == .detached, owns(object) else { return EditList() }
      return EditList(PlannedEdit(.lifecycle(object, .insert)))
    case .deleteObject(let victim):
      return planDelete(victim)
    case .replay(let changes):
      return planReplay(changes)
    }
  }

  // MARK: Relationships

  private func planToOne(_ owner: ManagedObject, _ property: Property, _ new: ManagedObject?)
    -> EditList
  {
    guard owner.isLive, new?.isLive ?? true else { return EditList() }
    let old = owner.toOne(property)
    var plan = EditPlan()
    plan.append(.set(owner, property, old: old, new: new), changes: old !== new)
    if old !== new, let inverse = property.inverse {
      if let old { planUnlink(&plan, old, inverse, from: owner, via: property) }
      if let new { planLink(&plan, new, inverse, to: owner, via: property) }
    }
    return plan.finish()
  }

  private func planInsert(
    _ objects: [ManagedObject], into owner: ManagedObject, _ property: Property, at index: Int?
  ) -> EditList {
    guard owner.isLive else { return EditList() }
    let collection = owner.collection(property)
    let objects = uniqued(objects).filter { $0.isLive || collection?.contains($0) == true }
    if property.isOrdered, let index, objects.contains(where: { collection?.contains($0) == true })
    {
      return planMove(objects, in: owner, property, to: index)
    }
    let added = objects.filter { collection?.contains($0) != true }
    guard !added.isEmpty else { return EditList() }
    let count = collection?.count ?? 0
    let start = property.isOrdered ? min(index ?? count, count) : 0
    let indexes = property.isOrdered ? Array(start..<start + added.count) : []
    var plan = EditPlan()
    plan.append(.insert(owner, property, objects: added, indexes: indexes))
    if let inverse = property.inverse {
      for member in added { planLink(&plan, member, inverse, to: owner, via: property) }
    }
    return plan.finish()
  }

  /// Objects placed at `index` of an ordered relationship, some of them members already (they
  /// move): the members that move leave from their old indexes (one removal), then all the objects
  /// arrive at their new indexes (one insertion). `index` is the position in the relationship
  /// without the moving members. Placing objects where they already are is a setting whose old
  /// and new values are equal.
  private func planMove(
    _ objects: [ManagedObject], in owner: ManagedObject, _ property: Property, to index: Int
  ) -> EditList {
    let old = owner.members(property)
    let moving = Set(objects.map(ObjectIdentifier.init))
    var new = old.filter { !moving.contains(ObjectIdentifier($0)) }
    let position = min(index, new.count)
    new.insert(contentsOf: objects, at: position)
    var plan = EditPlan()
    guard !sameMembers(old, new) else {
      plan.append(.replace(owner, property, old: old, new: old), changes: false)
      return plan.finish()
    }
    let leaving = old.enumerated().filter { moving.contains(ObjectIdentifier($0.element)) }
    if !leaving.isEmpty {
      plan.appendRemoval(
        .remove(
          owner, property, objects: leaving.map(\.element), indexes: leaving.map(\.offset)))
    }
    plan.append(
      .insert(
        owner, property, objects: objects, indexes: Array(position..<position + objects.count)))
    if let inverse = property.inverse {
      let members = Set(old.map(ObjectIdentifier.init))
      for object in objects where !members.contains(ObjectIdentifier(object)) {
        planLink(&plan, object, inverse, to: owner, via: property)
      }
    }
    return plan.finish()
  }

  private func planRemove(
    _ objects: [ManagedObject], from owner: ManagedObject, _ property: Property
  ) -> EditList {
    guard owner.isLive, let collection = owner.collection(property) else { return EditList() }
    let removed = uniqued(objects).filter { collection.contains($0) }
    guard !removed.isEmpty else { return EditList() }
    var plan = EditPlan()
    for member in removed { plan.remove(member, from: owner, property) }
    if let inverse = property.inverse {
      for member in removed { planUnlink(&plan, member, inverse, from: owner, via: property) }
    }
    return plan.finish()
  }

  /// A whole-value set (key-value coding): one setting of the old and new content.
  private func planReplace(
    _ owner: ManagedObject, _ property: Property, with objects: [ManagedObject]
  ) -> EditList {
    guard owner.isLive else { return EditList() }
    let old = owner.members(property)
    var new = kept(objects, joining: old)
    // An unordered relationship set to the members it has is no change, whatever the order.
    if !property.isOrdered,
      Set(new.map(ObjectIdentifier.init)) == Set(old.map(ObjectIdentifier.init))
    {
      new = old
    }
    var plan = EditPlan()
    plan.append(
      .replace(owner, property, old: old, new: new),
      changes: !sameMembers(old, new))
    planInverses(&plan, owner, property, old: old, new: new)
    return plan.finish()
  }

  /// A typed assignment or a move: announced as its difference — the objects that left (or moved),
  /// with their old indexes, then the objects that joined (or moved), with their new indexes. An
  /// assignment that changes nothing is a setting whose old and new values are equal.
  private func planAssign(
    _ owner: ManagedObject, _ property: Property, _ objects: [ManagedObject]
  ) -> EditList {
    guard owner.isLive else { return EditList() }
    let old = owner.members(property)
    let new = kept(objects, joining: old)
    var removed: [(Int, ManagedObject)] = []
    var inserted: [(Int, ManagedObject)] = []
    if property.isOrdered {
      for change in new.difference(from: old) {
        switch change {
        case .remove(let offset, let element, _): removed.append((offset, element))
        case .insert(let offset, let element, _): inserted.append((offset, element))
        }
      }
      removed.sort { $0.0 < $1.0 }
      inserted.sort { $0.0 < $1.0 }
    } else {
      let newIDs = Set(new.map(ObjectIdentifier.init))
      let oldIDs = Set(old.map(ObjectIdentifier.init))
      removed = old.filter { !newIDs.contains(ObjectIdentifier($0)) }.map { (0, $0) }
      inserted = new.filter { !oldIDs.contains(ObjectIdentifier($0)) }.map { (0, $0) }
    }
    var plan = EditPlan()
    guard !removed.isEmpty || !inserted.isEmpty else {
      plan.append(.replace(owner, property, old: old, new: old), changes: false)
      return plan.finish()
    }
    let ordered = property.isOrdered
    if !removed.isEmpty {
      plan.appendRemoval(
        .remove(
          owner, property, objects: removed.map(\.1), indexes: ordered ? removed.map(\.0) : []))
    }
    if !inserted.isEmpty {
      plan.append(
        .insert(
          owner, property, objects: inserted.map(\.1), indexes: ordered ? inserted.map(\.0) : []))
    }
    planInverses(&plan, owner, property, old: old, new: new)
    return plan.finish()
  }

  /// Plans the other side for objects leaving and joining a to-many relationship.
  private func planInverses(
    _ plan: inout EditPlan, _ owner: ManagedObject, _ property: Property, old: [ManagedObject],
    new: [ManagedObject]
  ) {
    guard let inverse = property.inverse else { return }
    let newIDs = Set(new.map(ObjectIdentifier.init))
    let oldIDs = Set(old.map(ObjectIdentifier.init))
    for member in old where !newIDs.contains(ObjectIdentifier(member)) {
      planUnlink(&plan, member, inverse, from: owner, via: property)
    }
    for member in new where !oldIDs.contains(ObjectIdentifier(member)) {
      planLink(&plan, member, inverse, to: owner, via: property)
    }
  }

  /// Plans making `target`'s `inverse` point at (or contain) `owner`, taking `target` away from the
  /// owner it had before ("stealing"). A relationship that is its own inverse, linking an object
  /// to itself, needs nothing on the other side: the change itself sets it.
  func planLink(
    _ plan: inout EditPlan, _ target: ManagedObject, _ inverse: Property,
    to owner: ManagedObject, via property: Property
  ) {
    guard isReachable(target), !(target === owner && inverse === property) else { return }
    if inverse.isToMany {
      let collection = target.collection(inverse)
      guard collection?.contains(owner) != true else { return }
      let count = collection?.count ?? 0
      plan.append(
        .insert(target, inverse, objects: [owner], indexes: inverse.isOrdered ? [count] : []))
      return
    }
    let previous = target.toOne(inverse)
    guard previous !== owner else { return }
    if let previous, isReachable(previous) {
      if property.isToMany {
        plan.remove(target, from: previous, property)
      } else {
        plan.append(.set(previous, property, old: target, new: nil))
      }
    }
    plan.append(.set(target, inverse, old: previous, new: owner))
  }

  /// Plans removing `owner` from `target`'s `inverse`. A relationship that is its own inverse,
  /// unlinking an object from itself, needs nothing on the other side.
  func planUnlink(
    _ plan: inout EditPlan, _ target: ManagedObject, _ inverse: Property,
    from owner: ManagedObject, via property: Property
  ) {
    guard isReachable(target), !(target === owner && inverse === property) else { return }
    if inverse.isToMany {
      if target.collection(inverse)?.contains(owner) == true {
        plan.remove(owner, from: target, inverse)
      }
    } else if target.toOne(inverse) === owner {
      plan.append(.set(target, inverse, old: owner, new: nil))
    }
  }

  /// Whether the other side of a relationship can be kept: a live object, and not a fault whose
  /// row is gone (a no-action rule left a reference to an object whose deletion was saved), which
  /// is treated as the deleted object it stands for.
  func isReachable(_ object: ManagedObject) -> Bool {
    guard object.isLive else { return false }
    return !object.isFaultFlag || (try? object.fulfilFault()) != nil
  }

  /// The new content of a to-many relationship: each object once, without objects that cannot
  /// join it (deleted meanwhile) unless they are members already (a no-action rule left them).
  private func kept(_ objects: [ManagedObject], joining old: [ManagedObject]) -> [ManagedObject] {
    let members = Set(old.map(ObjectIdentifier.init))
    return uniqued(objects).filter { $0.isLive || members.contains(ObjectIdentifier($0)) }
  }

  func uniqued(_ objects: [ManagedObject]) -> [ManagedObject] {
    var seen = Set<ObjectIdentifier>()
    return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
  }

  // MARK: Delete

  /// Empties one object's relationships (and, except for `noAction`, the other sides), then marks
  /// it deleted — one change, one undo step.
  private func planDelete(_ victim: ManagedObject) -> EditList {
    guard victim.isLive else { return EditList() }
    var plan = EditPlan()
    for property in victim.entity.relationshipProperties {
      planDetach(&plan, victim, property, keepingNoAction: true)
    }
    plan.append(.lifecycle(victim, .delete))
    return plan.finish()
  }

  /// Plans emptying one relationship of an object leaving the graph, and removing the object from
  /// the other side (unless the rule is `noAction` and `keepingNoAction`).
  func planDetach(
    _ plan: inout EditPlan, _ object: ManagedObject, _ property: Property, keepingNoAction: Bool
  ) {
    let members = object.members(property)
    guard !members.isEmpty else { return }
    if let inverse = property.inverse, !(keepingNoAction && property.deleteRule == .noAction) {
      for member in members where isReachable(member) && member !== object {
        if inverse.isToMany {
          if member.collection(inverse)?.contains(object) == true {
            plan.remove(object, from: member, inverse)
          }
        } else if member.toOne(inverse) === object {
          plan.append(.set(member, inverse, old: object, new: nil))
        }
      }
    }
    if property.isToMany {
      plan.append(.replace(object, property, old: members, new: []))
    } else {
      plan.append(.set(object, property, old: members[0], new: nil))
    }
  }
}

/// The edits of one change, being worked out. Two rules keep each slot's story simple: removals
/// from the same relationship of the same object merge into one edit (its indexes describe the
/// state before the change), and a second set of the same slot merges into the first (old value
/// from the first, new from the last), so observers hear one change per slot.
struct EditPlan {
  private var edits = EditList()
  private var removals: [SlotKey: Int] = [:]
  /// The objects of removals that later removals merged into, by position, and their identities:
  /// kept out of the edit while the plan grows, so that merging is O(1) (`removeAll()` of a
  /// to-many of n members plans n merges).
  private var mergedRemovals: [Int: (objects: [ManagedObject], members: Set<ObjectIdentifier>)] =
    [:]
  /// Where the sets that later sets of the same slot merge into are: a short list scanned while the
  /// plan has few of them, then a table, so that a plan of a few sets (the delete of one object of
  /// a cascade) makes and hashes no table.
  private var setPositions: ContiguousArray<Int> = []
  private var sets: [SlotKey: Int] = [:]

  /// The most sets looked up by scanning.
  private static var scanLimit: Int { 16 }

  mutating func append(_ edit: Edit, changes: Bool = true) {
    if case .set = edit.change, let property = edit.property {
      if let position = setPosition(edit.object, property.slot) {
        edits[position].edit.new = edit.new
        edits[position].changes = property.differs(edits[position].edit.old, edit.new)
        return
      }
      if setPositions.count < Self.scanLimit {
        setPositions.append(edits.count)
      } else {
        if sets.isEmpty {
          for position in setPositions {
            sets[SlotKey(edits[position].object, edits[position].property!.slot)] = position
          }
        }
        sets[SlotKey(edit.object, property.slot)] = edits.count
      }
    }
    edits.append(PlannedEdit(edit, changes: changes))
  }

  /// The position of the set of `object`'s `slot` that a new set of it merges into, if any.
  private func setPosition(_ object: ManagedObject, _ slot: Int) -> Int? {
    guard sets.isEmpty else { return sets[SlotKey(object, slot)] }
    for position in setPositions.reversed()
    where edits[position].object === object && edits[position].property?.slot == slot {
      return position
    }
    return nil
  }

  /// Appends a removal that later removals from the same relationship merge into.
  mutating func appendRemoval(_ edit: Edit) {
    guard case .remove = edit.change, let property = edit.property else { return append(edit) }
    removals[SlotKey(edit.object, property.slot)] = edits.count
    edits.append(PlannedEdit(edit))
  }

  /// Plans removing `member` from `owner`'s to-many `property`, merged with earlier removals there.
  mutating func remove(_ member: ManagedObject, from owner: ManagedObject, _ property: Property) {
    let key = SlotKey(owner, property.slot)
    guard let position = removals[key] else {
      removals[key] = edits.count
      edits.append(PlannedEdit(.remove(owner, property, objects: [member], indexes: [])))
      return
    }
    if mergedRemovals[position] == nil {
      guard case .remove(let objects, _) = edits[position].edit.change else { return }
      mergedRemovals[position] = (objects, Set(objects.map(ObjectIdentifier.init)))
    }
    guard mergedRemovals[position]!.members.insert(ObjectIdentifier(member)).inserted else {
      return
    }
    mergedRemovals[position]!.objects.append(member)
  }

  /// Appends an edit planned elsewhere (undo and redo).
  mutating func append(_ planned: PlannedEdit) {
    edits.append(planned)
  }

  /// Whether the plan already has an edit of the slot.
  func touches(_ object: ManagedObject, _ property: Property) -> Bool {
    edits.contains { $0.edit.object === object && $0.edit.property === property }
  }

  /// The edits, with the indexes of ordered removals filled in from the current (pre-change)
  /// state, ascending.
  consuming func finish() -> EditList {
    for (position, merged) in mergedRemovals {
      edits[position].edit.change = .remove(objects: merged.objects, indexes: [])
    }
    for position in removals.values {
      let owner = edits[position].object
      guard case .remove(let objects, _) = edits[position].edit.change,
        let property = edits[position].property, property.isOrdered,
        let collection = owner.collection(property)
      else { continue }
      let sorted = Self.positioned(objects, in: collection)
      edits[position].edit = .remove(
        owner, property, objects: sorted.map(\.1), indexes: sorted.map(\.0))
    }
    return edits
  }

  /// The objects with their indexes in an ordered collection, ascending: looked up one by one
  /// when they are few, in one pass over the collection when they are many (each lookup is O(n)).
  private static func positioned(
    _ objects: [ManagedObject], in collection: ObjectCollection
  ) -> [(Int, ManagedObject)] {
    if objects.count > 8 {
      let leaving = Set(objects.map(ObjectIdentifier.init))
      var found: [(Int, ManagedObject)] = []
      found.reserveCapacity(objects.count)
      for (index, member) in collection.items.enumerated()
      where leaving.contains(ObjectIdentifier(member)) {
        found.append((index, member))
      }
      if found.count == leaving.count { return found }
    }
    return objects.map { (collection.index(of: $0) ?? 0, $0) }.sorted { $0.0 < $1.0 }
  }
}
