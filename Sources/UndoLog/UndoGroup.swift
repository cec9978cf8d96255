/// One undo group: the steps of one user-level action, with its name and metadata.
///
/// Steps are kept in registration order and applied last-in first-out. `byteSize` caches the sum of
/// the steps' counted sizes (`countedByteSize`, each clamped) so limits never rescan.
struct UndoGroup {
  var steps: ContiguousArray<any UndoStep> = []
  var byteSize = 0
  var actionName = ""
  var metadata: [String: any Sendable] = [:]
  /// The position in history this group leads to; kept when the group moves between the stacks,
  /// so a checkpoint still finds it after undo and redo. Zero while the group is open.
  var id: UInt64 = 0

  var isEmpty: Bool { steps.isEmpty }

  /// Folds a closed nested group into this one: its steps follow this group's, and its name and
  /// metadata, set later than this group's, win.
  mutating func absorb(_ child: UndoGroup) {
    if steps.isEmpty {
      steps = child.steps
    } else {
      steps.append(contentsOf: child.steps)
    }
    byteSize += child.byteSize
    if !child.actionName.isEmpty {
      actionName = child.actionName
    }
    if !child.metadata.isEmpty {
      metadata.merge(child.metadata) { _, newer in newer }
    }
  }

  /// Removes the steps acting on `target`, and the parts acting on it of the steps that keep
  /// the rest (``UndoStep/removeActions(on:)``), keeping `byteSize` right.
  mutating func removeSteps(withTarget target: AnyObject) {
    var kept = ContiguousArray<any UndoStep>()
    kept.reserveCapacity(steps.count)
    for var step in steps where !step.removeActions(on: target) {
      kept.append(step)
    }
    steps = kept
    byteSize = steps.reduce(0) { $0 + $1.countedByteSize }
  }
}
