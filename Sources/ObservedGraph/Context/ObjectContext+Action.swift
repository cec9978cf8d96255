import UndoLog

/// User actions: one call that makes a closure's changes one named undo group and one
/// objects-did-change event, and takes them back if the closure throws.
///
/// An action opens an explicit group in the undo log (`UndoLog.beginGroup()`), runs the body,
/// names the group and closes it, then ends the user event (``processPendingChanges()``). When the
/// body throws, `UndoLog.discardGroup()` replays the group's steps as an undo would and drops
/// them, with the redo groups they cleared put back. Without a log that records, the body's
/// changes are recorded in a private log for as long as it runs, only so they can be taken back.
extension ObjectContext {
  /// Runs `body` as one user action: one named undo group, one objects-did-change event, and
  /// nothing changed if it throws.
  ///
  /// The action replaces the pair `setActionName(_:)` + ``processPendingChanges()`` that ends each
  /// user event, so two actions can never merge into one undo group by a forgotten call:
  ///
  /// ```swift
  /// try context.performAction("Rename Category") {
  ///   fiction.name = "Novels"
  ///   try fiction.setValue(12.5, forKeyPath: "books.price")  // throws? nothing above stays
  /// }
  /// context.undoLog?.undoActionName  // "Rename Category"
  /// try context.undoLog?.undo()       // both changes are taken back, as one
  /// ```
  ///
  /// In order, the action:
  /// 1. ends the user event in progress, when it is not nested in another action or called while
  ///    the log undoes or redoes: changes made before the call and not yet processed are posted
  ///    as their own event and close their own undo group, so the action's group and event hold
  ///    only what the body does;
  /// 2. opens a group in the undo log and runs `body`;
  /// 3. if the body returns, names the group `name`, closes it, and ends the user event: its undo
  ///    group goes on the undo stack (the redo stack is cleared if the body changed anything, as
  ///    any change clears it) and subscribers of ``onObjectsDidChange(_:)`` hear one event;
  /// 4. if the body throws, takes back what the body changed — observers hear each change taken
  ///    back, with old and new values, as during an undo, and restored objects get
  ///    ``ManagedObject/awake(fromSnapshotEvents:)`` — and rethrows the error. The graph, the
  ///    change tracking (`hasChanges`, `changedValues()`), and both stacks of the undo log are as
  ///    they were before the call: no group is left behind, the redo stack keeps what it held,
  ///    and no objects-did-change event is posted for the action, since nothing it did remains.
  ///
  /// **Nesting.** An action inside another action's body joins the outer action's group: the
  /// outermost action names the group and ends the event. An inner action that throws takes back
  /// only its own changes; if the outer body catches the error, the outer action goes on. Called
  /// while a group opened by `UndoLog.beginGroup()` is open, the action's group folds into it
  /// when it closes, and the event is still posted. Called from an observer of a change made
  /// outside any action, it ends the event in progress first, like any call outside an action,
  /// so its changes are an undo group of their own; make the change in an action to have the
  /// change and the observer's answer undone together. Called from an observer while an undo or
  /// redo runs, its changes join what the undo or redo gathers, like any change an observer makes
  /// then, and it posts nothing itself.
  ///
  /// **Recording.** With no ``undoLog``, or one whose registration is disabled, the body's
  /// changes are recorded in a private log while it runs (``undoLog`` returns that log inside the
  /// body), then forgotten: they cannot be undone afterwards, but a throwing body still changes
  /// nothing. Recording costs memory and time proportional to the changes made.
  ///
  /// **What cannot be taken back.** Changes made by observers while the body's changes are taken
  /// back stay, unrecorded. A ``save()`` in the body is not undone: the store keeps what it
  /// wrote, and the objects the action changed differ from it again afterwards (`hasChanges`),
  /// as after an undo that follows a save.
  ///
  /// The body must leave the undo log's groups as it found them (every `UndoLog.beginGroup()`
  /// ended) and must not replace ``undoLog``; otherwise the program stops with a message.
  /// Calling ``processPendingChanges()`` in the body posts what is pending so far but does not
  /// end the action's undo group.
  ///
  /// - Parameters:
  ///   - name: The action's name, for an "Undo \<name\>" menu item (`UndoLog.undoActionName`).
  ///   - body: The changes of the action. It may throw; then nothing it changed stays.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, after its changes were taken back. A body that cannot throw
  ///   makes a call that cannot throw.
  /// - Complexity: O(changes made by `body`), twice that when it throws.
  @discardableResult
  public func performAction<Result, Failure: Error>(
    _ name: String, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let userLog = undoLog
    let isNested =
      actionDepth > 0 || userLog.map { $0.isUndoing || $0.isRedoing } ?? false
    if !isNested { processPendingChanges() }
    // The log the body's changes are recorded in: the context's, or a private one.
    let log: UndoLog
    if let userLog, userLog.isRegistrationEnabled {
      log = userLog
    } else {
      log = UndoLog()
      undoLog = log
    }
    log.beginGroup()
    let level = log.groupingLevel
    actionDepth += 1
    let outcome: Swift.Result<Result, Failure>
    do throws(Failure) {
      outcome = .success(try body())
    } catch {
      outcome = .failure(error)
    }
    actionDepth -= 1
    precondition(
      undoLog === log,
      "ObservedGraph: the body of performAction(\"\(name)\") replaced the context's undo log")
    precondition(
      log.groupingLevel == level,
      "ObservedGraph: the body of performAction(\"\(name)\") left the undo log's groups "
        + "unbalanced (grouping level \(log.groupingLevel), \(level) expected)")
    switch outcome {
    case .success:
      log.setActionName(name)
      closeActionGroup(of: log)
    case .failure:
      discardActionGroup(of: log)
    }
    if log !== userLog { undoLog = userLog }
    if !isNested {
      if case .success = outcome {
        processPendingChanges()
      } else {
        // What the body did was all taken back: nothing of it is news (changes pending before
        // the call were posted above). The event group the action's group was opened in closes
        // empty, so it leaves nothing behind.
        recorder.closeEvent()
        center.discardPending()
      }
    }
    return try outcome.get()
  }

  /// Ends the group an action opened; the group is known to be the innermost explicit one.
  private func closeActionGroup(of log: UndoLog) {
    do {
      try log.endGroup()
    } catch {
      preconditionFailure("ObservedGraph: the group of an action could not close: \(error)")
    }
  }

  /// Takes back and drops the group an action opened.
  private func discardActionGroup(of log: UndoLog) {
    do {
      try log.discardGroup()
    } catch {
      preconditionFailure("ObservedGraph: the group of an action could not be discarded: \(error)")
    }
  }
}
