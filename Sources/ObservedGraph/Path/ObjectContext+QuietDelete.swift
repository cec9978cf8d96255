/// The quiet cascade delete.
///
/// A delete takes each object of its cascade set through the mutation path, one change per
/// object: its relationships emptied (and the other sides unlinked), then the object marked
/// deleted. When nothing hears the deletion — no tap, no open manual bracket, no observer of any
/// object it deletes or unlinks, none of them a fault — and every relationship involved is a
/// to-one whose inverse is an unordered to-many or the reverse, with a rule other than
/// `noAction`, every phase but apply and record skips itself. This plans without an
/// ``EditPlan``: for each object, the same edits in the same order as `planDelete` would plan
/// them, planned into a ``DeletionColumn`` and handed from there (``ColumnEdits``) to the undo
/// recorder, which makes the column the undo step when it records, and to the one
/// ``apply(_:)``. Anything else takes the whole path.
extension ObjectContext {
  /// Deletes the objects of a cascade set (already checked and prepared) quietly, in order; false
  /// when the deletion must take the whole path (nothing was done then). `shapesAreQuiet` says
  /// that every relationship of every object may be emptied quietly.
  func deleteQuietly(_ doomed: [ManagedObject], shapesAreQuiet: Bool) -> Bool {
    // The delete serves Swift Observation and the undo recorder (its column is the step).
    guard changeAudience.isSubset(of: [.registrar, .undoRecorder]) else { return false }
    // With no observer in the context, no store to make faults and no untracked changes, no
    // object can be observed, a fault or have untracked changes: only the shapes of the
    // relationships are left to check, and the cascade set did.
    let mayHear = mayHaveObservedObjects || store != nil || !untracked.isEmpty
    if mayHear || !shapesAreQuiet, !canDeleteQuietly(doomed, mayHear: mayHear) { return false }
    // The step recorded, or a scratch column emptied for each object.
    let column = DeletionColumn(.undelete, storeIdentifier: registry.storeIdentifier)
    for victim in doomed where victim.isLive {
      if !column.isRecorded { column.removeAll() }
      deleteQuietly(victim, into: column)
    }
    recorder.endDeletion()
    return true
  }

  /// Whether nothing hears the deletion of `doomed` (no observer of any object it deletes or
  /// unlinks, none a fault) and every relationship it empties has a shape a quiet delete
  /// handles.
  private func canDeleteQuietly(_ doomed: [ManagedObject], mayHear: Bool) -> Bool {
    for victim in doomed {
      guard victim.isLive else { continue }
      if !mayHear && victim.entity.deletesQuietly { continue }
      guard victim.ownAudience().isSubset(of: .served), !victim.isFaultFlag else { return false }
      let entity = victim.entity
      for property in entity.relationshipProperties {
        // An empty relationship of another shape plans nothing.
        guard entity.deletesQuietly || property.deletesQuietly || victim.members(property).isEmpty
        else { return false }
        var quiet = true
        victim.forEachMember(property) { member in
          if !member.ownAudience().isSubset(of: .served) || member.isFaultFlag { quiet = false }
        }
        guard quiet else { return false }
      }
    }
    return true
  }

  /// Deletes one object of a quiet cascade: the edits `planDelete` plans, in its order, planned
  /// into `column` as its next victim, and handed from there (``ColumnEdits``) to the recorder
  /// and the apply.
  private func deleteQuietly(_ victim: ManagedObject, into column: DeletionColumn) {
    /// One slot emptied.
    func edit(
      _ object: ManagedObject, _ property: Property, _ kind: DeletionColumn.Kind,
      other: ManagedObject?, collection: ObjectCollection? = nil
    ) {
      column.append(
        DeletionColumn.Link(
          object: object, other: other, collection: collection, property: property, kind: kind))
    }
    /// The other side of one member: if it points back, it loses the victim.
    func unlink(_ member: ManagedObject, _ inverse: Property) {
      guard member.isLive && member !== victim else { return }
      if inverse.isToMany {
        guard let collection = member.collection(inverse), collection.contains(victim) else {
          return
        }
        edit(member, inverse, .member, other: victim)
      } else if member.toOne(inverse) === victim {
        edit(member, inverse, .toOne, other: victim)
      }
    }

    for property in victim.entity.relationshipProperties {
      guard let inverse = property.inverse else { continue }
      // The other sides first, then the victim's own side: a to-many's collection leaves the
      // object whole.
      if property.isToMany {
        guard let collection = victim.collection(property), !collection.isEmpty else { continue }
        for reference in collection.references {
          reference._withUnsafeGuaranteedRef { unlink($0, inverse) }
        }
        edit(victim, property, .collection, other: nil, collection: collection)
      } else {
        guard let member = victim.toOne(property) else { continue }
        unlink(member, inverse)
        edit(victim, property, .toOne, other: member)
      }
    }
    column.endVictim(victim)
    let edits = ColumnEdits(deleting: victim, at: column.victims.count - 1, of: column)
    recorder.record(edits, tracker: tracker)
    apply(edits)
    #if OBSERVEDGRAPH_INVARIANTS
      checkAfterMutation(edits.planned)
    #endif
  }
}

extension ManagedObject {
  /// Calls `body` with each object a relationship holds, without making an array.
  func forEachMember(_ property: Property, _ body: (ManagedObject) -> Void) {
    if property.isToMany {
      collection(property)?.forEach(body)
    } else if let object = toOne(property) {
      body(object)
    }
  }
}

// MARK: Undo and redo of a quiet delete

extension ObjectContext {
  /// Applies a deletion column (the undo or redo of a quiet cascade delete): as one batch when
  /// nothing hears it and the graph is as the column expects it, otherwise each object's changes
  /// through the mutation path, as the path's own steps would be.
  func replay(_ column: DeletionColumn) {
    if replayInOneBatch(column) { return }
    for index in column.victimOrder { perform(.replay(column.changes(ofVictim: index))) }
  }

  /// The batch: for each object, the edits of its replayed step — the lifecycle change, then each
  /// slot's link put back (or emptied again), its tracking restored — read from the column
  /// (``ColumnEdits``) and handed to the recorder (which records the opposite column) and the
  /// apply. False when the column must take the path (nothing was done then).
  private func replayInOneBatch(_ column: DeletionColumn) -> Bool {
    guard changeAudience.isSubset(of: [.registrar, .undoRecorder]), canReplayQuietly(column)
    else { return false }
    for index in column.victimOrder {
      let victim = column.victims[index].object
      if column.direction == .undelete {
        victim.marks &= ~ManagedObject.cascadeMark  // set by `canReplayQuietly`
      }
      let edits = ColumnEdits(replaying: victim, at: index, of: column)
      recorder.record(edits, tracker: tracker)
      apply(edits)
      #if OBSERVEDGRAPH_INVARIANTS
        checkAfterMutation(edits.planned)
      #endif
    }
    recorder.endDeletion()
    return true
  }

  /// Whether the batch may apply the column: nothing hears its objects (no observer, none a
  /// fault), they are this context's, each slot holds what the column left in it, and every
  /// deleted object a link names is brought back before the link is (an observer of an earlier
  /// step of the same undo may have deleted a partner) — so the batch does exactly what the path
  /// would.
  ///
  /// Bringing objects back, it marks each victim in place (`cascadeMark`) before its links are
  /// checked, in the order the batch brings them back: no table by identity. The batch clears each
  /// mark as it brings the victim back; a refusal clears them at once.
  private func canReplayQuietly(_ column: DeletionColumn) -> Bool {
    var marked = 0
    if canReplayQuietly(column, marked: &marked) { return true }
    let victims = column.victims
    for position in 0..<marked {
      victims[victims.count - 1 - position].object.marks &= ~ManagedObject.cascadeMark
    }
    return false
  }

  /// See ``canReplayQuietly(_:)``; counts in `marked` the victims it marked.
  private func canReplayQuietly(_ column: DeletionColumn, marked: inout Int) -> Bool {
    let undeleting = column.direction == .undelete
    /// The deleted objects, by identity; made only if a detached object is met.
    var victims: IdentityPositions?
    /// The slots the links empty, as bits by object; made to delete again.
    var emptied: IdentityPositions?
    func isQuiet(_ object: ManagedObject) -> Bool {
      guard object.link === link, !object.isFaultFlag, object.ownAudience().isSubset(of: .served)
      else { return false }
      switch object.lifecycle {
      case .registered:
        // Deleted, it must be a victim the batch has brought back by then.
        return !object.isDeletedFlag
          || (undeleting && object.marks & ManagedObject.cascadeMark != 0)
      case .detached:
        // Deleted and saved: it must be one the column brings back.
        guard undeleting else { return false }
        if victims == nil {
          var table = IdentityPositions()
          for (index, victim) in column.victims.enumerated() { table.set(victim.object, index) }
          victims = table
        }
        return victims.unsafelyUnwrapped[object] != nil
      default: return false
      }
    }
    let count = column.victims.count
    for position in 0..<count {
      // In the order the batch applies the victims: last first to bring them back.
      let index = undeleting ? count - 1 - position : position
      let victim = column.victims[index].object
      guard victim.link === link, victim.isDeletedFlag == undeleting else { return false }
      if undeleting {
        victim.marks |= ManagedObject.cascadeMark
        marked += 1
      }
      guard isQuiet(victim) else { return false }
      let range = column.linkRange(of: index)
      for link in column.links[range] {
        guard isQuiet(link.object), link.other.map(isQuiet) ?? true else { return false }
        let property = link.property
        switch (column.direction, link.kind) {
        case (.undelete, .toOne):
          guard link.object.toOne(property) == nil else { return false }
        case (.undelete, .member):
          guard let other = link.other, link.object.collection(property)?.contains(other) != true
          else { return false }
        case (.undelete, .collection):
          guard link.object.collection(property)?.isEmpty ?? true else { return false }
        case (.delete, .toOne):
          guard let other = link.other, link.object.toOne(property) === other else { return false }
        case (.delete, .member):
          guard let other = link.other, link.object.collection(property)?.contains(other) == true
          else { return false }
        case (.delete, .collection):
          guard let collection = link.collection, link.object.collection(property) === collection
          else { return false }
        }
      }
      guard !undeleting else { continue }
      // Deleting again: every relationship the column does not empty (for this object or an
      // object before it) is empty already.
      if emptied == nil {
        var table = IdentityPositions()
        for link in column.links {
          guard link.slot < 63 else { return false }
          table.set(link.object, (table[link.object] ?? 0) | 1 << Int(link.slot))
        }
        emptied = table
      }
      let slots = emptied.unsafelyUnwrapped[victim] ?? 0
      for property in victim.entity.relationshipProperties
      where property.slot >= 63 || slots & 1 << property.slot == 0 {
        var isEmpty = true
        victim.forEachMember(property) { _ in isEmpty = false }
        guard isEmpty else { return false }
      }
    }
    return true
  }
}
