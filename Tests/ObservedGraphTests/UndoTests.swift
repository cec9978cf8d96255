import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// One kind of change, applied to a fresh ``UndoModel/World``.
enum UndoGraphChange: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case string, bool, int16, int32, int64, int, float, double, decimal, date, data, uuid, url
  case transformable, optionalToValue, valueToNil, keyValueCoding
  case toOneSet, toOneClear, toOneSteal, oneToOneSteal
  case toManyInsert, toManyRemove, toManyReplace
  case orderedInsertAt, orderedMove, orderedRemove, orderedReplace, orderedSteal
  case manyToManyInsert, manyToManyRemove
  case insert, insertWithRelationships
  case deleteNullify, deleteCascade, deleteNoAction, deleteEmptyDenyOwner, deleteManyToMany
  case bracketedPrimitiveAttribute, bracketedPrimitiveToOne, bracketedPrimitiveToMany
  case severalInOneEvent

  var testDescription: String { rawValue }

  func apply(to world: UndoModel.World) throws {
    let specimen = world.specimen
    let (box, other) = (world.boxes[0], world.boxes[1])
    switch self {
    case .string: specimen.string = "text"
    case .bool: specimen.bool = true
    case .int16: specimen.int16 = -16
    case .int32: specimen.int32 = 32
    case .int64: specimen.int64 = .max
    case .int: specimen.int = -7
    case .float: specimen.float = 1.5
    case .double: specimen.double = 0.1
    case .decimal: specimen.decimal = Decimal(string: "12.34")!
    case .date: specimen.date = Date(timeIntervalSinceReferenceDate: 123.456)
    case .data: specimen.data = Data([1, 2, 3])
    case .uuid: specimen.uuid = UUID()
    case .url: specimen.url = URL(string: "file:///tmp/x")!
    case .transformable: specimen.point = UndoPoint(x: 3, y: 4)
    case .optionalToValue: specimen.optional = "set"
    case .valueToNil: specimen.optional = nil  // set to a value by roundTrip first
    case .keyValueCoding: try box.setValue(9.5, forKey: "weight")
    case .toOneSet: world.boxes[3].shelf = world.shelves[1]
    case .toOneClear: box.shelf = nil
    case .toOneSteal: box.shelf = world.shelves[1]
    case .oneToOneSteal: world.boxes[2].lid = world.lids[0]
    case .toManyInsert: try world.shelves[1].mutableSet(forKey: "boxes").insert(box)
    case .toManyRemove: try world.shelves[0].mutableSet(forKey: "boxes").remove(other)
    case .toManyReplace: world.shelves[1].boxes = [box, world.boxes[3]]
    case .orderedInsertAt: try box.mutableOrderedSet(forKey: "tags").insert(world.tags[3], at: 1)
    case .orderedMove: try box.mutableOrderedSet(forKey: "tags").move(from: 0, to: 2)
    case .orderedRemove: try box.mutableOrderedSet(forKey: "tags").remove(at: 1)
    case .orderedReplace: box.tags = [world.tags[2], world.tags[3], world.tags[0]]
    case .orderedSteal: other.tags = [world.tags[1]]
    case .manyToManyInsert: try world.crates[1].mutableSet(forKey: "boxes").insert(box)
    case .manyToManyRemove: try box.mutableSet(forKey: "crates").remove(world.crates[0])
    case .insert:
      _ = world.context.insert(UndoTag.self)
    case .insertWithRelationships:
      let new = world.context.insert(UndoBox.self)
      new.shelf = world.shelves[1]
      new.tags = [world.tags[3], world.tags[0]]
      new.lid = world.lids[2]
    case .deleteNullify: try world.context.delete(world.tags[1])
    case .deleteCascade: try world.context.delete(box)
    case .deleteNoAction: try world.context.delete(box)
    case .deleteEmptyDenyOwner: try world.context.delete(world.shelves[1])
    case .deleteManyToMany: try world.context.delete(world.crates[1])
    case .bracketedPrimitiveAttribute:
      box.willChangeValue(forKey: "label")
      try box.setPrimitiveValue("imported", forKey: "label")
      box.didChangeValue(forKey: "label")
    case .bracketedPrimitiveToOne:
      // Primitive relationship sets keep no inverse: set both sides, each in its own bracket.
      let tag = world.tags[3]
      tag.willChangeValue(forKey: "box")
      other.willChangeValue(forKey: "tags")
      try tag.setPrimitiveValue(other, forKey: "box")
      try other.setPrimitiveValue([tag], forKey: "tags")
      other.didChangeValue(forKey: "tags")
      tag.didChangeValue(forKey: "box")
    case .bracketedPrimitiveToMany:
      box.willChangeValue(forKey: "tags")
      try box.setPrimitiveValue(Array(box.tags.reversed()), forKey: "tags")
      box.didChangeValue(forKey: "tags")
    case .severalInOneEvent:
      box.label = "renamed"
      box.shelf = world.shelves[1]
      try world.context.delete(world.boxes[2])
      _ = world.context.insert(UndoCrate.self)
    }
  }
}

@Suite struct UndoGraph {
  /// apply → undo → the before-state exactly → redo → the after-state exactly, twice.
  @Test(arguments: UndoGraphChange.allCases, [false, true])
  func roundTrip(_ change: UndoGraphChange, saved: Bool) throws {
    let world = try UndoModel.world(saved: saved)
    let context = world.context
    if change == .valueToNil {
      world.specimen.optional = "set"
      context.processPendingChanges()
    }
    let before = GraphSnapshot(context)
    let undoCount = world.log.undoCount
    try change.apply(to: world)
    context.processPendingChanges()
    context._checkInvariants()
    let after = GraphSnapshot(context)
    #expect(before != after)
    #expect(world.log.undoCount == undoCount + 1, "one user event, one undo group")
    for _ in 0..<2 {
      try world.log.undo()
      context._checkInvariants()
      #expect(checkUndoInverses(context) == nil)
      let undone = GraphSnapshot(context)
      #expect(undone == before, "\(undone.difference(from: before))")
      try world.log.redo()
      context._checkInvariants()
      #expect(checkUndoInverses(context) == nil)
      let redone = GraphSnapshot(context)
      #expect(redone == after, "\(redone.difference(from: after))")
    }
  }

  @Test func undoOfInsertUnregistersAndRedoBringsBackTheSameObject() throws {
    let world = try UndoModel.world()
    let context = world.context
    let box = context.insert(UndoBox.self)
    #expect(box.label == "new box")
    box.weight = 3
    context.processPendingChanges()
    let id = box.objectID
    #expect(world.log.undoCount == 1, "awakeFromInsert's change is part of the insert")

    try world.log.undo()
    #expect(context.object(with: id) == nil)
    #expect(!context.registeredObjects.contains(box))
    #expect(!context.insertedObjects.contains(box))
    #expect(!box.isInserted && !box.hasChanges)
    #expect(box.snapshotEvents == [[.undoInsertion, .undoUpdate]])
    #expect(throws: ObjectGraphError.self) { try box.setValue("x", forKey: "label") }

    try world.log.redo()
    #expect(context.object(with: id) === box)
    #expect(box.isInserted)
    #expect(box.label == "new box" && box.weight == 3)
    #expect(box.snapshotEvents.last == [.undoDeletion, .undoUpdate])
    #expect(box.changedValues().keys.sorted() == ["label", "weight"])
  }

  @Test func awakeFromInsertRunsOnceInALife() throws {
    let world = try UndoModel.world()
    let box = world.context.insert(UndoBox.self)
    box.label = "kept"
    world.context.processPendingChanges()
    try world.log.undo()
    try world.log.redo()
    try world.context.delete(box)
    world.context.processPendingChanges()
    try world.log.undo()
    // Redo and undo of delete never call awakeFromInsert: the label would be "new box" again.
    #expect(box.label == "kept")
  }

  @Test func undoOfCascadeDeleteRestoresEverything() throws {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    let box = world.boxes[0]
    let before = GraphSnapshot(context)
    try context.delete(box)
    context.processPendingChanges()
    #expect(box.isDeleted && world.lids[0].isDeleted)
    #expect(world.tags[0].box === box, "no action leaves the tags pointing at the box")
    #expect(!world.crates[0].boxes.contains(box))
    try world.log.undo()
    #expect(GraphSnapshot(context) == before)
    #expect(box.tags == Array(world.tags[0..<3]))
    #expect(box.lid === world.lids[0] && world.lids[0].box === box)
    #expect(world.crates[0].boxes.contains(box) && box.crates == [world.crates[0]])
    #expect(box.snapshotEvents == [[.undoDeletion, .undoUpdate]])
  }

  @Test func deniedDeleteRecordsNothing() throws {
    let world = try UndoModel.world()
    let before = GraphSnapshot(world.context)
    #expect(throws: ObjectGraphError.self) { try world.context.delete(world.shelves[0]) }
    world.context.processPendingChanges()
    #expect(!world.log.canUndo)
    #expect(GraphSnapshot(world.context) == before)
  }

  @Test func primitiveSetOutsideBracketsRecordsNothing() throws {
    let world = try UndoModel.world()
    try world.boxes[0].setPrimitiveValue("raw", forKey: "label")
    try world.specimen.setPrimitiveValue(Int16(3), forKey: "int16")
    world.context.processPendingChanges()
    #expect(!world.log.canUndo)
  }

  @Test func equalValueSetRecordsNothing() throws {
    let world = try UndoModel.world()
    world.boxes[0].label = "box 0"
    world.boxes[0].shelf = world.shelves[0]
    world.boxes[0].tags = Array(world.tags[0..<3])
    world.context.processPendingChanges()
    #expect(!world.log.canUndo)
  }

  @Test func disabledRegistrationRecordsNothing() throws {
    let world = try UndoModel.world()
    world.log.disableRegistration()
    world.boxes[0].label = "imported"
    world.boxes[1].shelf = world.shelves[1]
    _ = world.context.insert(UndoTag.self)
    try world.context.delete(world.tags[0])
    try world.log.enableRegistration()
    world.context.processPendingChanges()
    #expect(!world.log.canUndo)
    #expect(world.boxes[0].label == "imported")
  }

  @Test func resetClearsTheLog() throws {
    let world = try UndoModel.world()
    world.boxes[0].label = "changed"
    world.context.processPendingChanges()
    #expect(world.log.canUndo)
    world.context.reset()
    #expect(!world.log.canUndo && !world.log.canRedo)
  }

  @Test func eventsGroupAndExplicitGroupsNest() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    box.label = "a"
    box.label = "b"
    world.context.processPendingChanges()
    world.log.beginGroup()
    box.label = "c"
    box.weight = 7
    try world.log.endGroup()
    box.label = "d"
    world.context.processPendingChanges()
    #expect(world.log.undoCount == 2)
    try world.log.undo()
    #expect(box.label == "b" && box.weight == 0)
    try world.log.undo()
    #expect(box.label == "box 0")
  }

  @Test func typingCoalescesIntoTheOldestValue() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    world.log.coalescingWindow = .seconds(60)
    for text in ["h", "he", "hel", "hell", "hello"] {
      box.label = text
      world.context.processPendingChanges()
    }
    #expect(world.log.undoCount == 1)
    try world.log.undo()
    #expect(box.label == "box 0" && !box.isUpdated && box.changedValues().isEmpty)
    try world.log.redo()
    #expect(box.label == "hello" && box.isUpdated)
  }

  @Test func observerChangesWhileUndoingGoToTheRedoSide() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    box.label = "x"
    world.context.processPendingChanges()
    // An observer keeps the weight equal to the label's length.
    let token = try box.observe(keyPath: "label", options: [.new]) { change in
      box.weight = Double((change.newValue as? String)?.count ?? 0)
    }
    try world.log.undo()
    #expect(box.label == "box 0" && box.weight == 5)
    try world.log.redo()
    #expect(box.label == "x" && box.weight == 1)
    try world.log.undo()
    #expect(box.label == "box 0" && box.weight == 5)
    token.invalidate()
  }

  @Test func undoAfterSaveDirtiesAgain() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    box.label = "edited"
    world.context.processPendingChanges()
    try world.context.save()
    #expect(!box.hasChanges)
    try world.log.undo()
    #expect(box.label == "box 0" && box.isUpdated)
    #expect(try box.committedValues(forKeys: ["label"])["label"] as? String == "edited")
    try world.log.redo()
    #expect(box.label == "edited" && !box.hasChanges)
  }

  @Test func undoOfInsertAfterSaveDeletesTheObject() throws {
    let world = try UndoModel.world()
    let tag = world.context.insert(UndoTag.self)
    world.context.processPendingChanges()
    try world.context.save()
    try world.log.undo()
    #expect(tag.isDeleted)
    try world.log.redo()
    #expect(!tag.isDeleted && !tag.hasChanges)
  }

  @Test func undoNotifiesObserversWithOldAndNewValues() throws {
    let world = try UndoModel.world()
    let box = world.boxes[0]
    box.label = "x"
    box.shelf = world.shelves[1]
    world.context.processPendingChanges()
    let recorder = ChangeRecorder(context: world.context)
    try world.log.undo()
    let undone = recorder.take()
    #expect(undone.contains(#"UndoBox#\#(box.objectID.key).label setting old="x" new="box 0""#))
    #expect(
      undone.contains {
        $0.hasPrefix("UndoBox#\(box.objectID.key).shelf setting old=UndoShelf#2 new=UndoShelf#1")
      }, "\(undone)")
    try world.log.redo()
    let redone = recorder.take()
    #expect(redone.contains(#"UndoBox#\#(box.objectID.key).label setting old="box 0" new="x""#))
    recorder.stop()
  }

  @Test func undoAndRedoPostObjectsDidChange() throws {
    let world = try UndoModel.world()
    let tag = world.context.insert(UndoTag.self)
    world.context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = world.context.onObjectsDidChange { events.append($0) }
    try world.log.undo()
    world.context.processPendingChanges()
    try world.log.redo()
    world.context.processPendingChanges()
    #expect(events.last?.inserted == [tag.objectID])
    token.invalidate()
  }

  @Test func stepsAreHonestAboutTheirSize() throws {
    let world = try UndoModel.world()
    world.boxes[0].weight = 1
    world.context.processPendingChanges()
    let scalar = world.log.byteSize
    // An attribute set is one value step holding one recorded change, in one allocation: the
    // reference, the allocation's header and the change.
    #expect(
      scalar == MemoryLayout<GraphUndoStep>.size + 16 + MemoryLayout<GraphUndoStep.Changes>.size)
    world.boxes[0].tags = [world.tags[3]]
    world.context.processPendingChanges()
    #expect(world.log.byteSize > scalar + 4 * MemoryLayout<RecordedChange>.stride)
  }
}
