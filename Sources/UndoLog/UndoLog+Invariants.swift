/// The log's invariant checks, compiled in with `OBSERVEDGRAPH_INVARIANTS` (every debug build,
/// a dependent app's too; see Package.swift).
///
/// After every mutation the log checks in O(1) what a mutation can touch: the flags and counts,
/// the grouping level against the open groups, the ids of the newest and oldest group of each
/// stack, a stack's size cache when it holds one group. Everything that walks steps or groups —
/// the size caches of the open and newest groups, every group of both stacks — runs only while
/// ``FullChecks/isOn`` (the library's own tests, `OBSERVEDGRAPH_FULL_CHECKS=1`), or when a test
/// calls ``_checkInvariants()``.
extension UndoLog {
  #if OBSERVEDGRAPH_INVARIANTS
    /// Traps when the log's state breaks one of its rules; walks every group on both stacks and
    /// every step of the open and newest groups.
    ///
    /// Tests call it directly. After a mutation the log calls
    /// ``_checkInvariantsAfterMutation()`` instead. Left out of release builds.
    func _checkInvariants() {
      checkTouchedInvariants()
      checkGroupSizes()
      checkWholeHistory()
      scheduleNextFullCheck()
    }

    /// The check run after each mutation: what a mutation can touch, in O(1); while full checks
    /// are on, also the size caches of the open and newest groups, and the full scan of
    /// ``_checkInvariants()`` whenever the log holds few groups, and otherwise at least once every
    /// `(groups / 8)` mutations.
    ///
    /// A mutation changes the newest groups only (pushing, popping, renaming), except trimming,
    /// which drops the oldest, and the removals, which run ``_checkInvariantsAfterBulkChange()``.
    /// So the full scan is amortized O(1) per mutation and a corruption it alone sees (a stale
    /// stack size, an id seen twice below the top) is caught within a bounded number of
    /// mutations.
    func _checkInvariantsAfterMutation() {
      checkTouchedInvariants()
      guard FullChecks.isOn else { return }
      checkGroupSizes()
      mutationsUntilFullCheck -= 1
      if mutationsUntilFullCheck <= 0 || undoStack.count + redoStack.count <= Self.smallLogGroups {
        checkWholeHistory()
        scheduleNextFullCheck()
      }
    }

    /// The check run after a change of the whole log (a limit set, actions removed, a history
    /// restored, an undo to a checkpoint): what a mutation can touch; while full checks are on,
    /// the full scan of ``_checkInvariants()`` at once.
    func _checkInvariantsAfterBulkChange() {
      checkTouchedInvariants()
      guard FullChecks.isOn else { return }
      checkGroupSizes()
      checkWholeHistory()
      scheduleNextFullCheck()
    }

    /// The checks cheap enough to run after every registration, on the graph's hot path.
    func _checkRegistrationInvariants() {
      precondition(groupingLevel >= 0, "UndoLog: negative grouping level")
      precondition(
        groupingLevel == (groupingLevel == 0 ? 0 : enclosing.count + 1),
        "UndoLog: grouping level \(groupingLevel) with \(enclosing.count) enclosing groups")
      precondition(
        !(isUndoing || isRedoing) || groupingLevel >= 1,
        "UndoLog: undoing or redoing without the gathering group")
    }

    /// Up to this many closed groups, every mutation runs the full scan.
    private static var smallLogGroups: Int { 64 }

    private func scheduleNextFullCheck() {
      mutationsUntilFullCheck = max(1, (undoStack.count + redoStack.count) / 8)
    }

    /// The rules a single mutation can break that need no walk over steps or groups: O(1).
    private func checkTouchedInvariants() {
      _checkRegistrationInvariants()
      precondition(disableCount >= 0, "UndoLog: negative disable count")
      precondition(!(isUndoing && isRedoing), "UndoLog: undoing and redoing at once")
      if groupingLevel == 0 {
        precondition(current.isEmpty && current.byteSize == 0, "UndoLog: steps outside any group")
        precondition(current.actionName.isEmpty && current.metadata.isEmpty)
      }
      checkEnds(of: undoStack, name: "undo")
      checkEnds(of: redoStack, name: "redo")
      if let undoTop = undoStack.last, let redoTop = redoStack.last {
        precondition(undoTop.id != redoTop.id, "UndoLog: group id \(undoTop.id) on both stacks")
      }
    }

    /// The size caches of the open groups and of the newest group of each stack: O(their steps).
    private func checkGroupSizes() {
      for group in enclosing {
        checkSize(of: group)
      }
      checkSize(of: current)
      if let last = undoStack.last { checkSize(of: last) }
      if let last = redoStack.last { checkSize(of: last) }
    }

    /// The rules only a scan of every closed group can check: O(groups).
    private func checkWholeHistory() {
      checkStack(undoStack, name: "undo")
      checkStack(redoStack, name: "redo")
      var ids = Set<UInt64>(minimumCapacity: undoStack.count + redoStack.count)
      for group in undoStack.groups {
        checkID(of: group, ids: &ids)
      }
      for group in redoStack.groups {
        checkID(of: group, ids: &ids)
      }
      precondition(!ids.contains(baseStateID), "UndoLog: base state id on a stack")
    }

    /// The newest and oldest groups of a stack, its count, and its size cache when the newest
    /// group is the only one: O(1).
    private func checkEnds(of stack: GroupStack, name: String) {
      if levelsOfUndo > 0 {
        precondition(stack.count <= levelsOfUndo, "UndoLog: \(name) stack past levelsOfUndo")
      }
      guard let last = stack.last, let first = stack.groups.first else {
        precondition(stack.byteSize == 0, "UndoLog: \(name) stack size cache is stale")
        return
      }
      checkEnd(last, name: name)
      if stack.count > 1 {
        checkEnd(first, name: name)
      }
      if stack.count == 1 {
        precondition(stack.byteSize == last.byteSize, "UndoLog: \(name) stack size cache is stale")
      }
    }

    private func checkEnd(_ group: UndoGroup, name: String) {
      precondition(!group.isEmpty, "UndoLog: empty group on the \(name) stack")
      precondition(group.id != 0 && group.id < nextGroupID, "UndoLog: bad group id \(group.id)")
      precondition(group.id != baseStateID, "UndoLog: base state id on a stack")
    }

    private func checkStack(_ stack: GroupStack, name: String) {
      var total = 0
      for group in stack.groups {
        precondition(!group.isEmpty, "UndoLog: empty group on the \(name) stack")
        total += group.byteSize
      }
      precondition(total == stack.byteSize, "UndoLog: \(name) stack size cache is stale")
      if levelsOfUndo > 0 {
        precondition(stack.count <= levelsOfUndo, "UndoLog: \(name) stack past levelsOfUndo")
      }
      if let last = stack.last {
        checkSize(of: last)
      }
    }

    private func checkID(of group: UndoGroup, ids: inout Set<UInt64>) {
      precondition(group.id != 0 && group.id < nextGroupID, "UndoLog: bad group id \(group.id)")
      precondition(ids.insert(group.id).inserted, "UndoLog: group id \(group.id) twice")
    }

    private func checkSize(of group: UndoGroup) {
      let total = group.steps.reduce(0) { $0 + $1.countedByteSize }
      precondition(total == group.byteSize, "UndoLog: group size cache is stale")
    }
  #else
    @inline(__always)
    func _checkInvariants() {}

    @inline(__always)
    func _checkInvariantsAfterMutation() {}

    @inline(__always)
    func _checkInvariantsAfterBulkChange() {}

    @inline(__always)
    func _checkRegistrationInvariants() {}
  #endif
}
