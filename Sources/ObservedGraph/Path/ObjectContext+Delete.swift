/// Deleting objects and running delete rules.
extension ObjectContext {
  /// Deletes an object and applies the delete rules of its relationships at once.
  ///
  /// ``ManagedObject/prepareForDeletion()`` runs first on every object the delete reaches. Then, for
  /// each relationship: `nullify` removes the object from the other side; `cascade` deletes the
  /// destinations too (recursively; each object once, cycles end); `deny` refuses the whole delete
  /// when the relationship is not empty — checked before anything changes; `noAction` leaves the
  /// destinations pointing at the deleted object. The deleted object's own relationships are emptied.
  ///
  /// ```swift
  /// try context.delete(category)   // its books cascade, their pages cascade
  /// ```
  /// Deleting a deleted object does nothing, and so does deleting an object whose delete is
  /// under way (an observer of the delete's changes deletes it again): that delete finishes it.
  /// A deleted object stays in the context, marked ``ManagedObject/isDeleted``, until the next
  /// save takes it out.
  ///
  /// - Parameter object: An object of this context.
  /// - Throws: ``ObjectGraphError/Kind/deleteDenied`` naming the object, relationship and a
  ///   destination (nothing changes, no hook runs); `otherContext`, `deletedObject` (its deletion
  ///   was saved) or `invalidObject` for an object the context cannot delete; for a fault whose
  ///   values cannot be loaded, what loading throws (`objectNotFound` when it no longer exists,
  ///   the store's error for a file it cannot read), and nothing changes.
  /// - Complexity: O(objects reached × their relationships).
  public func delete(_ object: ManagedObject) throws {
    if object.lifecycle == .registered && object.link === link && object.isDeletedFlag { return }
    if deletesUnderWay.contains(ObjectIdentifier(object)) { return }
    try checkUsable(object)
    // The delete rules read the object's relationships: a fault is loaded here, where a failure
    // can be thrown, rather than by those reads, which cannot throw.
    try object.fulfilFault()
    // So do the relationships the rules read, and their other sides.
    let held = try preloadDelete(of: object)
    defer { withExtendedLifetime(held) {} }
    let (doomed, shapesAreQuiet) = cascadeSet(from: object)
    try checkDenyRules(doomed)
    for victim in doomed { victim.prepareForDeletion() }
    if deleteQuietly(doomed, shapesAreQuiet: shapesAreQuiet) { return }
    for victim in doomed where victim.isLive {
      deletesUnderWay.append(ObjectIdentifier(victim))
      perform(.deleteObject(victim))
      deletesUnderWay.removeLast()
    }
  }

  /// The object and everything its cascade rules reach, each once, in visiting order, and
  /// whether a quiet delete may empty every relationship of all of them
  /// (`EntityDescription.deletesQuietly`).
  private func cascadeSet(from root: ManagedObject) -> ([ManagedObject], shapesAreQuiet: Bool) {
    var order: [ManagedObject] = []
    var shapesAreQuiet = true
    // Each object reached is marked in place while the set is gathered: no table by identity. The
    // marks are cleared before the set is returned. The stack holds objects unretained: each is
    // held by the relationship it was reached through (or is the caller's root), and nothing
    // changes while the set is gathered.
    var stack = [Unmanaged.passUnretained(root)]
    while let reference = stack.popLast() {
      // Borrowed: only `order` retains the object.
      reference._withUnsafeGuaranteedRef { next in
        guard next.isLive, next.marks & ManagedObject.cascadeMark == 0 else { return }
        next.marks |= ManagedObject.cascadeMark
        order.append(next)
        let entity = next.entity
        shapesAreQuiet = shapesAreQuiet && entity.deletesQuietly
        for property in entity.cascadingRelationships {
          if property.isToMany {
            guard let collection = next.collection(property) else { continue }
            let references = collection.references
            stack.reserveCapacity(stack.count + references.count)
            for index in references.indices.reversed() { stack.append(references[index]) }
          } else if let member = next.toOne(property) {
            stack.append(Unmanaged.passUnretained(member))
          }
        }
      }
    }
    for object in order { object.marks &= ~ManagedObject.cascadeMark }
    return (order, shapesAreQuiet)
  }

  private func checkDenyRules(_ doomed: [ManagedObject]) throws {
    for victim in doomed {
      for property in victim.entity.denyingRelationships {
        if let blocker = victim.members(property).first(where: { $0.isLive }) {
          throw ObjectGraphError(
            .deleteDenied, entity: victim.entity.name, key: property.name,
            value: blocker.objectID.description,
            reason:
              "\(victim.objectID) cannot be deleted: '\(property.name)' denies it while it holds "
              + "\(blocker.objectID)")
        }
      }
    }
  }
}
