extension UndoLog {
  /// Closes the innermost group that ``beginGroup()`` opened and takes back what it recorded:
  /// the log is as it was before that `beginGroup()`.
  ///
  /// The group's steps are applied last-in first-out, as ``undo()`` applies them, but what they
  /// return — and whatever is registered while they run — is dropped instead of going on the redo
  /// stack. The redo groups its registrations cleared come back, so a failed attempt costs the
  /// user neither a redo nor an undo. The group's name and metadata go with it. Use it when the
  /// work a group holds failed half-way:
  ///
  /// ```swift
  /// log.beginGroup()
  /// do {
  ///   try importer.run()   // registers steps as it changes things
  ///   try log.endGroup()
  /// } catch {
  ///   try log.discardGroup()   // what the importer changed is taken back
  /// }
  /// ```
  ///
  /// Sends ``Event/checkpoint``, ``Event/willUndo`` and ``Event/didUndo`` around the steps (none
  /// of them when called while undoing or redoing: the steps then run as part of that undo or
  /// redo), then ``Event/checkpoint``, ``Event/willCloseGroup`` and ``Event/didCloseGroup``.
  /// While the steps run, ``isUndoing`` is `true`. An implicit event group around the discarded
  /// group stays open, holding what it held before.
  ///
  /// - Throws: ``UndoLogError/noGroupToEnd`` when no group that ``beginGroup()`` opened is open.
  ///   The log is unchanged.
  /// - Complexity: O(*n*), *n* the steps of the group.
  public func discardGroup() throws {
    guard groupingLevel > 1 || (groupingLevel == 1 && outermostOrigin == .explicit) else {
      throw UndoLogError.noGroupToEnd
    }
    endGrowth()
    lastCoalescing = nil
    var group = UndoGroup()
    swap(&group, &current)
    let level = groupingLevel
    let nested = isUndoing || isRedoing
    if !nested {
      emit(.checkpoint)
      emit(.willUndo)
      isUndoing = true
    }
    let discarding = discardGathered
    _ = replay(group)
    discardGathered = discarding
    if !nested {
      isUndoing = false
      emit(.didUndo)
    }
    group = UndoGroup()
    emit(.checkpoint)
    emit(.willCloseGroup)
    // A subscriber may have closed groups itself; close only the group that was discarded.
    if groupingLevel == level {
      groupingLevel -= 1
      if let parent = enclosing.popLast() {
        current = parent
      } else {
        outermostOrigin = .explicit
      }
      if let cleared = clearedRedo, cleared.level >= level {
        clearedRedo = nil
        if redoStack.isEmpty {
          redoStack = cleared.stack
          trim()
        }
      }
    }
    emit(.didCloseGroup)
    _checkInvariantsAfterMutation()
  }
}
