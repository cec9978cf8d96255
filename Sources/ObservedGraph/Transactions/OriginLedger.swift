/// The origins of a body of changes, per object and slot: the news pending for the next
/// objects-did-change event (the ``ObserverCenter``'s), or the changes tracked since the last
/// save (the ``ChangeTracker``'s).
///
/// While every change noted has one origin, the ledger holds that origin and nothing else, and
/// noting a change is a comparison: an app that never names an origin pays nothing more. From the
/// first change of a second origin on, the ledger is *mixed*: each object keeps, for each slot
/// changed since (-1 for its insert or delete), the origins of that slot's changes
/// (``ChangeState/pendingOrigins(_:)``, ``ChangeState/changeOrigins(_:)``), and a slot with no
/// entry there had changes of the first origin (``uniform``) only. The owner starts the ledger
/// again when the body is over (an event posted, a save).
struct OriginLedger {
  /// The first origin noted; nil before the first change.
  private(set) var uniform: ChangeOrigin?
  /// Whether a change of an origin other than ``uniform`` was noted.
  private(set) var isMixed = false

  /// Whether every change noted has `origin` (and there is one): a change of `origin` need not be
  /// noted per slot.
  @inline(__always)
  func hasOnly(_ origin: ChangeOrigin) -> Bool {
    !isMixed && uniform == origin
  }

  /// Notes a change of `origin` to a slot whose entry is `entry` and which had changes noted
  /// before (`hadChange`). Returns the slot's new entry, or nil when it keeps none.
  mutating func note(_ origin: ChangeOrigin, entry: Set<ChangeOrigin>?, hadChange: Bool)
    -> Set<ChangeOrigin>?
  {
    guard let uniform else {
      self.uniform = origin
      return nil
    }
    if !isMixed {
      if origin == uniform { return nil }
      isMixed = true
    }
    if entry == nil && origin == uniform { return nil }
    var origins = entry ?? (hadChange ? [uniform] : [])
    origins.insert(origin)
    return origins
  }

  /// The origins of a slot's changes, given its entry.
  func origins(_ entry: Set<ChangeOrigin>?) -> Set<ChangeOrigin> {
    if let entry { return entry }
    return uniform.map { [$0] } ?? []
  }

  /// Whether a slot with `entry` has a change of `origin` noted.
  func includes(_ origin: ChangeOrigin, _ entry: Set<ChangeOrigin>?) -> Bool {
    entry?.contains(origin) ?? (uniform == origin)
  }

  /// Starts again: the body of changes is over.
  mutating func reset() {
    uniform = nil
    isMixed = false
  }
}

extension ObjectContext {
  /// Notes the origin in force as that of a change of `object`'s `slot` (-1: its insert or
  /// delete), in the pending news' ledger and, when `tracks`, the tracking's. Called by the one
  /// apply before it tracks the change and queues its news.
  @inline(__always)
  func noteOrigin(_ object: ManagedObject, _ slot: Int, tracks: Bool) {
    let origin = link.origin
    if center.origins.hasOnly(origin) && (!tracks || tracker.origins.hasOnly(origin)) { return }
    noteOriginPerSlot(object, slot, tracks: tracks, origin)
  }

  @inline(never)
  private func noteOriginPerSlot(
    _ object: ManagedObject, _ slot: Int, tracks: Bool, _ origin: ChangeOrigin
  ) {
    let hadNews =
      slot < 0 ? object.pending.inserted || object.pending.deleted : object.pendingContains(slot)
    if let entry = center.origins.note(
      origin, entry: object.changes.pendingOrigins(slot), hadChange: hadNews)
    {
      object.changes.setPendingOrigins(slot, entry)
    }
    guard tracks else { return }
    let hadChange =
      slot < 0 ? object.isInsertedFlag || object.isDeletedFlag : object.changes.contains(slot)
    if let entry = tracker.origins.note(
      origin, entry: object.changes.changeOrigins(slot), hadChange: hadChange)
    {
      object.changes.setChangeOrigins(slot, entry)
    }
  }

  /// Whether a change of `object`'s `slot` made now would add no origin to either ledger: a set
  /// of a slot tracked and pending already is quiet only then.
  @inline(__always)
  func notesOrigin(of object: ManagedObject, _ slot: Int) -> Bool {
    let origin = link.origin
    if center.origins.hasOnly(origin) && tracker.origins.hasOnly(origin) { return true }
    return notesOriginPerSlot(object, slot, origin)
  }

  @inline(never)
  private func notesOriginPerSlot(_ object: ManagedObject, _ slot: Int, _ origin: ChangeOrigin)
    -> Bool
  {
    center.origins.includes(origin, object.changes.pendingOrigins(slot))
      && tracker.origins.includes(origin, object.changes.changeOrigins(slot))
  }
}
