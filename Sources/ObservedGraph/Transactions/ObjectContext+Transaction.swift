import UndoLog

/// Transactions: all-or-nothing changes that those outside the library hear once, at the commit.
///
/// A transaction opens a group in the undo log (the context's, or a private one when the context
/// records no undo), opens the context's ``TransactionJournal`` when it is the outermost one, and
/// runs its body. While the journal is open every change takes the whole mutation path and is
/// recorded in the group, and only internal bookkeeping hears it. When the body throws, the
/// group is discarded (`UndoLog.discardGroup()` replays it backwards, heard by no one) and the
/// journal dropped. When the outermost body returns, the context reads the journal once — each
/// (object, key) with its value before the transaction and at the commit — drops it, and
/// delivers those changes; then the group is named and closed and the event posted.
extension ObjectContext {
  /// Whether a transaction's body is running (see ``transaction(actionName:origin:_:)``).
  ///
  /// ```swift
  /// context.transaction { #expect(context.isInTransaction) }
  /// #expect(!context.isInTransaction)
  /// ```
  public var isInTransaction: Bool { journal != nil }

  /// Runs `body` as one transaction: all of its changes or none, heard once at the commit, one
  /// named undo group and one objects-did-change event.
  ///
  /// ```swift
  /// try context.transaction(actionName: "Rename Category") {
  ///   fiction.name = "Novels"
  ///   try fiction.setValue(12.5, forKeyPath: "books.price")  // throws? nothing above stays
  /// }
  /// context.undoLog?.undoActionName  // "Rename Category"
  /// ```
  ///
  /// **All or nothing.** When the body throws, every change it made is taken back — values, both
  /// sides of relationships, inserts, deletes with their cascades — and the error is rethrown.
  /// Objects inserted in the body are gone and their identifiers are never used again. The
  /// graph, the change tracking and both stacks of the undo log are as they were before the
  /// call, and nobody outside the library heard anything. Restored objects get
  /// ``ManagedObject/awake(fromSnapshotEvents:)``, as after an undo.
  ///
  /// **Who hears what.** While the body runs, per-key, key-path and prior observers, change
  /// recorders, Swift Observation and objects-did-change subscribers (and so live results) hear
  /// nothing: ``FetchedResults/objects`` read in the body shows the state before the transaction.
  /// Inverse relationships, delete rules, change tracking and key-path observations' links keep
  /// up at once. An observer registered in the body with `.initial` hears the value it finds,
  /// uncommitted, at once. At the commit of the outermost transaction each (object, key) the
  /// body changed is delivered, in the order each first changed:
  /// - an attribute or a to-one once, with old = its value before the transaction and new = its
  ///   value at the commit; an attribute that ends where it started is delivered with equal old
  ///   and new, as an equal-value set is; a relationship that ends where it started is not
  ///   delivered;
  /// - an ordered to-many as removals at the old indexes, then insertions at the new indexes,
  ///   from the difference between its members before and at the commit; an unordered one as
  ///   the members that left, then those that joined;
  /// - an object inserted (or deleted) in the body as its insertion (or deletion), to change
  ///   recorders; an object inserted and deleted again in the body is not delivered at all;
  /// - `.prior` observers are called at the commit, when the object already holds the new value
  ///   (as for one change that edits several keys, the prior calls come first, then the
  ///   observers' calls, then change recorders);
  /// - a key-path or dependent-key observer once, from the value before the transaction.
  ///
  /// Swift Observation's registrar hears `willSet` and `didSet` of every delivered key, before
  /// the observers. Changes that observers make while the commit is delivered are heard as
  /// usual and join the transaction's undo group and event. Keys that end where they started
  /// make no objects-did-change entry, and a transaction that ends where it started leaves no
  /// undo group.
  ///
  /// **Undo.** The outermost transaction first ends the event in progress (as
  /// ``processPendingChanges()`` does), so its undo group and event hold only what the body does;
  /// the group is named `actionName`. Nested transactions are savepoints: an inner transaction
  /// that throws takes back only its own changes, and if the outer body catches the error, it
  /// goes on. Called while a group opened by `UndoLog.beginGroup()` is open, the transaction's
  /// group folds into it; called while the undo log undoes or redoes, its changes join what the
  /// undo or redo gathers. With no ``undoLog``, or one whose registration is disabled, the body's
  /// changes are recorded in a private log while it runs (``undoLog`` returns it inside the body)
  /// and forgotten afterwards.
  ///
  /// **In the body**, ``save()`` and `undo()` or `redo()` of the undo log throw
  /// ``ObjectGraphError/Kind/transactionInProgress``; ``refresh(_:mergeChanges:)`` throws it for
  /// an object the body changed and works for others; ``processPendingChanges()`` does nothing;
  /// ``rollback()`` and ``reset()``, which cannot throw, stop the program with a message. Side
  /// effects that must not happen for thrown work go in ``afterTransaction(onCommit:onRollback:)``.
  /// The body must leave the undo log's groups as it found them and must not replace
  /// ``undoLog``; otherwise the program stops with a message.
  ///
  /// **Origin.** Every change the transaction makes carries one origin (see ``ChangeOrigin``):
  /// `origin`, or when it is nil the origin in force at the call. Observers see it at the commit,
  /// and it stays in force while the commit is delivered, so changes observers make then carry it
  /// too. In the body, ``withOrigin(_:_:)`` with another origin throws. This form cannot throw
  /// anything but the body's error: a reserved origin (``ChangeOrigin/undo``,
  /// ``ChangeOrigin/redo``, ``ChangeOrigin/merge``), or one other than the origin of the
  /// transaction it is nested in, stops the program with a message;
  /// ``transaction(actionName:origin:save:_:)`` throws ``ObjectGraphError/Kind/invalidOrigin``
  /// instead.
  ///
  /// - Parameters:
  ///   - actionName: The undo group's name, for an "Undo \<name\>" menu item
  ///     (`UndoLog.undoActionName`).
  ///   - origin: The origin of the transaction's changes; nil (the default) for the one in
  ///     force.
  ///   - body: The changes. It may throw; then nothing it changed stays.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, after its changes were taken back. A body that cannot throw
  ///   makes a call that cannot throw.
  /// - Complexity: O(changes made by `body`), twice that when it throws.
  @discardableResult
  public func transaction<Result, Failure: Error>(
    actionName: String = "", origin: ChangeOrigin? = nil, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    switch runTransaction(actionName, origin: origin, saving: false, body) {
    case .success(let result): return result
    case .failure(.body(let error)): throw error
    case .failure(.own(let error)):
      // Only the origin can be refused before a transaction that does not save.
      preconditionFailure("ObservedGraph: \((error as? ObjectGraphError)?.reason ?? "\(error)")")
    }
  }

  /// Runs `body` as one transaction (see ``transaction(actionName:origin:_:)``) and, with `save` true,
  /// saves every pending change of the context at its commit: the graph and the store both have
  /// the changes, or neither does — SwiftData's `ModelContext.transaction(block:)`.
  ///
  /// ```swift
  /// try context.transaction(actionName: "Import", save: true) {
  ///   for row in rows { try importRow(row) }
  /// }  // saved: every row, with what was pending before, or nothing and the error
  /// ```
  ///
  /// The save runs when the body returns, before anyone hears the transaction's changes: objects
  /// hear `willSave` (what they change there is saved and delivered with the rest), the objects
  /// are validated, and the store writes every change in one store transaction. When that fails,
  /// the body's changes (and those `willSave` made) are taken back, heard by no one, and the
  /// error is rethrown: changes pending before the call stay pending, and the store is as it
  /// was. When it succeeds, the commit delivers the changes and posts the objects-did-change
  /// event, then objects hear `didSave` and save subscribers the did-save event. Changes that
  /// observers make while the commit is delivered are not saved: they are pending afterwards.
  ///
  /// Reads in the body are not isolated from other writers of the store.
  ///
  /// - Parameters:
  ///   - actionName: The undo group's name.
  ///   - origin: The origin of the transaction's changes; nil (the default) for the one in
  ///     force.
  ///   - save: Whether to save at the commit (`false` is ``transaction(actionName:origin:_:)``).
  ///   - body: The changes.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws; what the validation or the store throws; nothing changed
  ///   then. Before the body runs: ``ObjectGraphError/Kind/transactionInProgress`` when `save` is
  ///   true inside another transaction's body (only the outermost transaction can save);
  ///   ``ObjectGraphError/Kind/invalidOrigin`` for a reserved origin, or one other than the
  ///   origin of the transaction it is nested in.
  @discardableResult
  public func transaction<Result>(
    actionName: String = "", origin: ChangeOrigin? = nil, save: Bool, _ body: () throws -> Result
  ) throws -> Result {
    switch runTransaction(actionName, origin: origin, saving: save, body) {
    case .success(let result): return result
    case .failure(.body(let error)): throw error
    case .failure(.own(let error)): throw error
    }
  }

  /// Runs `body` as one user action: the spelling of ``transaction(actionName:origin:_:)`` with the
  /// action's name first.
  ///
  /// ```swift
  /// try context.performAction("Rename Category") {
  ///   fiction.name = "Novels"
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The undo group's name.
  ///   - body: The changes. It may throw; then nothing it changed stays, and nobody heard it.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws, after its changes were taken back.
  @discardableResult
  public func performAction<Result, Failure: Error>(
    _ name: String, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try transaction(actionName: name, body)
  }

  /// Runs `onCommit` once the outermost transaction in progress commits, or `onRollback` once it
  /// ends thrown — GRDB's `afterNextTransaction`. Outside a transaction's body, `onCommit` runs
  /// at once.
  ///
  /// For side effects that must not happen for thrown work: a file written, a message sent, a
  /// cache filled. An object's ``ManagedObject/awakeFromInsert()`` or
  /// ``ManagedObject/prepareForDeletion()`` runs inside the transaction that inserts or deletes
  /// it, and a throw takes back what it changed in the graph, not what it did elsewhere:
  ///
  /// ```swift
  /// override func awakeFromInsert() {
  ///   super.awakeFromInsert()
  ///   context?.afterTransaction(onCommit: { Analytics.count("book created") })
  /// }
  /// ```
  ///
  /// Hooks added in a nested transaction that throws are dropped for `onCommit`, and their
  /// `onRollback` runs when the outermost transaction ends, whichever way. Hooks run after the
  /// commit's delivery, event and save, in the order they were added; a hook may change the
  /// graph, which is then an ordinary change outside any transaction.
  ///
  /// - Parameters:
  ///   - onCommit: Runs after the transaction commits.
  ///   - onRollback: Runs after the transaction's changes were taken back.
  public func afterTransaction(onCommit: @escaping () -> Void, onRollback: (() -> Void)? = nil) {
    guard let journal else { return onCommit() }
    journal.addHooks(onCommit: onCommit, onRollback: onRollback)
  }

  // MARK: Running

  /// Why a transaction failed: its body threw; or the transaction refused to start, or its save
  /// at the commit threw.
  enum TransactionFailure<Failure: Error>: Error {
    case body(Failure)
    case own(any Error)
  }

  /// Runs a transaction: see ``transaction(actionName:origin:_:)``.
  private func runTransaction<Result, Failure: Error>(
    _ name: String, origin: ChangeOrigin?, saving: Bool, _ body: () throws(Failure) -> Result
  ) -> Swift.Result<Result, TransactionFailure<Failure>> {
    // An origin given is checked; none takes the one in force (`.undo` from an observer while
    // the log undoes, say).
    if let origin {
      do {
        try checkOrigin(origin, for: "transaction(origin: \"\(origin)\")")
      } catch {
        return .failure(.own(error))
      }
    }
    let origin = origin ?? link.origin
    if saving && journal != nil {
      return .failure(
        .own(
          ObjectGraphError(
            .transactionInProgress, entity: "",
            reason: "transaction(save: true) inside another transaction's body; "
              + "only the outermost transaction saves")))
    }
    let userLog = undoLog
    let isNested = actionDepth > 0 || userLog.map { $0.isUndoing || $0.isRedoing } ?? false
    if !isNested { processPendingChanges() }
    // The log the body's changes are recorded in: the context's, or a private one (no log, its
    // registration off, or an origin it does not track: the private log records every origin,
    // so that a throw can take the body back). A nested transaction records in its outer one's.
    let log: UndoLog
    if let userLog, userLog.isRegistrationEnabled, journal != nil || tracks(origin) {
      log = userLog
    } else {
      log = UndoLog()
      attachPrivateLog(log, over: userLog)
    }
    log.beginGroup()
    let level = log.groupingLevel
    let opensJournal = journal == nil
    let originBefore = link.origin
    putInForce(origin)
    defer { putInForce(originBefore) }
    if opensJournal {
      journal = TransactionJournal(
        origin: origin, refusing: userLog.map { $0 === log ? [log] : [log, $0] } ?? [log])
      audienceWidened()  // every change is journalled now: no set is quiet by an older answer
    }
    let mark = journal.unsafelyUnwrapped.mark()
    // A throw gives the table of untracked changes back as it was.
    let untrackedBefore = untracked
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
      "ObservedGraph: the body of transaction(actionName: \"\(name)\") replaced the context's "
        + "undo log")
    precondition(
      log.groupingLevel == level,
      "ObservedGraph: the body of transaction(actionName: \"\(name)\") left the undo log's "
        + "groups unbalanced (grouping level \(log.groupingLevel), \(level) expected)")
    // The outermost transaction threw (its body or its save): everything taken back, unheard.
    func takeBackOutermost() {
      discardActionGroup(of: log)
      let hooks = endThrown(isNested: isNested)
      if log !== userLog { detachPrivateLog(restoring: userLog) }
      putInForce(originBefore)
      for hook in hooks { hook() }
    }
    let result: Result
    switch outcome {
    case .failure(let error):
      untracked = untrackedBefore
      if opensJournal {
        takeBackOutermost()
      } else {
        discardActionGroup(of: log)
        journal.unsafelyUnwrapped.rollBack(to: mark)
      }
      return .failure(.body(error))
    case .success(let value):
      result = value
    }
    guard opensJournal else {
      log.setActionName(name)
      closeActionGroup(of: log)
      return .success(result)
    }
    // The outermost transaction commits: the save first, heard by no one if it fails.
    var saved: (prepared: PreparedSave, leaving: [ManagedObject])?
    if saving {
      do {
        let prepared = try prepareSave()
        saved = (prepared, try writeSave())
      } catch {
        takeBackOutermost()
        untracked = untrackedBefore
        return .failure(.own(error))
      }
    }
    let journal = self.journal.unsafelyUnwrapped
    let deliveries = commitDeliveries(of: journal)
    if !deliveries.changes && saved == nil {
      // Nothing ends changed: no undo step stays. Changes observers make while the commit is
      // delivered still form the action's group.
      discardActionGroup(of: log)
      log.beginGroup()
    }
    self.journal = nil
    journal.close()
    actionDepth += 1
    if !isNested { postPending(deliveries) }
    deliver(deliveries)
    actionDepth -= 1
    log.setActionName(name)
    closeActionGroup(of: log)
    if log !== userLog { detachPrivateLog(restoring: userLog) }
    if !isNested { processPendingChanges() }
    if let saved { finishSave(saved.prepared, leaving: saved.leaving) }
    putInForce(originBefore)
    for hook in journal.hooksToRun(committed: true) { hook() }
    return .success(result)
  }

  /// The outermost transaction threw and its changes were taken back: the journal closes, held
  /// key-path deliveries go, and the news the body made is dropped. Returns the rollback hooks.
  private func endThrown(isNested: Bool) -> [() -> Void] {
    let journal = self.journal.unsafelyUnwrapped
    self.journal = nil
    journal.close()
    journal.dropHeldDeliveries()
    if !isNested {
      // What the body did was all taken back: nothing of it is news (changes pending before the
      // call were posted). The event group the transaction's group was opened in closes empty.
      recorder.closeEvent()
      center.discardPending()
    }
    return journal.hooksToRun(committed: false)
  }

  /// Ends the group a transaction opened; the group is known to be the innermost explicit one.
  private func closeActionGroup(of log: UndoLog) {
    do {
      try log.endGroup()
    } catch {
      preconditionFailure("ObservedGraph: the group of a transaction could not close: \(error)")
    }
  }

  /// Takes back and drops the group a transaction opened. What the take-back would record is
  /// dropped with the group, so it is not recorded (registration is off while it runs).
  private func discardActionGroup(of log: UndoLog) {
    do {
      log.disableRegistration()
      // Taken back wholly: nothing is left alone for an untracked origin.
      takesBackTransaction = true
      defer {
        takesBackTransaction = false
        try? log.enableRegistration()
      }
      try log.discardGroup()
    } catch {
      preconditionFailure(
        "ObservedGraph: the group of a transaction could not be discarded: \(error)")
    }
  }

  // MARK: Calls a transaction's body cannot make

  /// Throws ``ObjectGraphError/Kind/transactionInProgress`` in a transaction's body.
  func refuseInTransaction(_ call: String) throws {
    guard journal != nil else { return }
    throw ObjectGraphError(
      .transactionInProgress, entity: "",
      reason: "\(call) in a transaction's body; it runs after the transaction ends"
        + (call == "save()" ? " (or use transaction(save: true))" : ""))
  }

  /// Stops the program in a transaction's body: `call` cannot throw, and cannot run there.
  func trapInTransaction(_ call: String) {
    precondition(
      journal == nil,
      "ObservedGraph: \(call) in a transaction's body; throw from the body to take its changes "
        + "back, or call \(call) after the transaction")
  }
}
