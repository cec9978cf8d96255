/// The quiet relationship change.
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
      !property.isToMany, isQuietForRelationships,
      member.isQuietlyRelatable, owner?.isQuietlyRelatable ?? true
    else { return false }
    let old = member.toOne(property)
    guard old?.isQuietlyRelatable ?? true else { return false }
    // The general path links a live new object (the caller checked it) only where its collection
    // says so.
    let joins =
      old !== owner && owner.map { $0.collection(inverse)?.contains(member) != true } ?? false
    relate(member, property, inverse, old: old, to: owner, joins: joins)
    return true
  }

  /// Adds `member` to `owner`'s unordered to-many `property` whose inverse is to-one, quietly: the
  /// member's to-one set seen from the other side; false when the insertion must take the whole
  /// path.
  ///
  /// - Parameters:
  ///   - member: An object checked as relatable by the caller, not a member yet.
  ///   - owner: The object whose to-many relationship gains the member.
  ///   - property: The to-many relationship.
  func insertQuietly(_ member: ManagedObject, into owner: ManagedObject, _ property: Property)
    -> Bool
  {
    guard !property.isOrdered, let inverse = property.inverse, inverse.isToOne,
      isQuietForRelationships, owner.isQuietlyRelatable, member.isQuietlyRelatable
    else { return false }
    assert(owner.collection(property)?.contains(member) != true)
    let old = member.toOne(inverse)
    // An inconsistent pair (set by primitive setters) takes the whole path, which links it.
    guard old !== owner, old?.isQuietlyRelatable ?? true else { return false }
    relate(member, inverse, property, old: old, to: owner, joins: true)
    return true
  }

  /// Whether the context lets relationship changes be quiet: no undo recording, no tap, no open
  /// manual bracket.
  private var isQuietForRelationships: Bool {
    !recorder.isRecording && !center.hasTaps && brackets.isEmpty
  }

  /// The apply phase of a quiet relationship change: `member`'s to-one `property` goes from `old`
  /// to `owner`; `member` leaves `old`'s collection (`inverse`) when it is there and `old` is live,
  /// and joins `owner`'s when `joins`.
  private func relate(
    _ member: ManagedObject, _ property: Property, _ inverse: Property, old: ManagedObject?,
    to owner: ManagedObject?, joins: Bool
  ) {
    let slot = property.slot
    let inverseSlot = inverse.slot
    let changes = old !== owner
    // The general path unlinks from a live old object only, where its collection says so.
    let leaves =
      changes && old.map(isReachable) == true
      && old?.collection(inverse)?.contains(member) == true

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
  }

  /// Registers a new object when nothing hears an insertion (no tap, no undo recording, no open
  /// manual bracket): what the apply phase does for it, with no plan built. False when the
  /// insertion must take the whole path.
  func insertQuietly(_ object: ManagedObject) -> Bool {
    guard isQuietForRelationships, object.lifecycle == .detached, object.observers == nil
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

  /// Tracks a slot about to change (its committed value kept the first time) and marks it pending,
  /// as the apply phase does before it stores.
  func trackQuietly(_ object: ManagedObject, _ property: Property) {
    tracker.track(object, property.slot) { object.snapshotValue(property) }
    center.notePending(object, property.slot)
  }
}

extension ManagedObject {
  /// Whether a quiet relationship change may touch the object: live, in memory, unobserved.
  var isQuietlyRelatable: Bool { isLive && !isFaultFlag && observers == nil }
}
