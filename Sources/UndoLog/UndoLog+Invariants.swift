extension UndoLog {
  #if OBSERVEDGRAPH_INVARIANTS
    /// Traps when the log's state breaks one of its rules. Debug builds call it after every
    /// mutation; it scans every group, so it is left out of release builds.
    func _checkInvariants() {
      _checkRegistrationInvariants()
      precondition(disableCount >= 0, "UndoLog: negative disable count")
      precondition(!(isUndoing && isRedoing), "UndoLog: undoing and redoing at once")
      if groupingLevel == 0 {
        precondition(current.isEmpty && current.byteSize == 0, "UndoLog: steps outside any group")
        precondition(current.actionName.isEmpty && current.metadata.isEmpty)
      }
      for group in enclosing + [current] {
        checkSize(of: group)
      }
      checkStack(undoStack, name: "undo")
      checkStack(redoStack, name: "redo")
      var ids = Set<UInt64>()
      for group in undoStack.groups + redoStack.groups {
        precondition(group.id != 0 && group.id < nextGroupID, "UndoLog: bad group id \(group.id)")
        precondition(ids.insert(group.id).inserted, "UndoLog: group id \(group.id) twice")
      }
      precondition(!ids.contains(baseStateID), "UndoLog: base state id on a stack")
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

    private func checkSize(of group: UndoGroup) {
      let total = group.steps.reduce(0) { $0 + $1.byteSize }
      precondition(total == group.byteSize, "UndoLog: group size cache is stale")
    }
  #else
    @inline(__always)
    func _checkInvariants() {}

    @inline(__always)
    func _checkRegistrationInvariants() {}
  #endif
}
