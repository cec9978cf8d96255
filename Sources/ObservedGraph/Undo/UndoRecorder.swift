import Foundation
import UndoLog

/// Turns the changes the mutation path applies into ``GraphUndoStep`` values for the context's
/// undo log, and collects the objects an undo or redo restores so each gets
/// ``ManagedObject/awake(fromSnapshotEvents:)`` once it is over.
///
/// Planners hand the recorder their edits, before they apply, in the form they planned them; the
/// recorder alone chooses how the step that takes them back is encoded:
///
/// | Edits handed | Step |
/// |---|---|
/// | a plan of the full path (``record(_:in:waitingForBrackets:)``) | value changes (``RecordedChange``), one step, or joined to other brackets' |
/// | a quiet typed set (`Attribute.recordQuietSet`) | an entry of the open ``AttributeColumn``, a new column, or a value step when it cannot be an entry |
/// | one object of a quiet cascade delete or of its replay (``record(_:tracker:)``) | a ``DeletionColumn`` for the whole delete or replay |
final class UndoRecorder {
  /// The log, or nil: then nothing is recorded.
  @exclusivity(unchecked) private(set) var log: UndoLog?
  /// What the log holds (weakly) to find this context when it applies a step: not the context
  /// itself, whose reference counting a weak reference would move to the slow path.
  let participant: UndoParticipant
  private var subscription: UndoLog.EventSubscription?
  /// Whether an undo or redo of `log` is running: restored objects are being collected.
  @exclusivity(unchecked) private var isCollecting = false
  /// Objects restored by the running undo or redo, in the order they were first restored; each
  /// keeps its events (`ManagedObject.marks`).
  @exclusivity(unchecked) private var restored: [ManagedObject] = []
  /// Changes of manual brackets that closed while others are still open: they form one step with
  /// the changes of the last bracket to close.
  private var bracketChanges: [RecordedChange] = []
  /// The column quiet typed sets are recorded in (see ``AttributeColumn``), while its step is the
  /// newest of the log's open group, with the mark that lets that step grow.
  /// Read without retains on every recorded set: `openColumn` and `log` hold them.
  @exclusivity(unchecked) private var openColumn: AttributeColumn?
  @exclusivity(unchecked) private var openColumnReference: Unmanaged<AttributeColumn>?
  @exclusivity(unchecked) private var openMark: UndoLog.StepMark?
  @exclusivity(unchecked) private var logReference: Unmanaged<UndoLog>?
  /// The deletion column a quiet cascade delete, or the undo or redo of one, is recorded in while
  /// it applies (``record(_:tracker:)``).
  @exclusivity(unchecked) private var openDeletion: DeletionColumn?

  /// Whether the undo log tracks the origin in force (see ``ObjectContext/trackedOrigins``), or
  /// the log is a transaction's own, which records every origin: changes made now may be
  /// recorded. Kept by ``ObjectContext/originTrackingChanged()``.
  @exclusivity(unchecked) var recordsOriginInForce = true
  /// Whether the origin in force is one the context's undo log does not track: its changes are
  /// noted in the context's ``UntrackedChanges``. Kept by
  /// ``ObjectContext/originTrackingChanged()``.
  @exclusivity(unchecked) var notesUntracked = false

  /// Whether a change made now is recorded.
  @inline(__always)
  var isRecording: Bool { recordsOriginInForce && log?.isRegistrationEnabled ?? false }

  init(storeIdentifier: UUID) {
    participant = UndoParticipant(storeIdentifier: storeIdentifier)
  }

  /// Attaches a log (or none): the context joins its participants so the steps find it, and hears
  /// its undo and redo events.
  func attach(_ newLog: UndoLog?, to context: ObjectContext) {
    guard newLog !== log else { return }
    participant.context = newLog == nil ? nil : context
    subscription?.cancel()
    log?.removeParticipant(participant)
    log = newLog
    isCollecting = false
    forgetRestored()
    bracketChanges.removeAll()
    closeColumn()
    logReference = newLog.map { Unmanaged.passUnretained($0) }
    newLog?.addParticipant(participant)
    // Not captured weakly: a weak reference would move all of the recorder's reference counting to
    // the runtime's slow path. The subscription is the recorder's, and ends with it.
    subscription = newLog?.onEvent { [unowned(unsafe) self] event in self.logEvent(event) }
  }

  // MARK: Recording

  /// Records the inverse of a change's edits as one step, before they are applied and tracked.
  /// Edits that change nothing are left out; a change that changes nothing records nothing.
  ///
  /// A manual bracket's change waits while other brackets are still open: the changes of brackets
  /// that close together (typically both sides of a relationship set with primitive setters) form
  /// one step, so undo and redo restore them at once and both sides agree again.
  func record<Plan: EditSequence>(
    _ plan: Plan, in context: ObjectContext, waitingForBrackets: Bool = false
  ) {
    guard let log, log.isRegistrationEnabled else {
      // Nothing is recorded now: changes of brackets that closed before are not recorded either
      // (they would otherwise join an unrelated later step).
      if waitingForBrackets && context.brackets.isEmpty { bracketChanges.removeAll() }
      return
    }
    if plan.count == 1 && !waitingForBrackets {
      // One edit, one change: no list.
      guard plan[0].changes else { return }
      log.register(GraphUndoStep(change: inverse(of: plan[0], tracker: context.tracker)))
      return
    }
    var changes: [RecordedChange] = []
    for index in 0..<plan.count where plan[index].changes {
      changes.append(inverse(of: plan[index], tracker: context.tracker))
    }
    if waitingForBrackets {
      bracketChanges += changes
      guard context.brackets.isEmpty else { return }
      changes = bracketChanges
      bracketChanges.removeAll()
    }
    guard !changes.isEmpty else { return }
    log.register(GraphUndoStep(changes: changes))
  }

  /// Records what takes back the edits of one object of a deletion column, before they apply:
  /// the tracking state of each link's slot. A quiet cascade delete's edits are recorded in the
  /// column they were planned into, which becomes the step; an undo's or redo's of a column, in
  /// the opposite column over the same objects and links (``DeletionColumn/init(opposite:)``).
  /// The step is registered when the delete or replay ends (``endDeletion()``); nothing is
  /// recorded while the log records nothing.
  @inline(__always)
  func record(_ edits: ColumnEdits, tracker: ChangeTracker) {
    if isRecording { recordWhileRecording(edits, tracker: tracker) }
  }

  /// ``record(_:tracker:)`` while the log records.
  private func recordWhileRecording(_ edits: ColumnEdits, tracker: ChangeTracker) {
    let step: DeletionColumn
    if let open = openDeletion {
      step = open
    } else {
      let column = edits.column.takeUnretainedValue()
      step = edits.isReplay ? DeletionColumn(opposite: column) : column
      step.markRecorded()
      openDeletion = step
    }
    let links = edits.links
    for index in edits.linkIndexes {
      step.noteBefore(
        tracker.state(of: links[index].object, Int(links[index].slot)), ofLink: index)
    }
  }

  /// Registers the step of the deletion column recorded since the delete or replay began, if any
  /// (``record(_:tracker:)``).
  func endDeletion() {
    guard let step = openDeletion else { return }
    openDeletion = nil
    guard let log, log.isRegistrationEnabled, !step.isEmpty else { return }
    log.register(GraphUndoStep(deletion: step))
  }

  /// Adds the entry of a quiet set of `object`'s `slot` to the open column, when it holds values
  /// of the set's type and its step may still grow; the caller adds the old value. Nil when the
  /// set needs a new column (``startColumn(_:_:slot:)``).
  @inline(__always)
  func growColumn(_ object: ManagedObject, slot: Int, valueType: ObjectIdentifier)
    -> Unmanaged<AttributeColumn>?
  {
    guard let mark = openMark, let reference = openColumnReference, let log = logReference,
      AttributeColumn.fits(object, slot)
    else { return nil }
    return reference._withUnsafeGuaranteedRef { column in
      guard column.valueType == valueType else { return nil }
      guard let entity = column.index(of: object.entity),
        log._withUnsafeGuaranteedRef({ $0.growNewestStep(by: column.entryByteSize, at: mark) })
      else {
        closeColumn()
        return nil
      }
      column.appendEntry(object, slot, entity: entity)
      return reference
    }
  }

  /// Records a new column holding the entry of a quiet set of `object`'s `slot`, its old value
  /// already added, and keeps it open for the next quiet sets. A set that cannot be an entry
  /// (``AttributeColumn/fits(_:_:)``) is recorded as a step of its own.
  func startColumn(_ column: AttributeColumn, _ object: ManagedObject, slot: Int) {
    closeColumn()
    guard let log, log.isRegistrationEnabled else { return }
    guard AttributeColumn.fits(object, slot), let entity = column.index(of: object.entity) else {
      let change = column.change(of: object.objectID, object.entity, slot, valueAt: 0)
      log.register(GraphUndoStep(change: change))
      return
    }
    column.storeIdentifier = participant.storeIdentifier
    column.appendEntry(object, slot, entity: entity)
    guard let mark = log.registerGrowable(GraphUndoStep(column: column)) else { return }
    openColumn = column
    openColumnReference = Unmanaged.passUnretained(column)
    openMark = mark
  }

  /// Stops growing the open column: the next quiet set starts a new one.
  private func closeColumn() {
    openMark = nil
    openColumnReference = nil
    openColumn = nil
  }

  /// The change that takes `planned` back, with the slot's tracking state before it.
  private func inverse(of planned: PlannedEdit, tracker: ChangeTracker) -> RecordedChange {
    let object = planned.object
    guard let property = planned.property else {
      guard case .lifecycle(let change) = planned.edit.change else {
        preconditionFailure("ObservedGraph: an edit without a property is a lifecycle change")
      }
      let inverse = change.inverse
      let keepsValues = inverse == .insert || inverse == .undelete
      return .lifecycle(
        object.objectID, inverse, snapshot: keepsValues ? object.attributeSnapshot() : nil)
    }
    let before = tracker.state(of: object, property.slot)
    switch planned.edit.change {
    case .set:
      let old = planned.edit.old
      if property.isRelationship {
        let old = old.map { heldReference($0, as: ManagedObject.self).objectID }
        return .toOne(object.objectID, slot: property.slot, value: old, before: before)
      }
      return .attribute(
        object.objectID, slot: property.slot, value: property.storedValue(of: old), before: before)
    case .insert(let objects, let indexes):
      return .remove(
        object.objectID, slot: property.slot, members: objects.map(\.objectID), indexes: indexes,
        before: before)
    case .remove(let objects, let indexes):
      return .insert(
        object.objectID, slot: property.slot, members: objects.map(\.objectID), indexes: indexes,
        before: before)
    case .replace(let old, _):
      return .replace(
        object.objectID, slot: property.slot, members: old.map(\.objectID), before: before)
    case .lifecycle:
      preconditionFailure("ObservedGraph: a lifecycle change has no property")
    }
  }

  /// Called by `processPendingChanges()`: the end of one user event, so of one undo group.
  func closeEvent() {
    log?.markEventBoundary()
  }

  /// Called after the context forgot all objects: their steps go too.
  func didReset() {
    closeColumn()
    log?.removeAllActions()
    forgetRestored()
    bracketChanges.removeAll()
  }

  // MARK: Snapshot events

  /// Remembers that undo or redo restored the object, to call its
  /// ``ManagedObject/awake(fromSnapshotEvents:)`` when the undo or redo is over.
  func noteRestored(_ object: ManagedObject, _ events: SnapshotEvents) {
    guard isCollecting else {
      // Applied outside an undo or redo of this log: nothing will flush, tell it now.
      object.awake(fromSnapshotEvents: events)
      return
    }
    // The events are kept in the object: no table by identity.
    assert(
      events.rawValue & ~UInt(ManagedObject.restoredEventBits) == 0,
      "ObservedGraph: snapshot events fit in bits 1-5")
    let marks = object.marks
    let next = marks | ManagedObject.restoredMark | UInt8(truncatingIfNeeded: events.rawValue)
    // Most restorations are updates of an object already noted for one.
    guard next != marks else { return }
    if marks & ManagedObject.restoredMark == 0 { restored.append(object) }
    object.marks = next
  }

  /// Whether an undo, a redo, a rollback or a refresh is collecting the objects it restores.
  var isCollectingRestored: Bool { isCollecting }

  /// Runs `body` (a rollback or a refresh, replayed by the mutation path) collecting the objects
  /// it restores, then tells each once with `events` in place of the undo events the path notes.
  func collectingRestored(reporting events: SnapshotEvents, _ body: () -> Void) {
    let wasCollecting = isCollecting
    isCollecting = true
    body()
    isCollecting = wasCollecting
    let objects = restored
    forgetRestored()
    for object in objects { object.awake(fromSnapshotEvents: events) }
  }

  /// The events noted for `object` by the running undo or redo.
  private func notedEvents(of object: ManagedObject) -> SnapshotEvents {
    SnapshotEvents(rawValue: UInt(object.marks & ManagedObject.restoredEventBits))
  }

  /// Forgets the objects noted as restored, and their events.
  private func forgetRestored() {
    let kept = ~(ManagedObject.restoredMark | ManagedObject.restoredEventBits)
    for object in restored { object.marks &= kept }
    restored.removeAll()
  }

  private func logEvent(_ event: UndoLog.Event) {
    switch event {
    case .willUndo, .willRedo:
      isCollecting = true
      participant.context?.beginReplayOrigin(event == .willUndo ? .undo : .redo)
    case .didUndo, .didRedo:
      isCollecting = false
      // What restored objects change when they are told is part of the undo or redo.
      defer { participant.context?.endReplayOrigin() }
      let objects = restored
      let events = objects.map(notedEvents(of:))
      forgetRestored()
      guard !objects.isEmpty, let log else { return }
      log.disableRegistration()
      for (object, events) in zip(objects, events) {
        object.awake(fromSnapshotEvents: events)
      }
      try? log.enableRegistration()
    default:
      break
    }
  }

  // MARK: Invariants

  /// After every mutation: restored objects are collected only during an undo or redo, and the
  /// newest one has its mark (O(1)); while full checks are on, every restored one has its mark.
  func checkAfterMutation() {
    precondition(isCollecting || restored.isEmpty, "restored objects collected outside an undo")
    precondition(
      restored.last.map { $0.marks & ManagedObject.restoredMark != 0 } ?? true,
      "a restored object lost its mark")
    openColumn?.checkInvariants()
    if FullChecks.isOn { checkInvariants() }
  }

  /// Restored objects are collected only during an undo or redo, and each has its mark.
  /// - Complexity: O(objects restored by the running undo or redo).
  func checkInvariants() {
    precondition(isCollecting || restored.isEmpty, "restored objects collected outside an undo")
    precondition(
      restored.allSatisfy { $0.marks & ManagedObject.restoredMark != 0 },
      "a restored object lost its mark")
    openColumn?.checkInvariants()
  }
}

/// A context as the participants of its undo log know it: the log finds a step's context by the
/// store the step names. Cleared when the context goes away.
final class UndoParticipant {
  let storeIdentifier: UUID
  unowned(unsafe) var context: ObjectContext?

  init(storeIdentifier: UUID) {
    self.storeIdentifier = storeIdentifier
  }
}
