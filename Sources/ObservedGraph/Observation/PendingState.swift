/// What happened to an object since the context last posted objects-did-change. Owned by the
/// ``ObserverCenter``.
///
/// Slots below 64 are bits here; slots from 64 on live with the object's change state
/// (``ChangeState/insertPending(_:)``), in the box the two share. Use the object's `pendingSlots`
/// helpers, which see both.
struct PendingState {
  var low: UInt64 = 0
  var inserted = false
  var deleted = false
  var listed = false
}

extension ManagedObject {
  /// Whether `slot` changed since the last objects-did-change event.
  func pendingContains(_ slot: Int) -> Bool {
    slot < 64 ? pending.low & (1 << UInt64(slot)) != 0 : changes.pendingContains(slot)
  }

  /// Notes that `slot` changed since the last event.
  func insertPending(_ slot: Int) {
    if slot < 64 {
      pending.low |= 1 << UInt64(slot)
    } else {
      changes.insertPending(slot)
    }
  }

  /// The slots changed since the last event, ascending.
  var pendingSlots: [Int] {
    (0..<64).filter { pending.low & (1 << UInt64($0)) != 0 } + changes.pendingSlots
  }

  /// Whether the object has news for the next event.
  var hasPendingNews: Bool {
    pending.low != 0 || pending.inserted || pending.deleted || !changes.pendingSlots.isEmpty
  }

  /// Forgets the object's news (an event was posted, or a reset).
  func clearPending() {
    pending = PendingState()
    changes.removeAllPending()
  }
}
