import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// The error the bodies below throw.
private struct ActionFailed: Error, Equatable {}

/// What one test hears: every change through the context (as `ChangeRecorder` lines) and every
/// objects-did-change event (as its description).
private final class Ears {
  let changes: ChangeRecorder
  var events: [String] = []
  var token: ObservationToken?

  init(_ context: ObjectContext) {
    changes = ChangeRecorder(context: context)
    token = context.onObjectsDidChange { [unowned self] event in events.append(event.description) }
  }

  func takeEvents() -> [String] {
    defer { events.removeAll() }
    return events
  }
}

/// The state a failed action must leave as it found it.
private struct Picture: Equatable {
  var values: [String]
  var changed: [String]
  var undoCount: Int
  var redoCount: Int
  var undoName: String
  var redoName: String
  var groupingLevel: Int

  init(_ world: UndoModel.World) {
    let objects = world.context.registeredObjects.sorted { $0.objectID.key < $1.objectID.key }
    values = objects.map { object in
      let keys = object.entity.properties.map(\.name)
      let rendered = keys.map { key in
        "\(key)=\(ChangeRecorder.render(try? object.value(forKey: key)))"
      }
      return
        "\(object.objectID) \(object.isDeleted ? "deleted" : "live") \(rendered.joined(separator: " "))"
    }
    changed = objects.filter(\.hasChanges).map { object in
      "\(object.objectID) \(object.isInserted) \(object.isUpdated) \(object.isDeleted) "
        + object.changedValues().keys.sorted().joined(separator: ",")
    }
    undoCount = world.log.undoCount
    redoCount = world.log.redoCount
    undoName = world.log.undoActionName
    redoName = world.log.redoActionName
    groupingLevel = world.log.groupingLevel
  }
}

@Suite struct PerformActionTests {
  @Test func oneNamedGroupAndOneEvent() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[3]
    let ears = Ears(world.context)
    let result = world.context.performAction("Relabel") {
      box.label = "relabelled"
      box.weight = 7
      return box.label.count
    }
    #expect(result == 10)
    #expect(
      ears.changes.mismatch([
        #"UndoBox#6.label setting old="box 3" new="relabelled""#,
        "UndoBox#6.weight setting old=3.0 new=7.0",
      ]) == nil)
    #expect(
      ears.takeEvents() == ["inserted [] updated [UndoBox#6: label weight] deleted [] refreshed []"]
    )
    #expect(world.log.undoCount == 1)
    #expect(world.log.undoActionName == "Relabel")
    #expect(world.log.groupingLevel == 0)

    try world.log.undo()
    #expect(
      ears.changes.mismatch([
        "UndoBox#6.weight setting old=7.0 new=3.0",
        #"UndoBox#6.label setting old="relabelled" new="box 3""#,
      ]) == nil)
    #expect(box.label == "box 3" && box.weight == 3 && !box.hasChanges)
    #expect(world.log.redoActionName == "Relabel")
    #expect(!world.log.canUndo)
    try world.log.redo()
    #expect(box.label == "relabelled" && box.weight == 7 && box.isUpdated)
    #expect(world.log.undoActionName == "Relabel" && !world.log.canRedo)
    #expect(ears.events.isEmpty, "undo and redo post when the next event ends, not before")
  }

  @Test func anEmptyBodyLeavesNothing() throws {
    let world = try UndoModel.world()
    let ears = Ears(world.context)
    world.context.performAction("Nothing") {}
    #expect(ears.changes.isEmpty)
    #expect(ears.takeEvents().isEmpty)
    #expect(world.log.undoCount == 0 && world.log.groupingLevel == 0)
    #expect(world.log.undoActionName == "")
  }

  @Test func twoActionsAreTwoGroups() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    world.context.performAction("First") { box.label = "one" }
    world.context.performAction("Second") { box.label = "two" }
    #expect(world.log.undoCount == 2)
    #expect(world.log.undoActionName == "Second")
    try world.log.undo()
    #expect(box.label == "one" && world.log.undoActionName == "First")
    try world.log.undo()
    #expect(box.label == "box 0")
  }

  @Test func pendingChangesBeforeTheCallAreTheirOwnGroupAndEvent() throws {
    let world = try UndoModel.world(saved: true)
    let ears = Ears(world.context)
    world.boxes[0].label = "before"
    world.context.performAction("Weigh") { world.boxes[1].weight = 9 }
    #expect(
      ears.takeEvents() == [
        "inserted [] updated [UndoBox#3: label] deleted [] refreshed []",
        "inserted [] updated [UndoBox#4: weight] deleted [] refreshed []",
      ])
    #expect(world.log.undoCount == 2 && world.log.undoActionName == "Weigh")
    try world.log.undo()
    #expect(world.boxes[1].weight == 1 && world.boxes[0].label == "before")
  }

  /// A throwing body: nobody hears anything of it; the graph, its change tracking and both stacks
  /// are as before, and no event is posted.
  @Test func aThrowingBodyChangesNothing() throws {
    let world = try UndoModel.world(saved: true)
    let (box, shelf) = (world.boxes[0], world.shelves[1])
    // Something to redo, which the failed action must not cost.
    world.specimen.string = "undone"
    world.context.processPendingChanges()
    world.log.setActionName("Type")
    try world.log.undo()
    world.context.processPendingChanges()
    let before = Picture(world)
    #expect(before.redoCount == 1 && before.redoName == "Type" && before.undoCount == 0)
    let ears = Ears(world.context)

    #expect(throws: ActionFailed()) {
      try world.context.performAction("Rearrange") {
        box.label = "moved"
        box.shelf = shelf
        _ = world.context.insert(UndoTag.self)
        try world.context.delete(world.boxes[1])  // its lid cascades
        throw ActionFailed()
      }
    }
    #expect(ears.changes.isEmpty, "a thrown action is heard by no one")
    #expect(Picture(world) == before)
    #expect(box.label == "box 0" && box.shelf === world.shelves[0])
    #expect(world.boxes[1].isLive && world.boxes[1].lid === world.lids[1])
    #expect(world.context.registeredObjects.count == 16, "the inserted tag left the context")
    #expect(ears.takeEvents().isEmpty, "nothing of the failed action is posted")
    #expect(world.boxes[1].snapshotEvents == [[.undoDeletion, .undoUpdate]])
    #expect(box.snapshotEvents == [[.undoUpdate]])

    world.context.processPendingChanges()
    #expect(ears.takeEvents().isEmpty, "nothing of the failed action is left pending")
    try world.log.redo()
    #expect(world.specimen.string == "undone", "the redo stack was kept")
  }

  @Test func theTakingBackIsHeardByNoOne() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    let ears = Ears(world.context)
    var heard: [String] = []
    let token = box.observe(\.weight, options: [.old, .new, .prior]) { _, change in
      heard.append("\(change)")
    }
    defer { token.invalidate() }
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Relabel") {
        box.label = "a"
        box.weight = 5
        throw ActionFailed()
      }
    }
    #expect(ears.changes.isEmpty && heard.isEmpty)
    #expect(!box.hasChanges && world.log.undoCount == 0 && world.log.redoCount == 0)
  }

  @Test func withoutALogAFailedActionChangesNothingAndNothingIsRecorded() throws {
    let world = try UndoModel.world(saved: true)
    world.context.undoLog = nil
    let box = world.boxes[0]
    let ears = Ears(world.context)
    var seen: UndoLog?
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Relabel") {
        box.label = "a"
        seen = world.context.undoLog
        throw ActionFailed()
      }
    }
    #expect(seen != nil, "a private log records the body")
    #expect(world.context.undoLog == nil)
    #expect(box.label == "box 0" && !box.hasChanges)
    #expect(ears.takeEvents().isEmpty)

    world.context.performAction("Relabel") { box.label = "b" }
    #expect(world.context.undoLog == nil)
    #expect(box.label == "b" && box.isUpdated)
    #expect(ears.takeEvents() == ["inserted [] updated [UndoBox#3: label] deleted [] refreshed []"])
  }

  @Test func disabledRegistrationStaysDisabledAndAFailedActionChangesNothing() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    world.log.disableRegistration()
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Relabel") {
        box.label = "a"
        throw ActionFailed()
      }
    }
    #expect(box.label == "box 0" && !box.hasChanges)
    world.context.performAction("Relabel") { box.label = "b" }
    #expect(box.label == "b")
    #expect(world.context.undoLog === world.log)
    #expect(!world.log.isRegistrationEnabled)
    #expect(world.log.undoCount == 0 && world.log.undoActionName == "")
    try world.log.enableRegistration()
  }

  /// A log that does not group by event: the action's group is pushed when it closes.
  @Test func aLogThatDoesNotGroupByEvent() throws {
    let world = try UndoModel.world()
    world.log.groupsByEvent = false
    let box = world.boxes[0]
    world.context.performAction("Relabel") {
      box.label = "a"
      box.weight = 1
    }
    #expect(world.log.undoCount == 1 && world.log.undoActionName == "Relabel")
    #expect(world.log.groupingLevel == 0)
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Fail") {
        box.label = "b"
        throw ActionFailed()
      }
    }
    #expect(box.label == "a" && world.log.undoCount == 1 && world.log.groupingLevel == 0)
    try world.log.undo()
    #expect(box.label == "box 0" && box.weight == 0)
  }

  @Test func anInnerActionJoinsTheOuterOne() throws {
    let world = try UndoModel.world()
    let ears = Ears(world.context)
    let box = world.boxes[0]
    world.context.performAction("Outer") {
      box.label = "outer"
      world.context.performAction("Inner") { box.weight = 2 }
      #expect(ears.events.isEmpty, "the inner action posts nothing")
      #expect(throws: ActionFailed()) {
        try world.context.performAction("Failing") {
          box.weight = 3
          world.boxes[1].label = "gone"
          throw ActionFailed()
        }
      }
      #expect(box.weight == 2 && world.boxes[1].label == "box 1")
      box.lid = nil
    }
    #expect(ears.takeEvents().count == 1)
    #expect(world.log.undoCount == 1 && world.log.undoActionName == "Outer")
    try world.log.undo()
    #expect(box.label == "box 0" && box.weight == 0 && box.lid === world.lids[0])
    #expect(world.boxes[1].label == "box 1")
  }

  @Test func anOuterActionThatThrowsTakesBackItsInnerActions() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Outer") {
        box.label = "outer"
        world.context.performAction("Inner") { box.weight = 2 }
        throw ActionFailed()
      }
    }
    #expect(box.label == "box 0" && box.weight == 0)
    #expect(world.log.undoCount == 0 && world.log.groupingLevel == 0)
  }

  @Test func insideAManualGroupTheActionFoldsIntoIt() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    let ears = Ears(world.context)
    world.log.beginGroup()
    box.label = "manual"
    world.context.performAction("Weigh") { box.weight = 4 }
    #expect(world.log.groupingLevel == 2, "the manual group is still open")
    #expect(world.log.undoCount == 0)
    #expect(ears.takeEvents().count == 2, "the changes before, then the action's")
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Fail") {
        box.weight = 5
        throw ActionFailed()
      }
    }
    #expect(box.weight == 4 && world.log.groupingLevel == 2)
    try world.log.endGroup()
    world.context.processPendingChanges()
    #expect(world.log.undoCount == 1 && world.log.undoActionName == "Weigh")
    try world.log.undo()
    #expect(box.label == "box 0" && box.weight == 0)
  }

  /// An observer that changes the graph in answer: it hears the change at the commit, and its
  /// answer is part of the action; a thrown action is not heard, so it is not answered.
  @Test func observersThatChangeTheGraphArePartOfTheAction() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    let token = box.observe(\.label) { box, _ in box.weight = Double(box.label.count) }
    defer { token.invalidate() }
    #expect(throws: ActionFailed()) {
      try world.context.performAction("Relabel") {
        box.label = "four"
        throw ActionFailed()
      }
    }
    #expect(box.label == "box 0" && box.weight == 0, "the observer heard nothing")
    #expect(world.log.undoCount == 0)
    world.context.performAction("Relabel") { box.label = "ab" }
    #expect(box.weight == 2)
    try world.log.undo()
    #expect(box.label == "box 0" && box.weight == 5, "the observer answered the undo")
  }

  /// An observer of a change made outside any action that performs an action: the event in
  /// progress ends first, so the answer is its own group.
  @Test func anActionInAnObserverCallbackIsItsOwnGroup() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    let ears = Ears(world.context)
    let token = box.observe(\.label) { box, _ in
      guard !world.log.isUndoing && !world.log.isRedoing else { return }
      world.context.performAction("Answer") { box.weight = 42 }
    }
    defer { token.invalidate() }
    box.label = "asked"
    #expect(world.log.undoCount == 2 && world.log.undoActionName == "Answer")
    #expect(ears.takeEvents().count == 2)
    try world.log.undo()
    #expect(box.weight == 0 && box.label == "asked")
    world.context.processPendingChanges()
    #expect(
      ears.takeEvents() == ["inserted [] updated [UndoBox#3: weight] deleted [] refreshed []"])

    // The change made in an action: the observer's action joins it.
    world.context.performAction("Ask") { box.label = "asked again" }
    #expect(world.log.undoCount == 2 && world.log.undoActionName == "Ask")
    #expect(ears.takeEvents().count == 1)
    try world.log.undo()
    #expect(box.weight == 0 && box.label == "asked")
  }

  /// While an undo runs, an action an observer performs joins what the undo gathers: the redo.
  @Test func anActionWhileUndoingJoinsTheRedo() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    world.context.performAction("Relabel") { box.label = "x" }
    var answered = 0
    let token = box.observe(\.label) { box, _ in
      guard world.log.isUndoing else { return }
      answered += 1
      world.context.performAction("Answer") { box.weight = 8 }
      #expect(throws: ActionFailed()) {
        try world.context.performAction("Fail") {
          box.weight = 9
          throw ActionFailed()
        }
      }
    }
    defer { token.invalidate() }
    let ears = Ears(world.context)
    try world.log.undo()
    #expect(answered == 1)
    #expect(box.label == "box 0" && box.weight == 8)
    #expect(ears.takeEvents().isEmpty, "an undo posts at the next event")
    #expect(world.log.redoCount == 1 && world.log.undoCount == 0)
    try world.log.redo()
    #expect(box.label == "x" && box.weight == 0)
  }

  @Test func anActionInAnEventSubscriberPostsItsOwnEvent() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    var events: [String] = []
    let token = world.context.onObjectsDidChange { event in
      events.append(event.description)
      if events.count == 1 {
        world.context.performAction("Answer") { box.weight = 3 }
      }
    }
    defer { token.invalidate() }
    world.context.performAction("Relabel") { box.label = "y" }
    #expect(
      events == [
        "inserted [] updated [UndoBox#3: label] deleted [] refreshed []",
        "inserted [] updated [UndoBox#3: weight] deleted [] refreshed []",
      ])
    #expect(world.log.undoCount == 2 && world.log.undoActionName == "Answer")
  }
}
