import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

// A model that has every delete rule and every relationship shape, for the undo tests:
// shelves deny deleting while they hold boxes; a box cascades to its lid (one-to-one), leaves its
// ordered tags pointing at it (no action) and is nullified out of crates (many-to-many).

final class UndoShelf: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shelf", deleteRule: .deny) var boxes: Set<UndoBox>
}

final class UndoBox: ManagedObject {
  @Attribute var label: String = ""
  @Attribute var weight: Double = 0
  @Relationship(inverse: "boxes") var shelf: UndoShelf?
  @Relationship(inverse: "box", deleteRule: .noAction, ordered: true) var tags: [UndoTag]
  @Relationship(inverse: "box", deleteRule: .cascade) var lid: UndoLid?
  @Relationship(inverse: "boxes") var crates: Set<UndoCrate>

  /// Every snapshot event the box was given, in order.
  var snapshotEvents: [SnapshotEvents] = []

  override func awakeFromInsert() {
    super.awakeFromInsert()
    label = "new box"
  }

  override func awake(fromSnapshotEvents events: SnapshotEvents) {
    super.awake(fromSnapshotEvents: events)
    snapshotEvents.append(events)
  }
}

final class UndoTag: ManagedObject {
  @Attribute var text: String = ""
  @Relationship(inverse: "tags") var box: UndoBox?
}

final class UndoLid: ManagedObject {
  @Attribute var color: String = "grey"
  @Relationship(inverse: "lid") var box: UndoBox?
}

final class UndoCrate: ManagedObject {
  @Attribute var code: Int32 = 0
  @Relationship(inverse: "crates") var boxes: Set<UndoBox>
}

struct UndoPoint: TransformableValue {
  var x: Int
  var y: Int
}

/// One attribute of every type.
final class UndoSpecimen: ManagedObject {
  @Attribute var string: String = ""
  @Attribute var bool: Bool = false
  @Attribute var int16: Int16 = 0
  @Attribute var int32: Int32 = 0
  @Attribute var int64: Int64 = 0
  @Attribute var int: Int = 0
  @Attribute var float: Float = 0
  @Attribute var double: Double = 0
  @Attribute var decimal: Decimal = 0
  @Attribute var date: Date = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var data: Data = Data()
  @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Attribute var url: URL = URL(string: "https://example.com")!
  @Attribute var point: UndoPoint = UndoPoint(x: 0, y: 0)
  @Attribute var optional: String?
}

enum UndoModel {
  static let model = try! ObjectModel(types: [
    UndoShelf.self, UndoBox.self, UndoTag.self, UndoLid.self, UndoCrate.self, UndoSpecimen.self,
  ])

  /// A context with an undo log, and a small graph whose building is not undoable.
  struct World {
    let context: ObjectContext
    let log: UndoLog
    let shelves: [UndoShelf]
    let boxes: [UndoBox]
    let tags: [UndoTag]
    let lids: [UndoLid]
    let crates: [UndoCrate]
    let specimen: UndoSpecimen
  }

  /// Two shelves, four boxes (three on shelf 0), tags 0–2 on box 0 in order, lids on boxes 0 and
  /// 1, crates holding boxes {0, 1} and {1, 2}. With `saved`, the graph is saved first, so changes
  /// make objects updated rather than inserted.
  static func world(saved: Bool = false) throws -> World {
    let context = ObjectContext(model: model)
    let shelves = (0..<2).map { index in
      let shelf = context.insert(UndoShelf.self)
      shelf.name = "shelf \(index)"
      return shelf
    }
    let boxes = (0..<4).map { index in
      let box = context.insert(UndoBox.self)
      box.label = "box \(index)"
      box.weight = Double(index)
      box.shelf = index < 3 ? shelves[0] : nil
      return box
    }
    let tags = (0..<4).map { index in
      let tag = context.insert(UndoTag.self)
      tag.text = "tag \(index)"
      return tag
    }
    boxes[0].tags = Array(tags[0..<3])
    let lids = (0..<3).map { _ in context.insert(UndoLid.self) }
    boxes[0].lid = lids[0]
    boxes[1].lid = lids[1]
    let crates = (0..<2).map { index in
      let crate = context.insert(UndoCrate.self)
      crate.code = Int32(index)
      return crate
    }
    crates[0].boxes = [boxes[0], boxes[1]]
    crates[1].boxes = [boxes[1], boxes[2]]
    let specimen = context.insert(UndoSpecimen.self)
    if saved { try context.save() }
    context.processPendingChanges()
    let log = UndoLog()
    context.undoLog = log
    return World(
      context: context, log: log, shelves: shelves, boxes: boxes, tags: tags, lids: lids,
      crates: crates, specimen: specimen)
  }
}

/// Checks both sides of every relationship of every live object through the public API, and that
/// deleted objects hold nothing; independent of `_checkInvariants()`.
func checkUndoInverses(_ context: ObjectContext) -> String? {
  for object in context.registeredObjects {
    for property in object.entity.properties where property.isRelationship {
      let members = object.members(property)
      if object.isDeletedFlag {
        if !members.isEmpty { return "deleted \(object.objectID).\(property.name) not empty" }
        continue
      }
      guard let inverse = property.inverse else { continue }
      for member in members {
        guard member.isLive else {
          // Only a no-action rule may leave a pointer to a deleted object behind.
          if inverse.deleteRule != .noAction {
            return "\(object.objectID).\(property.name) holds dead \(member.objectID)"
          }
          continue
        }
        if !member.members(inverse).contains(where: { $0 === object }) {
          return "\(object.objectID).\(property.name) → \(member.objectID) has no way back"
        }
      }
    }
  }
  return nil
}
