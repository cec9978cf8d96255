import Testing

@testable import UndoLog

@Suite("Events")
struct EventTests {
  @Test func groupEventsComeInUndoManagerOrder() throws {
    let log = UndoLog()
    log.groupsByEvent = false
    var events: [UndoLog.Event] = []
    let subscription = log.onEvent { events.append($0) }
    log.beginGroup()
    #expect(events == [.checkpoint, .didOpenGroup])
    events = []
    Counter().add(1, in: log)
    try log.endGroup()
    #expect(events == [.checkpoint, .willCloseGroup, .didCloseGroup])
    subscription.cancel()
  }

  @Test func undoAndRedoEventsAndLevelInsideThem() throws {
    let log = UndoLog()
    // The handlers capture the log, which holds them: empty it at the end so that both go.
    defer { log.removeAllActions() }
    let counter = Counter()
    var seen: [String] = []
    func touch() {
      log.registerUndo(withTarget: counter) { _ in
        seen.append("action at level \(log.groupingLevel)")
        touch()
      }
    }
    touch()
    log.markEventBoundary()
    let subscription = log.onEvent { event in
      seen.append("\(event) at level \(log.groupingLevel)")
    }
    try log.undo()
    #expect(
      seen == [
        "checkpoint at level 0", "willUndo at level 0", "action at level 1", "didUndo at level 0",
      ])
    seen = []
    try log.redo()
    #expect(
      seen == [
        "checkpoint at level 0", "willRedo at level 0", "action at level 1", "didRedo at level 0",
      ])
    subscription.cancel()
  }

  @Test func undoClosingTheOpenGroupSendsTheCloseEventsFirst() throws {
    let log = UndoLog()
    Counter().add(1, in: log)
    var events: [UndoLog.Event] = []
    let subscription = log.onEvent { events.append($0) }
    try log.undo()
    #expect(
      events == [.checkpoint, .willCloseGroup, .didCloseGroup, .checkpoint, .willUndo, .didUndo])
    subscription.cancel()
  }

  @Test func cancelledOrReleasedSubscriptionsHearNothing() {
    let log = UndoLog()
    var heard = 0
    let cancelled = log.onEvent { _ in heard += 1 }
    cancelled.cancel()
    cancelled.cancel()
    do {
      _ = log.onEvent { _ in heard += 1 }
    }
    log.beginGroup()
    #expect(heard == 0)
  }

  @Test func registrationAloneSendsNoEventInsideAnOpenGroup() {
    let log = UndoLog()
    log.beginGroup()
    var heard = 0
    let subscription = log.onEvent { _ in heard += 1 }
    Counter().add(1, in: log)
    #expect(heard == 0)
    subscription.cancel()
  }

  @Test func aSubscriptionDoesNotKeepTheLogAlive() {
    weak var weakLog: UndoLog?
    var subscription: UndoLog.EventSubscription?
    do {
      let log = UndoLog()
      weakLog = log
      subscription = log.onEvent { _ in }
    }
    #expect(weakLog == nil)
    subscription?.cancel()
  }

  @Test func asyncStreamDeliversEventsAndFinishesWithTheLog() async {
    var log: UndoLog? = UndoLog()
    let stream = log!.events
    Counter().add(1, in: log!)
    log!.markEventBoundary()
    log = nil
    var received: [UndoLog.Event] = []
    for await event in stream {
      received.append(event)
    }
    #expect(received == [.checkpoint, .didOpenGroup, .checkpoint, .willCloseGroup, .didCloseGroup])
  }

  @Test func eachStreamStartsWhenItIsMade() async throws {
    let log = UndoLog()
    let early = log.events
    log.beginGroup()
    let late = log.events
    try log.endGroup()
    var earlyIterator = early.makeAsyncIterator()
    var lateIterator = late.makeAsyncIterator()
    #expect(await earlyIterator.next() == .checkpoint)
    #expect(await earlyIterator.next() == .didOpenGroup)
    #expect(await lateIterator.next() == .checkpoint)
    #expect(await lateIterator.next() == .willCloseGroup)
  }
}
