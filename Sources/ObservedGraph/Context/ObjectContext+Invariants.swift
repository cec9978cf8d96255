/// Internal consistency checks, run after every mutation in debug builds.
extension ObjectContext {
  @inline(__always)
  func checkInvariants() {
    #if OBSERVEDGRAPH_INVARIANTS
      _checkInvariants()
    #endif
  }

  /// Traps with a message if the graph is inconsistent: a live object's relationship whose other
  /// side does not point back, a deleted object that still has relationships, a registry entry that
  /// disagrees with its object, or a dirty object that belongs to no context.
  ///
  /// Called after each mutation in debug builds; tests call it directly.
  /// - Complexity: O(objects × relationship sizes).
  public func _checkInvariants() {
    for (id, object) in registry {
      precondition(object.objectID == id, "registry key \(id) holds \(object.objectID)")
      precondition(
        object.lifecycle == .registered, "\(object.shortDescription) registered but not live")
      precondition(
        object._context === self, "\(object.shortDescription) registered in another context")
      for property in object.entity.relationshipProperties {
        let members = object.members(property)
        if object.isDeletedFlag {
          // No-action rules may leave others pointing at a deleted object, never the reverse.
          precondition(
            members.isEmpty,
            "deleted \(object.shortDescription).\(property.name) still holds \(members.count) objects"
          )
          continue
        }
        if property.isToMany, let collection = object.collection(property) {
          precondition(
            Set(collection.items.map(ObjectIdentifier.init)).count == collection.count,
            "\(object.shortDescription).\(property.name) holds an object twice")
        }
        guard let inverse = property.inverse else { continue }
        for member in members where member.isLive {
          let back = member.members(inverse).contains { $0 === object }
          precondition(
            back,
            "\(object.shortDescription).\(property.name) holds \(member.shortDescription), but "
              + "\(member.shortDescription).\(inverse.name) does not point back")
        }
      }
    }
    for object in dirty.values {
      precondition(
        object.lifecycle == .registered || object.lifecycle == .unregistered,
        "dirty \(object.shortDescription) is \(object.lifecycle)")
    }
  }
}
