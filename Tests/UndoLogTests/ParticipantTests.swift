import Testing

@testable import UndoLog

@Suite("Participants and value steps")
struct ParticipantTests {
  @Test func valueStepFindsItsModelThroughTheLog() throws {
    let log = UndoLog()
    let board = Scoreboard(id: "main")
    log.addParticipant(board)
    board.set("ada", to: 3, in: log)
    log.markEventBoundary()
    board.set("ada", to: 5, in: log)
    board.set("bob", to: 1, in: log)
    log.markEventBoundary()
    try log.undo()
    #expect(board.scores == ["ada": 3])
    try log.undo()
    #expect(board.scores == [:])
    try log.redo()
    try log.redo()
    #expect(board.scores == ["ada": 5, "bob": 1])
    #expect(log.redoStack.isEmpty && log.undoCount == 2)
  }

  @Test func stepsImplementingOnlyApplyStillWork() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(4, in: log)
    log.markEventBoundary()
    var step = AddStep(counter: counter, delta: 1)
    let inverse = step.apply(in: log)
    #expect(counter.value == 5)
    #expect((inverse as? AddStep)?.delta == -1)
    try log.undo()
    #expect(counter.value == 1)
  }

  @Test func participantsAreFoundByTypeInTheOrderAdded() {
    let log = UndoLog()
    let first = Scoreboard(id: "first")
    let second = Scoreboard(id: "second")
    let counter = Counter()
    log.addParticipant(first)
    log.addParticipant(counter)
    log.addParticipant(second)
    log.addParticipant(first)
    #expect(log.participants(of: Scoreboard.self).map(\.id) == ["first", "second"])
    #expect(log.participants(of: Counter.self).count == 1)
    #expect(log.participants(of: Trace.self).isEmpty)
    log.removeParticipant(first)
    log.removeParticipant(Scoreboard(id: "first"))  // another object: nothing happens
    #expect(log.participants(of: Scoreboard.self).map(\.id) == ["second"])
    #expect(log.participantEntries.count == 2)
  }

  @Test func theLogDoesNotKeepAParticipantAlive() throws {
    let log = UndoLog()
    weak var released: Scoreboard?
    do {
      let board = Scoreboard(id: "gone")
      released = board
      log.addParticipant(board)
      board.set("ada", to: 1, in: log)
      log.markEventBoundary()
    }
    #expect(released == nil)
    #expect(log.participants(of: Scoreboard.self).isEmpty)
    #expect(log.participantEntries.isEmpty)
    try log.undo()  // the step finds nothing and records no inverse
    #expect(!log.canUndo && !log.canRedo)
  }

  @Test func aStepWithoutItsParticipantRecordsNoInverse() throws {
    let log = UndoLog()
    let board = Scoreboard(id: "main")
    board.set("ada", to: 1, in: log)
    log.markEventBoundary()
    try log.undo()
    #expect(board.scores == ["ada": 1])
    #expect(!log.canRedo)
  }

  @Test func removalByTargetFindsValueStepsThatHoldNoObject() throws {
    let log = UndoLog()
    let kept = Scoreboard(id: "kept")
    let removed = Scoreboard(id: "removed")
    log.addParticipant(kept)
    log.addParticipant(removed)
    removed.set("ada", to: 1, in: log)
    log.markEventBoundary()
    kept.set("bob", to: 2, in: log)
    removed.set("bob", to: 2, in: log)
    log.markEventBoundary()
    removed.set("cy", to: 3, in: log)
    log.markEventBoundary()
    try log.undo()
    removed.set("dee", to: 4, in: log)
    log.registerUndo(withTarget: kept) { _ in }
    log.removeAllActions(withTarget: Scoreboard(id: "removed"))  // another object, the same id
    #expect(log.undoCount == 1)
    #expect(log.undoStack.last?.steps.count == 1)
    #expect(log.current.steps.count == 1)
    #expect(!log.canRedo)
    log.markEventBoundary()
    try log.undo()
    try log.undo()
    #expect(kept.scores == [:])
    #expect(removed.scores == ["ada": 1, "bob": 2, "dee": 4])
  }

  @Test func theDefaultActsOnItsTargetOnly() {
    let counter = Counter()
    #expect(AddStep(counter: counter, delta: 1).acts(on: counter))
    #expect(!AddStep(counter: counter, delta: 1).acts(on: Counter()))
    #expect(!SizedStep(size: 1).acts(on: counter))
    #expect(!EmptyUndoStep().acts(on: counter))
  }
}
