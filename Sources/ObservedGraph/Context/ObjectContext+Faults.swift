/// Faults: objects whose values are not loaded yet, fulfilled by the read hook on first use.
///
/// An object can exist with its values not loaded (a *fault*): ``ObjectContext/object(with:)``
/// returns one for an identifier the context's store may hold. The first read of any of its values
/// — through any path, since every read goes through the read hook — asks the context to fulfil it:
/// the values are loaded and put in place without being tracked as changes, without observers
/// hearing anything and without anything recorded for undo.
///
/// When a fault cannot be fulfilled (its object no longer exists in the store):
/// - throwing reads (``ManagedObject/value(forKey:)``, key paths) throw
///   ``ObjectGraphError/Kind/objectNotFound``;
/// - typed getters cannot throw, so they stop the program with a message naming the object, as
///   Core Data raises an exception; code that may meet such objects calls
///   ``ObjectContext/existingObject(with:)`` or ``ManagedObject/fulfilFault()`` first.
extension ObjectContext {
  /// A fault for an identifier the context's store may hold; nil without a store, for another
  /// store, an unknown or abstract entity, or an object that left the context.
  func fault(for id: ObjectID) -> ManagedObject? {
    guard store != nil, id.storeIdentifier == registry.storeIdentifier,
      registry.anyObject(for: id) == nil, let entity = model.entity(named: id.entityName),
      !entity.isAbstract, id.key > 0
    else { return nil }
    let object = makeObject(entity, id)
    object.isFaultFlag = true
    registry.register(object)
    return object
  }

  /// Loads a fault's values. Nothing is tracked, observed or recorded.
  ///
  /// - Throws: ``ObjectGraphError/Kind/objectNotFound`` when the store has no such object (or
  ///   there is no store), or what the store throws.
  func fulfilFault(of object: ManagedObject) throws {
    guard object.isFaultFlag else { return }
    let id = object.objectID
    guard let store, let stored = try store.loadObject(id) else {
      throw ObjectGraphError(
        .objectNotFound, entity: id.entityName, value: id.description,
        reason: "the fault \(id) cannot be fulfilled: its store has no such object")
    }
    try fill(object, with: stored, from: store)
    let outer = awakeningFromFetch
    awakeningFromFetch = object
    object.awakeFromFetch()
    awakeningFromFetch = outer
  }

  /// Puts a stored object's values in a fault's slots, loading the to-many relationships the
  /// store left out.
  private func fill(
    _ object: ManagedObject, with stored: StoredObject, from store: any PersistentStore
  ) throws {
    let properties = object.entity.properties
    guard stored.properties.count == properties.count else {
      throw ObjectGraphError(
        .wrongType, entity: object.entity.name, value: stored.id.description,
        reason: "the store gave \(stored.properties.count) values for \(stored.id), whose entity "
          + "has \(properties.count) properties")
    }
    // Everything is loaded before anything is put in place: a failing load leaves a fault.
    var members: [Int: [ObjectID]] = [:]
    for property in properties where property.isToMany {
      if case .toMany(let ids) = stored.properties[property.slot] {
        members[property.slot] = ids
      } else {
        members[property.slot] = try store.loadMembers(
          of: stored.id, relationship: property.name)
      }
    }
    object.isFaultFlag = false
    for property in properties {
      let value = stored.properties[property.slot]
      if property.isToMany {
        let collection = ObjectCollection(ordered: property.isOrdered)
        for member in members[property.slot]!.compactMap(self.object(with:))
        where !collection.contains(member) {
          collection.insert(member)
        }
        object.fill(collection.isEmpty ? nil : collection, at: property.slot)
      } else if property.isRelationship {
        guard case .toOne(let id) = value else { continue }
        object.fill(id.flatMap(self.object(with:)), at: property.slot)
      } else if case .attribute(let value) = value {
        object.fill(property.heldValue(of: value) ?? property.heldDefault, at: property.slot)
      }
    }
  }
}

extension ManagedObject {
  /// Whether the object's values are not loaded yet: the first read of any of them loads them.
  ///
  /// Objects made by inserting are never faults; ``ObjectContext/object(with:)`` returns a fault
  /// for an object of the context's store that is not in memory.
  ///
  /// ```swift
  /// let book = context.object(with: id)!
  /// #expect(book.isFault)
  /// _ = book.title          // loads the values
  /// #expect(!book.isFault)
  /// ```
  public var isFault: Bool { isFaultFlag }

  /// Loads the object's values now if it is a fault; does nothing otherwise.
  ///
  /// Call it before using typed properties of an object that may no longer exist: a typed getter
  /// of a fault that cannot be fulfilled stops the program, this throws.
  ///
  /// ```swift
  /// let book = context.object(with: id)!
  /// try book.fulfilFault()
  /// print(book.title)
  /// ```
  /// - Throws: ``ObjectGraphError/Kind/objectNotFound`` when the object no longer exists;
  ///   ``ObjectGraphError/Kind/invalidObject`` when its context is gone.
  public func fulfilFault() throws {
    try fulfilFault(key: nil)
  }

  /// Fulfils a fault for a throwing read.
  func fulfilFault(key: String?) throws {
    guard isFaultFlag else { return }
    guard lifecycle == .registered || lifecycle == .detached, let context = link?.context else {
      throw ObjectGraphError(
        .invalidObject, entity: entity.name, key: key, value: objectID.description,
        reason: "the fault \(objectID) cannot be fulfilled: its context was reset or released")
    }
    try context.fulfilFault(of: self)
  }

  /// Fulfils a fault for a read that cannot throw, or stops the program saying why.
  func fulfilFaultOrStop() {
    do {
      try fulfilFault(key: nil)
    } catch {
      preconditionFailure(
        "ObservedGraph: \(error). A typed property of an object that no longer exists cannot be "
          + "read; call `try context.existingObject(with:)` or `try object.fulfilFault()` first "
          + "to get an error instead")
    }
  }
}
