/// Loading, where a failure can be thrown, what a relationship change or a delete will read.
///
/// Planning a change reads both sides of every relationship it touches through reads that cannot
/// throw (the other side's to-many, a member's to-one). In a context with a store those may be
/// faults; a fault the store cannot load (a damaged file) would stop the program there. The
/// throwing entry points — key-value coding sets, the to-many proxies, `delete(_:)` — load them
/// first, so that a store's failure is thrown, and nothing has changed.
extension ObjectContext {
  /// Performs a relationship request after loading what it reads (see ``preload(for:)``).
  func performPreloaded(_ request: Request) throws {
    let held = try preload(for: request)
    perform(request)
    withExtendedLifetime(held) {}
  }

  /// Loads what a relationship request reads (see ``preloadRelationshipChange(of:_:others:)``).
  func preload(for request: Request) throws -> [ManagedObject] {
    switch request {
    case .toOne(let object, let property, let new):
      try preloadRelationshipChange(of: object, property, others: new.map { [$0] } ?? [])
    case .replaceMembers(let object, let property, let objects),
      .assignMembers(let object, let property, let objects):
      try preloadRelationshipChange(of: object, property, others: objects)
    case .insertMembers(let object, let property, let objects, _),
      .removeMembers(let object, let property, let objects):
      try preloadRelationshipChange(
        of: object, property, others: objects, keepsOtherMembers: true)
    default: []
    }
  }

  /// Loads what relating `others` to (or taking them from) `object`'s `property` reads: the
  /// object and its relationship, each other object and its side of the relationship, and the
  /// relationship of the object each other one would leave (a steal). Nothing in a context
  /// without a store (nothing can be a fault there).
  ///
  /// - Parameter keepsOtherMembers: When the change inserts or removes `others` only, the
  ///   members it leaves in place are not read: loading them would make adding one member to a
  ///   relationship of *m* cost O(*m*).
  /// - Returns: The objects loaded, for the caller to hold until the change is made (a loaded
  ///   to-many does not keep its members in memory).
  func preloadRelationshipChange(
    of object: ManagedObject, _ property: Property, others: [ManagedObject],
    keepsOtherMembers: Bool = false
  ) throws -> [ManagedObject] {
    guard store != nil else { return [] }
    var held: [ManagedObject] = []
    try object.fulfilFault()
    var reached = others
    if property.isToMany {
      if let collection = try object.loadToMany(property), !keepsOtherMembers {
        reached += collection.items
      }
    } else if let old = object.toOne(property) {
      reached.append(old)
    }
    guard let inverse = property.inverse else { return reached }
    for other in reached {
      held.append(other)
      guard try fulfilUnlessGone(other) else { continue }
      if inverse.isToMany {
        try other.loadToMany(inverse)
      } else if let partner = other.toOne(inverse), partner !== object {
        // `other` leaves `partner` for `object`.
        held.append(partner)
        if try fulfilUnlessGone(partner), property.isToMany { try partner.loadToMany(property) }
      }
    }
    return held
  }

  /// Loads what deleting `root` reads: every object its cascade rules reach, their
  /// relationships, and the other side of each (nothing in a context without a store).
  ///
  /// - Returns: The objects loaded, for the caller to hold until the delete is done.
  func preloadDelete(of root: ManagedObject) throws -> [ManagedObject] {
    guard store != nil else { return [] }
    var held: [ManagedObject] = []
    var seen: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
    var stack = [root]
    while let next = stack.popLast() {
      held.append(next)
      guard try fulfilUnlessGone(next), next.isLive else { continue }
      for property in next.entity.relationshipProperties {
        let members: [ManagedObject]
        if property.isToMany {
          members = try next.loadToMany(property)?.items ?? []
        } else {
          members = next.toOne(property).map { [$0] } ?? []
        }
        for member in members {
          if property.deleteRule == .cascade {
            if seen.insert(ObjectIdentifier(member)).inserted { stack.append(member) }
            continue
          }
          held.append(member)
          guard try fulfilUnlessGone(member) else { continue }
          if let inverse = property.inverse, inverse.isToMany { try member.loadToMany(inverse) }
        }
      }
    }
    return held
  }

  /// Loads a fault's values; false, instead of throwing, for a fault of an object the store no
  /// longer has (a no-action reference to an object whose deletion was saved: the change
  /// handles it as the object it is).
  private func fulfilUnlessGone(_ object: ManagedObject) throws -> Bool {
    do {
      try object.fulfilFault()
      return true
    } catch let error as ObjectGraphError where error.kind == .objectNotFound {
      return false
    }
  }
}
