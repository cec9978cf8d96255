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
  /// The members of an ordered collection by identity (membership only), while `indexed`.
  @exclusivity(unchecked) private var positions = IdentityPositions()
  /// Whether `positions` holds every member of an ordered collection. A collection loaded from a
  /// store makes it on first use: a to-many that is only read never needs it.
  @exclusivity(unchecked) private var indexed = true
  /// The positions of an unordered collection's first `memberIndex.count` members, four bytes a
  /// member beside ``references``; the members after them are indexed when a lookup needs it. A
  /// collection only added to, or only read, never makes it (a loaded one, see `indexed`); one
  /// whose adds are checked against `maxKey` only, neither: in a large collection the new member's
  /// place in the table is a cache miss.
  @exclusivity(unchecked) private var memberIndex = MemberIndex()
  /// No member of an unordered collection has an `objectKey` above it: an object whose key is
  /// above it is not a member, which an add of an object made after the others learns without
  /// the index.
  @exclusivity(unchecked) private var maxKey: Int64 = 0
  let isOrdered: Bool
  /// Whether the collection retains its members.
  @exclusivity(unchecked) private(set) var retains = true
  /// While not retaining: the members' keys, beside ``references``; the registry; and its count
  /// of freed objects when the members were last known alive.
  @exclusivity(unchecked) private var keys: ContiguousArray<Int64> = []
  private weak var registry: ObjectRegistry?
  @exclusivity(unchecked) private var freedStamp: UInt64 = 0
  #if OBSERVEDGRAPH_INVARIANTS
    /// Mutations left before the next full check of the index (see ``checkAfterMutation()``).
    private var mutationsUntilFullCheck = 0
  #endif

  init(ordered: Bool) {
    self.isOrdered = ordered
  }

  /// The collection of a relationship whose members a store just gave, all of them: it does not
  /// retain them (as after ``stopRetaining(registry:)``) and indexes them on first use.
  ///
  /// - Parameter members: Distinct objects of the registry's context, in order.
  init(loaded members: [ManagedObject], ordered: Bool, registry: ObjectRegistry) {
    isOrdered = ordered
    // The members read unretained, in one pass: no member is retained and released on the way.
    var references = ContiguousArray<Unmanaged<ManagedObject>>()
    var keys = ContiguousArray<Int64>()
    references.reserveCapacity(members.count)
    keys.reserveCapacity(members.count)
    var maxKey: Int64 = 0
    members.withUnsafeBufferPointer { objects in
      objects.withMemoryRebound(to: Unmanaged<ManagedObject>.self) { unretained in
        for reference in unretained {
          let key = reference._withUnsafeGuaranteedRef { $0.objectKey }
          references.append(reference)
          keys.append(key)
          maxKey = max(maxKey, key)
        }
      }
    }
    self.references = references
    self.keys = keys
    self.maxKey = maxKey
    retains = false
    self.registry = registry
    freedStamp = registry.freedCount
    indexed = false
  }

  /// Makes `positions` or `memberIndex` hold every member if they do not yet (by the members'
  /// addresses: a member of a collection that does not retain it may have left memory).
  @inline(__always)
  private func index() {
    if isOrdered {
      if !indexed { makeIndex() }
    } else if memberIndex.count != references.count {
      indexMembers()
    }
  }

  private func makeIndex() {
    indexed = true
    for (position, reference) in references.enumerated() {
      positions.set(address: UInt(bitPattern: reference.toOpaque()), position)
    }
    checkAfterMutation()
  }

  /// Indexes the members of an unordered collection added since it was last indexed: all of them
  /// at once into a table of their size when none is indexed.
  private func indexMembers() {
    references.withUnsafeBufferPointer { members in
      if memberIndex.count == 0 {
        memberIndex.rebuild(count: members.count, from: members)
      } else {
        for position in memberIndex.count..<members.count {
          memberIndex.append(at: position, in: members)
        }
      }
    }
    checkAfterMutation()
  }

  /// The position of `object` in an unordered collection; nil for a non-member. Makes the index
  /// unless the key says it is not a member.
  @inline(__always)
  private func unorderedPosition(of object: ManagedObject) -> Int? {
    guard object.objectKey <= maxKey else { return nil }
    index()
    return references.withUnsafeBufferPointer { memberIndex.position(of: object, in: $0) }
  }

  /// Appends a non-member to an unordered collection; the index takes it when a lookup needs it.
  @inline(__always)
  private func appendUnordered(_ object: ManagedObject) {
    references.append(reference(object))
    let key = object.objectKey
    if !retains { keys.append(key) }
    if key > maxKey { maxKey = key }
  }

  deinit {
    if retains { for reference in references { reference.release() } }
  }

  var count: Int { references.count }
  var isEmpty: Bool { references.isEmpty }

  /// The members, in order.
  var items: [ManagedObject] { references.map { $0.takeUnretainedValue() } }

  /// The members' identifiers, in order, made from the members in place (no array of them).
  var memberIDs: [ObjectID] { references.map { $0._withUnsafeGuaranteedRef(\.objectID) } }

  /// Calls `body` with each member, in order.
  func forEach(_ body: (ManagedObject) -> Void) {
    for reference in references { body(reference.takeUnretainedValue()) }
  }

  func contains(_ object: ManagedObject) -> Bool {
    guard isOrdered else { return unorderedPosition(of: object) != nil }
    index()
    return positions[object] != nil
  }

  func index(of object: ManagedObject) -> Int? {
    guard isOrdered else { return unorderedPosition(of: object) }
    index()
    guard positions[object] != nil else { return nil }
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
    if !isOrdered {
      appendUnordered(object)
    } else if let index, index < references.count {
      references.insert(reference(object), at: index)
      if !retains { keys.insert(object.objectKey, at: index) }
      positions.set(object, index)
    } else {
      positions.set(object, references.count)
      references.append(reference(object))
      if !retains { keys.append(object.objectKey) }
    }
    checkAfterMutation()
  }

  /// Adds an object the caller found not to be a member yet, at the end: one hash, where
  /// ``insert(_:at:)`` checks membership first.
  func insertNew(_ object: ManagedObject) {
    assert(!contains(object), "ObservedGraph: \(object) is already in the collection")
    if isOrdered {
      index()
      positions.set(object, references.count)
      references.append(reference(object))
      if !retains { keys.append(object.objectKey) }
    } else {
      appendUnordered(object)
    }
    checkAfterMutation()
  }

  /// Removes a member; returns the index it had (meaningful for ordered collections).
  @discardableResult
  func remove(_ object: ManagedObject) -> Int {
    let index: Int
    if !isOrdered, memberIndex.count < references.count,
      references.last?.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
    {
      // The last member, not indexed yet (an add undone): nothing to tell the index.
      index = references.count - 1
      references.removeLast()
      if !retains { keys.removeLast() }
    } else if isOrdered {
      self.index()
      guard positions.remove(object) != nil else {
        preconditionFailure("ObservedGraph: \(object) is not in the collection")
      }
      let address = Unmanaged.passUnretained(object).toOpaque()
      index = references.firstIndex { $0.toOpaque() == address }!
      references.remove(at: index)
      if !retains { keys.remove(at: index) }
    } else {
      self.index()
      // The index first, while the members are where it says.
      guard
        let position = references.withUnsafeBufferPointer({
          memberIndex.removeBySwappingLast(object, in: $0)
        })
      else {
        preconditionFailure("ObservedGraph: \(object) is not in the collection")
      }
      index = position
      let last = references.count - 1
      if position != last {
        references.swapAt(position, last)
        if !retains { keys.swapAt(position, last) }
      }
      references.removeLast()
      if !retains { keys.removeLast() }
    }
    checkAfterMutation()
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
    checkAfterMutation()
    // Last: releasing may end members.
    for reference in released { reference.release() }
  }

  func removeAll() {
    if retains { for reference in references { reference.release() } }
    references.removeAll()
    keys.removeAll()
    positions.removeAll()
    memberIndex.removeAll()
    maxKey = 0
    indexed = true
    checkAfterMutation()
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

// MARK: Invariants

extension ObjectCollection {
  /// The checks after a mutation, in builds with `OBSERVEDGRAPH_INVARIANTS`: the index counts
  /// the members every time (O(1)); while full checks are on (``FullChecks/isOn``), the full
  /// ``checkInvariants()`` runs too, while the collection is small and otherwise once in
  /// `count / 4` mutations (amortized O(1) a mutation, but a scan of every member).
  @inline(__always)
  fileprivate func checkAfterMutation() {
    #if OBSERVEDGRAPH_INVARIANTS
      if isOrdered {
        precondition(
          !indexed || positions.count == references.count,
          "collection indexes \(positions.count) members, holds \(references.count)")
      } else {
        precondition(
          memberIndex.count <= references.count,
          "collection indexes \(memberIndex.count) members, holds \(references.count)")
      }
      guard FullChecks.isOn else { return }
      mutationsUntilFullCheck -= 1
      if mutationsUntilFullCheck <= 0 {
        checkInvariants()
        mutationsUntilFullCheck = references.count / 4
      }
    #endif
  }

  /// Traps when the collection breaks a rule: an ordered one's index, while `indexed`, holds
  /// exactly the members, which are distinct; an unordered one's holds its first members each at
  /// its position (see ``MemberIndex/checkInvariants(_:)``), and no member's key is above
  /// `maxKey`; a collection that does not retain keeps one key a member.
  func checkInvariants() {
    precondition(
      retains || keys.count == references.count,
      "collection keeps \(keys.count) keys for \(references.count) members")
    if !isOrdered {
      // (The members of a collection that does not retain them may have left memory: their
      // keys are kept.)
      let highest =
        retains ? references.lazy.map { $0.takeUnretainedValue().objectKey }.max() : keys.max()
      precondition(
        highest ?? 0 <= maxKey, "a member's key \(highest ?? 0) is above \(maxKey)")
    }
    if isOrdered {
      guard indexed else { return }
      positions.checkInvariants()
      precondition(
        positions.count == references.count,
        "ordered collection indexes \(positions.count) members, holds \(references.count)")
      var seen = Set<UnsafeMutableRawPointer>()
      for reference in references {
        precondition(seen.insert(reference.toOpaque()).inserted, "a member is held twice")
        precondition(
          positions.contains(address: UInt(bitPattern: reference.toOpaque())),
          "a member is missing from the index")
      }
    } else {
      precondition(
        memberIndex.count <= references.count,
        "collection indexes \(memberIndex.count) members, holds \(references.count)")
      references.withUnsafeBufferPointer { members in
        memberIndex.checkInvariants(members)
        for (position, reference) in members.prefix(memberIndex.count).enumerated() {
          let address = UInt(bitPattern: reference.toOpaque())
          precondition(
            memberIndex.position(ofAddress: address, in: members) == position,
            "member \(position) is indexed elsewhere")
        }
      }
    }
  }

  /// The number of entries of the unordered index, and of members it holds (tests).
  var indexCapacity: Int { memberIndex.capacity }
  var indexedCount: Int { memberIndex.count }
}
