/// The value of one slot as a value: what committed values, undo steps and archives keep. No
/// object references and no `Any`: attributes in their stored form, relationships as identifiers.
enum SnapshotValue: Hashable, Codable, Sendable {
  /// An attribute's value (nil for none).
  case attribute(StoredValue?)
  /// A to-one relationship's object.
  case toOne(ObjectID?)
  /// A to-many relationship's objects, in order.
  case toMany([ObjectID])
}

/// The attribute values of an object, for bringing it back when undo or redo needs an object that
/// is no longer in memory.
struct ObjectSnapshot: Hashable, Codable, Sendable {
  struct Value: Hashable, Codable, Sendable {
    var slot: Int
    var value: StoredValue?
  }

  var values: [Value]
}
