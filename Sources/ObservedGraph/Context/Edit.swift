/// One change to one slot of one object, as the mutation path applies it, observers hear it and the
/// undo log records its inverse.
///
/// A user-level change (set a relationship, insert into a to-many, delete an object) becomes a list
/// of edits: the change itself and the inverse upkeep it causes on other objects. The list is worked
/// out before anything changes; then all will-change notifications go out, all edits are applied,
/// and all did-change notifications follow, so observers always see both sides in agreement.
enum Edit {
  /// An attribute or to-one relationship goes from `old` to `new`. `changes` is false when the two
  /// are equal: observers still hear it, but nothing is tracked or recorded.
  case set(ManagedObject, Property, old: Any?, new: Any?, changes: Bool)
  /// Objects join a to-many relationship; for an ordered one at `indexes` (ascending, positions
  /// after the change).
  case insert(ManagedObject, Property, objects: [ManagedObject], indexes: [Int])
  /// Objects leave a to-many relationship; for an ordered one from `indexes` (ascending, positions
  /// before the change).
  case remove(ManagedObject, Property, objects: [ManagedObject], indexes: [Int])
  /// A to-many relationship's whole content is replaced (also used for reordering).
  case replace(ManagedObject, Property, old: [ManagedObject], new: [ManagedObject])

  var object: ManagedObject {
    switch self {
    case .set(let object, _, _, _, _), .insert(let object, _, _, _), .remove(let object, _, _, _),
      .replace(let object, _, _, _):
      return object
    }
  }

  var property: Property {
    switch self {
    case .set(_, let property, _, _, _), .insert(_, let property, _, _),
      .remove(_, let property, _, _), .replace(_, let property, _, _):
      return property
    }
  }

  /// The edit that takes this one back.
  var inverse: Edit {
    switch self {
    case .set(let object, let property, let old, let new, let changes):
      return .set(object, property, old: new, new: old, changes: changes)
    case .insert(let object, let property, let objects, let indexes):
      return .remove(object, property, objects: objects, indexes: indexes)
    case .remove(let object, let property, let objects, let indexes):
      return .insert(object, property, objects: objects, indexes: indexes)
    case .replace(let object, let property, let old, let new):
      return .replace(object, property, old: new, new: old)
    }
  }

  /// Whether applying the edit changes storage.
  var changes: Bool {
    switch self {
    case .set(_, _, _, _, let changes): return changes
    case .insert(_, _, let objects, _), .remove(_, _, let objects, _): return !objects.isEmpty
    case .replace(_, let property, let old, let new):
      guard old.count == new.count else { return true }
      if property.isOrdered { return zip(old, new).contains { $0 !== $1 } }
      return Set(old.map(ObjectIdentifier.init)) != Set(new.map(ObjectIdentifier.init))
    }
  }
}

/// The edits of one user-level change, being worked out. Removals from the same relationship of the
/// same object merge into one edit, so each edit's indexes describe the state before the change.
struct EditPlan {
  var edits: [Edit] = []
  private var removals: [RemovalKey: Int] = [:]

  private struct RemovalKey: Hashable {
    let object: ObjectIdentifier
    let slot: Int
  }

  mutating func append(_ edit: Edit) { edits.append(edit) }

  /// Plans removing `member` from `owner`'s to-many `property`, merged with earlier removals there.
  mutating func remove(_ member: ManagedObject, from owner: ManagedObject, _ property: Property) {
    let key = RemovalKey(object: ObjectIdentifier(owner), slot: property.slot)
    guard let position = removals[key] else {
      removals[key] = edits.count
      edits.append(.remove(owner, property, objects: [member], indexes: []))
      return
    }
    guard case .remove(_, _, var objects, _) = edits[position] else { return }
    guard !objects.contains(where: { $0 === member }) else { return }
    objects.append(member)
    edits[position] = .remove(owner, property, objects: objects, indexes: [])
  }

  /// Fills in the indexes of ordered removals from the current (pre-change) state, ascending.
  mutating func finish() {
    for position in removals.values {
      guard case .remove(let owner, let property, let objects, _) = edits[position] else {
        continue
      }
      guard property.isOrdered, let collection = owner.collection(property) else { continue }
      let sorted = objects.map { (collection.index(of: $0) ?? 0, $0) }.sorted { $0.0 < $1.0 }
      edits[position] = .remove(
        owner, property, objects: sorted.map(\.1), indexes: sorted.map(\.0))
    }
  }
}
