/// Plans made without an ``EditPlan``, for relationship changes and inserts that nobody hears.
///
/// A to-one set whose inverse is an unordered to-many — `child.parent = parent`, or
/// `parent.mutableSet(forKey: "children").insert(child)` — changes three slots: the child's, the
/// old parent's collection and the new one's. When nothing hears it (no observer of any of the
/// three objects, no tap, no undo recording, no open manual bracket: see ``audience(of:slot:)``)
/// and none of them is a fault,
/// every phase of the mutation path but apply skips itself. These planners then make the edits
/// the full planning would (``RelateEdits``, held in place: no allocation), in its order, and hand
/// them to the one ``apply(_:)``. Anything else takes the whole path.
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
      !property.isToMany, changeAudience.isSubset(of: .served),
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
      changeAudience.isSubset(of: .served), owner.isQuietlyRelatable, member.isQuietlyRelatable
    else { return false }
    assert(owner.collection(property)?.contains(member) != true)
    let old = member.toOne(inverse)
    // An inconsistent pair (set by primitive setters) takes the whole path, which links it.
    guard old !== owner, old?.isQuietlyRelatable ?? true else { return false }
    relate(member, inverse, property, old: old, to: owner, joins: true)
    return true
  }

  /// The edits of a quiet relationship change, applied: `member`'s to-one `property` goes from
  /// `old` to `owner`; `member` leaves `old`'s collection (`inverse`) when it is there and `old` is
  /// live, and joins `owner`'s when `joins`.
  private func relate(
    _ member: ManagedObject, _ property: Property, _ inverse: Property, old: ManagedObject?,
    to owner: ManagedObject?, joins: Bool
  ) {
    let changes = old !== owner
    // The general path unlinks from a live old object only, where its collection says so.
    let leaves =
      changes && old.map(isReachable) == true
      && old?.collection(inverse)?.contains(member) == true
    let edits = RelateEdits(
      member: Unmanaged.passUnretained(member), old: old.map(Unmanaged.passUnretained),
      owner: owner.map(Unmanaged.passUnretained), slot: property.slot, inverseSlot: inverse.slot,
      changes: changes, leaves: leaves, joins: joins)
    apply(edits) { edits, position in
      if position == 0 {
        if changes { member.setRelationshipReference(owner, for: property) }
      } else if edits.isOld(position) {
        old.unsafelyUnwrapped.collection(inverse).unsafelyUnwrapped.remove(member)
      } else {
        owner.unsafelyUnwrapped.makeCollection(inverse).insertNew(member)
      }
    }
    #if OBSERVEDGRAPH_INVARIANTS
      var plan = EditList()
      plan.append(PlannedEdit(.set(member, property, old: old, new: owner), changes: changes))
      if leaves, let old {
        plan.append(PlannedEdit(.remove(old, inverse, objects: [member], indexes: [])))
      }
      if joins, let owner {
        plan.append(PlannedEdit(.insert(owner, inverse, objects: [member], indexes: [])))
      }
      checkAfterMutation(plan)
    #endif
  }

  /// Registers a new object when nothing hears an insertion (no tap, no undo recording, no open
  /// manual bracket): its lifecycle edit, applied with no plan built. False when the insertion
  /// must take the whole path.
  func insertQuietly(_ object: ManagedObject) -> Bool {
    guard changeAudience.isSubset(of: .served), object.lifecycle == .detached,
      object.ownAudience().isSubset(of: .served)
    else { return false }
    let edit = LifecycleEdit(object: object, change: .insert)
    apply(edit)
    #if OBSERVEDGRAPH_INVARIANTS
      checkAfterMutation(edit.planned)
    #endif
    return true
  }
}

extension ManagedObject {
  /// Whether a quiet relationship change may touch the object: live, in memory, and heard by
  /// nobody but Swift Observation.
  var isQuietlyRelatable: Bool {
    isLive && !isFaultFlag && ownAudience().isSubset(of: .served)
  }
}
