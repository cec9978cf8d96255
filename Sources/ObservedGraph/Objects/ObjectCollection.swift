/// The storage of one to-many relationship of one object: the members in order, and an index for
/// O(1) membership tests.
///
/// Unordered relationships keep an exact position map and remove by swapping with the last member,
/// so insert, remove and contains are O(1). Ordered relationships keep the members' order; removing
/// from the middle is O(n), as for any array.
///
/// **Retaining.** A collection retains its members, except one that a context with a store loaded
/// and that has no unsaved change (see ``stopRetaining(registry:)``): its members are all in the
/// store, so it does not keep them alive, and objects that relate to each other (a category and
/// its books) can leave memory when the app lets go of them. Such a collection remembers its
/// members' keys and the registry's count of freed objects; ``membersAreAlive()`` tells whether a
/// member went away since, and the one read path then loads the relationship again.
final class ObjectCollection {
  /// What a to-many slot of a loaded object holds until the relationship is first used: its
  /// members are in the store, and the first use loads them in one query (a to-many fault).
  /// Never changed, and never handed out: every read of a slot replaces it by the loaded
  /// collection.
  nonisolated(unsafe) static let unloaded = ObjectCollection(ordered: false)

  /// The members, retained by the collection while ``retains`` is true.
  @exclusivity(unchecked) private(set) var references: ContiguousArray<Unmanaged<ManagedObject>> =
    []
  /// Each member's position (for unordered collections; membership only for ordered ones),
  /// while `indexed`.
  @exclusivity(unchecked) private var positions = IdentityPositions()
  /// Whether `positions` holds every member. A collection loaded from a store makes it on first
  /// use: a to-many that is only read never needs it (benchmark row "SQLite store: reach",
  /// about 300 instructions and 32 bytes a member).
  @exclusivity(unchecked) private var indexed = true
  let isOrdered: Bool
  /// Whether the collection retains its members.
  @exclusivity(unchecked) private(set) var retains = true
  /// While not retaining: the members' keys, beside ``references``; the registry; and its count
  /// of freed objects when the members were last known alive.
  @exclusivity(unchecked) private var keys: ContiguousArray<Int64> = []
  private weak var registry: ObjectRegistry?
  @exclusivity(unchecked) private var freedStamp: UInt64 = 0

  init(ordered: Bool) {
    self.isOrdered = ordered
  }

  /// The collection of a relationship whose members a store just gave, all of them: it does not
  /// retain them (as after ``stopRetaining(registry:)``) and indexes them on first use.
  ///
  /// - Parameter members: Distinct objects of the registry's context, in order.
  init(loaded members: [ManagedObject], ordered: Bool, registry: ObjectRegistry) {
    isOrdered = ordered
    references = ContiguousArray(members.lazy.map { Unmanaged.passUnretained($0) })
    keys = ContiguousArray(members.lazy.map(\.objectKey))
    retains = false
    self.registry = registry
    freedStamp = registry.freedCount
    indexed = false
  }

  /// Makes `positions` if the collection has not yet (by the members' addresses: a member of a
  /// collection that does not retain it may have left memory).
  @inline(__always)
  private func index() {
    if !indexed { makeIndex() }
  }

  private func makeIndex() {
    indexed = true
    for (position, reference) in references.enumerated() {
      positions.set(address: UInt(bitPattern: reference.toOpaque()), position)
    }
  }

  deinit {
    if retains { for reference in references { reference.release() } }
  }

  var count: Int { references.count }
  var isEmpty: Bool { references.isEmpty }

  /// The members, in order.
  var items: [ManagedObject] { references.map { $0.takeUnretainedValue() } }

  /// Calls `body` with each member, in order.
  func forEach(_ body: (ManagedObject) -> Void) {
    for reference in references { body(reference.takeUnretainedValue()) }
  }

  func contains(_ object: ManagedObject) -> Bool {
    index()
    return positions[object] != nil
  }

  func index(of object: ManagedObject) -> Int? {
    index()
    guard let position = positions[object] else { return nil }
    if !isOrdered { return position }
    let address = Unmanaged.passUnretained(object).toOpaque()
    return references.firstIndex { $0.toOpaque() == address }
  }

  private func reference(_ object: ManagedObject) -> Unmanaged<ManagedObject> {
    retains ? Unmanaged.passRetained(object) : Unmanaged.passUnretained(object)
  }

  /// Inserts a non-member at `index` (ordered) or at the end.
  func insert(_ object: ManagedObject, at index: Int? = nil) {
    precondition(!contains(object), "ObservedGraph: \(object) is already in the collection")
    // (`contains` made the index.)
    if isOrdered, let index, index < references.count {
      references.insert(reference(object), at: index)
      if !retains { keys.insert(object.objectKey, at: index) }
      positions.set(object, index)
    } else {
      positions.set(object, references.count)
      references.append(reference(object))
      if !retains { keys.append(object.objectKey) }
    }
  }

  /// Adds an object the caller found not to be a member yet, at the end: one hash, where
  /// ``insert(_:at:)`` checks membership first (benchmark row "to-many insert with inverse
  /// upkeep").
  func insertNew(_ object: ManagedObject) {
    assert(!contains(object), "ObservedGraph: \(object) is already in the collection")
    index()
    positions.set(object, references.count)
    references.append(reference(object))
    if !retains { keys.append(object.objectKey) }
  }

  /// Removes a member; returns the index it had (meaningful for ordered collections).
  @discardableResult
  func remove(_ object: ManagedObject) -> Int {
    index()
    guard let position = positions.remove(object) else {
      preconditionFailure("ObservedGraph: \(object) is not in the collection")
    }
    let index: Int
    if isOrdered {
      let address = Unmanaged.passUnretained(object).toOpaque()
      index = references.firstIndex { $0.toOpaque() == address }!
      references.remove(at: index)
      if !retains { keys.remove(at: index) }
    } else {
      index = position
      let last = references.count - 1
      if position != last {
        references.swapAt(position, last)
        if !retains { keys.swapAt(position, last) }
        positions.set(references[position].takeUnretainedValue(), position)
      }
      references.removeLast()
      if !retains { keys.removeLast() }
    }
    if retains { Unmanaged.passUnretained(object).release() }
    return index
  }

  /// Removes the members among `objects`: from an ordered collection in one pass when there are
  /// several (each removal alone is O(n), so `removeAll()` of n members was O(n²)).
  func remove(contentsOf objects: [ManagedObject]) {
    guard isOrdered, objects.count > 8 else {
      for object in objects where contains(object) { remove(object) }
      return
    }
    index()
    var leaving = Set<UnsafeMutableRawPointer>()
    for object in objects where positions.remove(object) != nil {
      leaving.insert(Unmanaged.passUnretained(object).toOpaque())
    }
    guard !leaving.isEmpty else { return }
    var kept = ContiguousArray<Unmanaged<ManagedObject>>()
    kept.reserveCapacity(references.count - leaving.count)
    var keptKeys = ContiguousArray<Int64>()
    var released: [Unmanaged<ManagedObject>] = []
    for (position, reference) in references.enumerated() {
      if leaving.contains(reference.toOpaque()) {
        if retains { released.append(reference) }
        continue
      }
      kept.append(reference)
      if !retains { keptKeys.append(keys[position]) }
    }
    references = kept
    if !retains { keys = keptKeys }
    // Last: releasing may end members.
    for reference in released { reference.release() }
  }

  func removeAll() {
    if retains { for reference in references { reference.release() } }
    references.removeAll()
    keys.removeAll()
    positions.removeAll()
    indexed = true
  }

  // MARK: Retaining

  /// Stops retaining the members (a loaded relationship without unsaved changes, in a context
  /// with a store): from now on a member the app lets go of may leave memory.
  func stopRetaining(registry: ObjectRegistry) {
    guard retains, self !== Self.unloaded else { return }
    keys = ContiguousArray(references.map { $0.takeUnretainedValue().objectKey })
    self.registry = registry
    freedStamp = registry.freedCount
    retains = false
    // Last: releasing may end members, which the registry counts.
    for reference in references { reference.release() }
  }

  /// Retains the members again (the relationship is about to have unsaved changes). They must be
  /// alive: the caller read the collection through the read path.
  func startRetaining() {
    guard !retains else { return }
    for reference in references { _ = reference.retain() }
    retains = true
    keys.removeAll()
    registry = nil
  }

  /// Whether every member is still in memory: always while the collection retains them;
  /// otherwise, when no object of the context was freed since the last check, or each member's
  /// key still names an object at the member's address.
  func membersAreAlive() -> Bool {
    guard !retains else { return true }
    guard let registry else { return false }
    let freed = registry.freedCount
    if freed == freedStamp { return true }
    for (index, reference) in references.enumerated() {
      guard let address = registry.address(ofKey: keys[index]),
        address == UnsafeMutableRawPointer(reference.toOpaque())
      else { return false }
    }
    freedStamp = freed
    return true
  }
}
