extension UndoLog {
  /// The bytes the log retains: the ``UndoStep/byteSize`` of every step on both stacks and in the
  /// open groups.
  ///
  /// Each step counts with its size clamped to `0...(1 << 32)` (4 GiB; `0...Int.max` on 32-bit
  /// platforms): a step reporting a negative size counts 0, one reporting `Int.max` counts 4 GiB,
  /// and the sum never overflows.
  ///
  /// ```swift
  /// log.register(step)
  /// log.byteSize  // step.byteSize
  /// ```
  ///
  /// - Complexity: O(``groupingLevel``).
  public var byteSize: Int {
    var total = undoStack.byteSize + redoStack.byteSize
    if groupingLevel > 0 {
      total += current.byteSize
      for group in enclosing {
        total += group.byteSize
      }
    }
    return total
  }

  /// Empties both stacks and the open groups.
  ///
  /// Open groups stay open (empty), so every ``beginGroup()`` still pairs with its
  /// ``endGroup()``; registration stays as it was (`UndoManager` re-enables it, which breaks the
  /// count of a caller that disabled it). Called while undoing or redoing, the steps of the
  /// running group still all apply (a half-applied group would leave the data inconsistent), but
  /// their inverses are thrown away.
  ///
  /// ```swift
  /// document.load(from: file)
  /// log.removeAllActions()  // nothing to undo into the old document
  /// ```
  ///
  /// - Complexity: O(*n*), *n* the groups and steps released.
  public func removeAllActions() {
    endGrowth()
    // A fresh base: no earlier checkpoint can be reached any more.
    baseStateID = nextGroupID
    nextGroupID += 1
    undoStack.removeAll()
    redoStack.removeAll()
    clearedRedo = nil
    if groupingLevel > 0 {
      current.steps.removeAll()
      current.byteSize = 0
      for index in enclosing.indices {
        enclosing[index].steps.removeAll()
        enclosing[index].byteSize = 0
      }
    }
    if isUndoing || isRedoing {
      discardGathered = true
    }
    lastCoalescing = nil
    _checkInvariantsAfterBulkChange()
  }

  /// Removes the steps that act on `target`, on both stacks and in the open groups, and drops the
  /// closed groups left empty.
  ///
  /// A step acts on `target` when its ``UndoStep/acts(on:)`` says so; by default, when its
  /// ``UndoStep/target`` is `target`. Closure registrations made with
  /// ``registerUndo(withTarget:handler:)`` are found by their target too. Open groups left empty stay open. Checkpoints naming a dropped group become
  /// unavailable.
  ///
  /// ```swift
  /// log.removeAllActions(withTarget: closedDocument)
  /// ```
  ///
  /// - Parameter target: The object whose steps to remove, passed to ``UndoStep/acts(on:)``.
  /// - Complexity: O(*n*), *n* the steps in the log.
  public func removeAllActions(withTarget target: AnyObject) {
    endGrowth()
    undoStack.removeSteps(withTarget: target)
    redoStack.removeSteps(withTarget: target)
    clearedRedo?.stack.removeSteps(withTarget: target)
    if groupingLevel > 0 {
      current.removeSteps(withTarget: target)
      for index in enclosing.indices {
        enclosing[index].removeSteps(withTarget: target)
      }
    }
    lastCoalescing = nil
    _checkInvariantsAfterBulkChange()
  }

  // MARK: Internals

  /// Drops the oldest whole groups until both stacks fit ``levelsOfUndo`` and the log fits
  /// ``byteLimit``, keeping the newest group of each stack.
  func trim() {
    if levelsOfUndo > 0 {
      while undoStack.count > levelsOfUndo {
        dropOldestUndoGroup()
      }
      while redoStack.count > levelsOfUndo {
        _ = redoStack.removeFirst()
      }
    }
    if byteLimit > 0 {
      while byteSize > byteLimit && undoStack.count > 1 {
        dropOldestUndoGroup()
      }
      while byteSize > byteLimit && redoStack.count > 1 {
        _ = redoStack.removeFirst()
      }
    }
  }

  private func dropOldestUndoGroup() {
    let dropped = undoStack.removeFirst()
    baseStateID = dropped.id
  }
}
