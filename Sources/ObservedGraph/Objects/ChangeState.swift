/// Which slots of an object changed since it was inserted or last saved, and the committed values
/// of those slots (for ``ManagedObject/committedValues(forKeys:)`` and undo). Owned by the
/// ``ChangeTracker``.
///
/// Slots below 64 are bits in the object itself; the rare parts — slots from 64 on, committed
/// values, the pending state's slots from 64 on (see ``PendingState``), and the origins of the
/// changes and of the pending news once several origins changed the graph (see
/// ``OriginLedger``) — share one box, ``SlotOverflow``, made when first needed: two words per
/// object instead of five.
struct ChangeState {
  private var low: UInt64 = 0
  /// The rare parts; nil until first needed.
  private var overflow: SlotOverflow?

  var isEmpty: Bool { low == 0 && overflow?.changed.isEmpty != false }

  func contains(_ slot: Int) -> Bool {
    slot < 64 ? low & (1 << UInt64(slot)) != 0 : overflow?.changed.contains(slot) == true
  }

  mutating func insert(_ slot: Int) {
    if slot < 64 {
      low |= 1 << UInt64(slot)
    } else if !contains(slot) {
      uniqueOverflow().changed.append(slot)
    }
  }

  mutating func remove(_ slot: Int) {
    if slot < 64 {
      low &= ~(1 << UInt64(slot))
    } else if contains(slot) {
      uniqueOverflow().changed.removeAll { $0 == slot }
    }
    if overflow?.originals[slot] != nil { uniqueOverflow().originals[slot] = nil }
    if overflow?.changeOrigins[slot] != nil { uniqueOverflow().changeOrigins[slot] = nil }
  }

  /// The changed slots, ascending.
  var changedSlots: [Int] {
    (0..<64).filter { low & (1 << UInt64($0)) != 0 } + (overflow?.changed.sorted() ?? [])
  }

  /// The committed value of each changed slot, for objects that have been saved.
  /// The committed value of a slot, read where it is kept (``originals`` hands out a copy of
  /// the whole table: a retain and a release per read, on the undo path of every slot).
  func original(_ slot: Int) -> SnapshotValue? { overflow?.originals[slot] }

  var originals: CommittedValues {
    get { overflow?.originals ?? CommittedValues() }
    _modify { yield &uniqueOverflow().originals }
  }

  /// Forgets every change (a save, a reset) and their origins; the pending state's slots and
  /// origins stay.
  mutating func removeAll() {
    low = 0
    if let overflow,
      !overflow.changed.isEmpty || !overflow.originals.isEmpty || !overflow.changeOrigins.isEmpty
    {
      self.overflow =
        overflow.pending.isEmpty && overflow.pendingOrigins.isEmpty
        ? nil : SlotOverflow(pending: overflow.pending, origins: overflow.pendingOrigins)
    }
  }

  // MARK: Origins (see ``OriginLedger``)

  /// The origins of the changes of `slot` (-1: of the object's insert or delete) since the last
  /// save, when the ledger keeps them per slot; nil when none are kept.
  func changeOrigins(_ slot: Int) -> Set<ChangeOrigin>? { overflow?.changeOrigins[slot] }

  mutating func setChangeOrigins(_ slot: Int, _ origins: Set<ChangeOrigin>) {
    uniqueOverflow().changeOrigins[slot] = origins
  }

  /// Forgets the origins of the changes (the object left the context).
  mutating func removeChangeOrigins() {
    if overflow?.changeOrigins.isEmpty == false { uniqueOverflow().changeOrigins.removeAll() }
  }

  /// The origins of the news of `slot` (-1: of the object's insert or delete) since the last
  /// event, when the ledger keeps them per slot; nil when none are kept.
  func pendingOrigins(_ slot: Int) -> Set<ChangeOrigin>? { overflow?.pendingOrigins[slot] }

  mutating func setPendingOrigins(_ slot: Int, _ origins: Set<ChangeOrigin>) {
    uniqueOverflow().pendingOrigins[slot] = origins
  }

  // MARK: The pending state's slots from 64 on

  func pendingContains(_ slot: Int) -> Bool { overflow?.pending.contains(slot) == true }

  mutating func insertPending(_ slot: Int) {
    if !pendingContains(slot) { uniqueOverflow().pending.append(slot) }
  }

  var pendingSlots: [Int] { overflow?.pending.sorted() ?? [] }

  /// Forgets the pending slots from 64 on and the pending news' origins.
  mutating func removeAllPending() {
    if overflow?.pending.isEmpty == false { uniqueOverflow().pending.removeAll() }
    if overflow?.pendingOrigins.isEmpty == false { uniqueOverflow().pendingOrigins.removeAll() }
  }

  /// The box, made if needed, and copied first if another state shares it.
  private mutating func uniqueOverflow() -> SlotOverflow {
    if overflow == nil {
      overflow = SlotOverflow()
    } else if !isKnownUniquelyReferenced(&overflow!) {
      overflow = SlotOverflow(copying: overflow!)
    }
    return overflow!
  }
}

/// The rare parts of an object's change and pending state (see ``ChangeState``).
final class SlotOverflow {
  // Reached only through the object's `changes`, so no access overlaps: no dynamic exclusivity
  // checks.
  /// Changed slots from 64 on.
  @exclusivity(unchecked) var changed: [Int] = []
  /// Committed values by slot.
  @exclusivity(unchecked) var originals = CommittedValues()
  /// Pending slots from 64 on (the observer center's, see ``PendingState``).
  @exclusivity(unchecked) var pending: [Int] = []
  /// The origins of the changes since the last save, by slot (-1: the insert or delete), kept
  /// while the tracker's ``OriginLedger`` is mixed.
  @exclusivity(unchecked) var changeOrigins: [Int: Set<ChangeOrigin>] = [:]
  /// The origins of the news since the last event, by slot (-1: the insert or delete), kept
  /// while the observer center's ``OriginLedger`` is mixed.
  @exclusivity(unchecked) var pendingOrigins: [Int: Set<ChangeOrigin>] = [:]

  init() {}

  init(pending: [Int], origins: [Int: Set<ChangeOrigin>]) {
    self.pending = pending
    self.pendingOrigins = origins
  }

  init(copying other: SlotOverflow) {
    changed = other.changed
    originals = other.originals
    pending = other.pending
    changeOrigins = other.changeOrigins
    pendingOrigins = other.pendingOrigins
  }
}

/// The committed values of an object's changed slots, by slot: the first in place and the others in
/// a short list, since an object changes few slots between two saves and most such objects keep one
/// value. No dictionary, so no allocation, hash table or hash per slot for every saved object a
/// change touches.
struct CommittedValues {
  private var first: (slot: Int, value: SnapshotValue)?
  private var others: ContiguousArray<(slot: Int, value: SnapshotValue)> = []

  var isEmpty: Bool { first == nil }

  /// The committed value of `slot`, or nil when none is kept; setting nil forgets it.
  subscript(slot: Int) -> SnapshotValue? {
    get {
      if let first, first.slot == slot { return first.value }
      for entry in others where entry.slot == slot { return entry.value }
      return nil
    }
    set {
      if first?.slot == slot {
        if let newValue {
          first = (slot, newValue)
        } else {
          first = others.isEmpty ? nil : others.removeFirst()
        }
        return
      }
      let index = others.firstIndex { $0.slot == slot }
      switch (index, newValue) {
      case (let index?, let value?): others[index].value = value
      case (let index?, nil): others.remove(at: index)
      case (nil, let value?):
        if first == nil { first = (slot, value) } else { others.append((slot, value)) }
      case (nil, nil): break
      }
    }
  }
}
