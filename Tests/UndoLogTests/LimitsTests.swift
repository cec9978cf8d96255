import Testing

@testable import UndoLog

@Suite("Limits and removal")
struct LimitsTests {
  @Test func levelsOfUndoKeepsTheNewestGroups() throws {
    let log = UndoLog()
    log.levelsOfUndo = 2
    let counter = Counter()
    for value in 1...4 {
      counter.set(value, in: log)
      log.markEventBoundary()
    }
    #expect(log.undoCount == 2)
    var seen: [Int] = []
    for _ in 0..<3 {
      try log.undo()
      seen.append(counter.value)
    }
    #expect(seen == [3, 2, 2])
  }

  @Test func loweringTheLimitTrimsAtOnce() throws {
    let log = UndoLog()
    let trace = Trace()
    for value in 1...5 {
      log.register(TraceStep(trace: trace, value: value))
      log.markEventBoundary()
    }
    log.levelsOfUndo = 3
    #expect(log.undoValues == [[3], [4], [5]])
    try log.undo()
    try log.undo()
    log.levelsOfUndo = 1
    #expect(log.undoValues == [[3]])
    #expect(log.redoValues == [[-4]])
    log.levelsOfUndo = -3
    #expect(log.levelsOfUndo == 0)
  }

  @Test func byteLimitDropsWholeOldestGroups() throws {
    let log = UndoLog()
    for size in [10, 20, 30] {
      log.beginGroup()
      log.register(SizedStep(size: size / 2))
      log.register(SizedStep(size: size / 2))
      try log.endGroup()
      log.markEventBoundary()
    }
    #expect(log.byteSize == 60)
    log.byteLimit = 55
    #expect(log.byteSize == 50)
    #expect(log.undoCount == 2)
    log.byteLimit = 1
    #expect(log.byteSize == 30)  // the newest group is kept whole
    #expect(log.undoCount == 1)
    log.register(SizedStep(size: 7))
    log.markEventBoundary()
    #expect(log.byteSize == 7)
  }

  @Test func byteLimitTrimsTheFarthestRedoGroups() throws {
    let log = UndoLog()
    for size in [10, 20, 30] {
      log.register(SizedStep(size: size))
      log.markEventBoundary()
    }
    try log.undo()
    try log.undo()
    try log.undo()
    log.byteLimit = 35
    #expect(log.redoCount == 2)  // the farthest redo (size 30) is dropped, the next is kept
    #expect(log.byteSize == 30)
    try log.redo()
    #expect(log.undoStack.last?.byteSize == 10)
  }

  @Test func removeAllActionsClearsBothStacksAndKeepsGroupsBalanced() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    counter.add(2, in: log)
    log.markEventBoundary()
    try log.undo()
    log.beginGroup()
    counter.add(3, in: log)
    log.removeAllActions()
    #expect(!log.canUndo && !log.canRedo)
    #expect(log.byteSize == 0)
    #expect(log.groupingLevel == 2)
    try log.endGroup()
    log.markEventBoundary()
    #expect(log.undoCount == 0)
  }

  @Test func removeAllActionsWhileUndoingDiscardsTheRedoGroup() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.registerUndo(withTarget: counter) { _ in log.removeAllActions() }
    counter.add(2, in: log)
    log.markEventBoundary()
    try log.undo()
    #expect(counter.value == 0)
    #expect(!log.canUndo && !log.canRedo)
  }

  @Test func removeAllActionsWithTargetStripsStepsAndEmptyGroups() throws {
    let log = UndoLog()
    let kept = Counter()
    log.byteLimit = 0
    let removed = Counter()
    removed.add(1, in: log)
    log.markEventBoundary()
    kept.add(1, in: log)
    log.registerUndo(withTarget: removed) { $0.value = -100 }
    log.markEventBoundary()
    removed.add(5, in: log)
    log.markEventBoundary()
    try log.undo()
    #expect(log.undoCount == 2 && log.redoCount == 1)
    log.removeAllActions(withTarget: removed)
    #expect(log.undoCount == 1)
    #expect(log.undoStack.last?.steps.count == 1)
    #expect(!log.canRedo)

    removed.add(7, in: log)
    kept.add(2, in: log)
    log.removeAllActions(withTarget: removed)
    #expect(log.groupingLevel == 1)
    log.markEventBoundary()
    #expect(log.undoCount == 2)
    try log.undo()
    #expect(kept.value == 1)
    try log.undo()
    #expect(kept.value == 0)
    #expect(removed.value == 8)
    #expect(!log.canUndo)
  }

  @Test func absurdStepSizesAreClampedAndNeverOverflow() throws {
    let log = UndoLog()
    let ceiling = 1 << 32
    log.register(SizedStep(size: .max))
    log.register(SizedStep(size: .max))
    log.register(SizedStep(size: -5))
    log.markEventBoundary()
    #expect(log.byteSize == 2 * ceiling)
    log.register(SizedStep(size: .min))
    log.register(SizedStep(size: 10))
    log.markEventBoundary()
    log.register(SizedStep(size: .max))
    log.markEventBoundary()
    #expect(log.byteSize == 3 * ceiling + 10)
    log._checkInvariants()

    try log.undo()  // the inverses (the same sizes) are gathered for redo
    #expect(log.byteSize == 3 * ceiling + 10)
    log.byteLimit = ceiling + 20
    #expect(log.undoCount == 1 && log.redoCount == 1)
    #expect(log.byteSize == ceiling + 10)  // the newest group of each stack is kept

    log.beginGroup()
    log.register(SizedStep(size: .max))  // clears the redo stack
    log.beginGroup()
    log.register(SizedStep(size: -1))
    try log.endGroup()
    #expect(log.byteSize == ceiling + 10)
    log.removeAllActions(withTarget: Counter())
    try log.endGroup()
    log.markEventBoundary()
    #expect(log.undoCount == 2 && !log.canRedo)
    #expect(log.byteSize == ceiling + 10)
    log.register(SizedStep(size: .max))
    log.markEventBoundary()
    #expect(log.undoCount == 1)
    #expect(log.byteSize == ceiling)
    log._checkInvariants()

    // Removal recomputes the sizes of the groups it strips, clamped the same way.
    log.byteLimit = 0
    let removed = Counter()
    log.register(HugeStep(counter: removed))
    log.register(SizedStep(size: -7))
    log.register(HugeStep(counter: Counter()))
    log.markEventBoundary()
    #expect(log.byteSize == 3 * ceiling)
    log.removeAllActions(withTarget: removed)
    #expect(log.byteSize == 2 * ceiling)
    log._checkInvariants()
  }

  /// A step acting on a counter that claims to retain `Int.max` bytes.
  struct HugeStep: UndoStep {
    let counter: Counter
    mutating func apply() -> any UndoStep { self }
    var target: AnyObject? { counter }
    var byteSize: Int { .max }
  }
}
