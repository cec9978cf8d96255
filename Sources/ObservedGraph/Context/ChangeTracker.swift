/// What changed since the last save: the objects with unsaved changes (held strongly until the
/// save), the changed slots of each with their committed values, and the change set a save
/// writes.
///
/// Each object's ``ChangeState`` and its inserted and deleted flags are this part's to change.
final class ChangeTracker {
  /// Objects inserted, deleted or changed since the last save, in no particular order. Each knows
  /// its place in the list (`ManagedObject.dirtyIndex`, -1 when it is not in it), so adding and
  /// removing are a store or a swap with the last: one reference per object, and no hash table by
  /// identity.
  @exclusivity(unchecked) private(set) var dirty: ContiguousArray<ManagedObject> = []
  /// The origins of the changes since the last save (see ``OriginLedger``); started again when
  /// nothing is left to save.
  @exclusivity(unchecked) var origins = OriginLedger()
  #if OBSERVEDGRAPH_INVARIANTS
    private var fullChecks = FullCheckSchedule()
  #endif

  func noteDirty(_ object: ManagedObject) {
    guard object.dirtyIndex < 0 else { return }
    object.dirtyIndex = Int32(dirty.count)
    dirty.append(object)
  }

  /// An object inserted (or deleted and saved, and brought back by undo): flagged, and held until
  /// the save.
  func noteInserted(_ object: ManagedObject) {
    object.isInsertedFlag = true
    noteDirty(object)
  }

  /// An object deleted: flagged, and held until the save.
  func noteDeleted(_ object: ManagedObject) {
    object.isDeletedFlag = true
    noteDirty(object)
  }

  /// An object whose delete was undone: no longer flagged (it stays held while it has other
  /// changes; see ``forgetIfClean(_:)``).
  func noteUndeleted(_ object: ManagedObject) {
    object.isDeletedFlag = false
  }

  /// An object brought back from its snapshot by undo, as it left: deleted (its deletion was
  /// saved), or not (its insertion was undone).
  func noteLeft(_ object: ManagedObject, deleted: Bool) {
    object.isDeletedFlag = deleted
  }

  /// Drops an object's tracked changes (it turns into a fault with its committed values back),
  /// and stops holding it if nothing else is unsaved.
  func forgetChanges(of object: ManagedObject) {
    object.changes.removeAll()
    forgetIfClean(object)
  }

  /// Keeps `value` as the committed value of a slot tracked as changed: the store holds it now
  /// (a refresh that merges changes read it).
  func setCommittedValue(_ value: SnapshotValue, of object: ManagedObject, _ slot: Int) {
    assert(object.changes.contains(slot))
    object.changes.originals[slot] = value
  }

  /// Takes an object out of the list: the last one takes its place.
  private func removeDirty(_ object: ManagedObject) {
    let index = Int(object.dirtyIndex)
    guard index >= 0 else { return }
    object.dirtyIndex = -1
    let last = dirty.removeLast()
    if last !== object {
      dirty[index] = last
      last.dirtyIndex = Int32(index)
    }
    if dirty.isEmpty { origins.reset() }
  }

  /// Marks a slot changed, keeping its committed value the first time (for saved objects).
  func track(_ object: ManagedObject, _ slot: Int, original: () -> SnapshotValue) {
    guard !object.changes.contains(slot) else { return }
    if object.changes.isEmpty { noteDirty(object) }
    if !object.isInsertedFlag {
      object.changes.originals[slot] = original()
    }
    object.changes.insert(slot)
    object.retainMembers(ofSlot: slot)
  }

  /// Puts a slot's tracking back to a state recorded before (undo and redo).
  func restore(_ object: ManagedObject, _ slot: Int, to state: SlotTracking) {
    switch state {
    case .unchanged:
      object.changes.remove(slot)
    case .changed, .changedFrom:
      if object.changes.isEmpty { noteDirty(object) }
      object.changes.insert(slot)
      object.retainMembers(ofSlot: slot)
      if !object.isInsertedFlag, case .changedFrom(let original) = state {
        object.changes.originals[slot] = original
      }
    }
  }

  /// Tracks a slot an edit is about to store into; for a replayed change (undo or redo), from
  /// the tracking state its step recorded (`restoring`). Returns the committed value the slot
  /// must hold after the store to count as unchanged (see ``settle(_:_:committed:)``), or nil.
  ///
  /// When `restores` (the slot is still tracked as changed), the recorded state comes back, but
  /// with the committed value the slot has now: a save since the step was recorded makes the one
  /// the step kept stale. Otherwise the slot was saved since, and taking a change back is a new
  /// change from the saved state, tracked as one from `valueBefore`.
  func trackEdit(
    _ object: ManagedObject, _ slot: Int, restoring: SlotTracking?, restores: Bool,
    valueBefore: () -> SnapshotValue
  ) -> SnapshotValue? {
    guard restores, let restoring else {
      track(object, slot, original: valueBefore)
      return nil
    }
    let saved = object.changes.contains(slot) ? object.changes.original(slot) : valueBefore()
    restore(object, slot, to: restoring)
    if restoring == .unchanged { return saved }
    if let saved, !object.isInsertedFlag { object.changes.originals[slot] = saved }
    return nil
  }

  /// After a replayed change stored: a slot put back to unchanged that does not hold its
  /// committed value (a save came between the change and its undo or redo) stays a change.
  func settle(_ object: ManagedObject, _ property: Property, committed: SnapshotValue) {
    if !object.holds(committed, property) { track(object, property.slot) { committed } }
  }

  /// The tracking state of a slot now, to record with an undo step.
  func state(of object: ManagedObject, _ slot: Int) -> SlotTracking {
    guard object.changes.contains(slot) else { return .unchanged }
    guard let original = object.changes.original(slot) else { return .changed }
    return .changedFrom(original)
  }

  /// Drops a saved object that has nothing to save any more.
  func forgetIfClean(_ object: ManagedObject) {
    guard object.lifecycle == .registered, !object.isInsertedFlag, !object.isDeletedFlag,
      object.changes.isEmpty
    else { return }
    removeDirty(object)
  }

  /// Stops tracking an object that left the context (undo of its insert).
  func forget(_ object: ManagedObject) {
    object.changes.removeChangeOrigins()
    removeDirty(object)
  }

  /// The changes a save writes: inserted objects, updated ones with their changed persistent
  /// properties, and deleted ones that were saved before. An object inserted and deleted since the
  /// last save is in none of them.
  ///
  /// Each object change gets its origins (see ``OriginLedger``): an insert's or delete's, or
  /// those of the changes of the saved keys.
  func changeSet() -> ChangeSet {
    var set = ChangeSet()
    set.origin = origins.isMixed ? nil : origins.uniform
    for object in dirty where object.lifecycle == .registered {
      if object.isDeletedFlag {
        if !object.isInsertedFlag {
          set.deleted.append(object.objectID)
          noteOrigins(of: object, slots: [-1], in: &set)
        }
      } else if object.isInsertedFlag {
        set.inserted.append(object.objectID)
        noteOrigins(of: object, slots: [-1], in: &set)
      } else if !object.changes.isEmpty {
        let saved = object.changes.changedSlots.filter {
          object.entity.properties[$0].attribute?.isTransient != true
        }
        if !saved.isEmpty {
          set.updated.append((object.objectID, saved.map { object.entity.properties[$0].name }))
          noteOrigins(of: object, slots: saved, in: &set)
        }
      }
    }
    set.inserted.sort { $0.key < $1.key }
    set.deleted.sort { $0.key < $1.key }
    set.updated.sort { $0.object.key < $1.object.key }
    return set
  }

  /// Keeps the origins of `object`'s `slots` (-1: its insert or delete) in the change set, when
  /// the ledger is mixed.
  private func noteOrigins(of object: ManagedObject, slots: [Int], in set: inout ChangeSet) {
    guard origins.isMixed else { return }
    set.objectOrigins[object.objectID] = slots.reduce(into: []) {
      $0.formUnion(origins.origins(object.changes.changeOrigins($1)))
    }
  }

  /// After a successful save: every change is committed. Returns the deleted objects, which leave
  /// the context.
  func commit() -> [ManagedObject] {
    var leaving: [ManagedObject] = []
    for object in dirty {
      if object.isDeletedFlag { leaving.append(object) }
      object.isInsertedFlag = false
      object.changes.removeAll()
      object.dirtyIndex = -1
    }
    dirty.removeAll()
    origins.reset()
    return leaving
  }

  /// Forgets everything (reset).
  func discardAll() {
    for object in dirty { object.dirtyIndex = -1 }
    dirty.removeAll()
    origins.reset()
  }

  // MARK: Invariants

  /// After every mutation: each object it touched that has something to save is tracked
  /// (O(touched)); while full checks are on, every 64 mutations, a full scan.
  func checkAfterMutation(_ touched: [ManagedObject]) {
    #if OBSERVEDGRAPH_INVARIANTS
      for object in touched where object.lifecycle == .registered {
        let hasChanges = object.isInsertedFlag || object.isDeletedFlag || !object.changes.isEmpty
        precondition(
          !hasChanges || object.dirtyIndex >= 0,
          "\(object.objectID) has changes but is not tracked")
      }
      if fullChecks.isDue() { checkInvariants() }
    #endif
  }

  /// Every dirty object is registered or detached (an undone insert) and has something to save or
  /// was inserted; committed values are kept only for saved objects.
  func checkInvariants() {
    for (index, object) in dirty.enumerated() {
      precondition(
        Int(object.dirtyIndex) == index,
        "dirty \(object.objectID) is at \(index) but says \(object.dirtyIndex)")
      precondition(
        object.lifecycle == .registered || object.lifecycle == .detached,
        "dirty \(object.objectID) is \(object.lifecycle)")
      precondition(
        object.isInsertedFlag || object.isDeletedFlag || !object.changes.isEmpty,
        "dirty \(object.objectID) has nothing to save")
      precondition(
        !object.isInsertedFlag || object.changes.originals.isEmpty,
        "inserted \(object.objectID) keeps committed values")
    }
  }
}

/// The tracking state of one slot: unchanged since the last save, changed (an object never saved
/// has no committed value), or changed from a committed value.
enum SlotTracking: Hashable, Codable, Sendable {
  case unchanged
  case changed
  /// Out of line: most steps record `.unchanged` or `.changed`, so the large payload costs an
  /// allocation only where it is needed.
  indirect case changedFrom(SnapshotValue)
}

/// The changes a save writes, in key order.
struct ChangeSet: CustomStringConvertible {
  var inserted: [ObjectID] = []
  var updated: [(object: ObjectID, keys: [String])] = []
  var deleted: [ObjectID] = []
  /// The origin of every change, when they have one (nil when there is none, or several: then
  /// ``objectOrigins`` has each object change's).
  var origin: ChangeOrigin?
  /// The origins of each object change, when the changes have several.
  var objectOrigins: [ObjectID: Set<ChangeOrigin>] = [:]

  var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

  var description: String {
    "inserted \(inserted) updated \(updated.map { "\($0.object): \($0.keys.sorted())" }) "
      + "deleted \(deleted)"
  }
}
