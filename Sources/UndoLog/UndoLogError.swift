/// An error an ``UndoLog`` throws when it is used in a way its rules forbid.
///
/// Every throwing method of the log checks its preconditions first and throws before changing
/// anything, so a caught error leaves the log exactly as it was. Compare a caught error with the
/// static cases; two errors are equal when they are the same case, whatever detail the message
/// carries.
///
/// ```swift
/// do {
///   try log.endGroup()
/// } catch let error as UndoLogError where error == .noGroupToEnd {
///   print(error)  // "endGroup() called with no group begun by beginGroup() open"
/// }
/// ```
public struct UndoLogError: Error, Hashable, CustomStringConvertible {
  enum Kind: Hashable, Sendable {
    case noGroupToEnd
    case registrationNotDisabled
    case nestedGroupsOpen
    case groupOpen
    case undoInProgress
    case checkpointUnavailable
    case checkpointOnRedoSide
    case checkpointOfAnotherLog
    case notArchivable
  }

  let kind: Kind
  let detail: String

  init(_ kind: Kind, _ detail: String = "") {
    self.kind = kind
    self.detail = detail
  }

  /// ``UndoLog/endGroup()`` was called with no group open that ``UndoLog/beginGroup()`` began.
  ///
  /// The implicit event group is closed by ``UndoLog/markEventBoundary()``, never by `endGroup()`.
  ///
  /// ```swift
  /// #expect(throws: UndoLogError.noGroupToEnd) { try UndoLog().endGroup() }
  /// ```
  public static let noGroupToEnd = UndoLogError(.noGroupToEnd)

  /// ``UndoLog/enableRegistration()`` was called more times than
  /// ``UndoLog/disableRegistration()``.
  ///
  /// ```swift
  /// #expect(throws: UndoLogError.registrationNotDisabled) { try UndoLog().enableRegistration() }
  /// ```
  public static let registrationNotDisabled = UndoLogError(.registrationNotDisabled)

  /// ``UndoLog/undo()`` or ``UndoLog/redo()`` was called with more than one group open.
  ///
  /// ```swift
  /// log.beginGroup(); log.beginGroup()
  /// #expect(throws: UndoLogError.nestedGroupsOpen) { try log.undo() }
  /// ```
  public static let nestedGroupsOpen = UndoLogError(.nestedGroupsOpen)

  /// ``UndoLog/undoNestedGroup()``, ``UndoLog/history()`` or ``UndoLog/restore(_:)`` was called
  /// with a group open.
  ///
  /// End the explicit groups with ``UndoLog/endGroup()`` and the event group with
  /// ``UndoLog/markEventBoundary()`` first. The message names the method and the grouping level.
  ///
  /// ```swift
  /// log.beginGroup()
  /// #expect(throws: UndoLogError.groupOpen) { try log.undoNestedGroup() }
  /// ```
  public static let groupOpen = UndoLogError(.groupOpen)

  /// An undo or redo was requested while the log was already undoing or redoing.
  ///
  /// ```swift
  /// // inside a step's apply() during undo:
  /// #expect(throws: UndoLogError.undoInProgress) { try log.undo() }
  /// ```
  public static let undoInProgress = UndoLogError(.undoInProgress)

  /// ``UndoLog/undo(to:)`` was given a checkpoint whose state can no longer be reached: its group
  /// was trimmed by a limit or removed.
  ///
  /// ```swift
  /// #expect(throws: UndoLogError.checkpointUnavailable) { try log.undo(to: oldMark) }
  /// ```
  public static let checkpointUnavailable = UndoLogError(.checkpointUnavailable)

  /// ``UndoLog/undo(to:)`` was given a checkpoint that lies on the redo side: reaching it needs a
  /// redo, not an undo.
  ///
  /// ```swift
  /// #expect(throws: UndoLogError.checkpointOnRedoSide) { try log.undo(to: laterMark) }
  /// ```
  public static let checkpointOnRedoSide = UndoLogError(.checkpointOnRedoSide)

  /// ``UndoLog/undo(to:)`` was given a checkpoint made by another log.
  ///
  /// ```swift
  /// #expect(throws: UndoLogError.checkpointOfAnotherLog) { try log.undo(to: other.checkpoint()) }
  /// ```
  public static let checkpointOfAnotherLog = UndoLogError(.checkpointOfAnotherLog)

  /// ``UndoLog/history()`` found something it cannot archive: a step that is not an
  /// ``ArchivableUndoStep`` (a closure registered with ``UndoLog/registerUndo(withTarget:handler:)``
  /// never is), or a metadata value that is not `Encodable`.
  ///
  /// The message names the step's type, or the metadata key and the value's type, and the stack and
  /// group it was found in.
  ///
  /// ```swift
  /// log.registerUndo(withTarget: view) { $0.reset() }
  /// #expect(throws: UndoLogError.notArchivable) { try log.history() }
  /// ```
  public static let notArchivable = UndoLogError(.notArchivable)

  /// A message that says what went wrong and how to avoid it.
  ///
  /// ```swift
  /// print(UndoLogError.noGroupToEnd)
  /// ```
  public var description: String {
    let message: String
    switch kind {
    case .noGroupToEnd:
      message = "endGroup() called with no group begun by beginGroup() open"
    case .registrationNotDisabled:
      message = "enableRegistration() called more times than disableRegistration()"
    case .nestedGroupsOpen:
      message = "undo or redo called with more than one group open; end the inner groups first"
    case .groupOpen:
      message =
        "called with a group open; end it first (endGroup(), or markEventBoundary() for the "
        + "event group)"
    case .undoInProgress:
      message = "undo or redo requested while the log is already undoing or redoing"
    case .checkpointUnavailable:
      message = "the checkpoint's state was trimmed or removed from the undo log"
    case .checkpointOnRedoSide:
      message = "the checkpoint lies on the redo side; redo to reach it"
    case .checkpointOfAnotherLog:
      message = "the checkpoint was made by another undo log"
    case .notArchivable:
      message = "the undo history cannot be archived"
    }
    return detail.isEmpty ? message : "\(message) (\(detail))"
  }

  /// Whether two errors are the same case; the detail in the message is not compared.
  ///
  /// ```swift
  /// error == .noGroupToEnd
  /// ```
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: `true` when both are the same case.
  public static func == (lhs: UndoLogError, rhs: UndoLogError) -> Bool {
    lhs.kind == rhs.kind
  }

  /// Hashes the case, consistently with `==`.
  ///
  /// ```swift
  /// let seen: Set<UndoLogError> = [.groupOpen, .noGroupToEnd]
  /// ```
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
  }
}
