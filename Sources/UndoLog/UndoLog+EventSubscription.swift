extension UndoLog {
  /// A subscription to an undo log's events; delivery stops when it is cancelled or released.
  ///
  /// Keep it as long as you want events. It never keeps a log alive: it reaches the log through a
  /// link the log clears when it ends.
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
    /// Not the log, not even weakly: a weak reference to the log would move all of its reference
    /// counting to the runtime's slow path.
    private var anchor: Anchor?
    private let id: UInt64

    init(anchor: Anchor, id: UInt64) {
      self.anchor = anchor
      self.id = id
    }

    /// Stops delivery; calling it again does nothing.
    ///
    /// ```swift
    /// subscription.cancel()
    /// ```
    public func cancel() {
      anchor?.log?.unsubscribe(id)
      anchor = nil
    }

    deinit {
      cancel()
    }
  }

  /// What a subscription reaches its log through: the log clears it when it ends.
  final class Anchor {
    unowned(unsafe) var log: UndoLog?
  }
}
