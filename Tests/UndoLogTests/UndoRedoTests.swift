import Testing

@testable import UndoLog

@Suite("Undo and redo")
struct UndoRedoTests {
  @Test func registrationsWhileUndoingFormTheRedoGroup() throws {
    let log = UndoLog()
    let counter = Counter()
    let extra = Counter()
    log.registerUndo(withTarget: counter) { counter in
      counter.value = 0
      #expect(log.isUndoing && !log.isRedoing)
      extra.add(10, in: log)
    }
    log.markEventBoundary()
    try log.undo()
    #expect(log.undoCount == 0)
    #expect(log.redoCount == 1)
    #expect(log.redoStack.last?.steps.count == 1)
    #expect(extra.value == 10)
    try log.redo()
    #expect(extra.value == 0)
    #expect(!log.isUndoing && !log.isRedoing)
  }

  @Test func registrationsWhileRedoingGoOnTheUndoStackAndKeepRedo() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    counter.add(2, in: log)
    log.markEventBoundary()
    try log.undo()
    try log.undo()
    #expect(log.redoCount == 2)
    try log.redo()
    #expect(log.undoCount == 1)
    #expect(log.redoCount == 1)
    #expect(counter.value == 1)
    try log.redo()
    #expect(counter.value == 3)
  }

  @Test func undoClosesTheOneOpenGroup() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(4, in: log)
    #expect(log.groupingLevel == 1)
    try log.undo()
    #expect(log.groupingLevel == 0)
    #expect(counter.value == 0)
  }

  @Test func undoWithNestedGroupsOpenThrowsAndChangesNothing() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    log.beginGroup()
    counter.add(2, in: log)
    #expect(throws: UndoLogError.nestedGroupsOpen) { try log.undo() }
    #expect(throws: UndoLogError.nestedGroupsOpen) { try log.redo() }
    #expect(log.groupingLevel == 2)
    #expect(log.undoCount == 1)
    #expect(counter.value == 3)
  }

  @Test func undoNestedGroupRules() throws {
    let log = UndoLog()
    try log.undoNestedGroup()  // empty stack: no-op
    let counter = Counter()
    counter.add(1, in: log)
    #expect(throws: UndoLogError.groupOpen) { try log.undoNestedGroup() }
    #expect(counter.value == 1)
    log.markEventBoundary()
    try log.undoNestedGroup()
    #expect(counter.value == 0)
    #expect(log.canRedo)
  }

  @Test func undoWhileUndoingThrows() throws {
    let log = UndoLog()
    var errors: [UndoLogError] = []
    let counter = Counter()
    log.registerUndo(withTarget: counter) { _ in
      let attempts: [() throws -> Void] = [
        { try log.undo() }, { try log.redo() }, { try log.undoNestedGroup() },
      ]
      for attempt in attempts {
        do { try attempt() } catch let error as UndoLogError { errors.append(error) } catch {}
      }
    }
    log.markEventBoundary()
    try log.undo()
    #expect(errors == [.undoInProgress, .undoInProgress, .undoInProgress])
    #expect(!log.isUndoing)
  }

  @Test func undoAndRedoOnEmptyStacksDoNothing() throws {
    let log = UndoLog()
    var events: [UndoLog.Event] = []
    let subscription = log.onEvent { events.append($0) }
    try log.undo()
    try log.redo()
    #expect(events.isEmpty)
    subscription.cancel()
  }

  @Test func stepInverseRoundTripsManyTimes() throws {
    let log = UndoLog()
    let counter = Counter()
    for value in 1...5 {
      counter.set(value, in: log)
      log.markEventBoundary()
    }
    for expected in [4, 3, 2, 1, 0] {
      try log.undo()
      #expect(counter.value == expected)
    }
    for expected in [1, 2, 3, 4, 5] {
      try log.redo()
      #expect(counter.value == expected)
    }
  }
}
