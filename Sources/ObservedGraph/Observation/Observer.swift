/// One registered observer of one key of one object: a user's handler, or an internal link of a
/// key-path or dependent-key observation.
@usableFromInline
final class Observer {
  let options: ObservationOptions
  /// Called before the change (prior phase) with the old value when `.old` is asked.
  let will: ((RawChange) -> Void)?
  /// Called after the change.
  let did: (RawChange) -> Void
  /// Internal links get their did-call whenever they got the will-call, even if they were
  /// removed in between, so their nesting counters balance.
  let isInternal: Bool
  /// For internal links: called instead of the did-call when a change they were told of is not
  /// applied after all (a prior observer changed the graph and the change is planned again).
  let cancel: (() -> Void)?
  /// For a typed observer of an ``Attribute``: its handler taking the attribute's own type (a
  /// ``TypedDelivery`` of it), which a typed set that nothing else hears calls with the old and new
  /// values as they are, never in `Any`.
  @usableFromInline let typed: AnyObject?
  /// ``typed`` again, unretained: a typed set borrows it from here, so the delivery is not retained
  /// around each call (``typed`` holds it as long as the observer lives, and the list a typed set
  /// delivers from holds the observer).
  @usableFromInline let typedUnretained: Unmanaged<AnyObject>?
  @exclusivity(unchecked) @usableFromInline var isValid = true
  /// The origins of the changes the observer hears (``all`` for internal links).
  let origins: OriginFilter

  init(
    options: ObservationOptions, isInternal: Bool = false, origins: OriginFilter = .all,
    will: ((RawChange) -> Void)?, did: @escaping (RawChange) -> Void,
    cancel: (() -> Void)? = nil, typed: AnyObject? = nil
  ) {
    self.options = options
    self.origins = origins
    self.isInternal = isInternal
    self.will = will
    self.did = did
    self.cancel = cancel
    self.typed = typed
    self.typedUnretained = typed.map { Unmanaged.passUnretained($0) }
  }

  /// Whether a typed set may call the observer directly: it takes typed values, wants no prior
  /// call and hears every origin (a filter is applied on the whole path, so that a typed set's
  /// own delivery tests nothing for it).
  var takesTypedSets: Bool {
    typed != nil && will == nil && !isInternal && isValid && origins.isAll
  }
}

/// A typed observer's handler, for values of the observed attribute's own type.
@usableFromInline
final class TypedDelivery<Value> {
  @usableFromInline let handler: (ObservedChange<Value>) -> Void
  @usableFromInline let wantsOld: Bool
  @usableFromInline let wantsNew: Bool

  @usableFromInline
  init(options: ObservationOptions, handler: @escaping (ObservedChange<Value>) -> Void) {
    self.handler = handler
    self.wantsOld = options.contains(.old)
    self.wantsNew = options.contains(.new)
  }

  /// Calls the handler with a setting from `old` to `new`, as the options ask, made with
  /// `origin` in force. Only observers that hear every origin are called this way
  /// (``Observer/takesTypedSets``).
  @inlinable
  func deliver(old: Value, new: Value, origin: ChangeOrigin) {
    handler(
      ObservedChange(
        kind: .setting, oldValue: wantsOld ? old : nil, newValue: wantsNew ? new : nil,
        origin: origin))
  }
}

/// The observers of one object, by slot, in registration order.
@usableFromInline
final class ObserverTable {
  var bySlot: [Int: [Observer]] = [:]
  /// Slots below 64 whose observers all take typed sets (``Observer/takesTypedSets``), on a slot
  /// whose sets notify automatically: a typed set of one that nothing else hears calls them
  /// directly (see `ManagedObject.beginTypedSet`).
  private(set) var typedSlots: UInt64 = 0
  /// The observers of each slot in ``typedSlots``, by slot, without a hash lookup.
  @exclusivity(unchecked) @usableFromInline private(set) var typedLists:
    ContiguousArray<ContiguousArray<Observer>> = []
  /// The object the table belongs to. The object owns the table, so whoever reaches the table
  /// (tokens hold it weakly) finds the object alive.
  unowned(unsafe) let owner: ManagedObject

  init(owner: ManagedObject) {
    self.owner = owner
  }

  func add(_ observer: Observer, slot: Int) {
    bySlot[slot, default: []].append(observer)
    refresh(slot)
  }

  /// Drops the slot's observers that were invalidated.
  func removeInvalid(slot: Int) {
    bySlot[slot]?.removeAll { !$0.isValid }
    if bySlot[slot]?.isEmpty == true { bySlot[slot] = nil }
    refresh(slot)
  }

  func remove(_ observer: Observer, slot: Int) {
    bySlot[slot]?.removeAll { $0 === observer }
    if bySlot[slot]?.isEmpty == true { bySlot[slot] = nil }
    refresh(slot)
  }

  /// Whether a typed set of `slot` may call the slot's observers directly.
  func takesTypedSets(_ slot: Int) -> Bool {
    slot < 64 && typedSlots & (1 << UInt64(slot)) != 0
  }

  /// Brings the typed list of `slot` up to date after its observers changed, and voids the
  /// owner's quiet bits (who hears a set may have changed).
  private func refresh(_ slot: Int) {
    owner.voidQuietBits()
    guard slot < 64 else { return }
    let observers = bySlot[slot] ?? []
    let bit: UInt64 = 1 << UInt64(slot)
    if !observers.isEmpty && owner.entity.notifiesAutomatically[slot]
      && observers.allSatisfy(\.takesTypedSets)
    {
      if typedLists.isEmpty {
        typedLists = ContiguousArray(
          repeating: [], count: min(64, owner.entity.properties.count))
      }
      typedLists[slot] = ContiguousArray(observers)
      typedSlots |= bit
    } else if typedSlots & bit != 0 {
      typedLists[slot] = []
      typedSlots &= ~bit
    }
  }

  var isEmpty: Bool { bySlot.isEmpty }
}
