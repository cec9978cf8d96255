extension UndoLog {
  /// Makes ``undo()``, ``redo()``, ``undoNestedGroup()`` and ``undo(to:)`` throw `error`, leaving
  /// the log unchanged, until the matching ``endRefusingUndo()``.
  ///
  /// For code that owns a stretch of work which undo must not cut into: an object graph's
  /// transaction refuses undo while its body runs, since an undo then would take back changes the
  /// transaction has not committed. Refusals nest; the innermost one's error is thrown.
  /// Registration, grouping and ``discardGroup()`` go on as usual.
  ///
  /// ```swift
  /// struct Busy: Error {}
  /// log.beginRefusingUndo(throwing: Busy())
  /// #expect(throws: Busy.self) { try log.undo() }
  /// log.endRefusingUndo()
  /// ```
  ///
  /// - Parameter error: What undo and redo throw meanwhile.
  public func beginRefusingUndo(throwing error: any Error) {
    refusals.append(error)
  }

  /// Ends the innermost refusal that ``beginRefusingUndo(throwing:)`` began.
  ///
  /// ```swift
  /// log.endRefusingUndo()
  /// try log.undo()  // undoes again, unless an outer refusal is still in force
  /// ```
  ///
  /// - Precondition: A refusal is in force; otherwise the program stops with a message.
  public func endRefusingUndo() {
    precondition(
      !refusals.isEmpty, "UndoLog: endRefusingUndo() without beginRefusingUndo(throwing:)")
    refusals.removeLast()
  }

  /// Whether undo and redo are refused (see ``beginRefusingUndo(throwing:)``).
  ///
  /// ```swift
  /// if !log.isRefusingUndo { try log.undo() }
  /// ```
  public var isRefusingUndo: Bool { !refusals.isEmpty }
}
