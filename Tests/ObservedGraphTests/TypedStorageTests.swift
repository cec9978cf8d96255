import Foundation
import ObservedGraph
import Testing
import UndoLog

// Typed storage: an @Attribute keeps its value in the wrapper's own field. Every other path —
// key-value coding, snapshots, committed values, undo and redo, faults — reaches the same field.

/// Attributes of several shapes in one class, and one more in a subclass.
class Rack: ManagedObject {
  @Attribute var label: String = "rack"
  @Attribute var width: Double = 1.5
  @Attribute var note: String?
  @Attribute var tags: [String] = []
  @Attribute var sizes: [String: Int] = [:]
  @Attribute var count: Int16 = 0
}

final class CornerRack: Rack {
  @Attribute var angle: Float = 90
}

@Suite("Typed storage")
struct TypedStorageTests {
  static let model = try! ObjectModel(types: [Rack.self, CornerRack.self])

  @Test func everyPathSeesTheSameField() throws {
    let context = ObjectContext(model: Self.model)
    let log = UndoLog()
    context.undoLog = log
    let shelf = context.insert(CornerRack.self)
    // Defaults come from the wrappers' initial values.
    #expect(shelf.label == "rack" && shelf.width == 1.5 && shelf.note == nil && shelf.angle == 90)
    #expect(try shelf.value(forKey: "label") as? String == "rack")
    context.processPendingChanges()
    // Key-value coding writes what the typed getter reads, and the other way round.
    try shelf.setValue("oak", forKey: "label")
    try shelf.setValue(["a", "b"], forKey: "tags")
    try shelf.setValue(["x": 1], forKey: "sizes")
    try shelf.setValue("n", forKey: "note")
    try shelf.setValue(Float(45), forKey: "angle")
    try shelf.setValue(Int16(7), forKey: "count")
    #expect(shelf.label == "oak" && shelf.tags == ["a", "b"] && shelf.sizes == ["x": 1])
    #expect(shelf.note == "n" && shelf.angle == 45 && shelf.count == 7)
    shelf.width = 2.25
    shelf.note = nil
    #expect(try shelf.value(forKey: "width") as? Double == 2.25)
    #expect(try shelf.value(forKey: "note") == nil)
    #expect(try shelf.primitiveValue(forKey: "width") as? Double == 2.25)
    context.processPendingChanges()
    // Undo and redo write the fields back.
    try log.undo()
    #expect(shelf.label == "rack" && shelf.tags.isEmpty && shelf.note == nil && shelf.angle == 90)
    #expect(shelf.width == 1.5 && shelf.count == 0)
    try log.redo()
    #expect(shelf.label == "oak" && shelf.width == 2.25 && shelf.note == nil && shelf.angle == 45)
    // Committed values and changed values after a save.
    try context.save()
    shelf.count = 9
    shelf.count = 10
    #expect(try shelf.committedValues(forKeys: ["count"])["count"] as? Int16 == 7)
    #expect(shelf.changedValues() as NSDictionary == ["count": Int16(10)] as NSDictionary)
    // A primitive set writes the field without telling anyone.
    try shelf.setPrimitiveValue("raw", forKey: "label")
    #expect(shelf.label == "raw")
  }

  @Test func objectsKeepTheirOwnValues() {
    let context = ObjectContext(model: Self.model)
    let racks = (0..<50).map { index -> Rack in
      let shelf =
        index.isMultiple(of: 2) ? context.insert(Rack.self) : context.insert(CornerRack.self)
      shelf.label = "rack \(index)"
      shelf.count = Int16(index)
      return shelf
    }
    for (index, shelf) in racks.enumerated() {
      #expect(shelf.label == "rack \(index)" && shelf.count == Int16(index))
    }
  }

  @Test func anEntityDefaultOverridesTheWrappersInitialValue() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Rack",
        attributes: [
          AttributeDescription(name: "label", type: .string, defaultValue: "from the model"),
          AttributeDescription(name: "width", type: .double, defaultValue: 1.5),
          AttributeDescription(name: "note", type: .string, isOptional: true),
          AttributeDescription(name: "tags", type: [String].attributeType, defaultValue: ["t"]),
          AttributeDescription(
            name: "sizes", type: [String: Int].attributeType, defaultValue: [String: Int]()),
          AttributeDescription(name: "count", type: .int16, defaultValue: Int16(4)),
        ],
        objectClass: Rack.self)
    ])
    let context = ObjectContext(model: model)
    let shelf = context.insert(Rack.self)
    #expect(shelf.label == "from the model" && shelf.tags == ["t"] && shelf.count == 4)
    #expect(shelf.width == 1.5)
  }
}
