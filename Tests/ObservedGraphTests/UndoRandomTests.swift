import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Long random sequences of every kind of change interleaved with undo, redo, events and explicit
/// groups. After every step both sides of every relationship agree; at random points an undo must
/// give back exactly the state before the last group and a redo exactly the state after it; at the
/// end, undoing everything gives back the start and redoing everything the final state.
///
/// Steps run under random origins (and transactions with random origins); after some events, the
/// next event's origins are checked against every change heard in it (``OriginOracle``). A second
/// run leaves one origin untracked by the undo log: its changes are not undone, so the start is
/// not given back; instead, at random points and at the end, undoing n groups then redoing n
/// gives back the graph exactly (Figma's rule), whatever the untracked origin changed.
@Suite struct UndoRandom {
  static let steps = 10_000

  /// The seed: `OBSERVEDGRAPH_UNDO_SEED` (decimal) replays another run.
  static let seed =
    ProcessInfo.processInfo.environment["OBSERVEDGRAPH_UNDO_SEED"].flatMap { UInt64($0) }
    ?? 0x5EED_0001

  @Test func randomOperations() throws {
    let seed = Self.seed
    var random = UndoRandomOperations(seed: seed, tracksEveryOrigin: true)
    try random.run(steps: Self.steps)
  }

  @Test func randomOperationsWithAnUntrackedOrigin() throws {
    let seed = Self.seed
    var random = UndoRandomOperations(seed: seed, tracksEveryOrigin: false)
    try random.run(steps: Self.steps)
  }
}

struct UndoRandomOperations {
  let seed: UInt64
  var random: UndoRandomGenerator
  let world: UndoModel.World
  var context: ObjectContext { world.context }
  var log: UndoLog { world.log }
  let oracle: OriginOracle
  let origins: [ChangeOrigin] = ["import", "sync"]
  /// Whether the undo log tracks every origin the steps use; otherwise `sync` is untracked.
  let tracksEveryOrigin: Bool

  init(seed: UInt64, tracksEveryOrigin: Bool) {
    self.seed = seed
    self.tracksEveryOrigin = tracksEveryOrigin
    random = UndoRandomGenerator(seed: seed)
    world = try! UndoModel.world()
    world.context.trackedOrigins =
      tracksEveryOrigin ? [.local, "import", "sync"] : [.local, "import"]
    oracle = OriginOracle(context: world.context, seed: seed)
  }

  func live<T: ManagedObject>(_ type: T.Type) -> [T] {
    context.registeredObjects.compactMap { $0 as? T }.filter(\.isLive)
      .sorted { $0.objectID.key < $1.objectID.key }
  }

  mutating func run(steps: Int) throws {
    let start = GraphSnapshot(context)
    for step in 0..<steps {
      try self.step(step)
      context._checkInvariants()
      if let problem = checkUndoInverses(context) {
        Issue.record("seed \(seed) step \(step): \(problem)")
        return
      }
    }
    while log.groupingLevel > 1 { try log.endGroup() }
    context.processPendingChanges()
    let final = GraphSnapshot(context)
    var undone = 0
    while log.canUndo {
      try log.undo()
      undone += 1
    }
    let atStart = GraphSnapshot(context)
    #expect(
      !tracksEveryOrigin || atStart == start,
      "seed \(seed) after \(undone) undos: \(atStart.difference(from: start))")
    // Redo as many groups as were undone: groups undone before the end stay on the redo stack.
    for _ in 0..<undone { try log.redo() }
    let atEnd = GraphSnapshot(context)
    #expect(atEnd == final, "seed \(seed) after redoing all: \(atEnd.difference(from: final))")
    #expect(oracle.checked > 50, "seed \(seed): only \(oracle.checked) events checked")
  }

  /// One step, under a random origin one time in four.
  mutating func step(_ step: Int) throws {
    guard random.below(4) == 0, let origin = random.pick(origins) else {
      return try stepBody(step)
    }
    try context.withOrigin(origin) { try stepBody(step) }
  }

  mutating func stepBody(_ step: Int) throws {
    switch random.below(100) {
    case 0..<8: insert()
    case 8..<24: setAttribute()
    case 24..<34: setToOne()
    case 34..<44: try orderedEdit()
    case 44..<50: try manyToMany()
    case 50..<55: try delete()
    case 55..<58: try bracketed()
    case 58..<70:
      context.processPendingChanges()
      // Half the time, the next event's origins are checked (the recorder that hears every
      // change makes no set quiet, so not always).
      if random.below(2) == 0 { oracle.watchNextEvent() }
    case 70..<73:
      if log.groupingLevel < 3 { log.beginGroup() }
    case 73..<77:
      if log.groupingLevel > 1 { try log.endGroup() }
    case 77..<84:
      if log.groupingLevel <= 1 { try log.undo() }
    case 84..<90:
      if log.groupingLevel <= 1 { try log.redo() }
    case 90..<93:
      try checkedUndoRedo(step)
    case 93..<95:
      try undoThenRedo(step)
    default:
      try transaction(step)
    }
  }

  /// One random change of the kinds an undo group can hold.
  mutating func randomEdit() throws {
    switch random.below(6) {
    case 0: insert()
    case 1: setAttribute()
    case 2: setToOne()
    case 3: try orderedEdit()
    case 4: try manyToMany()
    default: try delete()
    }
  }

  private struct Thrown: Error {}

  /// A transaction of a few changes, sometimes with a nested one that throws, kept or thrown. A
  /// thrown one leaves the graph, the log and every listener as they were; a kept one is heard
  /// once per key (a to-many: at most one removal and one insertion), and undo gives back the
  /// state before it and redo the state after.
  mutating func transaction(_ step: Int) throws {
    guard log.groupingLevel <= 1 else { return }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    let count = log.undoCount
    let recorder = ChangeRecorder(context: context)
    let throwsAtEnd = random.below(3) == 0
    let edits = 1 + random.below(4)
    do {
      let origin = random.below(3) == 0 ? random.pick(origins) : nil
      try context.transaction(actionName: "Random", origin: origin) { () throws -> Void in
        for _ in 0..<edits { try randomEdit() }
        if random.below(3) == 0 {
          let inner = GraphSnapshot(context)
          let innerThrows = random.below(2) == 0
          do {
            try context.transaction { () throws -> Void in
              try randomEdit()
              if innerThrows { throw Thrown() }
            }
          } catch is Thrown {
            let after = GraphSnapshot(context)
            #expect(after == inner, "seed \(seed) step \(step): \(after.difference(from: inner))")
          }
          try randomEdit()
        }
        if throwsAtEnd { throw Thrown() }
      }
    } catch is Thrown {
      let after = GraphSnapshot(context)
      #expect(
        after == before, "seed \(seed) step \(step) thrown: \(after.difference(from: before))")
      #expect(recorder.isEmpty && log.undoCount == count, "seed \(seed) step \(step) thrown")
      return
    }
    let heard = recorder.take().map { line in
      line.split(separator: " ").prefix(2).joined(separator: " ")
    }
    #expect(Set(heard).count == heard.count, "seed \(seed) step \(step): \(heard)")
    guard log.undoCount > count else { return }
    try expectUndoAndRedo(step, before: before)
  }

  /// Closes the event, changes a few things as one event, then checks that undo gives back the
  /// state before exactly and redo the state after.
  mutating func checkedUndoRedo(_ step: Int) throws {
    guard log.groupingLevel <= 1 else { return }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    let count = log.undoCount
    for _ in 0..<(1 + random.below(3)) { try randomEdit() }
    context.processPendingChanges()
    guard log.undoCount > count else { return }
    try expectUndoAndRedo(step, before: before)
  }

  /// Undoes a few groups then redoes as many, which must give back the graph exactly, whatever
  /// origins changed it (Figma's rule).
  mutating func undoThenRedo(_ step: Int) throws {
    guard log.groupingLevel <= 1 else { return }
    context.processPendingChanges()
    let now = GraphSnapshot(context)
    var undone = 0
    for _ in 0..<(1 + random.below(6)) where log.canUndo {
      try log.undo()
      undone += 1
    }
    for _ in 0..<undone { try log.redo() }
    let back = GraphSnapshot(context)
    #expect(
      back == now,
      "seed \(seed) step \(step) \(undone) undos and redos: \(back.difference(from: now))")
  }

  /// Undoes the newest group, which must give back `before` exactly, then redoes it, which must
  /// give back the state now.
  func expectUndoAndRedo(_ step: Int, before: GraphSnapshot) throws {
    let after = GraphSnapshot(context)
    try log.undo()
    let undone = GraphSnapshot(context)
    #expect(undone == before, "seed \(seed) step \(step) undo: \(undone.difference(from: before))")
    try log.redo()
    let redone = GraphSnapshot(context)
    #expect(redone == after, "seed \(seed) step \(step) redo: \(redone.difference(from: after))")
  }

  mutating func insert() {
    guard context.registeredObjects.count < 60 else { return }
    switch random.below(5) {
    case 0: context.insert(UndoShelf.self).name = "s\(random.below(5))"
    case 1: context.insert(UndoBox.self).weight = Double(random.below(4))
    case 2: _ = context.insert(UndoTag.self)
    case 3: _ = context.insert(UndoLid.self)
    default: _ = context.insert(UndoCrate.self)
    }
  }

  mutating func setAttribute() {
    let labels = ["", "a", "b", "box 0"]
    switch random.below(4) {
    case 0: random.pick(live(UndoBox.self))?.label = labels[random.below(labels.count)]
    case 1: random.pick(live(UndoBox.self))?.weight = Double(random.below(3))
    case 2: random.pick(live(UndoTag.self))?.text = labels[random.below(labels.count)]
    default:
      let specimen = world.specimen
      specimen.optional = random.below(2) == 0 ? nil : labels[random.below(labels.count)]
      specimen.int16 = Int16(random.below(3))
    }
  }

  mutating func setToOne() {
    switch random.below(3) {
    case 0:
      guard let box = random.pick(live(UndoBox.self)) else { return }
      box.shelf = random.below(4) == 0 ? nil : random.pick(live(UndoShelf.self))
    case 1:
      guard let box = random.pick(live(UndoBox.self)) else { return }
      box.lid = random.below(4) == 0 ? nil : random.pick(live(UndoLid.self))
    default:
      guard let tag = random.pick(live(UndoTag.self)) else { return }
      tag.box = random.below(4) == 0 ? nil : random.pick(live(UndoBox.self))
    }
  }

  mutating func orderedEdit() throws {
    guard let box = random.pick(live(UndoBox.self)) else { return }
    let tags = try box.mutableOrderedSet(forKey: "tags")
    switch random.below(4) {
    case 0:
      guard let tag = random.pick(live(UndoTag.self)) else { return }
      try tags.insert(tag, at: random.below(tags.count + 1))
    case 1:
      guard tags.count > 1 else { return }
      try tags.move(from: random.below(tags.count), to: random.below(tags.count))
    case 2:
      guard tags.count > 0 else { return }
      try tags.remove(at: random.below(tags.count))
    default:
      let all = live(UndoTag.self)
      box.tags = (0..<random.below(4)).compactMap { _ in random.pick(all) }
    }
  }

  mutating func manyToMany() throws {
    guard let crate = random.pick(live(UndoCrate.self)), let box = random.pick(live(UndoBox.self))
    else { return }
    let boxes = try crate.mutableSet(forKey: "boxes")
    if boxes.contains(box) { try boxes.remove(box) } else { try boxes.insert(box) }
  }

  mutating func delete() throws {
    let candidates: [ManagedObject] =
      live(UndoBox.self) + live(UndoTag.self) + live(UndoShelf.self) + live(UndoLid.self)
      + live(UndoCrate.self)
    guard let victim = random.pick(candidates) else { return }
    let before = victim is UndoShelf ? GraphSnapshot(context) : nil
    let count = log.undoCount
    do {
      try context.delete(victim)
    } catch let error as ObjectGraphError {
      #expect(error.kind == .deleteDenied, "seed \(seed)")
      #expect(GraphSnapshot(context) == before, "seed \(seed): a denied delete changed things")
      #expect(log.undoCount == count, "seed \(seed): a denied delete recorded something")
    }
  }

  mutating func bracketed() throws {
    guard let box = random.pick(live(UndoBox.self)) else { return }
    box.willChangeValue(forKey: "label")
    try box.setPrimitiveValue("imported \(random.below(3))", forKey: "label")
    box.didChangeValue(forKey: "label")
  }
}

/// SplitMix64, so a run replays exactly from its seed.
struct UndoRandomGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  mutating func pick<Element>(_ elements: [Element]) -> Element? {
    elements.isEmpty ? nil : elements[below(elements.count)]
  }
}

/// Checks an event's origins against the changes a change recorder heard since the event before:
/// each updated key has the origins of its changes (equal-value sets and prior calls left out),
/// each inserted or deleted object those of its inserts and deletes.
final class OriginOracle {
  private let context: ObjectContext
  private let seed: UInt64
  private var recorder: ChangeRecorder?
  private var token: ObservationToken?
  /// The events checked.
  private(set) var checked = 0

  init(context: ObjectContext, seed: UInt64) {
    self.context = context
    self.seed = seed
    token = context.onObjectsDidChange { [unowned self] event in check(event) }
  }

  /// Records every change until the next event, then checks it. Call right after an event.
  func watchNextEvent() {
    recorder = ChangeRecorder(context: context)
  }

  private func check(_ event: ObjectsDidChange) {
    guard let recorder else { return }
    self.recorder = nil
    recorder.stop()
    checked += 1
    var keys: [String: [String: Set<ChangeOrigin>]] = [:]
    var lifecycles: [String: Set<ChangeOrigin>] = [:]
    for record in recorder.records where !record.isPrior {
      if record.key == "@lifecycle" {
        lifecycles[record.object, default: []].insert(record.origin)
      } else if record.kind != .setting || record.old != record.new {
        keys[record.object, default: [:]][record.key, default: []].insert(record.origin)
      }
    }
    for (id, changed) in event.updated {
      for key in changed {
        let expected = keys["\(id)"]?[key] ?? []
        #expect(
          event.origins(of: id, key: key) == expected,
          "seed \(seed): \(id).\(key) in \(event) after \(recorder.lines)")
      }
    }
    for id in event.inserted.union(event.deleted) {
      #expect(
        event.origins(of: id) == lifecycles["\(id)"] ?? [],
        "seed \(seed): \(id) in \(event) after \(recorder.lines)")
    }
  }
}
