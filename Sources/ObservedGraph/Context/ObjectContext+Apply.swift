/// The apply phase: the one function that changes the graph's storage for an observed change.
///
/// Every change that the mutation path takes — the full path's plans, and the plans made without
/// an ``EditPlan`` for changes nobody hears (a quiet set, a quiet relationship change or insert, a
/// quiet cascade delete, the undo and redo of undo columns) — reaches storage through
/// ``apply(_:)``, which runs, in this order:
///
/// 1. Swift Observation's `willSet` for each edited property (a manual bracket's edit was
///    announced at the bracket's open, before the caller's primitive sets stored it:
///    ``willStoreInBracket(_:_:)``);
/// 2. the count of the change (`generation`), by which planning sees that the graph changed;
/// 3. for each edit in order: a lifecycle edit registers, detaches or flags its object; a property
///    edit is tracked (``ChangeTracker``) and queued as pending news (``ObserverCenter``) as its
///    ``EditTracking`` says, stored (unless a bracket stored it), settled, and, for undo and
///    redo, its object noted as restored;
/// 4. Swift Observation's `didSet` for each edited property.
///
/// A planner hands its edits in whatever form it makes them (``AppliedEdits``): the full path's
/// ``EditSequence``, a few relationship links (``LinkEdits``), or one store made by the caller's
/// typed code (``StoreEdit``). No other code runs these steps, with one exception: a typed set
/// that the object's quiet bits find unheard and untracked, on an object with no Swift
/// Observation registrar, is the count and the store, inlined into the app's code
/// (`Attribute.swift`): every other step would skip itself.
extension ObjectContext {
  /// Applies `edits`: see the steps above.
  func apply<Edits: AppliedEdits>(_ edits: Edits) {
    for position in 0..<edits.count where !edits.isStored(at: position) {
      guard let property = edits.property(at: position) else { continue }
      let object = edits.object(at: position)
      object.registrar?.willSet(object, property.slot)
    }
    generation &+= 1
    // Undo and redo put a slot's tracking back only if the slot is still tracked as changed when
    // its first edit applies; decided once per slot, so a slot edited twice in one step (a move:
    // removal and insertion) is restored, not tracked anew by its second edit.
    var decisions = SlotTable<Bool>()
    for position in 0..<edits.count {
      let object = edits.object(at: position)
      guard let property = edits.property(at: position) else {
        applyLifecycle(
          edits.lifecycle(at: position), object, isReplay: edits.isReplay(at: position))
        continue
      }
      let slot = property.slot
      var committed: SnapshotValue?
      switch edits.tracking(at: position) {
      case .none:
        break
      case .pending:
        center.notePending(object, slot)
      case .track:
        tracker.track(object, slot) {
          edits.committedValue(at: position, property) ?? object.snapshotValue(property)
        }
        center.notePending(object, slot)
      case .restore(let restoring):
        var restores = object.changes.contains(slot)
        if edits.count > 1 {
          let key = SlotKey(object, slot)
          if let decided = decisions[key] { restores = decided } else { decisions[key] = restores }
        }
        committed = tracker.trackEdit(object, slot, restoring: restoring, restores: restores) {
          object.snapshotValue(property)
        }
        center.notePending(object, slot)
      }
      if !edits.isStored(at: position) { edits.store(at: position) }
      if let committed { tracker.settle(object, property, committed: committed) }
      if edits.isReplay(at: position) {
        tracker.forgetIfClean(object)
        recorder.noteRestored(object, .undoUpdate)
      }
    }
    for position in 0..<edits.count {
      guard let property = edits.property(at: position) else { continue }
      let object = edits.object(at: position)
      object.registrar?.didSet(object, property.slot)
    }
  }

  /// Step 1 of ``apply(_:)`` for a manual bracket's edit, at the bracket's outermost open: the
  /// caller's primitive sets store before the bracket closes, and Swift Observation must hear
  /// `willSet` before the store. The apply at the close skips the edit's `willSet`
  /// (``AppliedEdits/isStored(at:)``).
  func willStoreInBracket(_ object: ManagedObject, _ property: Property) {
    object.registrar?.willSet(object, property.slot)
  }

  /// Applies one store made by `store`: a set whose value only the caller's typed code can store
  /// (``StoreEdit``).
  func apply(
    _ object: ManagedObject, _ property: Property, tracking: EditTracking, isReplay: Bool = false,
    store: () -> Void
  ) {
    withoutActuallyEscaping(store) { store in
      apply(
        StoreEdit(
          object: object, property: property, tracking: tracking, isReplay: isReplay,
          store: store))
    }
  }

  /// Registers, detaches or flags an object, and queues the news (step 3 of ``apply(_:)`` for a
  /// lifecycle edit).
  private func applyLifecycle(_ change: LifecycleChange, _ object: ManagedObject, isReplay: Bool) {
    switch change {
    case .insert:
      registry.register(object)
      object.isInsertedFlag = true
      tracker.noteDirty(object)
    case .uninsert:
      registry.detach(object)
      tracker.forget(object)
    case .delete:
      object.isDeletedFlag = true
      tracker.noteDirty(object)
    case .undelete:
      object.isDeletedFlag = false
      if object.lifecycle == .detached {
        // Deleted and saved: the store no longer has it, so it comes back as a new insert.
        registry.register(object)
        object.isInsertedFlag = true
        tracker.noteDirty(object)
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
  /// (``ChangeTracker/trackEdit(_:_:restoring:restores:valueBefore:)``), and the change is queued.
  case restore(SlotTracking)
}

/// Edits as ``ObjectContext/apply(_:)`` reads them, in the order they apply. The apply is generic
/// over the form, so that each planner's form is read in place: a plan of one set allocates
/// nothing, and a quiet relationship change makes no ``EditPlan``.
protocol AppliedEdits {
  var count: Int { get }
  /// The object the edit at `position` changes.
  func object(at position: Int) -> ManagedObject
  /// The property it changes; nil for a lifecycle edit.
  func property(at position: Int) -> Property?
  /// A lifecycle edit's change (asked only when ``property(at:)`` is nil).
  func lifecycle(at position: Int) -> LifecycleChange
  /// How its slot is tracked.
  func tracking(at position: Int) -> EditTracking
  /// Whether undo or redo makes it: its object is noted as restored.
  func isReplay(at position: Int) -> Bool
  /// Whether storage holds its new value already: a manual bracket's edit, stored by the caller's
  /// primitive sets and announced to Swift Observation at the bracket's open.
  func isStored(at position: Int) -> Bool
  /// The committed value of `property` to keep when storage no longer holds it (a bracket's value
  /// at its open); nil to take it from storage.
  func committedValue(at position: Int, _ property: Property) -> SnapshotValue?
  /// Stores the edit's new value or members.
  func store(at position: Int)
}

extension AppliedEdits {
  func isReplay(at position: Int) -> Bool { false }
  func isStored(at position: Int) -> Bool { false }
  func committedValue(at position: Int, _ property: Property) -> SnapshotValue? { nil }
}

// MARK: The full path's plans

extension EditSequence {
  func object(at position: Int) -> ManagedObject { self[position].edit.object }
  func property(at position: Int) -> Property? { self[position].edit.property }

  func lifecycle(at position: Int) -> LifecycleChange {
    guard case .lifecycle(let change) = self[position].edit.change else {
      preconditionFailure("ObservedGraph: the edit is not a lifecycle edit")
    }
    return change
  }

  func tracking(at position: Int) -> EditTracking {
    guard self[position].changes else { return .none }
    if self[position].isReplay, let restoring = self[position].restoring {
      return .restore(restoring)
    }
    return .track
  }

  func isReplay(at position: Int) -> Bool { self[position].isReplay }
  func isStored(at position: Int) -> Bool { self[position].isApplied }

  func committedValue(at position: Int, _ property: Property) -> SnapshotValue? {
    guard self[position].isApplied, let original = self[position].original else { return nil }
    return property.snapshot(of: original)
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
struct StoreEdit: AppliedEdits {
  let object: ManagedObject
  let property: Property
  let tracking: EditTracking
  let isReplay: Bool
  let store: () -> Void

  var count: Int { 1 }
  func object(at position: Int) -> ManagedObject { object }
  func property(at position: Int) -> Property? { property }
  func lifecycle(at position: Int) -> LifecycleChange {
    preconditionFailure("ObservedGraph: a store edit is not a lifecycle edit")
  }
  func tracking(at position: Int) -> EditTracking { tracking }
  func isReplay(at position: Int) -> Bool { isReplay }
  func store(at position: Int) { store() }
}

// MARK: Relationship links

/// One change of a relationship slot, or of an object's membership in its context, as the plans
/// made without an ``EditPlan`` make it: a quiet relationship change or insert, a quiet cascade
/// delete and the undo and redo of its ``DeletionColumn``.
struct LinkEdit {
  /// The object changed.
  let object: ManagedObject
  /// The relationship changed; nil for a lifecycle edit.
  let property: Property?
  let change: Change
  var tracking: EditTracking
  var isReplay: Bool

  enum Change {
    /// A to-one goes from `old` to `new`; nothing is stored when they are the same object (a
    /// slot announced that keeps its value).
    case toOne(ManagedObject?, old: ManagedObject?)
    /// A to-many's whole collection is put in, or taken out (nil).
    case collection(ObjectCollection?)
    /// A to-many gains a member it does not hold; `isNew` when its collection is known not to
    /// hold it (no lookup).
    case join(ManagedObject, isNew: Bool)
    /// A to-many loses a member it holds.
    case leave(ManagedObject)
    /// The object joins or leaves the context, or its deletion is marked or taken back.
    case lifecycle(LifecycleChange)
  }

  /// A relationship edit.
  init(
    _ object: ManagedObject, _ property: Property, _ change: Change,
    tracking: EditTracking = .track, isReplay: Bool = false
  ) {
    self.object = object
    self.property = property
    self.change = change
    self.tracking = tracking
    self.isReplay = isReplay
  }

  /// A lifecycle edit.
  init(_ object: ManagedObject, _ change: LifecycleChange, isReplay: Bool = false) {
    self.object = object
    self.property = nil
    self.change = .lifecycle(change)
    self.tracking = .none
    self.isReplay = isReplay
  }

  /// Stores the change.
  func store() {
    guard let property else { return }
    switch change {
    case .toOne(let new, let old):
      if new !== old { object.setRelationshipReference(new, for: property) }
    case .collection(let collection):
      object.setRelationshipReference(collection, for: property)
    case .join(let member, let isNew):
      if isNew {
        object.makeCollection(property).insertNew(member)
      } else {
        object.makeCollection(property).insert(member)
      }
    case .leave(let member):
      object.collection(property).unsafelyUnwrapped.remove(member)
    case .lifecycle:
      break
    }
  }

  /// The edit as the full path would plan it, for the debug checks.
  var planned: PlannedEdit {
    guard let property else {
      guard case .lifecycle(let change) = change else { preconditionFailure() }
      return PlannedEdit(.lifecycle(object, change))
    }
    switch change {
    case .toOne(let new, let old):
      return PlannedEdit(.set(object, property, old: old, new: new))
    case .join(let member, _):
      return PlannedEdit(.insert(object, property, objects: [member], indexes: []))
    case .leave(let member):
      return PlannedEdit(.remove(object, property, objects: [member], indexes: []))
    case .collection, .lifecycle:
      return PlannedEdit(.set(object, property, old: nil, new: nil))
    }
  }
}

/// The link edits of one change: the first three held in place (a quiet relationship change makes
/// at most three, and allocates nothing), the rest in an array a caller may reuse from one change
/// to the next (``removeAll()`` keeps its storage).
struct LinkEdits: AppliedEdits {
  private var first: LinkEdit?
  private var second: LinkEdit?
  private var third: LinkEdit?
  private var rest: [LinkEdit] = []
  private(set) var count = 0

  init() {}

  subscript(position: Int) -> LinkEdit {
    _read {
      switch position {
      case 0: yield first.unsafelyUnwrapped
      case 1: yield second.unsafelyUnwrapped
      case 2: yield third.unsafelyUnwrapped
      default: yield rest[position - 3]
      }
    }
  }

  mutating func append(_ edit: LinkEdit) {
    switch count {
    case 0: first = edit
    case 1: second = edit
    case 2: third = edit
    default: rest.append(edit)
    }
    count += 1
  }

  /// Empties the list, keeping the array's storage for the next change.
  mutating func removeAll() {
    first = nil
    second = nil
    third = nil
    rest.removeAll(keepingCapacity: true)
    count = 0
  }

  func object(at position: Int) -> ManagedObject { self[position].object }
  func property(at position: Int) -> Property? { self[position].property }
  func lifecycle(at position: Int) -> LifecycleChange {
    guard case .lifecycle(let change) = self[position].change else {
      preconditionFailure("ObservedGraph: the edit is not a lifecycle edit")
    }
    return change
  }
  func tracking(at position: Int) -> EditTracking { self[position].tracking }
  func isReplay(at position: Int) -> Bool { self[position].isReplay }
  func store(at position: Int) { self[position].store() }

  /// The edits as the full path would plan them, for the debug checks.
  var planned: EditList {
    var list = EditList()
    for position in 0..<count { list.append(self[position].planned) }
    return list
  }
}
