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

/// Everything observable about the objects of a context, comparable with `==`: each registered
/// object's attribute values, relationships (ordered as arrays, unordered as sets), flags,
/// changed and committed values, and the context's inserted / updated / deleted sets.
struct UndoGraphSnapshot: Equatable, CustomStringConvertible {
  struct Object: Equatable {
    var values: [String: AnyHashable] = [:]
    var toOne: [String: ObjectID?] = [:]
    var ordered: [String: [ObjectID]] = [:]
    var unordered: [String: Set<ObjectID>] = [:]
    var flags: [String] = []
    var changed: [String: AnyHashable] = [:]
    var committed: [String: AnyHashable] = [:]
  }

  var objects: [ObjectID: Object] = [:]
  var inserted: Set<ObjectID>
  var updated: Set<ObjectID>
  var deleted: Set<ObjectID>
  var hasChanges: Bool

  init(_ context: ObjectContext) {
    inserted = Set(context.insertedObjects.map(\.objectID))
    updated = Set(context.updatedObjects.map(\.objectID))
    deleted = Set(context.deletedObjects.map(\.objectID))
    hasChanges = context.hasChanges
    for object in context.registeredObjects {
      precondition(context.object(with: object.objectID) === object)
      objects[object.objectID] = Self.capture(object)
    }
  }

  static func capture(_ object: ManagedObject) -> Object {
    var entry = Object()
    for property in object.entity.properties {
      let value = try! object.primitiveValue(forKey: property.name)
      if !property.isRelationship {
        entry.values[property.name] = comparable(value)
      } else if !property.isToMany {
        entry.toOne[property.name] = .some((value as? ManagedObject)?.objectID)
      } else if property.isOrdered {
        entry.ordered[property.name] = (value as? [ManagedObject] ?? []).map(\.objectID)
      } else {
        entry.unordered[property.name] = Set((value as? Set<ManagedObject> ?? []).map(\.objectID))
      }
    }
    entry.flags = [
      object.isInserted ? "inserted" : "", object.isUpdated ? "updated" : "",
      object.isDeleted ? "deleted" : "", object.hasChanges ? "hasChanges" : "",
    ].filter { !$0.isEmpty }
    entry.changed = object.changedValues().mapValues(comparable)
    entry.committed = (try! object.committedValues()).mapValues(comparable)
    return entry
  }

  /// A value as something `==` compares exactly: objects become identifiers.
  static func comparable(_ value: Any?) -> AnyHashable {
    guard let value = value.flatMap({ $0 }) else { return AnyHashable("<nil>") }
    switch value {
    case let object as ManagedObject: return AnyHashable(object.objectID)
    case let objects as [ManagedObject]: return AnyHashable(objects.map(\.objectID))
    case let objects as Set<ManagedObject>: return AnyHashable(Set(objects.map(\.objectID)))
    case let hashable as AnyHashable: return hashable
    default: return AnyHashable("\(value)")
    }
  }

  var description: String {
    var lines = ["inserted \(inserted.count) updated \(updated.count) deleted \(deleted.count)"]
    for id in objects.keys.sorted(by: { $0.description < $1.description }) {
      let object = objects[id]!
      lines.append(
        "\(id) \(object.flags) values \(object.values.sorted { $0.key < $1.key }) "
          + "toOne \(object.toOne.sorted { $0.key < $1.key }) "
          + "ordered \(object.ordered.sorted { $0.key < $1.key }) "
          + "sets \(object.unordered.sorted { $0.key < $1.key }) "
          + "changed \(object.changed.sorted { $0.key < $1.key }) "
          + "committed \(object.committed.sorted { $0.key < $1.key })")
    }
    return lines.joined(separator: "\n")
  }

  /// The first object that differs from `other`, described, for failure messages.
  func difference(from other: UndoGraphSnapshot) -> String {
    if inserted != other.inserted || updated != other.updated || deleted != other.deleted
      || hasChanges != other.hasChanges
    {
      return "context sets: \(inserted.count)/\(updated.count)/\(deleted.count)/\(hasChanges) vs "
        + "\(other.inserted.count)/\(other.updated.count)/\(other.deleted.count)/\(other.hasChanges)"
    }
    for id in Set(objects.keys).union(other.objects.keys) where objects[id] != other.objects[id] {
      return "\(id):\n  \(objects[id].map { "\($0)" } ?? "absent")\n  "
        + "\(other.objects[id].map { "\($0)" } ?? "absent")"
    }
    return "no difference"
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
