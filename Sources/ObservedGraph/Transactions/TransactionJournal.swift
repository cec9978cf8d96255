import UndoLog

/// What a context's open transaction changed, for the delivery at its commit: the part that holds
/// every change back from those outside the library while a transaction's body runs.
///
/// The context has a journal exactly while a transaction's body runs, or while its changes are
/// being taken back (``ObjectContext/journal``). Meanwhile:
/// - every change takes the whole mutation path (the journal is a member of every change's
///   audience, ``Audience/transaction``), so every edit is recorded in the undo group the
///   transaction opened, which a throw replays backwards;
/// - the one apply notes, before the first edit of each (object, slot) stores, the value the slot
///   had: ``noteBefore(_:)``; and of each object whose lifecycle changes, whether it was live;
/// - announce and deliver call only the internal links of key-path observations, which re-bind at
///   once; a key-path observation that hears a change holds its delivery here (``notePath(_:)``);
/// - Swift Observation's registrar hears nothing, and objects-did-change is not posted.
///
/// At the commit of the outermost transaction the context reads the notes, in the order each
/// (object, slot) first changed, to deliver each key once (ObjectContext+Transaction.swift).
/// Nested transactions are savepoints: ``mark()`` before the body, ``rollBack(to:)`` when the
/// body throws forgets what the savepoint noted.
final class TransactionJournal {
  /// One noted change: a slot of an object, an object's lifecycle, or a key-path observation's
  /// held delivery.
  struct Note {
    enum Subject {
      /// A slot's value before the transaction changed it: an attribute's held value, a to-one's
      /// object, or a to-many's members in order.
      case slot(Property, before: Any?)
      /// Whether the object was live (registered, not deleted) before the transaction, and
      /// whether it was registered and deleted (a delete not yet saved).
      case lifecycle(wasLive: Bool, wasDeleted: Bool)
      /// A key-path or dependent-key observation that holds its delivery for the commit.
      case path(PathObservation)
    }
    /// The object changed; nil for a key-path observation.
    let object: ManagedObject?
    let subject: Subject
    /// Whether observers of the slot hear its changes: some edit of it was a manual bracket's,
    /// or the entity notifies observers of the key automatically.
    var announces: Bool
  }

  /// The notes, in the order each was first noted.
  private(set) var notes: [Note] = []
  /// The position of the note of each (object, slot); slot -1 for the object's lifecycle.
  private var positions: [SlotKey: Int] = [:]
  /// How many lifecycle notes there are: without any, no object's lifecycle is looked up.
  private var lifecycleCount = 0
  /// The hooks of ``ObjectContext/afterTransaction(onCommit:onRollback:)``, in the order they
  /// were added; `thrown` for one added in a nested transaction that threw.
  private var hooks: [(onCommit: (() -> Void)?, onRollback: (() -> Void)?, thrown: Bool)] = []
  /// The undo logs that refuse undo and redo while the body runs.
  let refusingLogs: [UndoLog]
  /// The transaction's origin: every change it makes carries it.
  let origin: ChangeOrigin

  init(origin: ChangeOrigin, refusing logs: [UndoLog]) {
    self.origin = origin
    refusingLogs = logs
    let refusal = ObjectGraphError(
      .transactionInProgress, entity: "", reason: "undo and redo wait until the transaction ends")
    for log in logs { log.beginRefusingUndo(throwing: refusal) }
  }

  /// Ends the refusals of undo and redo (the journal is about to be dropped).
  func close() {
    for log in refusingLogs { log.endRefusingUndo() }
  }

  // MARK: Noting

  /// Notes the value each edit's slot holds before it is stored, the first time the slot is
  /// edited in the transaction; for a lifecycle edit, the object's state before it. Edits that
  /// storage already holds (a manual bracket's) were noted at the bracket's open.
  func noteBefore<Edits: AppliedEdits>(_ edits: Edits) {
    for position in 0..<edits.count where !edits.isStored(at: position) {
      let object = edits.object(at: position).takeUnretainedValue()
      let slot = edits.slot(at: position)
      if slot < 0 {
        noteLifecycle(of: object)
      } else {
        noteSlot(
          object, object.entity.properties[slot], isManual: edits.isManual(at: position))
      }
    }
  }

  /// Notes `property`'s value on `object` before its first edit in the transaction.
  func noteSlot(_ object: ManagedObject, _ property: Property, isManual: Bool) {
    let announces = isManual || object.entity.notifiesAutomatically[property.slot]
    let key = SlotKey(object, property.slot)
    if let position = positions[key] {
      if announces { notes[position].announces = true }
      return
    }
    let before: Any?
    if property.isToMany {
      before = object.members(property)
    } else if property.isRelationship {
      before = object.toOne(property)
    } else {
      before = object.read(property.slot, tracking: false)
    }
    append(
      key, Note(object: object, subject: .slot(property, before: before), announces: announces))
  }

  private func noteLifecycle(of object: ManagedObject) {
    let key = SlotKey(object, -1)
    guard positions[key] == nil else { return }
    let wasDeleted = object.lifecycle == .registered && object.isDeletedFlag
    lifecycleCount += 1
    append(
      key,
      Note(
        object: object, subject: .lifecycle(wasLive: object.isLive, wasDeleted: wasDeleted),
        announces: true))
  }

  private func append(_ key: SlotKey, _ note: Note) {
    positions[key] = notes.count
    notes.append(note)
  }

  /// Holds `observation`'s delivery for the commit (it calls this once per transaction, when it
  /// first hears a change).
  func notePath(_ observation: PathObservation) {
    notes.append(Note(object: nil, subject: .path(observation), announces: true))
  }

  /// Whether the transaction changed `object` (a value, a relationship or its lifecycle).
  /// - Complexity: O(notes): asked only by a refresh in a transaction's body.
  func changed(_ object: ManagedObject) -> Bool {
    let id = ObjectIdentifier(object)
    return positions.keys.contains { $0.object == id }
  }

  /// The lifecycle note of `object`, if its lifecycle changed in the transaction.
  func lifecycleBefore(of object: ManagedObject) -> (wasLive: Bool, wasDeleted: Bool)? {
    guard lifecycleCount > 0, let position = positions[SlotKey(object, -1)],
      case .lifecycle(let wasLive, let wasDeleted) = notes[position].subject
    else { return nil }
    return (wasLive, wasDeleted)
  }

  // MARK: Hooks

  func addHooks(onCommit: (() -> Void)?, onRollback: (() -> Void)?) {
    hooks.append((onCommit, onRollback, false))
  }

  /// The hooks to run once the outermost transaction ended, in the order they were added: when
  /// it committed, each one's commit hook, or its rollback hook for one added in a nested
  /// transaction that threw; when it threw, each one's rollback hook.
  func hooksToRun(committed: Bool) -> [() -> Void] {
    hooks.compactMap { committed && !$0.thrown ? $0.onCommit : $0.onRollback }
  }

  // MARK: Savepoints

  /// Where a nested transaction starts.
  struct Mark {
    fileprivate let notes: Int
    fileprivate let hooks: Int
  }

  func mark() -> Mark {
    Mark(notes: notes.count, hooks: hooks.count)
  }

  /// A nested transaction threw and its changes were taken back: what it noted is forgotten (the
  /// slots it first changed hold their values from before it again), key-path observations that
  /// first heard a change in it let go of their held delivery, and its hooks count as thrown:
  /// their rollback hooks run when the outermost transaction ends, whichever way.
  func rollBack(to mark: Mark) {
    for note in notes[mark.notes...] {
      switch note.subject {
      case .path(let observation):
        observation.dropHeldDelivery()
      case .slot(let property, _):
        positions[SlotKey(note.object!, property.slot)] = nil
      case .lifecycle:
        positions[SlotKey(note.object!, -1)] = nil
        lifecycleCount -= 1
      }
    }
    notes.removeSubrange(mark.notes...)
    for index in hooks.indices[mark.hooks...] { hooks[index].thrown = true }
  }

  /// The outermost transaction threw: every held key-path delivery is dropped.
  func dropHeldDeliveries() {
    for note in notes {
      if case .path(let observation) = note.subject { observation.dropHeldDelivery() }
    }
  }
}
