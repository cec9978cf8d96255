extension UndoLog {
  /// Captures the closed groups of both stacks as a ``History`` that can be encoded and restored.
  ///
  /// Every step must be an ``ArchivableUndoStep`` and every metadata value `Encodable`: the log
  /// checks them all before returning, so the history it returns always encodes. Capturing copies
  /// the steps, which are values; the log is not changed.
  ///
  /// ```swift
  /// let encoder = JSONEncoder()
  /// encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  /// log.markEventBoundary()  // close the event group first
  /// try encoder.encode(log.history()).write(to: historyURL)
  /// ```
  ///
  /// - Returns: The undo and redo groups, with their action names, metadata and steps.
  /// - Throws: ``UndoLogError/groupOpen`` when a group is open (end it, or the event with
  ///   ``markEventBoundary()``, first); ``UndoLogError/undoInProgress`` while undoing or redoing;
  ///   ``UndoLogError/notArchivable`` for a step that is not an ``ArchivableUndoStep`` (for
  ///   instance a closure registered with ``registerUndo(withTarget:handler:)``) or a metadata
  ///   value that is not `Encodable`, naming its type, its stack and its group.
  /// - Complexity: O(*n*), *n* the steps and metadata values in the log.
  public func history() throws -> History {
    guard !isUndoing && !isRedoing else {
      throw UndoLogError(.undoInProgress, "history() while \(isUndoing ? "undoing" : "redoing")")
    }
    guard groupingLevel == 0 else {
      throw UndoLogError(.groupOpen, "history() at grouping level \(groupingLevel)")
    }
    return History(
      undoGroups: try Self.archive(undoStack, stack: "undo"),
      redoGroups: try Self.archive(redoStack, stack: "redo"))
  }

  /// Replaces the history of the log, both stacks, with the groups of `history`.
  ///
  /// The log keeps its settings (``levelsOfUndo``, ``byteLimit``, ``groupsByEvent``,
  /// ``coalescingWindow``, ``now``), its registration count, its participants and its event
  /// subscribers. As after ``removeAllActions()``, the state before the restore is gone: earlier
  /// checkpoints become unavailable, and the current run of coalescing ends. The limits then
  /// apply: the oldest undo groups and the farthest redo groups past them are dropped.
  ///
  /// Restoring sends no event, as ``removeAllActions()`` sends none: refresh what shows
  /// ``canUndo``, ``canRedo`` and the action names after calling it. The steps are not applied;
  /// the data they act on must already be in the state the history leads to, and its objects
  /// must be registered as participants before the first undo.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.userInfo[UndoLog.History.stepTypesKey] = [SetScore.self]
  /// let history = try decoder.decode(UndoLog.History.self, from: Data(contentsOf: historyURL))
  ///
  /// let log = UndoLog()
  /// log.addParticipant(scoreboard)
  /// try log.restore(history)
  /// try log.undo()
  /// ```
  ///
  /// - Parameter history: The groups to put on the stacks, typically decoded from an archive.
  /// - Throws: ``UndoLogError/undoInProgress`` while undoing or redoing;
  ///   ``UndoLogError/groupOpen`` when a group is open. The log is left unchanged.
  /// - Complexity: O(*n*), *n* the steps in the log and in `history`.
  public func restore(_ history: History) throws {
    guard !isUndoing && !isRedoing else {
      throw UndoLogError(.undoInProgress, "restore(_:) while \(isUndoing ? "undoing" : "redoing")")
    }
    guard groupingLevel == 0 else {
      throw UndoLogError(.groupOpen, "restore(_:) at grouping level \(groupingLevel)")
    }
    // A fresh base: no earlier checkpoint can be reached any more.
    endGrowth()
    baseStateID = nextGroupID
    nextGroupID += 1
    undoStack.removeAll()
    redoStack.removeAll()
    for group in history.undoGroups {
      if let restored = restoredGroup(group) {
        undoStack.push(restored)
      }
    }
    for group in history.redoGroups {
      if let restored = restoredGroup(group) {
        redoStack.push(restored)
      }
    }
    lastCoalescing = nil
    trim()
    _checkInvariantsAfterBulkChange()
  }

  // MARK: Internals

  /// The archivable form of every group of a stack, oldest first.
  private static func archive(_ stack: GroupStack, stack name: String) throws -> [History.Group] {
    var archived: [History.Group] = []
    archived.reserveCapacity(stack.count)
    for (groupIndex, group) in stack.groups.enumerated() {
      let place = "\(name) group \(groupIndex) of \(stack.count), oldest first"
      var steps: [any ArchivableUndoStep] = []
      steps.reserveCapacity(group.steps.count)
      for (stepIndex, step) in group.steps.enumerated() {
        guard let archivable = step as? any ArchivableUndoStep else {
          let typeName = String(reflecting: type(of: step))
          let reason =
            step is any RegisteredClosure
            ? "a closure registered with registerUndo(withTarget:handler:) cannot be archived"
            : "it does not conform to ArchivableUndoStep"
          throw UndoLogError(
            .notArchivable, "step \(stepIndex) of \(place) is a \(typeName): \(reason)")
        }
        steps.append(archivable)
      }
      for (key, value) in group.metadata.sorted(by: { $0.key < $1.key })
      where !(value is any Encodable) {
        let typeName = String(reflecting: type(of: value))
        throw UndoLogError(
          .notArchivable,
          "metadata \"\(key)\" of \(place) is a \(typeName), which is not Encodable")
      }
      archived.append(
        History.Group(actionName: group.actionName, metadata: group.metadata, steps: steps))
    }
    return archived
  }

  /// A closed group holding the steps of `group`, with a new id; `nil` when it holds none.
  private func restoredGroup(_ group: History.Group) -> UndoGroup? {
    guard !group.steps.isEmpty else { return nil }
    var restored = UndoGroup()
    restored.steps.reserveCapacity(group.steps.count)
    for step in group.steps {
      restored.steps.append(step)
      restored.byteSize += step.countedByteSize
    }
    restored.actionName = group.actionName
    restored.metadata = group.metadata
    restored.id = nextGroupID
    nextGroupID += 1
    return restored
  }
}
