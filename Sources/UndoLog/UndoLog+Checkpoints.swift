extension UndoLog {
  /// A point in the undo history that ``UndoLog/undo(to:)`` can return to.
  ///
  /// A checkpoint names the state reached after the newest undo group at the time it was made. It
  /// stays valid while that group is on the undo stack, also after the group is undone and redone;
  /// it becomes unavailable when the group is trimmed by a limit or removed.
  ///
  /// ```swift
  /// let beforeImport = log.checkpoint()
  /// importer.run()
  /// try log.undo(to: beforeImport)
  /// ```
  public struct Checkpoint: Hashable, Sendable {
    let logID: UInt64
    let stateID: UInt64
  }

  /// Marks the current state so that ``undo(to:)`` can return to it.
  ///
  /// Closes the open event group first, so the changes of the current event belong before the
  /// mark, and ends the current run of coalescing, so later typing does not merge into a group
  /// before the mark. Explicit groups still open are not closed: their changes land after the mark.
  ///
  /// ```swift
  /// let mark = log.checkpoint()
  /// ```
  ///
  /// - Returns: A checkpoint of the current state.
  public func checkpoint() -> Checkpoint {
    markEventBoundary()
    lastCoalescing = nil
    return Checkpoint(logID: logID, stateID: currentStateID)
  }

  /// Undoes groups until the state marked by `mark` is reached.
  ///
  /// Like ``undo()``, it first closes the one open group, if any. Each group undone sends its own
  /// undo events and goes to the redo stack, so ``redo()`` walks forward again. Does nothing when
  /// the log is at `mark` already.
  ///
  /// ```swift
  /// let mark = log.checkpoint()
  /// edit(); edit(); edit()
  /// try log.undo(to: mark)  // three undos
  /// ```
  ///
  /// - Parameter mark: A checkpoint made by ``checkpoint()`` on this log.
  /// - Throws: ``UndoLogError/checkpointOfAnotherLog`` for a mark of another log;
  ///   ``UndoLogError/checkpointOnRedoSide`` when reaching the mark needs a redo;
  ///   ``UndoLogError/checkpointUnavailable`` when its group was trimmed or removed;
  ///   ``UndoLogError/nestedGroupsOpen`` and ``UndoLogError/undoInProgress`` as ``undo()``. The
  ///   log is left unchanged.
  /// - Complexity: O(*n*), *n* the steps undone plus the groups in the log.
  public func undo(to mark: Checkpoint) throws {
    guard mark.logID == logID else { throw UndoLogError.checkpointOfAnotherLog }
    try checkReadyToUndoOrRedo()
    guard mark.stateID == baseStateID || undoStack.contains(id: mark.stateID) else {
      if redoStack.contains(id: mark.stateID) {
        throw UndoLogError.checkpointOnRedoSide
      }
      throw UndoLogError.checkpointUnavailable
    }
    if groupingLevel == 1 {
      closeInnermostGroup()
    }
    while currentStateID != mark.stateID && !undoStack.isEmpty {
      performUndo()
    }
    _checkInvariantsAfterBulkChange()
  }

  /// The id of the state the log is in: that of the newest undo group, or of the base.
  var currentStateID: UInt64 {
    undoStack.last?.id ?? baseStateID
  }
}
