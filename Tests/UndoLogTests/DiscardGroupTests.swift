import Testing

@testable import UndoLog

@Suite("Discarding a group")
struct DiscardGroupTests {
  @Test func takesBackTheStepsAndLeavesNoGroup() throws {
    let log = UndoLog()
    let trace = Trace()
    log.beginGroup()
    log.register(TraceStep(trace: trace, value: 1))
    log.register(TraceStep(trace: trace, value: 2))
    log.setActionName("Import")
    try log.discardGroup()
    #expect(trace.values == [2, 1])
    #expect(log.groupingLevel == 1, "the event group beginGroup() opened first stays open")
    log.markEventBoundary()
    #expect(log.groupingLevel == 0)
    #expect(log.undoCount == 0 && log.redoCount == 0 && !log.canUndo)
    #expect(log.undoActionName == "")
  }

  @Test func putsBackTheRedoGroupsItsRegistrationsCleared() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.setActionName("One")
    log.markEventBoundary()
    try log.undo()
    #expect(log.redoCount == 1)
    log.beginGroup()
    counter.add(5, in: log)
    #expect(log.redoCount == 0, "a registration clears the redo stack")
    try log.discardGroup()
    log.markEventBoundary()
    #expect(counter.value == 0)
    #expect(log.redoCount == 1 && log.redoActionName == "One")
    try log.redo()
    #expect(counter.value == 1)
  }

  @Test func aNestedGroupTakesBackOnlyItsOwnSteps() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    try log.undo()
    log.beginGroup()
    counter.add(10, in: log)  // clears the redo stack, in the outer group
    log.beginGroup()
    counter.add(100, in: log)
    try log.discardGroup()
    #expect(counter.value == 10)
    #expect(log.redoCount == 0, "the outer group cleared the redo stack: it stays cleared")
    try log.endGroup()
    log.markEventBoundary()
    #expect(log.undoCount == 1)
    try log.undo()
    #expect(counter.value == 0)
  }

  @Test func aClosedNestedGroupsClearingBelongsToItsParent() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    try log.undo()
    log.beginGroup()
    log.beginGroup()
    counter.add(10, in: log)
    try log.endGroup()
    try log.discardGroup()
    log.markEventBoundary()
    #expect(counter.value == 0 && log.redoCount == 1)
  }

  /// A group that closed into the event group took its clearing with it: discarding a later
  /// sibling group puts nothing back.
  @Test func aClosedGroupsClearingIsNotASiblingsToPutBack() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    try log.undo()
    log.beginGroup()
    log.beginGroup()
    counter.add(10, in: log)
    try log.endGroup()
    try log.endGroup()
    log.beginGroup()
    counter.add(100, in: log)
    try log.discardGroup()
    #expect(counter.value == 10 && log.redoCount == 0)
    log.markEventBoundary()
    #expect(log.undoCount == 1 && log.redoCount == 0)
  }

  @Test func whatStepsRegisterWhileTakenBackIsDropped() throws {
    let log = UndoLog()
    let counter = Counter()
    log.beginGroup()
    log.registerUndo(withTarget: counter) { counter in
      counter.value = 0
      counter.add(7, in: log)  // would be the redo of an undo
    }
    counter.value = 3
    try log.discardGroup()
    log.markEventBoundary()
    #expect(counter.value == 7)
    #expect(log.undoCount == 0 && log.redoCount == 0)
  }

  @Test func sendsTheEventsOfAnUndoThenOfAClosing() throws {
    let log = UndoLog()
    let counter = Counter()
    log.beginGroup()
    counter.add(1, in: log)
    var events: [UndoLog.Event] = []
    var undoingDuringSteps = false
    let subscription = log.onEvent { events.append($0) }
    log.registerUndo(withTarget: counter) { _ in undoingDuringSteps = log.isUndoing }
    try log.discardGroup()
    subscription.cancel()
    #expect(
      events == [
        .checkpoint, .willUndo, .didUndo, .checkpoint, .willCloseGroup, .didCloseGroup,
      ])
    #expect(undoingDuringSteps && !log.isUndoing)
  }

  @Test func throwsWithoutAGroupBeginGroupOpened() {
    let log = UndoLog()
    #expect(throws: UndoLogError.noGroupToEnd) { try log.discardGroup() }
    let counter = Counter()
    counter.add(1, in: log)  // the event group alone
    #expect(throws: UndoLogError.noGroupToEnd) { try log.discardGroup() }
    #expect(counter.value == 1 && log.groupingLevel == 1)
  }

  @Test func removeAllActionsForgetsTheClearedRedoGroups() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    try log.undo()
    log.beginGroup()
    counter.add(5, in: log)
    log.removeAllActions()
    try log.discardGroup()
    log.markEventBoundary()
    #expect(log.redoCount == 0)
  }
}
