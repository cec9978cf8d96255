/// Which slots of an object changed since it was inserted or last saved, and the committed values
/// of those slots (for ``ManagedObject/committedValues(forKeys:)``).
struct ChangeState {
  private var low: UInt64 = 0
  private var high: [Int] = []
  /// The committed value of each changed slot, for objects that have been saved.
  var originals: [Int: Any?] = [:]

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
    originals[slot] = nil
  }

  var slots: [Int] {
    (0..<64).filter { low & (1 << UInt64($0)) != 0 } + high.sorted()
  }

  mutating func removeAll() { self = ChangeState() }
}
