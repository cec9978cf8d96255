@testable import UndoLog

/// A mutable integer the test steps act on.
final class Counter {
  var value = 0
}

/// Adds `delta` to a counter; its inverse adds `-delta`. A value step: no closure anywhere.
struct AddStep: UndoStep {
  let counter: Counter
  let delta: Int

  mutating func apply() -> any UndoStep {
    counter.value += delta
    return AddStep(counter: counter, delta: -delta)
  }

  var target: AnyObject? { counter }
}

/// Sets a counter to `value`; its inverse sets it back.
struct SetStep: UndoStep {
  let counter: Counter
  let value: Int
  var key: Int? = nil

  mutating func apply() -> any UndoStep {
    let old = counter.value
    counter.value = value
    return SetStep(counter: counter, value: old, key: key)
  }

  var target: AnyObject? { counter }

  var coalescingKey: UndoCoalescingKey? {
    key.map { UndoCoalescingKey(object: ObjectIdentifier(counter), key: $0) }
  }
}

/// A step with a chosen size, for byte limits.
struct SizedStep: UndoStep {
  let size: Int

  mutating func apply() -> any UndoStep { self }

  var byteSize: Int { size }
}

/// Appends its value to a trace when applied; its inverse carries the negated value.
struct TraceStep: UndoStep {
  let trace: Trace
  let value: Int

  mutating func apply() -> any UndoStep {
    trace.values.append(value)
    return TraceStep(trace: trace, value: -value)
  }
}

final class Trace {
  var values: [Int] = []
}

extension Counter {
  /// Adds `delta` and records the undo step in `log`, as a graph setter would.
  func add(_ delta: Int, in log: UndoLog) {
    value += delta
    log.register(AddStep(counter: self, delta: -delta))
  }

  /// Sets `newValue` and records the undo step in `log`.
  func set(_ newValue: Int, in log: UndoLog, key: Int? = nil) {
    let old = value
    value = newValue
    log.register(SetStep(counter: self, value: old, key: key))
  }
}

extension UndoLog {
  /// The values of the trace steps of each undo group, oldest first.
  var undoValues: [[Int]] { undoStack.groups.map(Self.values) }

  /// The values of the trace steps of each redo group, oldest first.
  var redoValues: [[Int]] { redoStack.groups.map(Self.values) }

  /// The values of the trace steps of each open group, outermost first.
  var openValues: [[Int]] {
    groupingLevel == 0 ? [] : (enclosing + [current]).map(Self.values)
  }

  private static func values(_ group: UndoGroup) -> [Int] {
    group.steps.map { ($0 as? TraceStep)?.value ?? 0 }
  }
}

/// A model the value steps act on; they find it among the log's participants by its `id`.
final class Scoreboard {
  let id: String
  var scores: [String: Int] = [:]
  var title = ""

  init(id: String) {
    self.id = id
  }

  /// Sets a score and records the value step that undoes it in `log`.
  func set(_ player: String, to score: Int, in log: UndoLog) {
    let old = scores[player]
    scores[player] = score
    log.register(SetScore(board: id, player: player, score: old))
  }

  /// Sets the title and records the value step that undoes it in `log`.
  func setTitle(_ newTitle: String, in log: UndoLog) {
    let old = title
    title = newTitle
    log.register(SetTitle(board: id, title: old))
  }
}

/// Sets a player's score (or removes it, for `nil`) on the scoreboard named `board`. A value
/// step: it holds no object and finds its scoreboard through the log that applies it.
struct SetScore: ArchivableUndoStep, Hashable {
  let board: String
  let player: String
  let score: Int?

  mutating func apply(in log: UndoLog) -> any UndoStep {
    guard let scoreboard = log.participants(of: Scoreboard.self).first(where: { $0.id == board })
    else { return EmptyUndoStep() }
    let old = scoreboard.scores[player]
    scoreboard.scores[player] = score
    return SetScore(board: board, player: player, score: old)
  }

  func acts(on target: AnyObject) -> Bool {
    (target as? Scoreboard)?.id == board
  }
}

/// Sets the title of the scoreboard named `board`; archived under a short name of its own.
struct SetTitle: ArchivableUndoStep, Hashable {
  static var archiveName: String { "setTitle" }

  let board: String
  let title: String

  mutating func apply(in log: UndoLog) -> any UndoStep {
    guard let scoreboard = log.participants(of: Scoreboard.self).first(where: { $0.id == board })
    else { return EmptyUndoStep() }
    let old = scoreboard.title
    scoreboard.title = title
    return SetTitle(board: board, title: old)
  }

  func acts(on target: AnyObject) -> Bool {
    (target as? Scoreboard)?.id == board
  }

  var byteSize: Int { MemoryLayout<Self>.size + title.utf8.count }
}
