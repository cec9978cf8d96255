/// When a part's invariant check after a change scans everything instead of the change alone: at
/// the first change, then once every 64 — only while ``FullChecks/isOn`` (the library's own tests,
/// `OBSERVEDGRAPH_FULL_CHECKS=1`), and only in builds with `OBSERVEDGRAPH_INVARIANTS`.
struct FullCheckSchedule {
  private var changesUntilFullCheck = 0

  /// Counts one change; true when this one gets the full scan (never while full checks are off).
  mutating func isDue() -> Bool {
    guard FullChecks.isOn else { return false }
    guard changesUntilFullCheck <= 0 else {
      changesUntilFullCheck -= 1
      return false
    }
    changesUntilFullCheck = 64
    return true
  }
}
