/// The quiet cascade delete (benchmark row "cascade delete … time to build it").
///
/// A delete takes each object of its cascade set through the mutation path, one change per
/// object: its relationships emptied (and the other sides unlinked), then the object marked
/// deleted. When nothing hears the deletion — no tap, no open manual bracket, no observer of any
/// object it deletes or unlinks, none of them a fault — and every relationship involved is a
/// to-one whose inverse is an unordered to-many or the reverse, with a rule other than
/// `noAction`, every phase but apply and record skips itself. This is those two phases, with no
/// plan built: for each object, the same edits in the same order as `planDelete` would plan them,
/// each tracked, marked pending and stored inside Swift Observation's calls, and the same undo
/// step recorded. Anything else takes the whole path.
extension ObjectContext {
  /// Deletes the objects of a cascade set (already checked and prepared) quietly, in order; false
  /// when the deletion must take the whole path (nothing was done then).
  func deleteQuietly(_ doomed: [ManagedObject]) -> Bool {
    guard !center.hasTaps, brackets.isEmpty else { return false }
    for victim in doomed where victim.isLive {
      guard victim.observers == nil, !victim.isFaultFlag else { return false }
      for property in victim.entity.relationshipProperties {
        guard let inverse = property.inverse, property.deleteRule != .noAction,
          property.isToMany
            ? !property.isOrdered && inverse.isToOne : inverse.isToMany && !inverse.isOrdered
        else {
          // An empty relationship of another shape plans nothing.
          if victim.members(property).isEmpty { continue }
          return false
        }
        var quiet = true
        victim.forEachMember(property) { member in
          if member.observers != nil || member.isFaultFlag { quiet = false }
        }
        guard quiet else { return false }
      }
    }
    for victim in doomed where victim.isLive { deleteQuietly(victim) }
    return true
  }

  /// Deletes one object of a quiet cascade: what `planDelete` plans, applied and recorded.
  private func deleteQuietly(_ victim: ManagedObject) {
    let recording = recorder.isRecording
    var changes: [RecordedChange] = []
    if recording {
      // One change per relationship and per member pointing back, and the undelete.
      var count = 1
      for property in victim.entity.relationshipProperties {
        count += 1 + (property.isToMany ? victim.collection(property)?.count ?? 0 : 1)
      }
      changes.reserveCapacity(count)
    }
    #if OBSERVEDGRAPH_INVARIANTS
      var touched = EditPlan()
      touched.append(PlannedEdit(.lifecycle(victim, .delete)))
    #endif
    /// One edit of `object`'s `property`: its tracking state before it recorded with its inverse,
    /// then tracked, marked pending and stored by `store`.
    func edit(
      _ object: ManagedObject, _ property: Property, inverse: (SlotTracking) -> RecordedChange,
      store: () -> Void
    ) {
      let slot = property.slot
      if recording { changes.append(inverse(tracker.state(of: object, slot))) }
      object.registrar?.willSet(object, slot)
      trackQuietly(object, property)
      store()
      object.registrar?.didSet(object, slot)
      #if OBSERVEDGRAPH_INVARIANTS
        touched.append(PlannedEdit(.set(object, property, old: nil, new: nil)))
      #endif
    }

    generation &+= 1
    let victimID = victim.objectID
    for property in victim.entity.relationshipProperties {
      let members = victim.members(property)
      guard !members.isEmpty, let inverse = property.inverse else { continue }
      // The other sides first: each live member that points back loses the victim.
      for member in members where member.isLive && member !== victim {
        if inverse.isToMany {
          guard let collection = member.collection(inverse), collection.contains(victim) else {
            continue
          }
          edit(member, inverse) {
            .insert(
              member.objectID, slot: inverse.slot, members: [victimID], indexes: [], before: $0)
          } store: {
            collection.remove(victim)
          }
        } else if member.toOne(inverse) === victim {
          edit(member, inverse) {
            .toOne(member.objectID, slot: inverse.slot, value: victimID, before: $0)
          } store: {
            member.setRelationshipReference(nil, for: inverse)
          }
        }
      }
      // Then the victim's own side.
      if property.isToMany {
        edit(victim, property) {
          .replace(victimID, slot: property.slot, members: members.map(\.objectID), before: $0)
        } store: {
          victim.collection(property)?.removeAll()
        }
      } else {
        edit(victim, property) {
          .toOne(victimID, slot: property.slot, value: members[0].objectID, before: $0)
        } store: {
          victim.setRelationshipReference(nil, for: property)
        }
      }
    }
    if recording {
      changes.append(.lifecycle(victimID, .undelete, snapshot: victim.attributeSnapshot()))
      recorder.record(changes)
    }
    victim.isDeletedFlag = true
    tracker.noteDirty(victim)
    center.notePending(.delete, victim)
    #if OBSERVEDGRAPH_INVARIANTS
      checkAfterMutation(touched.finish())
    #endif
  }
}

extension ManagedObject {
  /// Calls `body` with each object a relationship holds, without making an array.
  func forEachMember(_ property: Property, _ body: (ManagedObject) -> Void) {
    if property.isToMany {
      collection(property)?.items.forEach(body)
    } else if let object = toOne(property) {
      body(object)
    }
  }
}
