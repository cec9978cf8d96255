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

  /// Removes the steps acting on `target`, keeping `byteSize` right.
  /// - Returns: Whether any step was removed.
  mutating func removeSteps(withTarget target: AnyObject) -> Bool {
    let before = steps.count
    steps.removeAll { $0.acts(on: target) }
    guard steps.count != before else { return false }
    byteSize = steps.reduce(0) { $0 + $1.countedByteSize }
    return true
  }
}
