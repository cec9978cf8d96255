extension UndoLog {
  /// Undoes the newest group.
  ///
  /// If exactly one group is open it is closed first, as `UndoManager` does, so an undo in the
  /// middle of an event undoes that event. The group's steps are applied last-in first-out; the
  /// inverses they return, and whatever is registered meanwhile, form the group pushed on the redo
  /// stack, with the same action name and metadata. Sends ``Event/checkpoint``,
  /// ``Event/willUndo``, then ``Event/didUndo`` after the steps ran. Does nothing when there is
  /// nothing to undo.
  ///
  /// ```swift
  /// try log.undo()
  /// ```
  ///
  /// - Throws: ``UndoLogError/nestedGroupsOpen`` with more than one group open;
  ///   ``UndoLogError/undoInProgress`` while undoing or redoing. The log is left unchanged.
  /// - Complexity: O(*n*), *n* the steps of the group.
  public func undo() throws {
    try checkReadyToUndoOrRedo()
    if groupingLevel == 1 {
      closeInnermostGroup()
    }
    performUndo()
    _checkInvariantsAfterMutation()
  }

  /// Redoes the newest undone group.
  ///
  /// Like ``undo()`` in reverse: the steps run last-in first-out and their inverses go back on
  /// the undo stack without clearing the redo stack. If exactly one group is open it is closed
  /// first, which, if it held steps, clears the redo stack and leaves nothing to redo. Sends
  /// ``Event/checkpoint``, ``Event/willRedo`` and ``Event/didRedo``. Does nothing when there is
  /// nothing to redo.
  ///
  /// ```swift
  /// try log.undo()
  /// try log.redo()  // back where we were
  /// ```
  ///
  /// - Throws: ``UndoLogError/nestedGroupsOpen`` with more than one group open;
  ///   ``UndoLogError/undoInProgress`` while undoing or redoing. The log is left unchanged.
  /// - Complexity: O(*n*), *n* the steps of the group.
  public func redo() throws {
    try checkReadyToUndoOrRedo()
    if groupingLevel == 1 {
      closeInnermostGroup()
    }
    performRedo()
    _checkInvariantsAfterMutation()
  }

  /// Undoes the newest group on the undo stack, with no group open.
  ///
  /// Unlike ``undo()`` it never closes an open group. Does nothing when the undo stack is empty.
  ///
  /// ```swift
  /// try log.undoNestedGroup()
  /// ```
  ///
  /// - Throws: ``UndoLogError/groupOpen`` when a group is open; ``UndoLogError/undoInProgress``
  ///   while undoing or redoing. The log is left unchanged.
  /// - Complexity: O(*n*), *n* the steps of the group.
  public func undoNestedGroup() throws {
    if let refusal = refusals.last { throw refusal }
    guard !isUndoing && !isRedoing else {
      throw UndoLogError(.undoInProgress, isUndoing ? "undoing" : "redoing")
    }
    guard groupingLevel == 0 else {
      throw UndoLogError(.groupOpen, "undoNestedGroup() at grouping level \(groupingLevel)")
    }
    performUndo()
    _checkInvariantsAfterMutation()
  }

  // MARK: Internals

  func checkReadyToUndoOrRedo() throws {
    if let refusal = refusals.last { throw refusal }
    guard !isUndoing && !isRedoing else {
      throw UndoLogError(.undoInProgress, isUndoing ? "undoing" : "redoing")
    }
    guard groupingLevel <= 1 else {
      throw UndoLogError(.nestedGroupsOpen, "grouping level \(groupingLevel)")
    }
  }

  /// Undoes the top undo group, gathering the redo group; nothing when the stack is empty.
  func performUndo() {
    guard !undoStack.isEmpty else { return }
    emit(.checkpoint)
    emit(.willUndo)
    // A subscriber may have undone or removed everything meanwhile.
    guard let group = undoStack.popLast() else { return }
    lastCoalescing = nil
    isUndoing = true
    let gathered = replay(group)
    isUndoing = false
    if let gathered {
      redoStack.push(gathered)
      trim()
    }
    emit(.didUndo)
  }

  /// Redoes the top redo group, gathering the undo group; nothing when the stack is empty.
  func performRedo() {
    guard !redoStack.isEmpty else { return }
    emit(.checkpoint)
    emit(.willRedo)
    guard let group = redoStack.popLast() else { return }
    lastCoalescing = nil
    isRedoing = true
    let gathered = replay(group)
    isRedoing = false
    if let gathered {
      undoStack.push(gathered)
      trim()
    }
    emit(.didRedo)
  }

  /// Applies a group's steps last-in first-out and returns the group their inverses form, or
  /// `nil` when it is empty or was discarded by `removeAllActions()`.
  ///
  /// Any groups open before (a subscriber of `willUndo` may open one) are set aside and restored,
  /// so the gathering group is always the outermost while the steps run.
  func replay(_ group: UndoGroup) -> UndoGroup? {
    endGrowth()
    defer { endGrowth() }
    let setAside = (current, enclosing, groupingLevel, outermostOrigin)
    current = UndoGroup()
    enclosing = []
    groupingLevel = 0
    discardGathered = false
    openGroup(origin: .gathering)
    current.actionName = group.actionName
    current.metadata = group.metadata

    var steps = group.steps
    var index = steps.endIndex
    while index > steps.startIndex {
      index -= 1
      let inverse = steps[index].apply(in: self)
      if disableCount == 0 && !inverse.isEmptyUndoStep {
        current.byteSize += inverse.countedByteSize
        current.steps.append(inverse)
      }
    }
    steps = []

    // Fold whatever the steps left open into the gathering group.
    while let parent = enclosing.popLast() {
      var child = UndoGroup()
      swap(&child, &current)
      current = parent
      current.absorb(child)
    }
    var gathered = UndoGroup()
    swap(&gathered, &current)
    gathered.id = group.id
    (current, enclosing, groupingLevel, outermostOrigin) = setAside
    if discardGathered || gathered.isEmpty {
      discardGathered = false
      return nil
    }
    return gathered
  }
}
