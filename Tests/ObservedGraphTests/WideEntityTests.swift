import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// An entity with more than 64 properties: slots from 64 on keep their change and pending state
/// in the object's overflow box, and behave exactly as the first 64 do.
@Suite("Entities with more than 64 properties")
struct WideEntityTests {
  private static let model = try! ObjectModel(entities: [
    EntityDescription(
      name: "Wide",
      attributes: (0..<80).map {
        AttributeDescription(name: "a\($0)", type: .int, defaultValue: 0)
      })
  ])

  /// Changes of high and low slots: changed and committed values, the event's names, saving,
  /// undo and redo, and change and pending state after each.
  @Test func highSlotsAreTrackedLikeLowOnes() throws {
    let context = ObjectContext(model: Self.model)
    let log = UndoLog()
    context.undoLog = log
    let wide = try context.insertObject(forEntityName: "Wide")
    try context.save()
    var events: [ObjectsDidChange] = []
    let subscription = context.onObjectsDidChange { events.append($0) }
    try wide.setValue(1, forKey: "a70")
    try wide.setValue(2, forKey: "a3")
    try wide.setValue(3, forKey: "a79")
    try wide.setValue(4, forKey: "a70")  // a second change keeps the committed value
    #expect(wide.changes.changedSlots == [3, 70, 79])
    #expect(wide.pendingSlots == [3, 70, 79])
    #expect(Set(wide.changedValues().keys) == ["a3", "a70", "a79"])
    #expect(
      try wide.committedValues(forKeys: ["a70", "a79"]) as? [String: Int] == ["a70": 0, "a79": 0])
    context.processPendingChanges()
    #expect(events.map(\.updated) == [[wide.objectID: ["a3", "a70", "a79"]]])
    #expect(wide.pendingSlots.isEmpty && !wide.hasPendingNews)
    // Setting a high slot back to its committed value by undo leaves nothing to save.
    try log.undo()
    #expect(try wide.value(forKey: "a70") as? Int == 0)
    #expect(wide.changes.isEmpty)
    #expect(!context.hasChanges)
    #expect(wide.pendingSlots == [3, 70, 79])
    try log.redo()
    #expect(wide.changes.changedSlots == [3, 70, 79])
    #expect(try wide.committedValues(forKeys: ["a70"]) as? [String: Int] == ["a70": 0])
    try context.save()
    #expect(wide.changes.isEmpty && wide.changes.originals.isEmpty)
    #expect(events.count == 2)  // the undo and the redo are one event, posted by the save
    #expect(events.last?.updated == [wide.objectID: ["a3", "a70", "a79"]])
    // After the save the committed value is the saved one.
    try wide.setValue(5, forKey: "a70")
    #expect(try wide.committedValues(forKeys: ["a70"]) as? [String: Int] == ["a70": 4])
    context._checkInvariants()
    subscription.invalidate()
  }

  /// A copy of a change state does not see later changes of the original (the overflow box is
  /// copied before it is changed).
  @Test func aCopiedChangeStateIsAValue() {
    var original = ChangeState()
    original.insert(70)
    original.originals[70] = .attribute(.integer(1))
    let copy = original
    original.insert(75)
    original.originals[70] = nil
    original.insertPending(66)
    #expect(copy.changedSlots == [70])
    #expect(copy.originals[70] == .attribute(.integer(1)))
    #expect(copy.pendingSlots.isEmpty)
    #expect(original.changedSlots == [70, 75])
    original.removeAll()
    #expect(original.isEmpty && original.originals.isEmpty && original.pendingSlots == [66])
    original.removeAllPending()
    #expect(original.pendingSlots.isEmpty)
  }
}
