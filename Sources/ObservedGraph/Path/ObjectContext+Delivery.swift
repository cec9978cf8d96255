import Observation

/// Telling observers about a change: the announce phase (before anything changes) and the deliver
/// phase (after every edit is applied) of the one mutation path.
///
/// Whom to notify is worked out in the announce phase; prior calls go out then; after the edits
/// are applied every observer gets its call. Observers are called outside any bookkeeping, so they
/// may change the graph, add observers or invalidate themselves.
///
/// A typed set whose audience is Swift Observation and the slot's typed observers (see
/// ObjectContext+Audience.swift) has no plan to announce: after its store, the setter hands both
/// values to ``ObserverTable/deliverTypedSet(of:slot:old:new:)``, the deliver phase of such a set.
extension ObjectContext {
  /// The observers to call for one change, worked out when it is announced.
  struct Delivery {
    struct Entry {
      /// The position of the edit in the plan.
      let edit: Int
      /// The slot's observers when the change was announced, in registration order.
      let observers: [Observer]
    }
    var entries = InlineList<Entry>()
    /// The change recorders listening when the change was announced.
    var taps: [ObserverCenter.Tap] = []
    /// Whether the change was announced in a transaction's body: only internal links hear it.
    var heldBack = false
    /// Whether the change is a transaction's, delivered at its commit: the internal links heard
    /// it already.
    var atCommit = false
    /// The change's origin: the origin in force when it was announced.
    var origin = ChangeOrigin.local

    /// Whether `observer` hears the change: a valid observer (an internal link even after it
    /// was removed, so that its nesting count balances), as the two flags above and the
    /// observer's origin filter allow.
    func hears(_ observer: Observer) -> Bool {
      if observer.isInternal { return !atCommit }
      return observer.isValid && !heldBack && observer.origins.admits(origin)
    }

    /// Releases the internal links told of a change that is not applied after all (it is planned
    /// again), so their nesting counts balance.
    func cancel() {
      for entry in 0..<entries.count {
        for observer in entries[entry].observers where observer.isInternal { observer.cancel?() }
      }
    }
  }

  // MARK: Phases

  /// The prior calls. (Swift Observation hears `willSet` and `didSet` around the store, in
  /// ``apply(_:)``.)
  ///
  /// In a transaction's body only internal links hear a change (they re-bind at once); everyone
  /// else hears it at the commit, which announces and delivers the transaction's changes
  /// (`atCommit`) to everyone but the internal links.
  func announce<Plan: EditSequence>(_ plan: Plan, atCommit: Bool = false) -> Delivery {
    guard center.isObserved else { return Delivery() }
    let heldBack = journal != nil
    // In a transaction's body nobody else hears the change now.
    if heldBack && center.internalObserverCount == 0 { return Delivery() }
    var delivery = Delivery()
    for index in 0..<plan.count {
      let object = plan[index].object
      guard let table = object.observers, let property = plan[index].property,
        let observers = table.bySlot[property.slot],
        plan[index].isManual || object.entity.notifiesAutomatically[property.slot]
      else { continue }
      delivery.entries.append(Delivery.Entry(edit: index, observers: observers))
    }
    delivery.taps = heldBack ? [] : center.taps
    delivery.heldBack = heldBack
    delivery.atCommit = atCommit
    delivery.origin = link.origin
    for entry in 0..<delivery.entries.count {
      let index = delivery.entries[entry].edit
      for observer in delivery.entries[entry].observers
      where delivery.hears(observer) {
        guard let will = observer.will else { continue }
        will(priorChange(plan[index].edit, observer.options))
      }
    }
    return delivery
  }

  /// Every observer's call, then the change recorders.
  func deliver<Plan: EditSequence>(_ plan: Plan, _ delivery: Delivery) {
    for entry in 0..<delivery.entries.count {
      let index = delivery.entries[entry].edit
      for observer in delivery.entries[entry].observers
      where delivery.hears(observer) {
        observer.did(change(plan[index].edit, observer.options))
      }
    }
    guard !delivery.taps.isEmpty else { return }
    for index in 0..<plan.count {
      for tap in delivery.taps where center.hasTap(tap.id) {
        if case .lifecycle(let change) = plan[index].edit.change {
          tap.lifecycle(plan[index].object, change.rawValue)
        } else if let property = plan[index].property {
          tap.receive(plan[index].object, property.name, change(plan[index].edit, [.old, .new]))
        }
      }
    }
  }

  // MARK: Building changes

  func priorChange(_ edit: Edit, _ options: ObservationOptions) -> RawChange {
    var change = self.change(edit, options)
    change.new = nil
    change.isPrior = true
    return change
  }

  func change(_ edit: Edit, _ options: ObservationOptions) -> RawChange {
    let wantsOld = options.contains(.old)
    let wantsNew = options.contains(.new)
    let property = edit.property
    switch edit.change {
    case .set:
      return RawChange(
        kind: .setting, old: wantsOld ? .some(edit.old) : nil,
        new: wantsNew ? .some(edit.new) : nil,
        indexes: nil, isPrior: false, origin: link.origin)
    case .insert(let objects, let indexes):
      let ordered = property?.isOrdered == true
      return RawChange(
        kind: .insertion, old: nil,
        new: wantsNew ? .some(collectionForm(objects, ordered)) : nil,
        indexes: ordered ? indexes : nil, isPrior: false, origin: link.origin)
    case .remove(let objects, let indexes):
      let ordered = property?.isOrdered == true
      return RawChange(
        kind: .removal, old: wantsOld ? .some(collectionForm(objects, ordered)) : nil, new: nil,
        indexes: ordered ? indexes : nil, isPrior: false, origin: link.origin)
    case .replace(let old, let new):
      let ordered = property?.isOrdered == true
      return RawChange(
        kind: .setting, old: wantsOld ? .some(collectionForm(old, ordered)) : nil,
        new: wantsNew ? .some(collectionForm(new, ordered)) : nil, indexes: nil, isPrior: false,
        origin: link.origin)
    case .lifecycle:
      return RawChange(
        kind: .setting, old: nil, new: nil, indexes: nil, isPrior: false, origin: link.origin)
    }
  }

  /// Objects as a to-many value: an array when ordered, a set otherwise.
  func collectionForm(_ objects: [ManagedObject], _ ordered: Bool) -> Any {
    ordered ? objects : Set(objects)
  }
}

// MARK: Typed sets

extension ObserverTable {
  /// The deliver phase of a typed set whose only listeners are the slot's typed observers: each
  /// gets the old and new values in the attribute's own type, in registration order — what the
  /// whole path's deliver phase tells them, without `Any` and without a plan. The list is taken
  /// before the first call, so observers a handler adds or removes do not change this delivery
  /// (as on the whole path), and an observer invalidated meanwhile is skipped. Inlined into the
  /// setter's out-of-line part, specialized for `Value` in the caller's module.
  ///
  /// Static, and given the object: the table is reached through the object's field and never
  /// retained. Observation tokens refer to it weakly, which gives it a side table, and each
  /// retain and release of it would go through the runtime's slow path.
  @inlinable @inline(__always)
  static func deliverTypedSet<Value>(of object: ManagedObject, slot: Int, old: Value, new: Value) {
    // The list is held for the delivery; each observer (held by the list) and its delivery (held
    // by the observer) are borrowed, not retained around each call.
    let observers = object.observers.unsafelyUnwrapped.typedLists[slot]
    let origin = object.link.unsafelyUnwrapped.origin
    observers.withUnsafeBufferPointer { observers in
      for index in observers.indices {
        Unmanaged.passUnretained(observers[index])._withUnsafeGuaranteedRef { observer in
          guard observer.isValid else { return }
          // The table lists only observers registered with a `TypedDelivery` of this slot's type.
          observer.typedUnretained.unsafelyUnwrapped._withUnsafeGuaranteedRef {
            unsafeDowncast($0, to: TypedDelivery<Value>.self).deliver(
              old: old, new: new, origin: origin)
          }
        }
      }
    }
  }
}
