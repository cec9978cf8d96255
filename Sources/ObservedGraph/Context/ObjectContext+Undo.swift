import UndoLog

/// Undo integration.
///
/// Recording: `perform(_:)` calls ``recordUndo(of:)`` with the edits of one user-level change just
/// before it applies them, so one ``GraphStep`` holds the inverse of the whole change (the change
/// and all its inverse upkeep or delete-rule work) together with each slot's change-tracking state
/// before the change. Lifecycle changes (insert, delete) are steps of their own. Everything one
/// user event does lands in the log's event group, closed by `processPendingChanges()`.
///
/// Replaying: a step applies its inverse edits through `perform(_:)` in one go, so observers hear
/// ordinary changes with both sides of every relationship in agreement, and `perform` records the
/// redo step as it records any change (while undoing, the log files it on the redo stack); the
/// step itself returns ``EmptyUndoStep``. Then the step puts each slot's change-tracking state back
/// as it was before the change, so flags and `changedValues()` equal the before-state exactly.
/// Restored objects are collected during the undo or redo and get
/// ``ManagedObject/awake(fromSnapshotEvents:)`` once each when the log reports `didUndo` or
/// `didRedo`.
extension ObjectContext {
  /// The undo log that records every change made through the context, or `nil` (the default) to
  /// record nothing.
  ///
  /// Attribute sets, relationship changes (both sides together), inserts, deletes (with everything
  /// their delete rules did) and manual `willChangeValue`/`didChangeValue` brackets are recorded.
  /// Everything between two ``processPendingChanges()`` calls is one undo group. Primitive sets
  /// outside a bracket, sets of an equal value, denied deletes and anything done while the log's
  /// registration is disabled record nothing. ``reset()`` empties the log.
  ///
  /// Undo and redo restore values, both sides of every relationship (with the order of ordered
  /// ones), inserted and deleted objects, and the change-tracking state (`isInserted`, `isUpdated`,
  /// `isDeleted`, `hasChanges`, `changedValues()`); observers hear them as ordinary changes.
  ///
  /// ```swift
  /// context.undoLog = UndoLog()
  /// book.title = "Dune"
  /// context.processPendingChanges()   // the user event ends: one undo group
  /// try context.undoLog?.undo()       // book.title is back, book.hasChanges as before
  /// try context.undoLog?.redo()       // book.title == "Dune"
  /// ```
  ///
  /// The log is not retained by anything else; several contexts may share one log.
  public var undoLog: UndoLog? {
    get { undo.log }
    set {
      guard newValue !== undo.log else { return }
      undo.subscription?.cancel()
      undo = UndoState()
      undo.log = newValue
      undo.subscription = newValue?.onEvent { [weak self] event in
        self?.undoLogEvent(event)
      }
    }
  }

  // MARK: Recording

  /// Records the undo of the edits of one user-level change, before they are applied and tracked.
  ///
  /// Edits that change nothing are left out; a change that changes nothing records nothing.
  func recordUndo(of edits: [Edit]) {
    guard let log = undo.log, log.isRegistrationEnabled else { return }
    if edits.count == 1, undo.passedVictims == nil, !edits[0].object.isDeletedFlag {
      recordUndo(ofOne: edits[0], in: log)
      return
    }
    let recorded = edits.filter(\.changes).map(RecordedEdit.init)
    guard !recorded.isEmpty else { return }
    // A delete flags its victims before emptying their relationships (no-action partners keep
    // pointing at them, which only a deleted object may have); replaying the emptying must do
    // the same. Restoring needs nothing: the undelete step runs first.
    if let passed = undo.passedVictims {
      undo.passedVictims = nil
      log.register(GraphStep(.edits(recorded, victims: passed, flagVictimsFirst: true)))
      return
    }
    var victims: [ManagedObject] = []
    for entry in recorded where entry.inverse.object.isDeletedFlag {
      if !victims.contains(where: { $0 === entry.inverse.object }) {
        victims.append(entry.inverse.object)
      }
    }
    log.register(GraphStep(.edits(recorded, victims: victims, flagVictimsFirst: false)))
  }

  /// Records the undo of a single edit of a live object, before it is applied and tracked.
  func recordUndo(ofOne edit: Edit, in log: UndoLog) {
    guard edit.changes else { return }
    // Benchmark rows "same with undo recording on" and "undo, redo of 1M attribute steps": an
    // attribute set that needs no committed value kept gets the compact step.
    if case .set(let object, let property, let old, _, _) = edit, property.attribute != nil {
      let wasChanged = object.changes.contains(property.slot)
      if object.isInsertedFlag || !wasChanged {
        log.register(
          AttributeStep(
            object: object, value: old, slot: Int32(property.slot), wasChanged: wasChanged))
        return
      }
    }
    log.register(GraphStep(.edit(RecordedEdit(edit))))
  }

  /// Records the undo of a manual bracket's change, before it is tracked.
  ///
  /// While other brackets are still open the change waits: the changes of brackets that close
  /// together (typically both sides of a relationship set with primitive setters) form one step,
  /// so undo and redo restore them at once and both sides agree again.
  func recordUndo(ofBracketed edit: Edit) {
    guard let log = undo.log, log.isRegistrationEnabled, edit.changes else { return }
    undo.bracketEdits.append(RecordedEdit(edit))
    guard brackets.isEmpty else { return }
    let recorded = undo.bracketEdits
    undo.bracketEdits.removeAll()
    if recorded.count == 1 {
      log.register(GraphStep(.edit(recorded[0])))
    } else {
      log.register(GraphStep(.edits(recorded, victims: [], flagVictimsFirst: false)))
    }
  }

  /// Records the lifecycle change that undoes one.
  func recordUndo(lifecycle inverse: LifecycleChange, of object: ManagedObject) {
    guard let log = undo.log, log.isRegistrationEnabled else { return }
    log.register(GraphStep(.lifecycle(inverse, object)))
  }

  /// Called after the context forgot all objects: their steps go too.
  func didReset() {
    undo.log?.removeAllActions()
    undo.restored.removeAll()
    undo.restoredEvents.removeAll()
    undo.bracketEdits.removeAll()
  }

  /// Called by `processPendingChanges()`: the end of one user event, so of one undo group.
  func closeUndoEvent() {
    undo.log?.markEventBoundary()
  }

  // MARK: Replaying

  /// Applies the inverse edits of one recorded change (given in the order they were recorded) and
  /// puts back the change-tracking state of each slot.
  func replay(
    _ recorded: some BidirectionalCollection<RecordedEdit>, victims: [ManagedObject] = [],
    flagVictimsFirst: Bool = false
  ) {
    if recorded.count == 1, victims.isEmpty, let entry = recorded.first,
      case .set(let object, let property, _, let new, _) = entry.inverse, property.attribute != nil
    {
      replayAttribute(object, property, new, before: entry.before)
      return
    }
    var edits: [Edit] = []
    edits.reserveCapacity(recorded.count)
    var restores: [RecordedEdit] = []
    var seen: Set<BracketKey> = []
    for entry in recorded.reversed() {
      let inverse = entry.inverse
      let fresh =
        recorded.count == 1
        || seen.insert(
          BracketKey(object: ObjectIdentifier(inverse.object), slot: inverse.property.slot)
        )
        .inserted
      guard let edit = replayable(inverse, fresh: fresh) else { continue }
      edits.append(edit)
      // A slot that is not tracked as changed any more was saved since: the edit is a new change
      // from the saved state, and the mutation path tracks it as one.
      if edit.object.changes.contains(edit.property.slot) {
        restores.append(entry)
      }
    }
    guard !edits.isEmpty else { return }
    if flagVictimsFirst {
      for victim in victims where owns(victim) { victim.isDeletedFlag = true }
    } else if !victims.isEmpty {
      undo.passedVictims = victims
    }
    perform(edits)
    undo.passedVictims = nil
    for entry in restores {
      entry.before.restore(entry.inverse.object, entry.inverse.property.slot)
    }
    for edit in edits {
      forgetIfClean(edit.object)
      noteRestored(edit.object, .undoUpdate)
    }
  }

  /// Replays one attribute set through the attribute path (benchmark row "undo, redo of 1M
  /// attribute steps"): no edit list, no delivery phases when nobody listens.
  func replayAttribute(
    _ object: ManagedObject, _ property: Property, _ new: Any?, before: SlotState
  ) {
    guard owns(object) else { return }
    // Coalescing keeps the oldest step of a run, so the value to take back is the current one.
    let current = object.storage[property.slot]
    guard property.differs(current, new) else { return }
    // A slot not tracked as changed any more was saved since: this is a new change from the saved
    // state, and the mutation path tracks it as one.
    let restore = object.changes.contains(property.slot)
    setAttribute(object, property, old: current, new: new, changes: true)
    if restore { before.restore(object, property.slot) }
    forgetIfClean(object)
    noteRestored(object, .undoUpdate)
  }

  /// Applies a recorded lifecycle change.
  func replay(_ change: LifecycleChange, of object: ManagedObject) {
    guard owns(object) else { return }
    var change = change
    if change == .uninsert && !object.isInsertedFlag {
      // Saved since it was inserted: taking the insertion back now deletes a saved object.
      change = .delete
    }
    applyLifecycle(change, to: object)
    forgetIfClean(object)
    switch change {
    case .uninsert, .delete: noteRestored(object, .undoInsertion)
    case .insert, .undelete: noteRestored(object, .undoDeletion)
    }
  }

  /// The edit to apply for a recorded inverse, without members that are no longer usable (objects
  /// a save or reset cut loose) or already present (after unrecorded primitive sets); nil when
  /// nothing is left to do.
  ///
  /// When `fresh` (no earlier edit of this replay touched the slot), the old value is read from
  /// storage rather than taken from the record: coalescing keeps the oldest step of a run, whose
  /// recorded old value is the first of the run, not the current one.
  private func replayable(_ edit: Edit, fresh: Bool) -> Edit? {
    guard owns(edit.object) else { return nil }
    switch edit {
    case .set(let object, let property, _, let new, _):
      if property.isRelationship, let new = new.map({ $0 as AnyObject }),
        !owns(unsafeDowncast(new, to: ManagedObject.self))
      {
        return nil
      }
      guard fresh else { return edit }
      let current = object.storage[property.slot]
      guard property.differs(current, new) else { return nil }
      return .set(object, property, old: current, new: new, changes: true)
    case .insert(let owner, let property, let objects, let indexes):
      let collection = owner.collection(property)
      var kept: [ManagedObject] = []
      var keptIndexes: [Int] = []
      for (offset, member) in objects.enumerated()
      where owns(member) && collection?.contains(member) != true {
        kept.append(member)
        if offset < indexes.count { keptIndexes.append(indexes[offset]) }
      }
      guard !kept.isEmpty else { return nil }
      return .insert(owner, property, objects: kept, indexes: keptIndexes)
    case .remove(let owner, let property, let objects, _):
      guard let collection = owner.collection(property),
        objects.contains(where: collection.contains)
      else { return nil }
      return edit
    case .replace(let owner, let property, let old, let new):
      let kept = new.filter(owns)
      let result = Edit.replace(
        owner, property, old: fresh ? owner.members(property) : old, new: kept)
      return result.changes ? result : nil
    }
  }

  /// Whether the object belongs to this context and is registered or waiting for a redo.
  private func owns(_ object: ManagedObject) -> Bool {
    object._context === self
      && (object.lifecycle == .registered || object.lifecycle == .unregistered)
  }

  /// Drops a saved object that has nothing to save any more from the dirty set.
  private func forgetIfClean(_ object: ManagedObject) {
    guard object.lifecycle == .registered, !object.isInsertedFlag, !object.isDeletedFlag,
      object.changes.isEmpty
    else { return }
    dirty[ObjectIdentifier(object)] = nil
  }

  // MARK: Snapshot events

  /// Remembers that undo or redo restored the object, to call its
  /// ``ManagedObject/awake(fromSnapshotEvents:)`` when the undo or redo is over.
  private func noteRestored(_ object: ManagedObject, _ events: SnapshotEvents) {
    guard undo.isCollecting else {
      // Applied outside an undo or redo of this context's log: nothing will flush, tell it now.
      object.awake(fromSnapshotEvents: events)
      return
    }
    let id = ObjectIdentifier(object)
    if let known = undo.restoredEvents[id] {
      undo.restoredEvents[id] = known.union(events)
    } else {
      undo.restoredEvents[id] = events
      undo.restored.append(object)
    }
  }

  private func undoLogEvent(_ event: UndoLog.Event) {
    switch event {
    case .willUndo, .willRedo:
      undo.isCollecting = true
    case .didUndo, .didRedo:
      undo.isCollecting = false
      let objects = undo.restored
      let events = undo.restoredEvents
      undo.restored.removeAll()
      undo.restoredEvents.removeAll()
      guard !objects.isEmpty, let log = undo.log else { return }
      log.disableRegistration()
      for object in objects {
        object.awake(fromSnapshotEvents: events[ObjectIdentifier(object)] ?? [])
      }
      try? log.enableRegistration()
    default:
      break
    }
  }

  // MARK: State

  /// The context's undo log and the state of an undo or redo in progress.
  struct UndoState {
    var log: UndoLog?
    var subscription: UndoLog.EventSubscription?
    /// Whether an undo or redo of `log` is running: restored objects are being collected.
    var isCollecting = false
    /// Objects restored by the running undo or redo, in the order they were first restored.
    var restored: [ManagedObject] = []
    var restoredEvents: [ObjectIdentifier: SnapshotEvents] = [:]
    /// The victims of a delete whose relationships are being restored: the redo step recorded
    /// now must flag them deleted before emptying their relationships again.
    var passedVictims: [ManagedObject]?
    /// Changes of manual brackets that closed while others are still open.
    var bracketEdits: [RecordedEdit] = []
  }
}

// MARK: - Steps

/// Whether a slot was tracked as changed, and with which committed value, before a change.
enum SlotState {
  /// The slot was not changed since the object was inserted or saved.
  case unchanged
  /// The slot was changed; `original` is its committed value (nil for never-saved objects).
  case changed(original: Any?)

  init(_ object: ManagedObject, _ slot: Int) {
    if object.changes.contains(slot) {
      self = .changed(original: object.changes.originals[slot] ?? nil)
    } else {
      self = .unchanged
    }
  }

  /// Puts the slot's tracking back to this state.
  func restore(_ object: ManagedObject, _ slot: Int) {
    switch self {
    case .unchanged:
      object.changes.remove(slot)
    case .changed(let original):
      object.changes.insert(slot)
      if !object.isInsertedFlag {
        object.changes.originals[slot] = .some(original)
      }
    }
  }
}

/// The inverse of one edit and the tracking state its slot had before the edit.
struct RecordedEdit {
  let inverse: Edit
  let before: SlotState

  init(_ edit: Edit) {
    inverse = edit.inverse
    before = SlotState(edit.object, edit.property.slot)
  }

  /// The bytes the edit's arrays hold.
  var payloadSize: Int {
    let word = MemoryLayout<Int>.stride
    switch inverse {
    case .set: return 0
    case .insert(_, _, let objects, let indexes), .remove(_, _, let objects, let indexes):
      return (objects.count + indexes.count) * word
    case .replace(_, _, let old, let new):
      return (old.count + new.count) * word
    }
  }
}

/// One undo step of an object graph: the inverse of one user-level change, or of one insert or
/// delete of an object.
struct GraphStep: UndoStep {
  enum Payload {
    /// A change of one slot (the common case: an attribute set).
    case edit(RecordedEdit)
    /// A change of several slots: a relationship change with its inverse upkeep, or the
    /// relationships a delete emptied. `victims` are the objects being deleted by the change;
    /// `flagVictimsFirst` when replaying empties their relationships (a redo of the delete).
    case edits([RecordedEdit], victims: [ManagedObject], flagVictimsFirst: Bool)
    /// An object joins or leaves the context, or its deletion is marked or taken back.
    case lifecycle(ObjectContext.LifecycleChange, ManagedObject)
  }

  let payload: Payload

  init(_ payload: Payload) {
    self.payload = payload
  }

  /// Applies the step through the context's mutation path, which records the inverse (the redo
  /// step while undoing, the undo step while redoing) like any change; so it returns nothing.
  mutating func apply() -> any UndoStep {
    switch payload {
    case .edit(let recorded):
      recorded.inverse.object.context?.replay(CollectionOfOne(recorded))
    case .edits(let recorded, let victims, let flagVictimsFirst):
      recorded.first?.inverse.object.context?.replay(
        recorded, victims: victims, flagVictimsFirst: flagVictimsFirst)
    case .lifecycle(let change, let object):
      object.context?.replay(change, of: object)
    }
    return EmptyUndoStep()
  }

  /// The object the user-level change was made to.
  var target: AnyObject? {
    switch payload {
    case .edit(let recorded): return recorded.inverse.object
    case .edits(let recorded, _, _): return recorded.first?.inverse.object
    case .lifecycle(_, let object): return object
    }
  }

  /// For attribute sets, the object and the attribute's slot: typing into one field coalesces.
  var coalescingKey: UndoCoalescingKey? {
    guard case .edit(let recorded) = payload,
      case .set(let object, let property, _, _, _) =
        recorded.inverse, property.attribute != nil
    else { return nil }
    return UndoCoalescingKey(object: ObjectIdentifier(object), key: property.slot)
  }

  /// The step itself plus the arrays it holds.
  var byteSize: Int {
    switch payload {
    case .edit(let recorded):
      return MemoryLayout<Self>.size + recorded.payloadSize
    case .edits(let recorded, let victims, _):
      return MemoryLayout<Self>.size + recorded.count * MemoryLayout<RecordedEdit>.stride
        + recorded.reduce(0) { $0 + $1.payloadSize } + victims.count * MemoryLayout<Int>.stride
    case .lifecycle:
      return MemoryLayout<Self>.size
    }
  }
}

/// The undo step of one attribute set whose slot needs no committed value kept (the object was never
/// saved, or the slot was unchanged before the set): the object, the value to put back, the slot
/// and whether it was tracked as changed. Smaller and cheaper than a ``GraphStep``.
struct AttributeStep: UndoStep {
  let object: ManagedObject
  let value: Any?
  let slot: Int32
  let wasChanged: Bool

  /// Puts the value back through the attribute path, which records the opposite step.
  mutating func apply() -> any UndoStep {
    if let context = object.context {
      context.replayAttribute(
        object, object.entity.properties[Int(slot)], value,
        before: wasChanged ? .changed(original: nil) : .unchanged)
    }
    return EmptyUndoStep()
  }

  /// The object set.
  var target: AnyObject? { object }

  /// Typing into one field coalesces.
  var coalescingKey: UndoCoalescingKey? {
    UndoCoalescingKey(object: ObjectIdentifier(object), key: Int(slot))
  }

  /// The step itself.
  var byteSize: Int { MemoryLayout<Self>.size }
}
