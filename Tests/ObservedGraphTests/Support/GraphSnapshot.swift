import Foundation
import ObservedGraph

/// Everything observable about a graph, read through primitive access (which has no side effects):
/// every object's flags, changed keys, attribute values and relationship members. Two snapshots are
/// equal when an operation changed nothing.
struct GraphSnapshot: Equatable, CustomStringConvertible {
  struct Entry: Equatable {
    var flags: String
    var changedKeys: [String]
    var values: [String: String]
  }

  var entries: [String: Entry] = [:]
  var contextHasChanges: Bool
  var registeredCount: Int

  /// Snapshots every object registered in `context`, plus `extra` objects (for example objects a
  /// reset cut loose).
  init(_ context: ObjectContext, extra: [ManagedObject] = []) {
    contextHasChanges = context.hasChanges
    registeredCount = context.registeredObjects.count
    for object in Array(context.registeredObjects) + extra {
      entries[object.objectID.description] = Self.entry(object)
    }
  }

  static func entry(_ object: ManagedObject) -> Entry {
    var values: [String: String] = [:]
    for name in object.entity.propertyNames {
      values[name] = render((try? object.primitiveValue(forKey: name)) ?? nil)
    }
    let flags = [
      object.isInserted ? "inserted" : "", object.isUpdated ? "updated" : "",
      object.isDeleted ? "deleted" : "", object.hasChanges ? "changes" : "",
      object.context == nil ? "detached" : "",
    ].filter { !$0.isEmpty }.joined(separator: ",")
    return Entry(
      flags: flags, changedKeys: object.changedValues().keys.sorted(), values: values)
  }

  /// An attribute value, an object's identifier, or the identifiers of a set (sorted) or an array.
  static func render(_ value: Any?) -> String {
    guard let value else { return "nil" }
    if let object = value as? ManagedObject { return object.objectID.description }
    if let set = value as? Set<ManagedObject> {
      return "{" + set.map(\.objectID.description).sorted().joined(separator: ", ") + "}"
    }
    if let array = value as? [ManagedObject] {
      return "[" + array.map(\.objectID.description).joined(separator: ", ") + "]"
    }
    return "\(value) (\(type(of: value)))"
  }

  var description: String {
    entries.keys.sorted().map { key in
      let entry = entries[key]!
      let values = entry.values.keys.sorted().map { "\($0)=\(entry.values[$0]!)" }
      return "\(key) [\(entry.flags)] changed=\(entry.changedKeys) \(values.joined(separator: " "))"
    }.joined(separator: "\n")
  }
}
