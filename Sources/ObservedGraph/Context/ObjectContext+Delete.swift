/// Deleting objects and running delete rules.
extension ObjectContext {
  /// A change of an object's membership in the context, recorded for undo like any other edit.
  enum LifecycleChange {
    /// The object joins the context as inserted (first insert, or redo of it).
    case insert
    /// The object's insertion is taken back (undo of insert).
    case uninsert
    /// The object is marked deleted.
    case delete
    /// The object's deletion is taken back (undo of delete).
    case undelete

    var inverse: LifecycleChange {
      switch self {
      case .insert: return .uninsert
      case .uninsert: return .insert
      case .delete: return .undelete
      case .undelete: return .delete
      }
    }
  }

  /// Applies a lifecycle change, tracks it and records its inverse.
  func applyLifecycle(_ change: LifecycleChange, to object: ManagedObject) {
    switch change {
    case .insert:
      object.lifecycle = .registered
      object.isInsertedFlag = true
      registry[object.objectID] = object
      limbo[ObjectIdentifier(object)] = nil
      noteDirty(object)
    case .uninsert:
      object.lifecycle = .unregistered
      registry[object.objectID] = nil
      limbo[ObjectIdentifier(object)] = object
      dirty[ObjectIdentifier(object)] = nil
    case .delete:
      object.isDeletedFlag = true
      noteDirty(object)
    case .undelete:
      object.isDeletedFlag = false
      if object.lifecycle == .unregistered {
        // Deleted and saved: the store no longer has it, so it comes back as a new insert.
        object.lifecycle = .registered
        object.isInsertedFlag = true
        registry[object.objectID] = object
        limbo[ObjectIdentifier(object)] = nil
        noteDirty(object)
      }
    }
    recordUndo(lifecycle: change.inverse, of: object)
    notePending(change, object)
  }

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
  /// Deleting a deleted object does nothing.
  ///
  /// - Parameter object: An object of this context.
  /// - Throws: ``ObjectGraphError/Kind/deleteDenied`` naming the object, relationship and a
  ///   destination (nothing changes, no hook runs); `otherContext` or `invalidObject` for an object
  ///   the context cannot delete.
  /// - Complexity: O(objects reached × their relationships).
  public func delete(_ object: ManagedObject) throws {
    try checkUsable(object)
    guard !object.isDeletedFlag else { return }
    let doomed = cascadeSet(from: object)
    try checkDenyRules(doomed)
    for victim in doomed { victim.prepareForDeletion() }
    for victim in doomed where victim.isLive { deleteOne(victim) }
    checkInvariants()
  }

  /// The object and everything its cascade rules reach, each once, in visiting order.
  private func cascadeSet(from root: ManagedObject) -> [ManagedObject] {
    var order: [ManagedObject] = []
    var seen: Set<ObjectIdentifier> = []
    var stack = [root]
    while let next = stack.popLast() {
      guard next.isLive, seen.insert(ObjectIdentifier(next)).inserted else { continue }
      order.append(next)
      for property in next.entity.relationshipProperties where property.deleteRule == .cascade {
        stack += next.members(property).reversed()
      }
    }
    return order
  }

  private func checkDenyRules(_ doomed: [ManagedObject]) throws {
    for victim in doomed {
      for property in victim.entity.relationshipProperties where property.deleteRule == .deny {
        if let blocker = victim.members(property).first(where: { $0.isLive }) {
          throw ObjectGraphError(
            .deleteDenied, entity: victim.entity.name, key: property.name,
            value: blocker.shortDescription,
            reason:
              "\(victim.shortDescription) cannot be deleted: '\(property.name)' denies it while "
              + "it holds \(blocker.shortDescription)")
        }
      }
    }
  }

  /// Empties one object's relationships (and, except for `noAction`, the other sides), then marks
  /// it deleted.
  private func deleteOne(_ victim: ManagedObject) {
    var plan = EditPlan()
    for property in victim.entity.relationshipProperties {
      let members = victim.members(property)
      guard !members.isEmpty else { continue }
      if let inverse = property.inverse, property.deleteRule != .noAction {
        for member in members where member.isLive && member !== victim {
          if inverse.isToMany {
            if member.collection(inverse)?.contains(victim) == true {
              plan.remove(victim, from: member, inverse)
            }
          } else if member.toOne(inverse) === victim {
            plan.append(.set(member, inverse, old: victim, new: nil, changes: true))
          }
        }
      }
      if property.isToMany {
        plan.append(.replace(victim, property, old: members, new: []))
      } else {
        plan.append(.set(victim, property, old: members[0], new: nil, changes: true))
      }
    }
    plan.finish()
    // Flag the victim first: under `noAction` partners keep pointing at it, which the invariant
    // check after `perform` allows only for a deleted object.
    victim.isDeletedFlag = true
    perform(plan.edits)
    applyLifecycle(.delete, to: victim)
  }
}
