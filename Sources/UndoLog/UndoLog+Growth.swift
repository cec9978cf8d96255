extension UndoLog {
  /// Names a step just recorded, for as long as it stays the newest step of the innermost open
  /// group and nothing else happens to the log: while the mark is current, the step may take in
  /// more changes instead of the log recording a step for each (see ``registerGrowable(_:)``).
  ///
  /// A mark is only compared: keep the one ``registerGrowable(_:)`` returned and hand it to
  /// ``growNewestStep(by:at:)``.
  ///
  /// ```swift
  /// let mark = log.registerGrowable(step)   // StepMark?
  /// log.markEventBoundary()
  /// log.growNewestStep(by: 16, at: mark!)   // false: the group closed
  /// ```
  public struct StepMark: Hashable, Sendable {
    let serial: UInt64
  }

  /// Records a step that can take in later changes, and returns a mark that lets it grow.
  ///
  /// A step that stores many changes of the same kind side by side (a column of values, say) is
  /// registered once; each further change is added to it in place and counted with
  /// ``growNewestStep(by:at:)``, as long as the mark is current. Undo applies the step as usual,
  /// once, and the step applies its changes last-in first-out itself.
  ///
  /// The mark stops being current when anything else happens to the log: another registration, a
  /// group opening or closing (so an event boundary), an undo or a redo, a removal of actions,
  /// ``restore(_:)``, a change of ``coalescingWindow`` or of registration. Then
  /// ``growNewestStep(by:at:)`` returns `false` and the caller registers a new step.
  ///
  /// ```swift
  /// var mark = log.registerGrowable(ColumnStep(column))
  /// // … later, for the next change:
  /// if let current = mark, log.growNewestStep(by: 16, at: current) {
  ///   column.append(change)  // the step already in the log holds it now
  /// } else {
  ///   mark = log.registerGrowable(ColumnStep(ColumnOfOne(change)))
  /// }
  /// ```
  ///
  /// - Parameter step: The step, with its first change.
  /// - Returns: The mark that lets the step grow, or `nil` when it cannot: registration is
  ///   disabled (nothing was recorded), or ``coalescingWindow`` is set (the step was recorded, and
  ///   may have been merged, as ``register(_:)`` records it; coalescing needs one registration per
  ///   change).
  /// - Complexity: As ``register(_:)``.
  @discardableResult
  public func registerGrowable(_ step: some UndoStep) -> StepMark? {
    guard disableCount == 0 else { return nil }
    record(step)
    guard coalescingWindow == nil, groupingLevel > 0 else { return nil }
    return StepMark(serial: registrationSerial)
  }

  /// Counts `bytes` more for the newest step, which has just taken in a change, if `mark` is
  /// still current.
  ///
  /// The step's ``UndoStep/byteSize`` must grow by the same amount, so that the sums the log
  /// keeps stay right. A registration made now would also clear the redo stack; while the mark is
  /// current the redo stack has been cleared already, since the marked step's own registration.
  ///
  /// ```swift
  /// if log.growNewestStep(by: 16, at: mark) { column.append(change) }
  /// ```
  ///
  /// - Parameters:
  ///   - bytes: How many bytes the step's ``UndoStep/byteSize`` grows by; at least 0.
  ///   - mark: The mark ``registerGrowable(_:)`` returned for the step.
  /// - Returns: `true` when the step may take in the change (the bytes are counted); `false` when
  ///   the mark is stale, and nothing was counted: register a new step instead.
  /// - Complexity: O(1).
  public func growNewestStep(by bytes: Int, at mark: StepMark) -> Bool {
    guard mark.serial == registrationSerial else { return false }
    precondition(bytes >= 0, "UndoLog.growNewestStep(by:at:): \(bytes) bytes")
    current.byteSize += bytes
    return true
  }

  /// Makes every mark handed out so far stale: the newest step must not grow any more.
  @inline(__always)
  func endGrowth() {
    registrationSerial &+= 1
  }
}
