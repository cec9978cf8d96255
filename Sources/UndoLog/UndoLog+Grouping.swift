extension UndoLog {
  /// Opens a group nested in the open ones.
  ///
  /// At level 0 with ``groupsByEvent`` on, the implicit event group opens first, so the explicit
  /// group nests in it (level 2) and the whole event still undoes as one group. Each opening
  /// sends ``Event/checkpoint`` then ``Event/didOpenGroup``.
  ///
  /// ```swift
  /// log.beginGroup()
  /// log.register(moveStep)
  /// log.register(resizeStep)
  /// try log.endGroup()
  /// ```
  public func beginGroup() {
    if groupingLevel == 0 && groupsByEvent {
      openGroup(origin: .event)
    }
    openGroup(origin: .explicit)
    _checkInvariantsAfterMutation()
  }

  /// Closes the innermost group that ``beginGroup()`` opened.
  ///
  /// A nested group folds into its parent; a top-level group is pushed on the undo stack, or
  /// discarded when it holds no step. Sends ``Event/checkpoint``, ``Event/willCloseGroup`` (the
  /// group still open, so a subscriber may still register) and ``Event/didCloseGroup``.
  ///
  /// ```swift
  /// log.beginGroup()
  /// log.register(step)
  /// try log.endGroup()
  /// log.undoCount  // 1 once the event group closes
  /// ```
  ///
  /// - Throws: ``UndoLogError/noGroupToEnd`` when no group that ``beginGroup()`` opened is open:
  ///   the implicit event group is closed by ``markEventBoundary()`` only. The log is unchanged.
  public func endGroup() throws {
    guard groupingLevel > 1 || (groupingLevel == 1 && outermostOrigin == .explicit) else {
      throw UndoLogError.noGroupToEnd
    }
    closeInnermostGroup()
    _checkInvariantsAfterMutation()
  }

  /// Ends the current user event: closes the implicit event group if it is the only open group.
  ///
  /// Call it where a run-loop turn would end; `ObjectContext.processPendingChanges()` calls it.
  /// When explicit groups are still open inside the event group, nothing closes: the event group
  /// closes at the first boundary after they end.
  ///
  /// ```swift
  /// log.register(step)       // opens the event group
  /// log.markEventBoundary()  // closes it: one undo group
  /// ```
  public func markEventBoundary() {
    guard groupingLevel == 1 && outermostOrigin == .event else { return }
    closeInnermostGroup()
    _checkInvariantsAfterMutation()
  }

  /// Names the action the open group records, shown as "Undo <name>" in a menu.
  ///
  /// Names the innermost open group, or the newest undo group when none is open; a nested group's
  /// name passes to its parent when it closes. Ignored while registration is disabled.
  ///
  /// ```swift
  /// log.setActionName("Typing")
  /// log.undoActionName  // "Typing" once something is recorded
  /// ```
  ///
  /// - Parameter name: The action's name, as shown to the user.
  public func setActionName(_ name: String) {
    guard disableCount == 0 else { return }
    if groupingLevel > 0 {
      current.actionName = name
    } else {
      undoStack.updateLast { $0.actionName = name }
    }
    _checkInvariantsAfterMutation()
  }

  /// The name of the action ``undo()`` would undo, or `""` when there is nothing to undo.
  ///
  /// When open groups hold steps, `undo()` closes and undoes them, so their name is reported.
  ///
  /// ```swift
  /// Text(log.canUndo ? "Undo \(log.undoActionName)" : "Undo")
  /// ```
  public var undoActionName: String {
    if let open = openGroupSummary() {
      return open.actionName
    }
    return undoStack.last?.actionName ?? ""
  }

  /// The name of the action ``redo()`` would redo, or `""` when there is nothing to redo.
  ///
  /// ```swift
  /// Text(log.canRedo ? "Redo \(log.redoActionName)" : "Redo")
  /// ```
  public var redoActionName: String {
    redoStack.last?.actionName ?? ""
  }

  /// Attaches a value to the open group (or to the newest undo group when none is open), for
  /// instance the selection to restore when the group is undone.
  ///
  /// Metadata moves with its group from the undo stack to the redo stack and back. A nested
  /// group's metadata merges into its parent's when it closes, the nested values winning. Ignored
  /// while registration is disabled.
  ///
  /// ```swift
  /// log.setMetadata(selection, forKey: "selection")
  /// try log.undo()
  /// let restored = log.redoMetadata["selection"] as? Selection
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value to keep with the group.
  ///   - key: The name to find it by.
  public func setMetadata(_ value: some Sendable, forKey key: String) {
    guard disableCount == 0 else { return }
    if groupingLevel > 0 {
      current.metadata[key] = value
    } else {
      undoStack.updateLast { $0.metadata[key] = value }
    }
    _checkInvariantsAfterMutation()
  }

  /// The metadata of the group ``undo()`` would undo; empty when there is nothing to undo.
  ///
  /// ```swift
  /// let selection = log.undoMetadata["selection"] as? Selection
  /// ```
  public var undoMetadata: [String: any Sendable] {
    if let open = openGroupSummary() {
      return open.metadata
    }
    return undoStack.last?.metadata ?? [:]
  }

  /// The metadata of the group ``redo()`` would redo; empty when there is nothing to redo.
  ///
  /// ```swift
  /// let selection = log.redoMetadata["selection"] as? Selection
  /// ```
  public var redoMetadata: [String: any Sendable] {
    redoStack.last?.metadata ?? [:]
  }

  /// Whether ``undo()`` has something to undo: a group on the undo stack, or an open group that
  /// holds steps.
  ///
  /// ```swift
  /// undoButton.isEnabled = log.canUndo
  /// ```
  ///
  /// - Complexity: O(``groupingLevel``).
  public var canUndo: Bool {
    !undoStack.isEmpty || hasOpenSteps
  }

  /// Whether ``redo()`` has something to redo.
  ///
  /// ```swift
  /// redoButton.isEnabled = log.canRedo
  /// ```
  public var canRedo: Bool { !redoStack.isEmpty }

  /// The number of closed groups on the undo stack; open groups are not counted.
  ///
  /// ```swift
  /// log.undoCount  // 0 for a new log
  /// ```
  public var undoCount: Int { undoStack.count }

  /// The number of groups on the redo stack.
  ///
  /// ```swift
  /// try log.undo()
  /// log.redoCount  // 1
  /// ```
  public var redoCount: Int { redoStack.count }

  // MARK: Internals

  var hasOpenSteps: Bool {
    guard groupingLevel > 0 else { return false }
    return !current.isEmpty || enclosing.contains { !$0.isEmpty }
  }

  /// What closing every open group would produce, when that holds steps.
  func openGroupSummary() -> UndoGroup? {
    guard hasOpenSteps else { return nil }
    var summary = UndoGroup()
    for group in enclosing {
      summary.absorbSummary(of: group)
    }
    summary.absorbSummary(of: current)
    return summary
  }

  /// Opens a group, sending the events a group opening sends (none for the gathering group).
  func openGroup(origin: GroupOrigin) {
    endGrowth()
    if origin != .gathering {
      emit(.checkpoint)
    }
    if groupingLevel == 0 {
      outermostOrigin = origin
    } else {
      enclosing.append(current)
      current = UndoGroup()
    }
    groupingLevel += 1
    if origin != .gathering {
      emit(.didOpenGroup)
    }
  }

  /// Closes the innermost open group: folds it into its parent, or pushes it on the undo stack.
  func closeInnermostGroup() {
    endGrowth()
    emit(.checkpoint)
    emit(.willCloseGroup)
    // A subscriber may have closed groups itself; never close below level 0.
    guard groupingLevel > 0 else { return }
    var closed = UndoGroup()
    swap(&closed, &current)
    groupingLevel -= 1
    if let parent = enclosing.popLast() {
      current = parent
      current.absorb(closed)
      if let cleared = clearedRedo, cleared.level > groupingLevel {
        clearedRedo = (groupingLevel, cleared.stack)
      }
    } else {
      outermostOrigin = .explicit
      clearedRedo = nil
      pushUndoGroup(closed)
    }
    emit(.didCloseGroup)
  }

  /// Pushes a newly closed top-level group on the undo stack, unless it is empty.
  func pushUndoGroup(_ group: UndoGroup) {
    guard !group.isEmpty else { return }
    var group = group
    group.id = nextGroupID
    nextGroupID += 1
    undoStack.push(group)
    trim()
  }
}

extension UndoGroup {
  /// Merges name and metadata the way closing would, without copying steps.
  fileprivate mutating func absorbSummary(of group: UndoGroup) {
    if !group.actionName.isEmpty {
      actionName = group.actionName
    }
    metadata.merge(group.metadata) { _, newer in newer }
    byteSize += group.byteSize
    if !group.isEmpty && steps.isEmpty {
      steps = group.steps
    }
  }
}
