extension UndoLog {
  /// A subscription to an undo log's events; delivery stops when it is cancelled or released.
  ///
  /// Keep it as long as you want events. It holds the log weakly, so it never keeps a log alive.
  ///
  /// ```swift
  /// final class MenuController {
  ///   var subscription: UndoLog.EventSubscription?
  ///   init(log: UndoLog) {
  ///     subscription = log.onEvent { [weak self] _ in self?.refresh() }
  ///   }
  ///   func refresh() {}
  /// }
  /// ```
  public final class EventSubscription {
    private weak var log: UndoLog?
    private let id: UInt64

    init(log: UndoLog, id: UInt64) {
      self.log = log
      self.id = id
    }

    /// Stops delivery; calling it again does nothing.
    ///
    /// ```swift
    /// subscription.cancel()
    /// ```
    public func cancel() {
      log?.unsubscribe(id)
      log = nil
    }

    deinit {
      cancel()
    }
  }
}
