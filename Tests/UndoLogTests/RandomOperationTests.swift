import Testing

@testable import UndoLog

/// A plain model of the rules: stacks of groups of trace values.
private struct ReferenceModel {
  var undo: [[Int]] = []
  var redo: [[Int]] = []
  var open: [[Int]] = []
  var implicitOuter = false
  var levels = 0
  var applied: [Int] = []

  mutating func register(_ value: Int) {
    redo = []
    if open.isEmpty {
      open = [[]]
      implicitOuter = true
    }
    open[open.count - 1].append(value)
  }

  mutating func begin() {
    if open.isEmpty {
      open = [[]]
      implicitOuter = true
    }
    open.append([])
  }

  /// Whether `endGroup()` should succeed.
  var canEnd: Bool { open.count > 1 || (open.count == 1 && !implicitOuter) }

  mutating func closeInnermost() {
    let closed = open.removeLast()
    if open.isEmpty {
      implicitOuter = false
      if !closed.isEmpty {
        undo.append(closed)
      }
    } else {
      open[open.count - 1] += closed
    }
    trim()
  }

  mutating func boundary() {
    if open.count == 1 && implicitOuter {
      closeInnermost()
    }
  }

  mutating func undoTop() {
    guard let group = undo.popLast() else { return }
    applied += group.reversed()
    redo.append(group.reversed().map { -$0 })
    trim()
  }

  mutating func redoTop() {
    guard let group = redo.popLast() else { return }
    applied += group.reversed()
    undo.append(group.reversed().map { -$0 })
    trim()
  }

  mutating func trim() {
    guard levels > 0 else { return }
    if undo.count > levels { undo.removeFirst(undo.count - levels) }
    if redo.count > levels { redo.removeFirst(redo.count - levels) }
  }
}

@Suite("Random operations")
struct RandomOperationTests {
  @Test(arguments: [UInt64(1), 2, 3, 0xDEAD_BEEF])
  func logMatchesTheReferenceModel(seed: UInt64) throws {
    var generator = SplitMix64(seed: seed)
    let log = UndoLog()
    let trace = Trace()
    var model = ReferenceModel()
    var nextValue = 1
    for step in 0..<6_000 {
      let operation = Int.random(in: 0..<100, using: &generator)
      var description = ""
      switch operation {
      case 0..<40:
        description = "register \(nextValue)"
        log.register(TraceStep(trace: trace, value: nextValue))
        model.register(nextValue)
        nextValue += 1
      case 40..<50:
        description = "begin"
        log.beginGroup()
        model.begin()
      case 50..<60:
        description = "end"
        if model.canEnd {
          try log.endGroup()
          model.closeInnermost()
        } else {
          #expect(throws: UndoLogError.noGroupToEnd) { try log.endGroup() }
        }
      case 60..<70:
        description = "boundary"
        log.markEventBoundary()
        model.boundary()
      case 70..<83:
        description = "undo"
        if model.open.count > 1 {
          #expect(throws: UndoLogError.nestedGroupsOpen) { try log.undo() }
        } else {
          try log.undo()
          if model.open.count == 1 { model.closeInnermost() }
          model.undoTop()
        }
      case 83..<95:
        description = "redo"
        if model.open.count > 1 {
          #expect(throws: UndoLogError.nestedGroupsOpen) { try log.redo() }
        } else {
          try log.redo()
          if model.open.count == 1 { model.closeInnermost() }
          model.redoTop()
        }
      case 95..<98:
        let levels = Int.random(in: 0...6, using: &generator)
        description = "levels \(levels)"
        log.levelsOfUndo = levels
        model.levels = levels
        model.trim()
      default:
        description = "undoNestedGroup"
        if model.open.isEmpty {
          try log.undoNestedGroup()
          model.undoTop()
        } else {
          #expect(throws: UndoLogError.groupOpen) { try log.undoNestedGroup() }
        }
      }
      let context = "seed \(seed), step \(step): \(description)"
      #expect(log.undoValues == model.undo, "\(context)")
      #expect(log.redoValues == model.redo, "\(context)")
      #expect(log.openValues == model.open, "\(context)")
      #expect(trace.values == model.applied, "\(context)")
      #expect(log.groupingLevel == model.open.count, "\(context)")
      #expect(log.canRedo == !model.redo.isEmpty, "\(context)")
      let modelCanUndo = !model.undo.isEmpty || model.open.contains { !$0.isEmpty }
      #expect(log.canUndo == modelCanUndo, "\(context)")
      if log.undoValues != model.undo || trace.values != model.applied {
        Issue.record("diverged; replay with seed \(seed)")
        return
      }
    }
  }
}

/// A small seeded generator, so a failing seed replays exactly.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
