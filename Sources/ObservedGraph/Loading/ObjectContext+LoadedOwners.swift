import UndoLog

/// Loaded to-ones and the to-manys on their other side.
///
/// A load never changes the values of a registered object whose values are in memory. A row
/// another store on the file saved may still name an owner whose to-many, loaded here before,
/// does not hold the row's object — or the object, loaded again, may have left an owner whose
/// to-many still holds it. When a load ends, each such pair is settled so that the graph agrees
/// with itself:
///
/// - a to-many without unsaved changes is told: it takes the object in or lets it go, through
///   the mutation path as a refresh (observers hear an insertion or a removal with old and new
///   values, nothing is tracked or recorded for undo), and is then marked unloaded, so that its
///   next use reads the store again;
/// - a to-many with unsaved changes keeps them, and the loaded object's to-one is set to agree
///   with it, as inverse upkeep would (to that owner when it holds the object, else to none).
extension ObjectContext {
  /// Settles the to-ones a load noted (see ``ObjectLoader/OwnerCheck``).
  func settleLoadedOwners(_ checks: [ObjectLoader.OwnerCheck]) {
    var told: [(owner: ManagedObject, property: Property, change: RecordedChange)] = []
    for check in checks {
      let object = check.object
      let property = check.property
      guard object.lifecycle == .registered, object.link === link,
        let inverse = property.inverse
      else { continue }
      let named = object.toOneKey(property)
      let rowOwner = named.flatMap { registry.registeredObject(key: $0) }
      let earlier = check.previous.flatMap {
        $0 == named ? nil : registry.registeredObject(key: $0)
      }
      let new = Side(rowOwner, inverse, object)
      let old = Side(earlier, inverse, object)
      // Unsaved members win: the object's to-one follows them.
      var owner = named
      if let old, old.holds, old.isUnsaved {
        owner = earlier?.objectKey
        object.fill(earlier, at: property.slot)
      } else if let new, !new.holds, new.isUnsaved {
        owner = nil
        object.fill(nil, at: property.slot)
      }
      for (side, sideOwner) in [(new, rowOwner), (old, earlier)] {
        guard let side, let sideOwner, !side.isUnsaved,
          side.holds != (owner == sideOwner.objectKey)
        else { continue }
        // Taken in at the end, or let go from where it is.
        let id = sideOwner.objectID
        let position = side.members.firstIndex { $0 === object } ?? side.members.count
        let indexes = inverse.isOrdered ? [position] : []
        told.append(
          (
            sideOwner, inverse,
            side.holds
              ? .remove(
                id, slot: inverse.slot, members: [object.objectID], indexes: indexes,
                before: .unchanged)
              : .insert(
                id, slot: inverse.slot, members: [object.objectID], indexes: indexes,
                before: .unchanged)
          ))
      }
    }
    guard !told.isEmpty else { return }
    let changes = told.map(\.change)
    let log = undoLog
    log?.disableRegistration()
    if recorder.isCollectingRestored {
      // Inside an undo, a redo, a rollback or a refresh (whose replay loaded the object): the
      // owners told are restored objects of that, told with its events when it ends.
      perform(.replay(changes))
    } else {
      recorder.collectingRestored(reporting: .refresh) { perform(.replay(changes)) }
    }
    if let log { try? log.enableRegistration() }
    // What the store holds is not a change; the next use reads it again.
    for (owner, property, _) in told where owner.isLive {
      tracker.restore(owner, property.slot, to: .unchanged)
      tracker.forgetIfClean(owner)
      owner.fill(ObjectCollection.unloaded, at: property.slot)
    }
  }

  /// One owner's loaded to-many, as it stands towards a loaded object.
  private struct Side {
    let members: [ManagedObject]
    /// Whether it holds the object.
    let holds: Bool
    /// Whether it has unsaved changes.
    let isUnsaved: Bool

    /// Nil when the owner's to-many is not in memory.
    init?(_ owner: ManagedObject?, _ property: Property, _ object: ManagedObject) {
      guard let owner, owner.isLive else { return nil }
      if let collection = owner.loadedCollection(property) {
        members = collection.items
        holds = collection.contains(object)
      } else if !owner.isFaultFlag && owner.isEmptyRelationship(property) {
        // A loaded object keeps an empty to-many as no collection.
        (members, holds) = ([], false)
      } else {
        return nil
      }
      isUnsaved = owner.changes.contains(property.slot)
    }
  }
}
