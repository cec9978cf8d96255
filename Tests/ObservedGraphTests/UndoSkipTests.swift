import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// The undo log records only the origins it tracks, and undo never silently overwrites a later
/// change by an untracked origin: it leaves it alone and reports it.
@Suite struct UndoSkipTests {
  /// Changes of an untracked origin make no undo step; tracking the origin records them.
  @Test func onlyTrackedOriginsAreRecorded() throws {
    let world = try UndoModel.world(saved: true)
    let (context, log) = (world.context, world.log)
    #expect(context.trackedOrigins == [.local])
    world.boxes[0].weight = 10
    context.processPendingChanges()
    try context.withOrigin("import") { world.boxes[1].weight = 11 }
    context.processPendingChanges()
    #expect(log.undoCount == 1)
    try log.undo()
    #expect(world.boxes[0].weight == 0 && world.boxes[1].weight == 11)
    try log.redo()
    context.trackedOrigins = [.local, "import"]
    try context.withOrigin("import") { world.boxes[1].weight = 12 }
    context.processPendingChanges()
    #expect(log.undoCount == 2)
    try log.undo()
    #expect(world.boxes[1].weight == 11 && world.boxes[0].weight == 10)
  }

  /// A later untracked change of an attribute is left alone by undo, reported with the value
  /// undo would have put back; redo gives back the graph as it was (Figma's rule). Unless
  /// `undoOverwritesUntrackedChanges`.
  @Test func undoLeavesALaterUntrackedAttributeAlone() throws {
    for overwrites in [false, true] {
      let watch = try SkipWatch()
      let (world, context, log) = (watch.world, watch.context, watch.log)
      context.undoOverwritesUntrackedChanges = overwrites
      let box = world.boxes[0]
      box.label = "mine"
      box.weight = 5
      context.processPendingChanges()
      try context.withOrigin("import") { box.label = "theirs" }
      context.processPendingChanges()
      try log.undo()
      if overwrites {
        #expect(box.label == "box 0" && box.weight == 0 && watch.skips.isEmpty)
        continue
      }
      #expect(box.label == "theirs" && box.weight == 0)
      #expect(
        watch.skips == [
          UndoSkip(
            object: box.objectID, key: "label", value: .attribute(.string("box 0")),
            origin: "import")
        ])
      #expect(watch.skips.map(\.description) == [#"UndoBox#3.label kept string("box 0") (import)"#])
      try log.redo()
      #expect(box.label == "theirs" && box.weight == 5 && watch.skips.count == 1)
      // A later tracked change of the key takes the entry away: undo restores it again.
      box.label = "mine again"
      context.processPendingChanges()
      try log.undo()
      #expect(box.label == "theirs" && watch.skips.count == 1)
    }
  }

  /// A to-one relationship an untracked origin moved since is left alone on both sides: the
  /// inverse upkeep of the step's other edits does not move it back.
  @Test func undoLeavesALaterUntrackedRelationshipAloneOnBothSides() throws {
    let watch = try SkipWatch()
    let (world, context, log) = (watch.world, watch.context, watch.log)
    let (box, shelf0, shelf1) = (world.boxes[0], world.shelves[0], world.shelves[1])
    box.shelf = shelf1
    context.processPendingChanges()
    try context.withOrigin("sync") { box.shelf = nil }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    try log.undo()
    #expect(box.shelf == nil && !shelf0.boxes.contains(box) && !shelf1.boxes.contains(box))
    #expect(checkUndoInverses(context) == nil)
    #expect(
      Set(watch.skips.map(\.key)) == ["shelf", "boxes"]
        && watch.skips.allSatisfy { $0.origin == "sync" })
    #expect(
      watch.skips.contains(
        UndoSkip(object: box.objectID, key: "shelf", value: .toOne(shelf0.objectID), origin: "sync")
      ))
    try log.redo()
    #expect(GraphSnapshot(context) == before)
  }

  /// A membership an untracked origin changed since is left alone (here it took box 3 out and
  /// put it back in); the step's other members are restored.
  @Test func undoLeavesALaterUntrackedMembershipAlone() throws {
    let watch = try SkipWatch()
    let (world, context, log) = (watch.world, watch.context, watch.log)
    let crate = world.crates[0]  // holds boxes 0 and 1
    let boxes = world.boxes
    crate.boxes = [boxes[2], boxes[3]]
    context.processPendingChanges()
    try context.withOrigin("import") {
      try crate.mutableSet(forKey: "boxes").remove(boxes[3])
      try crate.mutableSet(forKey: "boxes").insert(boxes[3])
    }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    try log.undo()
    #expect(crate.boxes == [boxes[0], boxes[1], boxes[3]])
    #expect(checkUndoInverses(context) == nil)
    #expect(
      watch.skips.contains(
        UndoSkip(
          object: crate.objectID, key: "boxes", value: .member(boxes[3].objectID, joins: false),
          origin: "import")))
    #expect(watch.skips.allSatisfy { $0.origin == "import" && $0.kind == .leftAlone })
    try log.redo()
    #expect(GraphSnapshot(context) == before)
  }

  /// Undo of an insert deletes the object and reports the relationships an untracked origin
  /// gave it; redo brings them back.
  @Test func undoOfAnInsertReportsTheUntrackedRelationshipsItRemoves() throws {
    let watch = try SkipWatch()
    let (world, context, log) = (watch.world, watch.context, watch.log)
    let box = context.insert(UndoBox.self)
    context.processPendingChanges()
    try context.withOrigin("import") { box.shelf = world.shelves[1] }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    try log.undo()
    #expect(!box.isLive && !world.shelves[1].boxes.contains(box))
    #expect(
      watch.skips == [
        UndoSkip(
          object: box.objectID, key: "shelf", value: .toOne(world.shelves[1].objectID),
          origin: "import", kind: .removed)
      ])
    try log.redo()
    #expect(GraphSnapshot(context) == before)
  }

  /// Undo n times then redo n times gives back the graph exactly, whatever origins changed what
  /// in between (Figma's rule), with skips on the way.
  @Test func undoThenRedoGivesTheGraphBackWithAnyMixOfOrigins() throws {
    let world = try UndoModel.world(saved: true)
    let (context, log) = (world.context, world.log)
    let box = world.boxes[0]
    box.label = "a"
    context.processPendingChanges()
    box.shelf = world.shelves[1]
    context.processPendingChanges()
    try context.withOrigin("import") {
      box.label = "b"
      box.tags.append(world.tags[3])
    }
    context.processPendingChanges()
    box.weight = 7
    context.processPendingChanges()
    try context.withOrigin("sync") { box.shelf = world.shelves[0] }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    for _ in 0..<3 { try log.undo() }
    #expect(box.label == "b" && box.shelf === world.shelves[0] && box.weight == 0)
    for _ in 0..<3 { try log.redo() }
    #expect(GraphSnapshot(context) == before)
  }

  /// A transaction of an untracked origin records nothing in the context's log, and a throw still
  /// takes it back.
  @Test func anUntrackedTransactionIsTakenBackButNotRecorded() throws {
    struct Thrown: Error {}
    let world = try UndoModel.world(saved: true)
    let (context, log) = (world.context, world.log)
    let before = GraphSnapshot(context)
    #expect(throws: Thrown.self) {
      try context.transaction(origin: "import") { () throws -> Void in
        world.boxes[0].label = "imported"
        throw Thrown()
      }
    }
    #expect(GraphSnapshot(context) == before, "\(GraphSnapshot(context).difference(from: before))")
    #expect(log.undoCount == 0)
    context.transaction(origin: "import") { world.boxes[0].label = "imported" }
    #expect(world.boxes[0].label == "imported" && log.undoCount == 0 && context.undoLog === log)
    world.boxes[0].weight = 3
    context.processPendingChanges()
    #expect(log.undoCount == 1)
  }
}

extension UndoSkipTests {
  /// An untracked delete whose no-action rule leaves a reference behind: undo of the reference's
  /// earlier change leaves it alone, and redo gives the graph back.
  @Test func undoLeavesAReferenceAnUntrackedDeleteLeftBehind() throws {
    let watch = try SkipWatch()
    let (world, context, log) = (watch.world, watch.context, watch.log)
    let (tag, box) = (world.tags[3], world.boxes[2])
    tag.box = box
    context.processPendingChanges()
    try context.withOrigin("sync") { try context.delete(box) }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    try log.undo()
    #expect(tag.box === box, "\(watch.skips)")
    try log.redo()
    #expect(GraphSnapshot(context) == before, "\(GraphSnapshot(context).difference(from: before))")
  }
}

extension UndoSkipTests {
  /// An undo that finds nothing to do (an untracked origin already put the value back) still
  /// keeps its place: the redo after it is its own, not an older one.
  @Test func anUndoThatChangesNothingKeepsItsPlace() throws {
    let world = try UndoModel.world(saved: true)
    let (context, log) = (world.context, world.log)
    let box = world.boxes[0]
    box.weight = 9
    context.processPendingChanges()
    try log.undo()  // an older redo waits on the redo stack
    box.label = "mine"
    context.processPendingChanges()
    #expect(log.redoCount == 0)
    box.weight = 9
    context.processPendingChanges()
    try log.undo()
    #expect(log.redoCount == 1)
    try context.withOrigin("import") { box.label = "box 0" }
    context.processPendingChanges()
    try log.undo()  // the label is "box 0" already
    #expect(log.canRedo && log.redoCount == 2)
    try log.redo()
    #expect(box.label == "box 0" && box.weight == 0 && log.redoCount == 1)
  }
}

/// A saved world with its undo log, and every skip its context reports.
final class SkipWatch {
  let world: UndoModel.World
  var context: ObjectContext { world.context }
  var log: UndoLog { world.log }
  private(set) var skips: [UndoSkip] = []
  private var token: ObservationToken?

  init() throws {
    world = try UndoModel.world(saved: true)
    token = world.context.onUndoSkip { [unowned self] in skips.append($0) }
  }
}

extension UndoSkipTests {
  /// Undo of a delete brings the object back with the relationships whose other side is still
  /// there; one an untracked origin deleted since stays gone.
  @Test func undoOfADeleteRestoresTheLinksWhoseOtherSideIsLeft() throws {
    let watch = try SkipWatch()
    let (world, context, log) = (watch.world, watch.context, watch.log)
    let box = world.boxes[2]  // on shelf 0, in crate 1
    try context.delete(box)
    context.processPendingChanges()
    try context.withOrigin("import") { try context.delete(world.crates[1]) }
    context.processPendingChanges()
    let before = GraphSnapshot(context)
    try log.undo()
    #expect(box.isLive && box.shelf === world.shelves[0] && box.crates.isEmpty)
    #expect(world.shelves[0].boxes.contains(box) && world.crates[1].isDeleted)
    #expect(checkUndoInverses(context) == nil)
    try log.redo()
    #expect(GraphSnapshot(context) == before)
  }
}
