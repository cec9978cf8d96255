/// The apply phase: the one function that changes the graph's storage for an observed change.
///
/// Every change that the mutation path takes — the full path's plans, and the plans made without
/// an ``EditPlan`` for changes nobody hears (a quiet set, a quiet relationship change or insert, a
/// quiet cascade delete, the undo and redo of undo columns) — reaches storage through
/// ``apply(_:)``, which runs, in this order:
///
/// 0. in a transaction's body, the journal's note of each edited slot's value before its first
///    edit (``TransactionJournal/noteBefore(_:)``), in place of steps 1 and 4: Swift Observation
///    hears the transaction's changes at its commit;
/// 1. Swift Observation's `willSet` for each edited property, in a context that takes part in
///    Swift Observation (a manual bracket's edit was announced at the bracket's open, before the
///    caller's primitive sets stored it: ``willStoreInBracket(_:_:)``);
/// 2. the count of the change (`generation`), by which planning sees that the graph changed;
/// 3. for each edit in order: a lifecycle edit registers, detaches or flags its object; a property
///    edit is tracked (``ChangeTracker``) and queued as pending news (``ObserverCenter``) as its
///    ``EditTracking`` says, with the origin in force noted (``noteOrigin(_:_:tracks:)``), stored (unless a bracket stored it), settled, and, for undo and
///    redo, its object noted as restored;
/// 4. Swift Observation's `didSet` for each edited property.
///
/// A planner hands its edits in whatever form it makes them (``AppliedEdits``): the full path's
/// ``EditSequence``, a quiet relationship change (``RelateEdits``), a quiet insert
/// (``LifecycleEdit``), the links of one object of a quiet cascade delete or of its undo or redo
/// (``ColumnEdits``), or one set whose store the caller's typed code makes (``SlotEdit``). Each
/// form hands its objects over unretained (``AppliedEdits/object(at:)``): the plan, the planner
/// or the column holds them while the edits apply, and the apply borrows each for its steps, so
/// that no step retains or releases an object.
///
/// No other code runs these steps, with one exception: a typed set that the object's quiet bits
/// find unheard and untracked, on an object with no Swift Observation registrar, is the count and
/// the store, inlined into the app's code (`Attribute.swift`): every other step would skip
/// itself.
extension ObjectContext {
  /// Applies `edits`: see the steps above.
  func apply<Edits: StorableEdits>(_ edits: Edits) {
    apply(edits) { edits, position in edits.store(at: position) }
  }

  /// Applies `edits`, each stored by `store` (given the edits and the edit's position; a closure
  /// that captures nothing of the edits, so that they are read in place).
  ///
  /// The steps that are not run for every edit (tracking a slot, restoring its tracking, a
  /// lifecycle change, noting a restored object) are functions of their own, so that this one
  /// stays small in each of its specializations.
  func apply<Edits: AppliedEdits>(_ edits: Edits, store: (Edits, Int) -> Void) {
    // The objects of a context that does not take part in Swift Observation have no registrar.
    // In a transaction's body the registrar hears the changes at the commit, and the journal
    // notes each slot's value before its first edit.
    let announces: Bool
    if let journal {
      journal.noteBefore(edits)
      announces = false
    } else {
      announces = link.participatesInSwiftObservation
    }
    for position in 0..<edits.count where announces && !edits.isStored(at: position) {
      let slot = edits.slot(at: position)
      guard slot >= 0 else { continue }
      edits.object(at: position)._withUnsafeGuaranteedRef { $0.registrar?.willSet($0, slot) }
    }
    generation &+= 1
    // Undo and redo put a slot's tracking back only if the slot is still tracked as changed when
    // its first edit applies; decided once per slot (see `restoreTracking`).
    var decisions: SlotTable<Bool>?
    for position in 0..<edits.count {
      edits.object(at: position)._withUnsafeGuaranteedRef { object in
        let slot = edits.slot(at: position)
        guard slot >= 0 else {
          applyLifecycle(
            edits.lifecycle(at: position), object, isReplay: edits.isReplay(at: position))
          return
        }
        var settling: (Property, SnapshotValue)?
        switch edits.tracking(at: position) {
        case .none:
          break
        case .pending:
          noteOrigin(object, slot, tracks: true)
          center.notePending(object, slot)
        case .track:
          if edits.isStored(at: position) {
            trackStoredSlot(object, slot, original: edits.committedValue(at: position))
          } else {
            trackSlot(object, slot) { edits.property(at: position) }
          }
        case .restore:
          settling = restoreTracking(
            object, edits.property(at: position), to: edits.restoring(at: position),
            decisions: &decisions, isOneOfSeveral: !edits.changesEachSlotOnce)
        }
        if !edits.isStored(at: position) { store(edits, position) }
        if let (property, committed) = settling {
          tracker.settle(object, property, committed: committed)
        }
        if edits.isReplay(at: position) { noteRestored(object) }
      }
    }
    for position in 0..<edits.count where announces {
      let slot = edits.slot(at: position)
      guard slot >= 0 else { continue }
      edits.object(at: position)._withUnsafeGuaranteedRef { $0.registrar?.didSet($0, slot) }
    }
  }

  /// Tracks a slot about to change (its committed value, kept the first time, is the value
  /// storage holds: `property` is asked for only then) and queues its news.
  @inline(never)
  private func trackSlot(_ object: ManagedObject, _ slot: Int, _ property: () -> Property) {
    noteOrigin(object, slot, tracks: true)
    tracker.track(object, slot) { object.snapshotValue(property()) }
    center.notePending(object, slot)
  }

  /// Tracks a slot whose storage holds its new value already (a manual bracket's), keeping
  /// `original` as its committed value the first time (or, when nil, the value storage holds),
  /// and queues its news.
  @inline(never)
  private func trackStoredSlot(_ object: ManagedObject, _ slot: Int, original: SnapshotValue?) {
    noteOrigin(object, slot, tracks: true)
    tracker.track(object, slot) {
      original ?? object.snapshotValue(object.entity.properties[slot])
    }
    center.notePending(object, slot)
  }

  /// Undo and redo: puts a slot's tracking back to `restoring` and queues its news; returns the
  /// committed value the slot must hold after the store to count as unchanged, with its property
  /// (see ``ChangeTracker/settle(_:_:committed:)``), or nil.
  ///
  /// The tracking is put back only if the slot is still tracked as changed when its first edit
  /// applies; for an edit of a change that may edit a slot twice (`isOneOfSeveral`), `decisions`
  /// keeps that answer per slot, so that a slot edited twice in one step (a move: removal and
  /// insertion) is restored, not tracked anew by its second edit.
  @inline(never)
  private func restoreTracking(
    _ object: ManagedObject, _ property: Property, to restoring: SlotTracking,
    decisions: inout SlotTable<Bool>?, isOneOfSeveral: Bool
  ) -> (Property, SnapshotValue)? {
    let slot = property.slot
    var restores = object.changes.contains(slot)
    if isOneOfSeveral {
      let key = SlotKey(object, slot)
      if let decided = decisions?[key] {
        restores = decided
      } else {
        if decisions == nil { decisions = SlotTable() }
        decisions![key] = restores
      }
    }
    noteOrigin(object, slot, tracks: true)
    let committed = tracker.trackEdit(object, slot, restoring: restoring, restores: restores) {
      object.snapshotValue(property)
    }
    center.notePending(object, slot)
    return committed.map { (property, $0) }
  }

  /// Undo and redo: an object whose slot was put back is noted for
  /// ``ManagedObject/awake(fromSnapshotEvents:)``.
  @inline(never)
  private func noteRestored(_ object: ManagedObject) {
    tracker.forgetIfClean(object)
    recorder.noteRestored(object, .undoUpdate)
  }

  /// Step 1 of ``apply(_:)`` for a manual bracket's edit, at the bracket's outermost open: the
  /// caller's primitive sets store before the bracket closes, and Swift Observation must hear
  /// `willSet` before the store. The apply at the close skips the edit's `willSet`
  /// (``AppliedEdits/isStored(at:)``).
  func willStoreInBracket(_ object: ManagedObject, _ property: Property) {
    if let journal { return journal.noteSlot(object, property, isManual: true) }
    object.registrar?.willSet(object, property.slot)
  }

  /// Applies one set of `object`'s `slot` whose store `store` makes: a set whose value only the
  /// caller's typed code can store (``SlotEdit``).
  func apply(
    _ object: ManagedObject, slot: Int, tracking: EditTracking, isReplay: Bool = false,
    store: () -> Void
  ) {
    let edit = SlotEdit(
      object: Unmanaged.passUnretained(object), slot: slot, tracking: tracking, isReplay: isReplay)
    apply(edit) { _, _ in
      store()
    }
  }

  /// Registers, detaches or flags an object, and queues the news (step 3 of ``apply(_:)`` for a
  /// lifecycle edit).
  @inline(never)
  private func applyLifecycle(_ change: LifecycleChange, _ object: ManagedObject, isReplay: Bool) {
    noteOrigin(object, -1, tracks: true)
    switch change {
    case .insert:
      registry.register(object)
      tracker.noteInserted(object)
    case .uninsert:
      registry.detach(object)
      tracker.forget(object)
    case .delete:
      tracker.noteDeleted(object)
    case .undelete:
      tracker.noteUndeleted(object)
      if object.lifecycle == .detached {
        // Deleted and saved: the store no longer has it, so it comes back as a new insert.
        registry.register(object)
        tracker.noteInserted(object)
      }
    }
    center.notePending(change, object)
    if isReplay {
      tracker.forgetIfClean(object)
      recorder.noteRestored(object, change.removesObject ? .undoInsertion : .undoDeletion)
    }
  }
}

/// How ``ObjectContext/apply(_:)`` tracks the slot of one edit.
enum EditTracking {
  /// Nothing to track or queue: the value does not change, or the slot is tracked as changed and
  /// pending already (a quiet set).
  case none
  /// The slot is tracked as changed already, with the committed value it has; the change is queued
  /// as pending news (the undo of an undo column's entry).
  case pending
  /// Tracked as changed, its committed value kept the first time, and queued.
  case track
  /// Undo and redo: the slot's tracking goes back to the state it had before the change taken back
  /// (``AppliedEdits/restoring(at:)``; see
  /// ``ChangeTracker/trackEdit(_:_:restoring:restores:valueBefore:)``), and the change is queued.
  case restore
}

/// Edits as ``ObjectContext/apply(_:)`` reads them, in the order they apply. The apply is generic
/// over the form, so that each planner's form is read in place: a plan of one set allocates
/// nothing, and a quiet relationship change makes no ``EditPlan``.
protocol AppliedEdits {
  var count: Int { get }
  /// The object the edit at `position` changes, unretained: the edits hold it (or their planner
  /// does) while they apply, and the apply borrows it for each step rather than retaining it.
  func object(at position: Int) -> Unmanaged<ManagedObject>
  /// The slot it changes; -1 for a lifecycle edit.
  func slot(at position: Int) -> Int
  /// The property it changes (asked only of a property edit that is tracked or restored).
  func property(at position: Int) -> Property
  /// A lifecycle edit's change (asked only when ``slot(at:)`` is -1).
  func lifecycle(at position: Int) -> LifecycleChange
  /// How its slot is tracked.
  func tracking(at position: Int) -> EditTracking
  /// The tracking state to put back (asked only of an edit tracked as ``EditTracking/restore``).
  func restoring(at position: Int) -> SlotTracking
  /// Whether undo or redo makes it: its object is noted as restored.
  func isReplay(at position: Int) -> Bool
  /// Whether storage holds its new value already: a manual bracket's edit, stored by the caller's
  /// primitive sets and announced to Swift Observation at the bracket's open.
  func isStored(at position: Int) -> Bool
  /// Whether a manual bracket makes it: its observers hear it even where the entity does not
  /// notify them of the key automatically.
  func isManual(at position: Int) -> Bool
  /// The committed value to keep when storage no longer holds it (a bracket's value at its
  /// open); nil to take it from storage.
  func committedValue(at position: Int) -> SnapshotValue?
  /// Whether no two edits change the same slot: undo and redo then decide each slot's tracking
  /// alone (see `restoreTracking`).
  var changesEachSlotOnce: Bool { get }
}

/// Edits that store themselves.
protocol StorableEdits: AppliedEdits {
  /// Stores the edit's new value or members.
  func store(at position: Int)
}

extension AppliedEdits {
  func restoring(at position: Int) -> SlotTracking {
    preconditionFailure("ObservedGraph: only undo and redo restore a slot's tracking")
  }
  func isReplay(at position: Int) -> Bool { false }
  func isStored(at position: Int) -> Bool { false }
  func isManual(at position: Int) -> Bool { false }
  func committedValue(at position: Int) -> SnapshotValue? { nil }
  var changesEachSlotOnce: Bool { count == 1 }
}

// MARK: The full path's plans

extension EditSequence {
  func object(at position: Int) -> Unmanaged<ManagedObject> {
    Unmanaged.passUnretained(self[position].edit.object)
  }
  func slot(at position: Int) -> Int { self[position].edit.property?.slot ?? -1 }
  func property(at position: Int) -> Property { self[position].edit.property.unsafelyUnwrapped }

  func lifecycle(at position: Int) -> LifecycleChange {
    guard case .lifecycle(let change) = self[position].edit.change else {
      preconditionFailure("ObservedGraph: the edit is not a lifecycle edit")
    }
    return change
  }

  func tracking(at position: Int) -> EditTracking {
    guard self[position].changes else { return .none }
    return self[position].isReplay && self[position].restoring != nil ? .restore : .track
  }

  func restoring(at position: Int) -> SlotTracking { self[position].restoring.unsafelyUnwrapped }

  func isReplay(at position: Int) -> Bool { self[position].isReplay }
  func isStored(at position: Int) -> Bool { self[position].isApplied }
  func isManual(at position: Int) -> Bool { self[position].isManual }

  func committedValue(at position: Int) -> SnapshotValue? {
    guard self[position].isApplied, let original = self[position].original else { return nil }
    return self[position].edit.property.unsafelyUnwrapped.snapshot(of: original)
  }

  /// Stores the edit in place (no copy of its values).
  func store(at position: Int) {
    let object = self[position].edit.object
    let property = self[position].edit.property.unsafelyUnwrapped
    switch self[position].edit.change {
    case .set:
      object.write(self[position].edit.new, at: property.slot)
    case .insert(let objects, let indexes):
      let collection = object.makeCollection(property)
      if indexes.isEmpty {
        for member in objects { collection.insert(member) }
      } else {
        for (member, index) in zip(objects, indexes) { collection.insert(member, at: index) }
      }
    case .remove(let objects, _):
      object.collection(property)?.remove(contentsOf: objects)
    case .replace(_, let new):
      let collection = object.makeCollection(property)
      collection.removeAll()
      for member in new { collection.insert(member) }
    case .lifecycle:
      break
    }
  }
}

// MARK: One store by the caller

/// One attribute set whose store the caller makes (typed code, where the value's type is known):
/// a quiet set, or the undo of an undo column's entry.
///
/// A view: the caller holds the object while the edit applies, so making one retains nothing.
struct SlotEdit: AppliedEdits {
  let object: Unmanaged<ManagedObject>
  let slot: Int
  let tracking: EditTracking
  let isReplay: Bool

  var count: Int { 1 }
  func object(at position: Int) -> Unmanaged<ManagedObject> { object }
  func slot(at position: Int) -> Int { slot }
  func property(at position: Int) -> Property {
    object._withUnsafeGuaranteedRef { $0.entity.properties[slot] }
  }
  func lifecycle(at position: Int) -> LifecycleChange {
    preconditionFailure("ObservedGraph: a slot edit is not a lifecycle edit")
  }
  func tracking(at position: Int) -> EditTracking { tracking }
  func isReplay(at position: Int) -> Bool { isReplay }
}

// MARK: A quiet relationship change

/// The edits of a quiet relationship change (ObjectContext+QuickPlans.swift), held in place:
/// `member`'s to-one goes from `old` to `owner`; when `leaves`, `member` leaves `old`'s to-many;
/// when `joins`, it joins `owner`'s. The planner holds the objects and stores the edits (its
/// store closure has the properties at hand), so the edits retain nothing.
struct RelateEdits: AppliedEdits {
  let member: Unmanaged<ManagedObject>
  let old: Unmanaged<ManagedObject>?
  let owner: Unmanaged<ManagedObject>?
  /// The to-one's slot, and its inverse's.
  let slot: Int
  let inverseSlot: Int
  /// Whether the to-one changes (it is still announced when it does not).
  let changes: Bool
  let leaves: Bool
  let joins: Bool

  var count: Int { 1 + (leaves ? 1 : 0) + (joins ? 1 : 0) }

  /// Whether the edit at `position` is `old`'s.
  func isOld(_ position: Int) -> Bool { position == 1 && leaves }

  func object(at position: Int) -> Unmanaged<ManagedObject> {
    if position == 0 { return member }
    return isOld(position) ? old.unsafelyUnwrapped : owner.unsafelyUnwrapped
  }
  func slot(at position: Int) -> Int { position == 0 ? slot : inverseSlot }
  func property(at position: Int) -> Property {
    object(at: position)._withUnsafeGuaranteedRef { $0.entity.properties[slot(at: position)] }
  }
  func lifecycle(at position: Int) -> LifecycleChange {
    preconditionFailure("ObservedGraph: a relationship edit is not a lifecycle edit")
  }
  func tracking(at position: Int) -> EditTracking {
    position == 0 && !changes ? .none : .track
  }
}

/// One lifecycle edit made without a plan: a quiet insert. A view: the caller holds the object.
struct LifecycleEdit: StorableEdits {
  let object: ManagedObject
  let change: LifecycleChange

  var count: Int { 1 }
  func object(at position: Int) -> Unmanaged<ManagedObject> { Unmanaged.passUnretained(object) }
  func slot(at position: Int) -> Int { -1 }
  func property(at position: Int) -> Property {
    preconditionFailure("ObservedGraph: a lifecycle edit has no property")
  }
  func lifecycle(at position: Int) -> LifecycleChange { change }
  func tracking(at position: Int) -> EditTracking { .none }
  func store(at position: Int) {}

  /// The edit as the full path would plan it, for the debug checks.
  var planned: SingleEdit { SingleEdit(PlannedEdit(.lifecycle(object, change))) }
}

// MARK: The links of a quiet cascade delete

/// The edits of one object of a ``DeletionColumn``: its quiet delete (`.delete`, planned into the
/// column: each link emptied, tracked, then the object marked deleted), or the undo or redo of it
/// (each link put back or emptied again, its tracking restored to the state the column notes
/// before it; brought back first, or deleted last). A view: the column holds the objects, and its
/// planner holds the column.
struct ColumnEdits: StorableEdits {
  /// The column, held by its planner.
  let column: Unmanaged<DeletionColumn>
  /// The object, held by the column.
  let victim: Unmanaged<ManagedObject>
  /// The column's links, of which the object's are ``linkIndexes`` (the column's list, shared:
  /// reading it here retains nothing per edit, where reading it through `column` retains the
  /// list at each read).
  let links: ContiguousArray<DeletionColumn.Link>
  /// The number of the object's links.
  private let linkCount: Int
  /// The position of the object's lifecycle edit; the link of any other position is
  /// `base + step × position`.
  private let lifecyclePosition: Int
  private let base: Int
  private let step: Int
  /// What the edits do: the column's own direction when undo or redo applies it, `.delete` for
  /// the delete that fills it (its recorded step, `.undelete`, takes the delete back).
  let direction: DeletionColumn.Direction
  /// Whether undo or redo applies the column (the links' tracking is restored).
  let isReplay: Bool

  /// The delete of `object`, the column's victim at `victim`, planned into it.
  init(deleting object: ManagedObject, at victim: Int, of column: DeletionColumn) {
    self.init(object, at: victim, of: column, direction: .delete, isReplay: false)
  }

  /// The undo or redo of `object`, the column's victim at `victim`.
  init(replaying object: ManagedObject, at victim: Int, of column: DeletionColumn) {
    self.init(object, at: victim, of: column, direction: column.direction, isReplay: true)
  }

  private init(
    _ object: ManagedObject, at victim: Int, of column: DeletionColumn,
    direction: DeletionColumn.Direction, isReplay: Bool
  ) {
    assert(column.victims[victim].object === object)
    self.column = Unmanaged.passUnretained(column)
    self.victim = Unmanaged.passUnretained(object)
    self.links = column.links
    let range = column.linkRange(of: victim)
    self.linkCount = range.count
    // Deleting: the links in order, then the object. Bringing back: the object, then the links
    // last first.
    self.lifecyclePosition = direction == .delete ? linkCount : 0
    self.base = direction == .delete ? range.lowerBound : range.upperBound
    self.step = direction == .delete ? 1 : -1
    self.direction = direction
    self.isReplay = isReplay
  }

  /// The indexes in the column of the object's links.
  var linkIndexes: Range<Int> {
    direction == .delete ? base..<(base + linkCount) : (base - linkCount)..<base
  }

  var count: Int { linkCount + 1 }

  /// A victim's links change distinct slots.
  var changesEachSlotOnce: Bool { true }

  /// The link the edit at `position` applies; nil for the object's lifecycle edit (last when
  /// deleting, first when bringing back, whose links then apply last first).
  private func link(_ position: Int) -> Int? {
    position == lifecyclePosition ? nil : base &+ step &* position
  }

  func object(at position: Int) -> Unmanaged<ManagedObject> {
    guard let link = link(position) else { return victim }
    return Unmanaged.passUnretained(links[link].object)
  }
  func slot(at position: Int) -> Int { link(position).map { Int(links[$0].slot) } ?? -1 }
  func property(at position: Int) -> Property { links[link(position)!].property }
  func lifecycle(at position: Int) -> LifecycleChange {
    direction == .delete ? .delete : .undelete
  }
  func tracking(at position: Int) -> EditTracking { isReplay ? .restore : .track }
  func restoring(at position: Int) -> SlotTracking {
    column._withUnsafeGuaranteedRef { $0.befores[link(position)!] }
  }
  func isReplay(at position: Int) -> Bool { isReplay }
  func store(at position: Int) { links[link(position)!].store(direction) }

  /// The edits as the full path would plan them, for the debug checks.
  var planned: EditList {
    var list = EditList()
    for position in 0..<count {
      guard let index = link(position) else {
        list.append(PlannedEdit(.lifecycle(victim.takeUnretainedValue(), lifecycle(at: 0))))
        continue
      }
      let link = links[index]
      let edit: Edit
      switch (direction, link.kind) {
      case (.undelete, .member):
        edit = .insert(link.object, link.property, objects: [link.other!], indexes: [])
      case (.delete, .member):
        edit = .remove(link.object, link.property, objects: [link.other!], indexes: [])
      case (.undelete, .toOne):
        edit = .set(link.object, link.property, old: nil, new: link.other)
      case (.delete, .toOne):
        edit = .set(link.object, link.property, old: link.other, new: nil)
      case (_, .collection):
        edit = .set(link.object, link.property, old: nil, new: nil)
      }
      list.append(PlannedEdit(edit))
    }
    return list
  }
}
