/// The storage of one to-many relationship of one object: the members in order, and an index for
/// O(1) membership tests.
///
/// Unordered relationships keep an exact position map and remove by swapping with the last member,
/// so insert, remove and contains are O(1). Ordered relationships keep the members' order; removing
/// from the middle is O(n), as for any array.
final class ObjectCollection {
  /// What a to-many slot of a loaded object holds until the relationship is first used: its
  /// members are in the store, and the first use loads them in one query (a to-many fault).
  /// Never changed, and never handed out: every read of a slot replaces it by the loaded
  /// collection.
  nonisolated(unsafe) static let unloaded = ObjectCollection(ordered: false)

  @exclusivity(unchecked) private(set) var items: ContiguousArray<ManagedObject> = []
  @exclusivity(unchecked) private var positions = IdentityPositions()
  let isOrdered: Bool

  init(ordered: Bool) {
    self.isOrdered = ordered
  }

  var count: Int { items.count }
  var isEmpty: Bool { items.isEmpty }

  func contains(_ object: ManagedObject) -> Bool {
    positions[object] != nil
  }

  func index(of object: ManagedObject) -> Int? {
    guard let position = positions[object] else { return nil }
    if !isOrdered { return position }
    return items.firstIndex { $0 === object }
  }

  /// Inserts a non-member at `index` (ordered) or at the end.
  func insert(_ object: ManagedObject, at index: Int? = nil) {
    precondition(!contains(object), "ObservedGraph: \(object) is already in the collection")
    if isOrdered, let index, index < items.count {
      items.insert(object, at: index)
      positions.set(object, index)
    } else {
      positions.set(object, items.count)
      items.append(object)
    }
  }

  /// Removes a member; returns the index it had (meaningful for ordered collections).
  /// Adds an object the caller found not to be a member yet, at the end: one hash, where
  /// ``insert(_:at:)`` checks membership first (benchmark row "to-many insert with inverse
  /// upkeep").
  func insertNew(_ object: ManagedObject) {
    assert(!contains(object), "ObservedGraph: \(object) is already in the collection")
    positions.set(object, items.count)
    items.append(object)
  }

  @discardableResult
  func remove(_ object: ManagedObject) -> Int {
    guard let position = positions.remove(object) else {
      preconditionFailure("ObservedGraph: \(object) is not in the collection")
    }
    if isOrdered {
      let index = items.firstIndex { $0 === object }!
      items.remove(at: index)
      return index
    }
    let last = items.count - 1
    if position != last {
      items.swapAt(position, last)
      positions.set(items[position], position)
    }
    items.removeLast()
    return position
  }

  func removeAll() {
    items.removeAll()
    positions.removeAll()
  }

  func copy() -> ObjectCollection {
    let copy = ObjectCollection(ordered: isOrdered)
    copy.items = items
    copy.positions = positions
    return copy
  }
}
