/// One registered observer of one key of one object: a user's handler, or an internal link of a
/// key-path or dependent-key observation.
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
  var isValid = true

  init(
    options: ObservationOptions, isInternal: Bool = false, will: ((RawChange) -> Void)?,
    did: @escaping (RawChange) -> Void, cancel: (() -> Void)? = nil
  ) {
    self.options = options
    self.isInternal = isInternal
    self.will = will
    self.did = did
    self.cancel = cancel
  }
}

/// The observers of one object, by slot, in registration order.
final class ObserverTable {
  var bySlot: [Int: [Observer]] = [:]
  /// The object the table belongs to. The object owns the table, so whoever reaches the table
  /// (tokens hold it weakly) finds the object alive.
  unowned(unsafe) let owner: ManagedObject

  init(owner: ManagedObject) {
    self.owner = owner
  }

  func add(_ observer: Observer, slot: Int) { bySlot[slot, default: []].append(observer) }

  /// Drops the slot's observers that were invalidated.
  func removeInvalid(slot: Int) {
    bySlot[slot]?.removeAll { !$0.isValid }
    if bySlot[slot]?.isEmpty == true { bySlot[slot] = nil }
  }

  func remove(_ observer: Observer, slot: Int) {
    bySlot[slot]?.removeAll { $0 === observer }
    if bySlot[slot]?.isEmpty == true { bySlot[slot] = nil }
  }

  var isEmpty: Bool { bySlot.isEmpty }
}
