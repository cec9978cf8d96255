/// The one mutation path.
///
/// Every observed change — typed sets, key-value coding, to-many proxies, manual brackets, insert,
/// delete and its rules, undo and redo — is a ``Request`` that ``perform(_:)`` takes through the
/// same phases:
///
/// 1. **plan** the edits (`makePlan`): the change and its inverse upkeep, steals, delete rules;
/// 2. **announce** them (`announce`): prior observers;
/// 3. if a prior observer changed the graph meanwhile, plan again (the plan may be stale);
/// 4. **record** the undo step (``UndoRecorder``);
/// 5. **apply** (``apply(_:)``, the one function that changes storage): Swift Observation's
///    `willSet`, the count of the change, then for each edit its tracking (``ChangeTracker``),
///    its objects-did-change news (``ObserverCenter``), its store or the registration of its
///    object (``ObjectRegistry``), then Swift Observation's `didSet`;
/// 6. **deliver**: observers with old and new values, change recorders;
/// 7. **check** the invariants (debug builds).
///
/// A participant with nothing to do skips itself with one test (no observer, no recorder, no undo
/// log, no Swift Observation tracker). A change that nobody hears may be planned without an
/// ``EditPlan`` (the quiet set here; ObjectContext+QuickPlans.swift), but its edits are applied by
/// the same ``apply(_:)``. A manual bracket runs phase 2 and Swift Observation's `willSet` at its
/// outermost `willChangeValue`, and phases 4–7 at its outermost `didChangeValue`
/// (``complete(_:_:waitingForBrackets:)``), its storage changed in between by primitive sets.
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
    if case .replay = request { reportSkips() }
  }

  /// Takes an attribute set through every phase: a plan of one edit, held in place.
  ///
  /// The quiet case first: the set's audience is at most Swift Observation (``isQuietSet(_:_:)``:
  /// no observer of the object, no undo recording, no tap, no open bracket), and the slot is
  /// already tracked as changed and pending for the next event. Then every phase
  /// skips itself — there is nobody to announce to, nothing to record, track, queue or deliver —
  /// and the set is handed to ``apply(_:)`` with nothing to track (``setQuietly(_:_:_:)``): its
  /// store, inside Swift Observation's `willSet`/`didSet` when the object has a registrar.
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
  /// nothing is left to track and nobody but Swift Observation hears it (see
  /// ``audience(of:slot:)``), and the origin in force is noted for the slot already
  /// (``notesOrigin(of:_:)``). A caller that has not worked out the old value yet can skip that
  /// too.
  @inline(__always)
  func isQuietSet(_ object: ManagedObject, _ slot: Int) -> Bool {
    object.isTrackedAndPending(slot) && audience(of: object).isSubset(of: .served)
      && notesOrigin(of: object, slot)
  }

  /// The quiet set: the store, and what ``apply(_:)`` does around it when nothing is left to
  /// track.
  func setQuietly(_ object: ManagedObject, _ property: Property, _ new: Any?) {
    setQuietly(object, property) { object.write(new, at: property.slot) }
  }

  /// The quiet set, with the store made by `store`: an edit with nothing to track, applied.
  func setQuietly(_ object: ManagedObject, _ property: Property, store: () -> Void) {
    setQuietly(object, slot: property.slot, store: store)
  }

  /// The quiet set of `slot`, with the store made by `store`.
  func setQuietly(_ object: ManagedObject, slot: Int, store: () -> Void) {
    apply(object, slot: slot, tracking: .none, store: store)
    #if OBSERVEDGRAPH_INVARIANTS
      let edit = Edit.set(object, object.entity.properties[slot], old: nil, new: nil)
      checkAfterMutation(SingleEdit(PlannedEdit(edit)))
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
    if recorder.notesUntracked || !untracked.isEmpty { noteUntracked(plan) }
    apply(plan)
    deliver(plan, delivery)
    checkAfterMutation(plan)
  }
}
