extension UndoLog {
  /// Ends the current run of coalescing: the next registration never merges with earlier ones.
  ///
  /// Call it where a run of typing should end even inside the window, for instance when the
  /// insertion point moves or at a word boundary.
  ///
  /// ```swift
  /// log.coalescingWindow = .seconds(2)
  /// type("hello")           // one group
  /// log.closeCoalescing()
  /// type(" world")          // another group
  /// ```
  public func closeCoalescing() {
    lastCoalescing = nil
  }

  /// Whether `step` merges into the previous registration, which is then kept and `step` dropped;
  /// updates the run of coalescing either way.
  func coalesces(_ step: any UndoStep) -> Bool {
    guard let window = coalescingWindow, !isUndoing, !isRedoing else { return false }
    guard let key = step.coalescingKey else {
      lastCoalescing = nil
      return false
    }
    let time = now()
    defer { lastCoalescing = (key, time) }
    guard let last = lastCoalescing, last.key == key else { return false }
    let elapsed = last.time.duration(to: time)
    guard elapsed >= .zero && elapsed <= window else { return false }
    // The step merged into must still be the newest one recorded.
    return newestStep()?.coalescingKey == key
  }

  /// The newest step recorded: the last of the innermost open group holding steps, or of the
  /// newest undo group when the open groups hold none.
  private func newestStep() -> (any UndoStep)? {
    if groupingLevel > 0 {
      if let step = current.steps.last {
        return step
      }
      for group in enclosing.reversed() {
        if let step = group.steps.last {
          return step
        }
      }
    }
    return undoStack.last?.steps.last
  }
}
