import Foundation

@testable import ObservedGraph

/// Everything observable about the objects of a context, comparable with `==`, read through
/// primitive access (which has no side effects): the context's registered, inserted, updated and
/// deleted objects and whether it has changes, and for each registered object (plus `extra` ones)
/// its flags, attribute values, relationships (to-one, ordered as arrays, unordered as sets), and
/// changed and committed values. Two snapshots are equal when an operation changed nothing.
struct GraphSnapshot: Equatable, CustomStringConvertible {
  /// One value, compared both as a hashable value (exact, objects as identifiers) and as text with
  /// its dynamic type (which tells `0.0` from `-0.0` and `Int32(1)` from `1`).
  struct Value: Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    var hashable: AnyHashable
    var text: String

    init(_ value: Any?) {
      hashable = GraphSnapshot.comparable(value)
      text = GraphSnapshot.render(value)
    }

    var description: String { text }
    var debugDescription: String { "\(text) as \(String(reflecting: hashable))" }
  }

  struct Object: Equatable {
    var flags: [String] = []
    var values: [String: Value] = [:]
    var toOne: [String: ObjectID?] = [:]
    var ordered: [String: [ObjectID]] = [:]
    var unordered: [String: Set<ObjectID>] = [:]
    var changed: [String: Value] = [:]
    /// Nil when `committedValues()` threw.
    var committed: [String: Value]? = [:]
  }

  var objects: [ObjectID: Object] = [:]
  var registered: Set<ObjectID>
  var inserted: Set<ObjectID>
  var updated: Set<ObjectID>
  var deleted: Set<ObjectID>
  var hasChanges: Bool

  /// Snapshots every object registered in `context`, plus `extra` objects (for example objects a
  /// reset cut loose).
  init(_ context: ObjectContext, extra: [ManagedObject] = []) {
    let registeredObjects = context.registeredObjects
    registered = Set(registeredObjects.map(\.objectID))
    inserted = Set(context.insertedObjects.map(\.objectID))
    updated = Set(context.updatedObjects.map(\.objectID))
    deleted = Set(context.deletedObjects.map(\.objectID))
    hasChanges = context.hasChanges
    for object in registeredObjects {
      precondition(context.object(with: object.objectID) === object)
    }
    for object in Array(registeredObjects) + extra {
      objects[object.objectID] = Self.capture(object)
    }
  }

  static func capture(_ object: ManagedObject) -> Object {
    var entry = Object()
    // A fault's values are not loaded: reading them would load them (or fail for a missing one).
    guard !object.isFault else {
      entry.flags = ["fault"]
      return entry
    }
    entry.flags = [
      object.isInserted ? "inserted" : "", object.isUpdated ? "updated" : "",
      object.isDeleted ? "deleted" : "", object.hasChanges ? "hasChanges" : "",
      object.context == nil ? "detached" : "",
    ].filter { !$0.isEmpty }
    for property in object.entity.properties {
      let value = (try? object.primitiveValue(forKey: property.name)) ?? nil
      if !property.isRelationship {
        entry.values[property.name] = Value(value)
      } else if !property.isToMany {
        entry.toOne[property.name] = .some((value as? ManagedObject)?.objectID)
      } else if property.isOrdered {
        entry.ordered[property.name] = (value as? [ManagedObject] ?? []).map(\.objectID)
      } else {
        entry.unordered[property.name] = Set((value as? Set<ManagedObject> ?? []).map(\.objectID))
      }
    }
    entry.changed = object.changedValues().mapValues(Value.init)
    entry.committed = (try? object.committedValues())?.mapValues(Value.init)
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

  /// A value as text with its type, an object's identifier, or the identifiers of a set (sorted)
  /// or an array.
  static func render(_ value: Any?) -> String {
    guard let value else { return "nil" }
    if let object = value as? ManagedObject { return object.objectID.description }
    if let set = value as? Set<ManagedObject> {
      return "{" + set.map(\.objectID.description).sorted().joined(separator: ", ") + "}"
    }
    if let array = value as? [ManagedObject] {
      return "[" + array.map(\.objectID.description).joined(separator: ", ") + "]"
    }
    // Their descriptions leave out what tells them apart: the bytes, the fractions of a second.
    if let data = value as? Data { return "\(data) \(data.base64EncodedString()) (Data)" }
    if let date = value as? Date { return "\(date) \(date.timeIntervalSinceReferenceDate) (Date)" }
    return "\(value) (\(type(of: value)))"
  }

  var description: String {
    var lines = [contextSummary]
    for id in objects.keys.sorted(by: { $0.description < $1.description }) {
      let object = objects[id]!
      lines.append(
        "\(id) \(object.flags) values \(Self.text(object.values, \.description)) "
          + "toOne \(Self.text(object.toOne, Self.text)) "
          + "ordered \(Self.text(object.ordered, Self.text)) "
          + "sets \(Self.text(object.unordered, Self.text)) "
          + "changed \(Self.text(object.changed, \.description)) "
          + "committed \(object.committed.map { Self.text($0, \.description) } ?? "threw")")
    }
    return lines.joined(separator: "\n")
  }

  /// Where this snapshot differs from `other`, for failure messages: the context's sets, then the
  /// first object that differs, field by field ("absent" where one side has no such key).
  func difference(from other: GraphSnapshot) -> String {
    var lines: [String] = []
    if hasChanges != other.hasChanges {
      lines.append("context hasChanges: \(hasChanges) vs \(other.hasChanges)")
    }
    for (name, mine, theirs) in [
      ("registered", registered, other.registered), ("inserted", inserted, other.inserted),
      ("updated", updated, other.updated), ("deleted", deleted, other.deleted),
    ] where mine != theirs {
      lines.append(
        "context \(name): only here \(Self.text(mine.subtracting(theirs))), "
          + "only there \(Self.text(theirs.subtracting(mine)))")
    }
    let ids = Set(objects.keys).union(other.objects.keys).sorted { $0.description < $1.description }
    for id in ids where objects[id] != other.objects[id] {
      lines.append("\(id):")
      guard let mine = objects[id], let theirs = other.objects[id] else {
        lines.append(
          "  \(objects[id] == nil ? "absent" : "present") here, "
            + "\(other.objects[id] == nil ? "absent" : "present") there")
        break
      }
      var fields: [String] = []
      if mine.flags != theirs.flags { fields.append("flags: \(mine.flags) vs \(theirs.flags)") }
      fields += Self.keyDifference("values", mine.values, theirs.values, Self.text)
      fields += Self.keyDifference("toOne", mine.toOne, theirs.toOne, Self.text)
      fields += Self.keyDifference("ordered", mine.ordered, theirs.ordered, Self.text)
      fields += Self.keyDifference("sets", mine.unordered, theirs.unordered, Self.text)
      fields += Self.keyDifference("changed", mine.changed, theirs.changed, Self.text)
      if let mineCommitted = mine.committed, let theirsCommitted = theirs.committed {
        fields += Self.keyDifference("committed", mineCommitted, theirsCommitted, Self.text)
      } else if mine.committed != theirs.committed {
        fields.append(
          "committed: \(mine.committed == nil ? "threw" : "read") vs "
            + "\(theirs.committed == nil ? "threw" : "read")")
      }
      lines += fields.map { "  " + $0 }
      break
    }
    return lines.isEmpty ? "no difference" : lines.joined(separator: "\n")
  }

  private var contextSummary: String {
    "registered \(registered.count) inserted \(inserted.count) updated \(updated.count) "
      + "deleted \(deleted.count) hasChanges \(hasChanges)"
  }

  /// `name.key: mine vs theirs` for each key whose values differ.
  private static func keyDifference<V: Equatable>(
    _ name: String, _ mine: [String: V], _ theirs: [String: V], _ text: (V) -> String
  ) -> [String] {
    Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }.map { key in
      var (left, right) = (mine[key].map(text) ?? "absent", theirs[key].map(text) ?? "absent")
      if left == right {
        (left, right) = (String(reflecting: mine[key]!), String(reflecting: theirs[key]!))
      }
      return "\(name).\(key): \(left) vs \(right)"
    }
  }

  private static func text<V>(_ dictionary: [String: V], _ text: (V) -> String) -> String {
    "[" + dictionary.keys.sorted().map { "\($0): \(text(dictionary[$0]!))" }.joined(separator: ", ")
      + "]"
  }

  private static func text(_ value: Value) -> String { value.text }

  private static func text(_ id: ObjectID?) -> String { id?.description ?? "nil" }

  private static func text(_ ids: [ObjectID]) -> String {
    "[" + ids.map(\.description).joined(separator: ", ") + "]"
  }

  private static func text(_ ids: Set<ObjectID>) -> String {
    "{" + ids.map(\.description).sorted().joined(separator: ", ") + "}"
  }
}
