/// Storage access shared by the mutation path, key-value coding and the invariant checks.
extension ManagedObject {
  /// Whether the object is registered and not deleted: its relationships may be used.
  var isLive: Bool { lifecycle == .registered && !isDeletedFlag }

  /// The object a to-one slot holds.
  func toOne(_ property: Property) -> ManagedObject? {
    storage[property.slot].map { unsafeDowncast($0 as AnyObject, to: ManagedObject.self) }
  }

  /// The collection of a to-many slot, if it was ever filled.
  func collection(_ property: Property) -> ObjectCollection? {
    storage[property.slot].map { unsafeDowncast($0 as AnyObject, to: ObjectCollection.self) }
  }

  /// The collection of a to-many slot, made on first use.
  func makeCollection(_ property: Property) -> ObjectCollection {
    if let collection = collection(property) { return collection }
    let collection = ObjectCollection(ordered: property.isOrdered)
    storage[property.slot] = collection
    return collection
  }

  /// The objects a relationship slot holds, in order (empty for none).
  func members(_ property: Property) -> [ManagedObject] {
    if property.isToMany { return collection(property).map { Array($0.items) } ?? [] }
    return toOne(property).map { [$0] } ?? []
  }

  /// A slot's current value in the form `value(forKey:)` returns, for committed values.
  func committedStorage(_ property: Property) -> Any? {
    guard property.isToMany else { return storage[property.slot] }
    return members(property)
  }

  /// The public form of a slot: the attribute value, the object, a `Set` or an `Array` of objects.
  func publicValue(_ property: Property) -> Any? {
    guard property.isToMany else { return storage[property.slot] }
    let members = members(property)
    return property.isOrdered ? members : Set(members) as Any
  }

  /// Cuts the object loose from its context: relationships are dropped (ending reference cycles),
  /// attribute values stay readable, and every later use throws `invalidObject`.
  func invalidate() {
    if observers != nil, let context = _context { context.dropObservers(of: self) }
    lifecycle = .invalid
    for property in entity.relationshipProperties { storage[property.slot] = nil }
  }
}
