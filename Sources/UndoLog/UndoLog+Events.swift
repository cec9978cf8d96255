extension UndoLog {
  /// What happens in an undo log, in the order `UndoManager` posts its notifications.
  ///
  /// Opening a group sends ``checkpoint`` then ``didOpenGroup``; closing one sends ``checkpoint``,
  /// ``willCloseGroup``, ``didCloseGroup``; an undo sends ``checkpoint``, ``willUndo``, then
  /// ``didUndo`` after its steps ran; a redo likewise. The group an undo or redo gathers the
  /// inverses in sends no group events.
  ///
  /// ```swift
  /// let token = log.onEvent { event in
  ///   if event == .didUndo || event == .didRedo { refreshMenu() }
  /// }
  /// ```
  public enum Event: Sendable, Equatable {
    /// A group is about to open or close, or an undo or redo to start.
    case checkpoint
    /// A group opened.
    case didOpenGroup
    /// A group is about to close; registrations still join it.
    case willCloseGroup
    /// A group closed.
    case didCloseGroup
    /// An undo is about to apply its steps.
    case willUndo
    /// An undo applied its steps.
    case didUndo
    /// A redo is about to apply its steps.
    case willRedo
    /// A redo applied its steps.
    case didRedo
  }

  /// Calls `handler` with every event from now on, synchronously, until the returned
  /// subscription is cancelled or released.
  ///
  /// Handlers run in the order they subscribed, after the log has updated its state, so a
  /// handler may read the log and register, group, or cancel subscriptions.
  ///
  /// ```swift
  /// let subscription = log.onEvent { print($0) }
  /// log.beginGroup()  // prints checkpoint, didOpenGroup (twice: the event group opens first)
  /// subscription.cancel()
  /// ```
  ///
  /// - Parameter handler: The closure to call with each event.
  /// - Returns: A subscription; delivery stops when it is cancelled or released.
  public func onEvent(_ handler: @escaping (Event) -> Void) -> EventSubscription {
    let id = nextSubscriberID
    nextSubscriberID += 1
    handlers.append((id, handler))
    return EventSubscription(anchor: anchor, id: id)
  }

  /// A new stream of every event from now on; it finishes when the log is released.
  ///
  /// Each access makes a new stream. Events are buffered until read; stop iterating (or cancel
  /// the task) to end the subscription.
  ///
  /// ```swift
  /// Task {
  ///   for await event in log.events where event == .didUndo {
  ///     refreshMenu()
  ///   }
  /// }
  /// ```
  public var events: AsyncStream<Event> {
    let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
    let id = nextSubscriberID
    nextSubscriberID += 1
    continuations.append((id, continuation))
    return stream
  }

  // MARK: Internals

  /// Sends an event to the subscribers; free when there are none.
  @inline(__always)
  func emit(_ event: Event) {
    if !handlers.isEmpty || !continuations.isEmpty {
      deliver(event)
    }
  }

  private func deliver(_ event: Event) {
    if !handlers.isEmpty {
      let snapshot = handlers
      for entry in snapshot where isSubscribed(entry.id) {
        entry.handler(event)
      }
    }
    if !continuations.isEmpty {
      var ended: [UInt64] = []
      for entry in continuations {
        if case .terminated = entry.continuation.yield(event) {
          ended.append(entry.id)
        }
      }
      if !ended.isEmpty {
        continuations.removeAll { ended.contains($0.id) }
      }
    }
  }

  private func isSubscribed(_ id: UInt64) -> Bool {
    handlers.contains { $0.id == id }
  }

  func unsubscribe(_ id: UInt64) {
    handlers.removeAll { $0.id == id }
  }
}
