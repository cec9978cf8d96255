/// When a part's invariant check after a change scans everything instead of the change alone: at
/// the first change, then once every 64 (debug builds only).
struct FullCheckSchedule {
  private var changesUntilFullCheck = 0

  /// Counts one change; true when this one gets the full scan.
  mutating func isDue() -> Bool {
    guard changesUntilFullCheck <= 0 else {
      changesUntilFullCheck -= 1
      return false
    }
    changesUntilFullCheck = 64
    return true
  }
}
