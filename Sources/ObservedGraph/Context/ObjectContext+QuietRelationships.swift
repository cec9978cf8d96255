/// The quiet relationship change (benchmark rows "to-many insert with inverse upkeep" and
/// "cascade delete … time to build it").
///
/// A to-one set whose inverse is an unordered to-many — `child.parent = parent`, or
/// `parent.mutableSet(forKey: "children").insert(child)` — changes three slots: the child's, the
/// old parent's collection and the new one's. When nothing hears it (no observer of any of the
/// three objects, no tap, no undo recording, no open manual bracket) and none of them is a fault,
/// every phase of the mutation path but apply skips itself. This is that apply, with no plan
/// built: the same slots tracked (their committed value kept the first time), marked pending and
/// stored, in the order the path would, inside Swift Observation's calls. A case with less to do
/// is the same code with work skipped: anything else takes the whole path.
extension ObjectContext {
  /// Sets `member`'s to-one `property` to `owner` (or nil) with its inverse's upkeep, quietly;
  /// false when the change must take the whole path (nothing was done then).
  ///
  /// - Parameters:
  ///   - member: The object whose to-one relationship is set; checked as relatable by the caller.
  ///   - property: A to-one relationship whose inverse is an unordered to-many.
  ///   - owner: The new related object, or nil.
  func relateQuietly(_ member: ManagedObject, _ property: Property, to owner: ManagedObject?)
    -> Bool
  {
    guard let inverse = property.inverse, inverse.isToMany, !inverse.isOrdered,
      !property.isToMany, !recorder.isRecording, !center.hasTaps, brackets.isEmpty,
      member.isQuietlyRelatable, owner?.isQuietlyRelatable ?? true
    else { return false }
    let old = member.toOne(property)
    guard old?.isQuietlyRelatable ?? true else { return false }
    let slot = property.slot
    let inverseSlot = inverse.slot
    // The general path unlinks from a live old object only, and links a live new one (the caller
    // checked it), each only where the collection says so.
    let changes = old !== owner
    let leaves =
      changes && old?.isLive == true && old?.collection(inverse)?.contains(member) == true
    let joins = changes && owner.map { $0.collection(inverse)?.contains(member) != true } ?? false

    member.registrar?.willSet(member, slot)
    if leaves { old.unsafelyUnwrapped.registrar?.willSet(old.unsafelyUnwrapped, inverseSlot) }
    if joins { owner.unsafelyUnwrapped.registrar?.willSet(owner.unsafelyUnwrapped, inverseSlot) }
    generation &+= 1
    if changes {
      trackQuietly(member, property)
      member.setRelationshipReference(owner, for: property)
    }
    if leaves, let old {
      trackQuietly(old, inverse)
      old.collection(inverse).unsafelyUnwrapped.remove(member)
    }
    if joins, let owner {
      trackQuietly(owner, inverse)
      owner.makeCollection(inverse).insertNew(member)
    }
    member.registrar?.didSet(member, slot)
    if leaves { old.unsafelyUnwrapped.registrar?.didSet(old.unsafelyUnwrapped, inverseSlot) }
    if joins { owner.unsafelyUnwrapped.registrar?.didSet(owner.unsafelyUnwrapped, inverseSlot) }
    #if OBSERVEDGRAPH_INVARIANTS
      var plan = EditPlan()
      plan.append(.set(member, property, old: old, new: owner), changes: changes)
      if leaves, let old { plan.append(.remove(old, inverse, objects: [member], indexes: [])) }
      if joins, let owner { plan.append(.insert(owner, inverse, objects: [member], indexes: [])) }
      checkAfterMutation(plan.finish())
    #endif
    return true
  }

  /// Registers a new object when nothing hears an insertion (no tap, no undo recording, no open
  /// manual bracket): what the apply phase does for it, with no plan built (benchmark row
  /// "cascade delete … time to build it"). False when the insertion must take the whole path.
  func insertQuietly(_ object: ManagedObject) -> Bool {
    guard !recorder.isRecording, !center.hasTaps, brackets.isEmpty,
      object.lifecycle == .detached, object.observers == nil
    else { return false }
    generation &+= 1
    registry.register(object)
    object.isInsertedFlag = true
    tracker.noteDirty(object)
    center.notePending(.insert, object)
    #if OBSERVEDGRAPH_INVARIANTS
      checkAfterMutation(SingleEdit(PlannedEdit(.lifecycle(object, .insert))))
    #endif
    return true
  }

  /// Adds `member` to `owner`'s unordered to-many `property` whose inverse is to-one, quietly: the
  /// member's to-one set seen from the other side (a member already there changes nothing);
  /// false when the insertion must take the whole path.
  func insertQuietly(_ member: ManagedObject, into owner: ManagedObject, _ property: Property)
    -> Bool
  {
    guard !property.isOrdered, let inverse = property.inverse, inverse.isToOne,
      owner.isQuietlyRelatable, member.isLive, member.toOne(inverse) !== owner
    else { return false }
    if owner.collection(property)?.contains(member) == true { return true }
    return relateQuietly(member, inverse, to: owner)
  }

  /// Tracks a slot about to change (its committed value kept the first time) and marks it pending,
  /// as the apply phase does before it stores.
  private func trackQuietly(_ object: ManagedObject, _ property: Property) {
    tracker.track(object, property.slot) { object.snapshotValue(property) }
    center.notePending(object, property.slot)
  }
}

extension ManagedObject {
  /// Whether a quiet relationship change may touch the object: live, in memory, unobserved.
  var isQuietlyRelatable: Bool { isLive && !isFaultFlag && observers == nil }
}
