import Testing

@testable import UndoLog

@Suite("Grouping")
struct GroupingTests {
  @Test func registrationOpensImplicitEventGroupThatTheBoundaryCloses() {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    counter.add(2, in: log)
    #expect(log.groupingLevel == 1)
    #expect(log.undoCount == 0)
    #expect(log.canUndo)
    log.markEventBoundary()
    #expect(log.groupingLevel == 0)
    #expect(log.undoCount == 1)
  }

  @Test func actionsOfAGroupRunLastInFirstOut() throws {
    let log = UndoLog()
    let trace = Trace()
    for value in 1...3 {
      log.register(TraceStep(trace: trace, value: value))
    }
    try log.undo()
    #expect(trace.values == [3, 2, 1])
    try log.redo()
    #expect(trace.values == [3, 2, 1, -1, -2, -3])
  }

  @Test func nestedGroupsFoldIntoTheirParent() throws {
    let log = UndoLog()
    log.groupsByEvent = false
    let trace = Trace()
    log.beginGroup()
    log.register(TraceStep(trace: trace, value: 1))
    log.beginGroup()
    log.register(TraceStep(trace: trace, value: 2))
    try log.endGroup()
    #expect(log.groupingLevel == 1)
    #expect(log.openValues == [[1, 2]])
    try log.endGroup()
    #expect(log.undoValues == [[1, 2]])
  }

  @Test func beginGroupAtLevelZeroOpensTheEventGroupFirst() throws {
    let log = UndoLog()
    let trace = Trace()
    log.beginGroup()
    #expect(log.groupingLevel == 2)
    log.register(TraceStep(trace: trace, value: 1))
    try log.endGroup()
    log.beginGroup()
    log.register(TraceStep(trace: trace, value: 2))
    try log.endGroup()
    #expect(log.groupingLevel == 1)
    log.markEventBoundary()
    #expect(log.undoValues == [[1, 2]])
  }

  @Test(arguments: [true, false])
  func emptyGroupsAreDiscarded(byEvent: Bool) throws {
    let log = UndoLog()
    log.groupsByEvent = byEvent
    log.beginGroup()
    log.beginGroup()
    try log.endGroup()
    try log.endGroup()
    log.markEventBoundary()
    #expect(log.undoCount == 0)
    #expect(!log.canUndo)
  }

  @Test func endingAGroupNeverBegunThrowsAndChangesNothing() throws {
    let log = UndoLog()
    #expect(throws: UndoLogError.noGroupToEnd) { try log.endGroup() }
    Counter().add(1, in: log)
    #expect(log.groupingLevel == 1)
    #expect(throws: UndoLogError.noGroupToEnd) { try log.endGroup() }
    #expect(log.groupingLevel == 1)
    #expect(log.undoCount == 0)
  }

  @Test func boundaryLeavesExplicitGroupsOpen() throws {
    let log = UndoLog()
    log.beginGroup()
    Counter().add(1, in: log)
    log.markEventBoundary()
    #expect(log.groupingLevel == 2)
    try log.endGroup()
    log.markEventBoundary()
    #expect(log.groupingLevel == 0)
    #expect(log.undoCount == 1)
  }

  @Test func actionNamesFollowTheGroups() throws {
    let log = UndoLog()
    let counter = Counter()
    log.setActionName("Ignored")
    #expect(log.undoActionName == "")
    counter.add(1, in: log)
    log.setActionName("Add")
    #expect(log.undoActionName == "Add")
    log.markEventBoundary()
    log.setActionName("Add One")
    #expect(log.undoActionName == "Add One")
    try log.undo()
    #expect(log.undoActionName == "")
    #expect(log.redoActionName == "Add One")
    try log.redo()
    #expect(log.undoActionName == "Add One")
    #expect(log.redoActionName == "")
  }

  @Test func canUndoCountsAnOpenNonEmptyGroup() {
    let log = UndoLog()
    log.beginGroup()
    #expect(!log.canUndo)
    Counter().add(1, in: log)
    #expect(log.canUndo)
  }

  @Test func setActionNameIsIgnoredWhileRegistrationIsDisabled() throws {
    let log = UndoLog()
    Counter().add(1, in: log)
    log.setActionName("Kept")
    log.disableRegistration()
    log.setActionName("Dropped")
    log.setMetadata(1, forKey: "dropped")
    try log.enableRegistration()
    #expect(log.undoActionName == "Kept")
    #expect(log.undoMetadata["dropped"] == nil)
  }

  @Test func nestedNameAndMetadataPassToTheParent() throws {
    let log = UndoLog()
    Counter().add(1, in: log)
    log.setActionName("Outer")
    log.setMetadata("outer", forKey: "a")
    log.setMetadata("outer", forKey: "b")
    log.beginGroup()
    Counter().add(1, in: log)
    log.setActionName("Inner")
    log.setMetadata("inner", forKey: "b")
    try log.endGroup()
    log.markEventBoundary()
    #expect(log.undoActionName == "Inner")
    #expect(log.undoMetadata["a"] as? String == "outer")
    #expect(log.undoMetadata["b"] as? String == "inner")
  }

  @Test func metadataTravelsBetweenTheStacks() throws {
    let log = UndoLog()
    Counter().add(1, in: log)
    log.setMetadata(42, forKey: "selection")
    #expect(log.undoMetadata["selection"] as? Int == 42)
    try log.undo()
    #expect(log.undoMetadata.isEmpty)
    #expect(log.redoMetadata["selection"] as? Int == 42)
    try log.redo()
    #expect(log.undoMetadata["selection"] as? Int == 42)
    #expect(log.redoMetadata.isEmpty)
  }
}
