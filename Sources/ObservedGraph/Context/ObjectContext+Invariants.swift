/// Internal consistency checks, run after every mutation in builds with
/// `OBSERVEDGRAPH_INVARIANTS` (every debug build, a dependent app's too; see Package.swift).
///
/// After each change, each part checks the objects the change touched, and every pair of related
/// objects the change named is checked from both sides: O(what the change touched), so a debug
/// build scales as a release build does. While ``FullChecks/isOn`` (the library's own tests,
/// `OBSERVEDGRAPH_FULL_CHECKS=1`), the touched objects' relationships are also checked whole, every
/// 64 changes the whole graph is scanned, and every check runs after a save, a rollback and a
/// refresh.
extension ObjectContext {
  /// The checks after one change.
  @inline(__always)
  func checkAfterMutation<Plan: EditSequence>(_ plan: Plan) {
    #if OBSERVEDGRAPH_INVARIANTS
      let touched = (0..<plan.count).map { plan[$0].object }
      registry.checkAfterMutation(touched)
      tracker.checkAfterMutation(touched)
      center.checkAfterMutation(touched)
      recorder.checkAfterMutation()
      checkPairs(plan)
      let checked = fullChecks.isDue() ? registry.registeredObjects : touched
      checkQuietBits(checked)
      if FullChecks.isOn { checkGraph(checked) }
    #endif
  }

  /// Quiet bits that are in force agree with the audience decision (ObjectContext+Audience.swift):
  /// each holds only for a live, loaded object's slot that is tracked and pending with the origin
  /// in force noted (``notesOrigin(of:_:)``), whose audience
  /// is at most Swift Observation and typed observers, without an undo log; bits set by a recorded
  /// set (see `ManagedObject.recordedQuietFlag`), at most Swift Observation and the undo recorder,
  /// while an undo log is attached (its registration may be off).
  func checkQuietBits(_ objects: [ManagedObject]) {
    let recordedEpoch = link.quietEpoch | ManagedObject.recordedQuietFlag
    for object in objects where object.quietSlots != 0 {
      let recorded = object.quietEpoch == recordedEpoch
      guard recorded || object.quietEpoch == link.quietEpoch else { continue }
      let slots = (0..<64).filter { object.quietSlots & (1 << UInt64($0)) != 0 }
      let served: Audience =
        recorded ? [.registrar, .undoRecorder] : [.registrar, .typedObservers]
      precondition(
        (recorded ? recorder.log != nil : recorder.log == nil)
          && object.isLive && !object.isFaultFlag
          && slots.allSatisfy {
            object.isTrackedAndPending($0) && notesOrigin(of: object, $0)
              && audience(of: object, slot: $0).isSubset(of: served)
          },
        "\(object.objectID) has quiet slots \(slots) that are not quiet")
    }
  }

  /// The checks after a save, a rollback or a refresh: each part checks the objects it touched;
  /// while full checks are on, every check (O(objects × relationship sizes)). `touched` is not
  /// evaluated in builds without checks.
  @inline(__always)
  func checkAfterBatch(_ touched: @autoclosure () -> [ManagedObject]) {
    #if OBSERVEDGRAPH_INVARIANTS
      let touched = touched()
      registry.checkAfterMutation(touched)
      tracker.checkAfterMutation(touched)
      center.checkAfterMutation(touched)
      if FullChecks.isOn { _checkInvariants() }
    #endif
  }

  /// Traps with a message if the context is inconsistent: a live object's relationship whose other
  /// side does not point back, an object held twice by a to-many relationship, a deleted object
  /// that still has relationships, a registry entry that disagrees with its object, a dirty object
  /// with nothing to save, a pending-news list out of order, a list of pending faults or of
  /// recently loaded members out of its bounds, a load conflict kept with no load under way.
  ///
  /// Tests call it directly; while full checks are on, it runs after saves, rollbacks and
  /// refreshes, and the graph part of it every 64 changes.
  /// - Complexity: O(objects × relationship sizes).
  public func _checkInvariants() {
    registry.checkInvariants()
    tracker.checkInvariants()
    center.checkInvariants()
    recorder.checkInvariants()
    faulting.checkInvariants()
    checkGraph(registry.registeredObjects)
  }

  /// Both sides of every pair of related objects the change named agree: for each edit of a
  /// relationship, the object holds each object the edit names (its old and new value, the
  /// members it inserted, removed or replaced, what a to-one holds now) exactly when that object
  /// points back; a deleted object holds nothing. O(edits × the objects they name): a member of a
  /// large to-many is looked up, not scanned for.
  func checkPairs<Plan: EditSequence>(_ plan: Plan) {
    for position in 0..<plan.count {
      let edit = plan[position].edit
      let object = edit.object
      guard object.lifecycle == .registered, !object.isFaultFlag else { continue }
      precondition(object.link === link, "\(object.objectID) registered in another context")
      guard let property = edit.property else {
        if object.isDeletedFlag {
          for property in object.entity.relationshipProperties {
            let count = object.loadedMembers(property)?.count ?? 0
            precondition(
              count == 0,
              "deleted \(object.objectID).\(property.name) still holds \(count) objects")
          }
        }
        continue
      }
      guard property.isRelationship else { continue }
      switch edit.change {
      case .set:
        checkPair(object, property, edit.old as? ManagedObject)
        checkPair(object, property, edit.new as? ManagedObject)
        if property.isToOne { checkPair(object, property, object.loadedMembers(property)?.first) }
      case .insert(let objects, _), .remove(let objects, _):
        for member in objects { checkPair(object, property, member) }
      case .replace(let old, let new):
        for member in old { checkPair(object, property, member) }
        for member in new { checkPair(object, property, member) }
      case .lifecycle:
        break
      }
    }
  }

  /// `object.property` holds `member` exactly when `member` points back, for two live objects; a
  /// member that is not live is held only where a `noAction` rule left it. Skipped where either
  /// side is not in memory (a fault, a to-many fault, a to-one holding a loaded key).
  private func checkPair(_ object: ManagedObject, _ property: Property, _ member: ManagedObject?) {
    guard let member, !object.isToManyFault(property), !object.holdsLoadedKey(property) else {
      return
    }
    let holds =
      property.isToMany
      ? object.collection(property)?.contains(member) == true
      : object.toOne(property) === member
    if holds && !member.isLive {
      precondition(
        member.link === link && (property.inverse?.deleteRule ?? .noAction) == .noAction,
        "\(object.objectID).\(property.name) holds \(member.objectID), which is "
          + (member.isDeletedFlag ? "deleted" : "not in the context (\(member.lifecycle))"))
    }
    guard object.isLive, member.isLive, !member.isFaultFlag, let inverse = property.inverse,
      !member.isToManyFault(inverse), !member.holdsLoadedKey(inverse)
    else { return }
    let back =
      inverse.isToMany
      ? member.collection(inverse)?.contains(object) == true
      : member.toOne(inverse) === object
    precondition(
      holds == back,
      holds
        ? "\(object.objectID).\(property.name) holds \(member.objectID), but "
          + "\(member.objectID).\(inverse.name) does not point back"
        : "\(member.objectID).\(inverse.name) holds \(object.objectID), but "
          + "\(object.objectID).\(property.name) does not hold it")
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
