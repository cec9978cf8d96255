/// Which slots of an object changed since it was inserted or last saved, and the committed values
/// of those slots (for ``ManagedObject/committedValues(forKeys:)`` and undo). Owned by the
/// ``ChangeTracker``.
///
/// Slots below 64 are bits in the object itself; the rare parts — slots from 64 on, committed
/// values, and the pending state's slots from 64 on (see ``PendingState``) — share one box,
/// ``SlotOverflow``, made when first needed: two words per object instead of five.
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

  /// Forgets every change (a save, a reset); the pending state's slots stay.
  mutating func removeAll() {
    low = 0
    if let overflow, !overflow.changed.isEmpty || !overflow.originals.isEmpty {
      let pending = overflow.pending
      self.overflow = pending.isEmpty ? nil : SlotOverflow(pending: pending)
    }
  }

  // MARK: The pending state's slots from 64 on

  func pendingContains(_ slot: Int) -> Bool { overflow?.pending.contains(slot) == true }

  mutating func insertPending(_ slot: Int) {
    if !pendingContains(slot) { uniqueOverflow().pending.append(slot) }
  }

  var pendingSlots: [Int] { overflow?.pending.sorted() ?? [] }

  mutating func removeAllPending() {
    if overflow?.pending.isEmpty == false { uniqueOverflow().pending.removeAll() }
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

  init() {}

  init(pending: [Int]) { self.pending = pending }

  init(copying other: SlotOverflow) {
    changed = other.changed
    originals = other.originals
    pending = other.pending
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
