import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Undo steps are values — object identifiers, property indexes, stored values — so a whole
/// history can be archived, read back into a new log on the same context, and inspected.
@Suite("Undo history as values")
struct UndoHistoryTests {
  /// Several user events of every kind, then two undone so both stacks hold groups.
  private func busyWorld() throws -> UndoModel.World {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    let (box, other) = (world.boxes[0], world.boxes[1])
    let events: [() throws -> Void] = [
      { world.specimen.point = UndoPoint(x: 3, y: 4) },
      { box.label = "renamed" },
      { box.shelf = world.shelves[1] },
      { box.tags.append(world.tags[3]) },
      { try box.mutableOrderedSet(forKey: "tags").move(from: 0, to: 2) },
      { try context.delete(other) },
      {
        let crate = context.insert(UndoCrate.self)
        crate.code = 7
        crate.boxes = [box, world.boxes[2]]
      },
      {
        box.willChangeValue(forKey: "weight")
        try box.setPrimitiveValue(42.0, forKey: "weight")
        box.didChangeValue(forKey: "weight")
      },
      {
        world.specimen.decimal = Decimal(string: "1.25")!
        world.specimen.date = Date(timeIntervalSinceReferenceDate: 1.5)
        world.specimen.optional = "set"
      },
    ]
    for (index, event) in events.enumerated() {
      try event()
      world.log.setActionName("event \(index)")
      context.processPendingChanges()
    }
    try world.log.undo()
    try world.log.undo()
    return world
  }

  /// The snapshots of undoing everything, then redoing everything, then back to the start.
  private func walk(_ log: UndoLog, _ context: ObjectContext) throws -> [GraphSnapshot] {
    var states: [GraphSnapshot] = []
    let redoable = log.redoCount
    while log.canUndo {
      try log.undo()
      states.append(GraphSnapshot(context))
    }
    while log.canRedo {
      try log.redo()
      states.append(GraphSnapshot(context))
    }
    for _ in 0..<redoable { try log.undo() }
    return states
  }

  @Test func aHistoryArchivedAndRestoredUndoesAndRedoesTheSame() throws {
    let world = try busyWorld()
    let context = world.context
    let start = GraphSnapshot(context)
    let json = try JSONEncoder().encode(try world.log.history())
    let expected = try walk(world.log, context)
    #expect(GraphSnapshot(context) == start)
    #expect(expected.count == world.log.undoCount + world.log.redoCount + world.log.undoCount)

    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
    let history = try decoder.decode(UndoLog.History.self, from: json)
    let restored = UndoLog()
    try restored.restore(history)
    context.undoLog = restored
    #expect(restored.undoCount == world.log.undoCount && restored.redoCount == world.log.redoCount)
    #expect(restored.undoActionName == "event 6" && restored.redoActionName == "event 7")
    let replayed = try walk(restored, context)
    #expect(replayed.count == expected.count)
    for (index, (state, wanted)) in zip(replayed, expected).enumerated() where state != wanted {
      Issue.record("state \(index): \(state.difference(from: wanted))")
      break
    }
    #expect(GraphSnapshot(context) == start)
    context._checkInvariants()
  }

  @Test func aClosureStepCannotBeArchivedAndTheErrorNamesIt() throws {
    let world = try UndoModel.world()
    world.boxes[0].label = "x"
    world.log.registerUndo(withTarget: world.boxes[0]) { _ in }
    world.context.processPendingChanges()
    let error = #expect(throws: UndoLogError.self) { _ = try world.log.history() }
    #expect(error == .notArchivable)
    #expect(error?.description.contains("registerUndo(withTarget:handler:)") == true)
  }

  @Test func aGroupSaysWhichObjectsAndKeysItTouches() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    box.label = "x"
    box.shelf = world.shelves[1]
    let crate = world.context.insert(UndoCrate.self)
    world.context.processPendingChanges()
    let group = try #require(try world.log.history().undoGroups.last)
    var keys: [ObjectID: Set<String>] = [:]
    for step in group.steps {
      let step = try #require(step as? GraphUndoStep)
      for (id, names) in step.changedKeys(in: UndoModel.model) {
        keys[id, default: []].formUnion(names)
      }
    }
    #expect(keys[box.objectID] == ["label", "shelf"])
    #expect(keys[world.shelves[0].objectID] == ["boxes"])
    #expect(keys[world.shelves[1].objectID] == ["boxes"])
    #expect(keys[crate.objectID] == ["@lifecycle"])
    #expect(keys.count == 4)
    let ids = group.steps.compactMap { $0 as? GraphUndoStep }.reduce(into: Set<ObjectID>()) {
      $0.formUnion($1.objectIDs)
    }
    #expect(ids == Set(keys.keys))
  }

  @Test func removingActionsByTargetFindsValueSteps() throws {
    let world = try UndoModel.world()
    world.boxes[0].label = "a"
    world.boxes[1].label = "b"
    world.context.processPendingChanges()
    world.log.removeAllActions(withTarget: world.boxes[0])
    try world.log.undo()
    #expect(world.boxes[0].label == "a" && world.boxes[1].label == "box 1")
  }

  /// An object nobody references any more is brought back from the values its step kept.
  @Test func undoBringsBackAnObjectThatLeftMemory() throws {
    let world = try UndoModel.world()
    let context = world.context
    weak var weakTag: UndoTag?
    var id: ObjectID?
    do {
      let tag = context.insert(UndoTag.self)
      tag.text = "gone"
      tag.box = world.boxes[3]
      id = tag.objectID
      weakTag = tag
    }
    context.processPendingChanges()
    try world.log.undo()
    context.processPendingChanges()  // the event naming it as deleted went out
    #expect(weakTag == nil, "undo of its insert took it out and nothing holds it")
    let tagID = try #require(id)
    #expect(context.object(with: tagID) == nil)
    try world.log.redo()
    let back = try #require(context.object(with: tagID) as? UndoTag)
    #expect(back.text == "gone" && back.box === world.boxes[3])
    #expect(world.boxes[3].tags == [back] && back.isInserted)
    context._checkInvariants()

    // The same for a deleted object whose deletion was saved.
    try context.save()
    do {
      try context.delete(back)
      context.processPendingChanges()
      try context.save()
    }
    let key = back.objectID
    weakTag = back
    _ = consume back
    #expect(weakTag == nil, "its saved deletion took it out and nothing holds it")
    try world.log.undo()
    let again = try #require(context.object(with: key) as? UndoTag)
    #expect(again.text == "gone" && again.box === world.boxes[3] && again.isInserted)
  }
}
