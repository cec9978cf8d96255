import Testing

@testable import UndoLog

@Suite("Checkpoints")
struct CheckpointTests {
  @Test func undoToAMarkUndoesEveryLaterGroup() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    let mark = log.checkpoint()
    #expect(log.groupingLevel == 0)
    for delta in [10, 100, 1000] {
      counter.add(delta, in: log)
      log.markEventBoundary()
    }
    counter.add(5, in: log)  // still open: undo(to:) closes it first
    try log.undo(to: mark)
    #expect(counter.value == 1)
    #expect(log.redoCount == 4)
    try log.undo(to: mark)  // already there
    #expect(counter.value == 1)
  }

  @Test func aMarkAtTheStartUndoesEverything() throws {
    let log = UndoLog()
    let mark = log.checkpoint()
    let counter = Counter()
    counter.add(1, in: log)
    counter.add(2, in: log)
    try log.undo(to: mark)
    #expect(counter.value == 0)
    #expect(!log.canUndo)
  }

  @Test func aMarkSurvivesUndoAndRedo() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    let mark = log.checkpoint()
    counter.add(2, in: log)
    log.markEventBoundary()
    try log.undo()
    try log.undo()
    #expect(throws: UndoLogError.checkpointOnRedoSide) { try log.undo(to: mark) }
    #expect(counter.value == 0)
    try log.redo()
    try log.redo()
    try log.undo(to: mark)
    #expect(counter.value == 1)
  }

  @Test func aTrimmedMarkThrowsAndChangesNothing() throws {
    let log = UndoLog()
    log.levelsOfUndo = 2
    let counter = Counter()
    let start = log.checkpoint()
    counter.add(1, in: log)
    let afterOne = log.checkpoint()
    for delta in [2, 3] {
      counter.add(delta, in: log)
      log.markEventBoundary()
    }
    #expect(throws: UndoLogError.checkpointUnavailable) { try log.undo(to: start) }
    #expect(counter.value == 6)
    #expect(log.undoCount == 2)
    try log.undo(to: afterOne)  // the state below the oldest kept group is still reachable
    #expect(counter.value == 1)
  }

  @Test func aRemovedMarkThrows() throws {
    let log = UndoLog()
    Counter().add(1, in: log)
    let mark = log.checkpoint()
    Counter().add(1, in: log)
    log.removeAllActions()
    #expect(throws: UndoLogError.checkpointUnavailable) { try log.undo(to: mark) }
    let now = log.checkpoint()
    try log.undo(to: now)
  }

  @Test func aMarkOfAnotherLogThrows() throws {
    let log = UndoLog()
    let other = UndoLog()
    #expect(throws: UndoLogError.checkpointOfAnotherLog) { try log.undo(to: other.checkpoint()) }
  }

  @Test func checkpointEndsCoalescing() {
    let log = UndoLog()
    log.coalescingWindow = .seconds(60)
    let counter = Counter()
    counter.set(1, in: log, key: 0)
    _ = log.checkpoint()
    counter.set(2, in: log, key: 0)
    log.markEventBoundary()
    #expect(log.undoCount == 2)
  }
}
