/// Internal consistency checks, run after every mutation in debug builds.
///
/// After each change, every part runs its own cheap check, and the objects the change touched are
/// checked against the other side of each of their relationships; every 64 changes the whole graph
/// is scanned. `OBSERVEDGRAPH_INVARIANTS` (defined for debug builds in Package.swift) turns them on.
extension ObjectContext {
  /// The checks after one change.
  @inline(__always)
  func checkAfterMutation<Plan: EditSequence>(_ plan: Plan) {
    #if OBSERVEDGRAPH_INVARIANTS
      let touched = (0..<plan.count).map { plan[$0].object }
      registry.checkAfterMutation(touched)
      tracker.checkAfterMutation(touched)
      center.checkAfterMutation(touched)
      recorder.checkInvariants()
      let checked = fullChecks.isDue() ? registry.registeredObjects : touched
      checkGraph(checked)
      checkQuietBits(checked)
    #endif
  }

  /// Quiet bits that are in force hold only for a set that nobody hears and that leaves nothing to
  /// track (see `ManagedObject.quietSlots`); bits set by a recorded set, only while an undo log is
  /// attached and for a slot without observers (see `ManagedObject.recordedQuietFlag`).
  func checkQuietBits(_ objects: [ManagedObject]) {
    let recordedEpoch = link.quietEpoch | ManagedObject.recordedQuietFlag
    for object in objects where object.quietSlots != 0 {
      let recorded = object.quietEpoch == recordedEpoch
      guard recorded || object.quietEpoch == link.quietEpoch else { continue }
      let slots = (0..<64).filter { object.quietSlots & (1 << UInt64($0)) != 0 }
      precondition(
        (recorded ? recorder.log != nil : recorder.log == nil) && !center.hasTaps
          && object.isLive && !object.isFaultFlag
          && slots.allSatisfy {
            object.changes.contains($0) && object.pendingContains($0)
              && (recorded
                ? object.observers == nil : object.observers?.takesTypedSets($0) != false)
          },
        "\(object.objectID) has quiet slots \(slots) that are not quiet")
    }
  }

  /// Every check, after a save.
  @inline(__always)
  func checkInvariantsFully() {
    #if OBSERVEDGRAPH_INVARIANTS
      _checkInvariants()
    #endif
  }

  /// Traps with a message if the context is inconsistent: a live object's relationship whose other
  /// side does not point back, an object held twice by a to-many relationship, a deleted object
  /// that still has relationships, a registry entry that disagrees with its object, a dirty object
  /// with nothing to save, a pending-news list out of order.
  ///
  /// Called after each change in debug builds (cheaply, with a full scan now and then); tests call
  /// it directly.
  /// - Complexity: O(objects × relationship sizes).
  public func _checkInvariants() {
    registry.checkInvariants()
    tracker.checkInvariants()
    center.checkInvariants()
    recorder.checkInvariants()
    checkGraph(registry.registeredObjects)
  }

  /// Both sides of every relationship of `objects` agree. Faults (not loaded) are skipped, and so
  /// are members that are faults.
  private func checkGraph(_ objects: [ManagedObject]) {
    for object in objects where object.lifecycle == .registered && !object.isFaultFlag {
      precondition(object.link === link, "\(object.objectID) registered in another context")
      for property in object.entity.relationshipProperties {
        // A to-many fault's members are in the store: nothing in memory to check.
        guard let members = object.loadedMembers(property) else { continue }
        if object.isDeletedFlag {
          // No-action rules may leave others pointing at a deleted object, never the reverse.
          precondition(
            members.isEmpty,
            "deleted \(object.objectID).\(property.name) still holds \(members.count) objects")
          continue
        }
        if property.isToMany {
          precondition(
            Set(members.map(ObjectIdentifier.init)).count == members.count,
            "\(object.objectID).\(property.name) holds an object twice")
        }
        for member in members where !member.isLive {
          // Only a no-action rule on the other side leaves a pointer to a deleted object behind.
          precondition(
            member.link === link && (property.inverse?.deleteRule ?? .noAction) == .noAction,
            "\(object.objectID).\(property.name) holds \(member.objectID), which is "
              + (member.isDeletedFlag ? "deleted" : "not in the context (\(member.lifecycle))"))
        }
        guard let inverse = property.inverse else { continue }
        for member in members where member.isLive && !member.isFaultFlag {
          // A to-many tests membership in O(1): every member of a large to-many points back to
          // its owner, so a scan would make the check quadratic.
          guard !member.isToManyFault(inverse) else { continue }
          let back =
            inverse.isToMany
            ? member.collection(inverse)?.contains(object) == true
            : member.toOne(inverse) === object
          precondition(
            back,
            "\(object.objectID).\(property.name) holds \(member.objectID), but "
              + "\(member.objectID).\(inverse.name) does not point back")
        }
      }
    }
  }
}
