import Testing

// From a user's side: only the public API of UndoLog (no `@testable`), as a module with steps of
// its own would use growable steps.

import UndoLog

/// Sets of several counters, side by side: a step that grows while it is the newest.
final class SetColumn {
  var entries: [(counter: Counter, old: Int)] = []
}

/// Undoes a column of sets, last first; its inverse is the column of the values it replaced.
struct ColumnStep: UndoStep {
  var column: SetColumn

  static let entryBytes = 16

  mutating func apply() -> any UndoStep {
    let inverse = SetColumn()
    for entry in column.entries.reversed() {
      inverse.entries.append((entry.counter, entry.counter.value))
      entry.counter.value = entry.old
    }
    return ColumnStep(column: inverse)
  }

  var byteSize: Int { 8 + column.entries.count * Self.entryBytes }

  mutating func removeActions(on target: AnyObject) -> Bool {
    let kept = SetColumn()
    kept.entries = column.entries.filter { $0.counter !== target }
    column = kept
    return kept.entries.isEmpty
  }
}

@Suite struct GrowthTests {
  /// Sets `counter` to `value` and records the set in `column`, growing its step while the mark is
  /// current; returns the mark to use next.
  private func set(
    _ counter: Counter, to value: Int, in column: inout SetColumn, log: UndoLog,
    mark: UndoLog.StepMark?
  ) -> UndoLog.StepMark? {
    let old = counter.value
    counter.value = value
    if let mark, log.growNewestStep(by: ColumnStep.entryBytes, at: mark) {
      column.entries.append((counter, old))
      return mark
    }
    column = SetColumn()
    column.entries.append((counter, old))
    return log.registerGrowable(ColumnStep(column: column))
  }

  @Test func aStepGrowsWhileItIsTheNewestOfTheOpenGroup() throws {
    let log = UndoLog()
    let (a, b) = (Counter(), Counter())
    var column = SetColumn()
    var mark = set(a, to: 1, in: &column, log: log, mark: nil)
    #expect(mark != nil)
    #expect(log.byteSize == 8 + 16)
    mark = set(b, to: 2, in: &column, log: log, mark: mark)
    mark = set(a, to: 3, in: &column, log: log, mark: mark)
    #expect(log.byteSize == 8 + 3 * 16)
    #expect(column.entries.count == 3)
    log.markEventBoundary()
    #expect(log.undoCount == 1)
    #expect(log.growNewestStep(by: 16, at: mark!) == false)
    #expect(log.byteSize == 8 + 3 * 16)

    try log.undo()
    #expect((a.value, b.value) == (0, 0))
    try log.redo()
    #expect((a.value, b.value) == (3, 2))
  }

  @Test func anythingElseDoneToTheLogMakesTheMarkStale() throws {
    let stalers: [(String, (UndoLog) throws -> Void)] = [
      ("register", { $0.register(SizedStep(size: 1)) }),
      ("beginGroup", { $0.beginGroup() }),
      ("markEventBoundary", { $0.markEventBoundary() }),
      ("removeAllActions", { $0.removeAllActions() }),
      ("removeAllActions(withTarget:)", { $0.removeAllActions(withTarget: Counter()) }),
      ("disableRegistration", { $0.disableRegistration() }),
      ("coalescingWindow", { $0.coalescingWindow = .seconds(1) }),
      ("undo", { try $0.undo() }),
    ]
    for (name, stale) in stalers {
      let log = UndoLog()
      var column = SetColumn()
      let counter = Counter()
      let mark = try #require(set(counter, to: 1, in: &column, log: log, mark: nil))
      #expect(set(counter, to: 2, in: &column, log: log, mark: mark) == mark, "\(name)")
      try stale(log)
      #expect(!log.growNewestStep(by: ColumnStep.entryBytes, at: mark), "\(name)")
    }
  }

  @Test func noMarkWithoutRegistrationOrWithCoalescing() throws {
    let log = UndoLog()
    var column = SetColumn()
    log.disableRegistration()
    #expect(set(Counter(), to: 1, in: &column, log: log, mark: nil) == nil)
    #expect(!log.canUndo && log.byteSize == 0)
    try log.enableRegistration()

    log.coalescingWindow = .seconds(1)
    #expect(set(Counter(), to: 1, in: &column, log: log, mark: nil) == nil)
    #expect(log.byteSize == 8 + 16)  // recorded, but it cannot grow

    let alone = UndoLog()
    alone.groupsByEvent = false
    #expect(set(Counter(), to: 1, in: &column, log: alone, mark: nil) == nil)
    #expect(alone.undoCount == 1)  // a closed group of its own
  }

  @Test func gatheredInversesGrowDuringUndo() throws {
    // A step applied by undo registers a growable inverse and grows it: the redo group holds one
    // step, counted in full.
    let log = UndoLog()
    let counters = [Counter(), Counter(), Counter()]
    let trace = SetColumn()
    struct Replaying: UndoStep {
      let log: UndoLog
      let counters: [Counter]
      let trace: SetColumn
      mutating func apply() -> any UndoStep {
        var column = SetColumn()
        var mark: UndoLog.StepMark?
        for counter in counters {
          let old = counter.value
          counter.value = 0
          if let current = mark, log.growNewestStep(by: 16, at: current) {
            column.entries.append((counter, old))
          } else {
            column = SetColumn()
            column.entries.append((counter, old))
            mark = log.registerGrowable(ColumnStep(column: column))
          }
        }
        trace.entries = column.entries
        return EmptyUndoStep()
      }
    }
    for (index, counter) in counters.enumerated() { counter.value = index + 1 }
    log.register(Replaying(log: log, counters: counters, trace: trace))
    log.markEventBoundary()
    try log.undo()
    #expect(counters.map(\.value) == [0, 0, 0])
    #expect(trace.entries.count == 3)
    #expect(log.redoCount == 1 && log.byteSize == 8 + 3 * 16)
    try log.redo()
    #expect(counters.map(\.value) == [1, 2, 3])
  }

  @Test func removingATargetKeepsTheRestOfAStepAndRecountsIt() throws {
    let log = UndoLog()
    let (a, b) = (Counter(), Counter())
    var column = SetColumn()
    var mark = set(a, to: 1, in: &column, log: log, mark: nil)
    mark = set(b, to: 2, in: &column, log: log, mark: mark)
    mark = set(a, to: 3, in: &column, log: log, mark: mark)
    log.markEventBoundary()

    log.removeAllActions(withTarget: a)
    #expect(log.byteSize == 8 + 16)
    #expect(column.entries.count == 3)  // the step changed a copy of what it shared
    try log.undo()
    #expect((a.value, b.value) == (3, 0))

    // The default removal drops a step that acts on the target, whole.
    var step = AddStep(counter: a, delta: 1)
    let removesA = step.removeActions(on: a)
    let removesB = step.removeActions(on: b)
    #expect(removesA && !removesB)
  }
}
