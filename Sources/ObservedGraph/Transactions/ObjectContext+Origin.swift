/// Change origins: the origin in force, set by `withOrigin`, transactions, undo and redo.
///
/// The origin in force is kept on the context's link (`ContextLink.origin`), where a typed set
/// that delivers to its observers itself reads it. `withOrigin` and a transaction set it for their
/// body (a transaction for its commit's delivery too) and put the one before back; the undo
/// recorder sets ``ChangeOrigin/undo`` or ``ChangeOrigin/redo`` for the length of an undo or redo
/// (``beginReplayOrigin(_:)``).
extension ObjectContext {
  /// The origin changes made now carry (see ``ChangeOrigin``): the innermost
  /// ``withOrigin(_:_:)`` or transaction's, ``ChangeOrigin/undo`` or ``ChangeOrigin/redo``
  /// while the undo log undoes or redoes, otherwise ``ChangeOrigin/local``.
  ///
  /// ```swift
  /// try context.withOrigin("import") { #expect(context.origin == "import") }
  /// #expect(context.origin == .local)
  /// ```
  public var origin: ChangeOrigin { link.origin }

  /// Runs `body` with `origin` in force: every change it makes, and every change observers make
  /// while it runs, carries `origin` (see ``ChangeOrigin``). Calls nest; the innermost origin is
  /// in force.
  ///
  /// ```swift
  /// try context.withOrigin("import") {
  ///   for row in rows { insertBook(row) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - origin: The origin of the body's changes.
  ///   - body: The changes.
  /// - Returns: What `body` returns.
  /// - Throws: ``ObjectGraphError/Kind/invalidOrigin`` for ``ChangeOrigin/undo``,
  ///   ``ChangeOrigin/redo`` and ``ChangeOrigin/merge``, which only the library gives, and in a
  ///   transaction's body for an origin other than the transaction's (a transaction has one
  ///   origin); `body` does not run then. What `body` throws.
  public func withOrigin<Result>(_ origin: ChangeOrigin, _ body: () throws -> Result) throws
    -> Result
  {
    try checkOrigin(origin, for: "withOrigin(\"\(origin)\")")
    let before = link.origin
    putInForce(origin)
    defer { putInForce(before) }
    return try body()
  }

  /// Throws ``ObjectGraphError/Kind/invalidOrigin`` when `origin` cannot be put in force now.
  func checkOrigin(_ origin: ChangeOrigin, for call: String) throws {
    if origin == .undo || origin == .redo || origin == .merge {
      throw ObjectGraphError(
        .invalidOrigin, entity: "", value: origin.name,
        reason: "\(call): the origin \"\(origin)\" is reserved for the library")
    }
    if let journal, origin != journal.origin {
      throw ObjectGraphError(
        .invalidOrigin, entity: "", value: origin.name,
        reason: "\(call) in the body of a transaction of origin \"\(journal.origin)\"; a "
          + "transaction's changes have one origin")
    }
  }

  /// Puts `origin` in force. Every object's quiet bits are voided when it changes: a typed set is
  /// quiet only when the origin in force is noted for its slot already (see
  /// ``ObjectContext/notesOrigin(of:_:)``), and recorded only when the undo log tracks it.
  func putInForce(_ origin: ChangeOrigin) {
    guard origin != link.origin else { return }
    link.origin = origin
    originTrackingChanged()
    link.voidQuietBits()
  }

  /// An undo or redo starts: its changes carry `origin` until ``endReplayOrigin()``.
  func beginReplayOrigin(_ origin: ChangeOrigin) {
    originsBeforeReplay.append(link.origin)
    putInForce(origin)
  }

  /// The undo or redo that ``beginReplayOrigin(_:)`` began is over.
  func endReplayOrigin() {
    guard let before = originsBeforeReplay.popLast() else { return }
    putInForce(before)
  }
}
