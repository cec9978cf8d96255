/// Which slots of an object changed since it was inserted or last saved, and the committed values
/// of those slots (for ``ManagedObject/committedValues(forKeys:)`` and undo). Owned by the
/// ``ChangeTracker``.
struct ChangeState {
  private var slots = SlotSet()
  /// The committed value of each changed slot, for objects that have been saved.
  var originals: [Int: SnapshotValue] = [:]

  var isEmpty: Bool { slots.isEmpty }
  func contains(_ slot: Int) -> Bool { slots.contains(slot) }
  mutating func insert(_ slot: Int) { slots.insert(slot) }

  mutating func remove(_ slot: Int) {
    slots.remove(slot)
    originals[slot] = nil
  }

  var changedSlots: [Int] { slots.members }
  mutating func removeAll() { self = ChangeState() }
}

/// A set of slot numbers: a bit set for the first 64, a list beyond.
struct SlotSet {
  private var low: UInt64 = 0
  private var high: [Int] = []

  var isEmpty: Bool { low == 0 && high.isEmpty }

  func contains(_ slot: Int) -> Bool {
    slot < 64 ? low & (1 << UInt64(slot)) != 0 : high.contains(slot)
  }

  mutating func insert(_ slot: Int) {
    if slot < 64 {
      low |= 1 << UInt64(slot)
    } else if !high.contains(slot) {
      high.append(slot)
    }
  }

  mutating func remove(_ slot: Int) {
    if slot < 64 {
      low &= ~(1 << UInt64(slot))
    } else {
      high.removeAll { $0 == slot }
    }
  }

  /// The members, ascending.
  var members: [Int] {
    (0..<64).filter { low & (1 << UInt64($0)) != 0 } + high.sorted()
  }
}
