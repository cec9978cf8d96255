/// The one mutation path.
///
/// Every observed change — typed sets, key-value coding, to-many proxies, manual brackets, insert,
/// delete and its rules, undo and redo — is a ``Request`` that ``perform(_:)`` takes through the
/// same phases:
///
/// 1. **plan** the edits (`makePlan`): the change and its inverse upkeep, steals, delete rules;
/// 2. **announce** them (`announce`): Swift Observation's `willSet`, then prior observers;
/// 3. if a prior observer changed the graph meanwhile, plan again (the plan may be stale);
/// 4. **record** the undo step (``UndoRecorder``);
/// 5. **apply**: store, track (``ChangeTracker``), queue the objects-did-change news
///    (``ObserverCenter``), register or detach objects (``ObjectRegistry``);
/// 6. **deliver**: Swift Observation's `didSet`, observers with old and new values, change
///    recorders;
/// 7. **check** the invariants (debug builds).
///
/// A participant with nothing to do skips itself with one test (no observer, no recorder, no undo
/// log, no Swift Observation tracker): a case with less to do is the same code, never a copy. A
/// manual bracket runs phase 2 at its outermost `willChangeValue` and phases 4–7 at its outermost
/// `didChangeValue` (``complete(_:_:waitingForBrackets:)``), its storage changed in between by
/// primitive sets.
extension ObjectContext {
  /// A change as asked for, before it is planned. Planning again (after a prior observer changed
  /// the graph) starts from the request and the graph as it is then.
  enum Request {
    /// Set an attribute to a checked held value; `old` and `changes` were worked out by the caller
    /// (the typed setter compares with the property's own `==`).
    case attribute(ManagedObject, Property, old: Any?, new: Any?, changes: Bool)
    /// Set a to-one relationship, keeping inverses.
    case toOne(ManagedObject, Property, ManagedObject?)
    /// Add objects to a to-many relationship (at an index when ordered); members named again are
    /// moved there.
    case insertMembers(ManagedObject, Property, [ManagedObject], at: Int?)
    /// Remove objects from a to-many relationship.
    case removeMembers(ManagedObject, Property, [ManagedObject])
    /// Replace a to-many relationship's content, announced as one setting (key-value coding).
    case replaceMembers(ManagedObject, Property, [ManagedObject])
    /// Assign a to-many relationship's content, announced as its difference (typed setters and
    /// moves).
    case assignMembers(ManagedObject, Property, [ManagedObject])
    /// Register a new object.
    case insertObject(ManagedObject)
    /// Delete one object: empty its relationships under their delete rules and mark it deleted.
    case deleteObject(ManagedObject)
    /// Undo or redo one recorded step.
    case replay([RecordedChange])
  }

  /// Takes a change through every phase.
  func perform(_ request: Request) {
    switch request {
    case .attribute(let object, let property, let old, let new, let changes):
      return performAttribute(object, property, old: old, new: new, changes: changes)
    case .toOne(let member, let property, let owner):
      if relateQuietly(member, property, to: owner) { return }
    case .insertMembers(let owner, let property, let members, nil) where members.count == 1:
      // A member already there changes nothing, on any path.
      if owner.isLive && owner.collection(property)?.contains(members[0]) == true { return }
      if insertQuietly(members[0], into: owner, property) { return }
    default:
      break
    }
    performPlanned(request)
  }

  /// Takes a change through every phase with a plan, for a caller that tried the quiet cases of
  /// ``perform(_:)`` itself.
  func performPlanned(_ request: Request) {
    var planned = generation
    var plan = makePlan(request, replanning: false)
    // Planning may load a fault whose load tells a loaded to-many that the store moved an
    // object (see `settleLoadedOwners(_:)`): the graph changed under the plan, so it is made
    // again (a second pass finds the objects loaded).
    for _ in 0..<4 where generation != planned {
      planned = generation
      plan = makePlan(request, replanning: true)
    }
    run(plan) { _ in makePlan(request, replanning: true) }
  }

  /// Takes an attribute set through every phase: a plan of one edit, held in place.
  ///
  /// The quiet case first: nothing observes the object, nothing records undo steps or taps changes,
  /// and the slot is already tracked as changed and pending for the next event. Then every phase
  /// skips itself — there is nobody to announce to, nothing to record, track, queue or deliver —
  /// and what is left of apply is one store, inside Swift Observation's `willSet`/`didSet` when the
  /// object has a registrar.
  func performAttribute(
    _ object: ManagedObject, _ property: Property, old: consuming Any?, new: consuming Any?,
    changes: Bool
  ) {
    if isQuietSet(object, property.slot) { return setQuietly(object, property, new) }
    if link.awakeningFromFetch == ObjectIdentifier(object) {
      return object.fill(new, at: property.slot)
    }
    run(SingleEdit(PlannedEdit(.set(object, property, old: old, new: new), changes: changes))) {
      plan in
      makePlan(
        .attribute(
          object, property, old: plan.edit.edit.old, new: plan.edit.edit.new, changes: true),
        replanning: true)
    }
  }

  /// Whether an attribute set of `slot` is quiet (see ``performAttribute(_:_:old:new:changes:)``):
  /// a caller that has not worked out the old value yet can skip that too.
  func isQuietSet(_ object: ManagedObject, _ slot: Int) -> Bool {
    object.isQuiet(slot) && !recorder.isRecording && !center.hasTaps
  }

  /// The quiet set: the store, counted as a change of the graph, inside Swift Observation's
  /// `willSet`/`didSet` when the object has a registrar.
  func setQuietly(_ object: ManagedObject, _ property: Property, _ new: Any?) {
    setQuietly(object, property) { object.write(new, at: property.slot) }
  }

  /// The quiet set, with the store made by `store`.
  func setQuietly(_ object: ManagedObject, _ property: Property, store: () -> Void) {
    let slot = property.slot
    object.registrar?.willSet(object, slot)
    generation &+= 1
    store()
    object.registrar?.didSet(object, slot)
    #if OBSERVEDGRAPH_INVARIANTS
      checkAfterMutation(SingleEdit(PlannedEdit(.set(object, property, old: nil, new: nil))))
    #endif
  }

  /// Announces the plan and, unless a prior observer changed the graph meanwhile (then the plan
  /// may be stale: it is planned again from the graph as it is now), completes it.
  private func run<Plan: EditSequence>(_ plan: Plan, replan: (Plan) -> EditList) {
    if attempt(plan) { return }
    for _ in 1..<16 {
      let next = replan(plan)
      if next.isEmpty || attempt(next) { return }
    }
    preconditionFailure(
      "ObservedGraph: prior observers change the graph every time a change of "
        + "\(plan[0].object.objectID) is announced")
  }

  /// Runs a plan's phases; false when a prior observer changed the graph during the announce
  /// phase, so that nothing was applied and the links told were released.
  private func attempt<Plan: EditSequence>(_ plan: Plan) -> Bool {
    guard plan.count > 0 else { return true }
    let before = generation
    let delivery = announce(plan)
    guard generation == before else {
      delivery.cancel()
      return false
    }
    complete(plan, delivery)
    return true
  }

  /// The phases after the prior calls: record, apply, deliver, check.
  ///
  /// - Parameters:
  ///   - plan: The edits.
  ///   - delivery: What `announce` worked out.
  ///   - waitingForBrackets: A manual bracket's change: its undo step waits for the other open
  ///     brackets to close.
  func complete<Plan: EditSequence>(
    _ plan: Plan, _ delivery: Delivery, waitingForBrackets: Bool = false
  ) {
    if recorder.isRecording || waitingForBrackets {
      recorder.record(plan, in: self, waitingForBrackets: waitingForBrackets)
    }
    apply(plan)
    deliver(plan, delivery)
    checkAfterMutation(plan)
  }

  // MARK: Apply

  /// Stores each edit, tracks it and queues its news; registers and detaches objects.
  private func apply<Plan: EditSequence>(_ plan: Plan) {
    generation &+= 1
    // Undo and redo put a slot's tracking back only if the slot is still tracked as changed when
    // its first edit in the plan applies; decided once per slot, so a slot edited twice in one
    // step (a move: removal and insertion) is restored, not tracked anew by its second edit.
    var decisions = SlotTable<Bool>()
    for index in 0..<plan.count {
      let object = plan[index].object
      guard let property = plan[index].property else {
        if case .lifecycle(let change) = plan[index].edit.change {
          applyLifecycle(change, object, isReplay: plan[index].isReplay)
        }
        continue
      }
      var committed: SnapshotValue?
      if plan[index].changes {
        let slot = property.slot
        let restoring = plan[index].isReplay ? plan[index].restoring : nil
        var restores = restoring != nil && object.changes.contains(slot)
        if restoring != nil && plan.count > 1 {
          let key = SlotKey(object, slot)
          if let decided = decisions[key] { restores = decided } else { decisions[key] = restores }
        }
        committed = tracker.trackEdit(object, slot, restoring: restoring, restores: restores) {
          if plan[index].isApplied, let original = plan[index].original {
            return property.snapshot(of: original)
          }
          return object.snapshotValue(property)
        }
        center.notePending(object, slot)
      }
      if !plan[index].isApplied { store(plan, index, property) }
      if let committed { tracker.settle(object, property, committed: committed) }
      if plan[index].isReplay {
        tracker.forgetIfClean(object)
        recorder.noteRestored(object, .undoUpdate)
      }
    }
  }

  /// Changes storage only. Reads the edit in place (no copy of its values).
  private func store<Plan: EditSequence>(_ plan: Plan, _ index: Int, _ property: Property) {
    let object = plan[index].object
    switch plan[index].edit.change {
    case .set:
      object.write(plan[index].edit.new, at: property.slot)
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

  /// Registers, detaches or flags an object, and queues the news.
  func applyLifecycle(_ change: LifecycleChange, _ object: ManagedObject, isReplay: Bool) {
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
