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
      registry.anyObject(for: id) == nil, let entity = faultEntity(named: id.entityName),
      !entity.isAbstract, id.key > 0
    else { return nil }
    let object = makeObject(entity, id)
    object.isFaultFlag = true
    registry.register(object)
    return object
  }

  /// The entity of a name, the last one asked for kept: faults come in runs of one entity (the
  /// members of a to-many).
  private func faultEntity(named name: String) -> EntityDescription? {
    if let last = lastFaultEntity, last.name == name { return last }
    lastFaultEntity = model.entity(named: name)
    return lastFaultEntity
  }

  /// Loads a fault's values. Nothing is tracked, observed or recorded.
  ///
  /// A fault a to-many load prefilled loads only its own to-many relationships.
  ///
  /// - Throws: ``ObjectGraphError/Kind/objectNotFound`` when the store has no such object (or
  ///   there is no store), or what the store throws.
  func fulfilFault(of object: ManagedObject) throws {
    guard object.isFaultFlag else { return }
    let id = object.objectID
    guard let store else { throw notFound(id) }
    if object.marks & ManagedObject.prefilledMark == 0 {
      guard let stored = try store.loadObject(id) else { throw notFound(id) }
      try checkShape(stored, of: object)
      put(stored, in: object)
      for property in object.entity.toManyProperties {
        if case .toMany(let ids) = stored.properties[property.slot] {
          putMembers(ids, rows: [], in: object, property)
        } else {
          object.fill(ObjectCollection.unloaded, at: property.slot)
        }
      }
    } else {
      object.marks &= ~ManagedObject.prefilledMark
      for property in object.entity.toManyProperties {
        object.fill(ObjectCollection.unloaded, at: property.slot)
      }
    }
    object.isFaultFlag = false
    let outer = awakeningFromFetch
    awakeningFromFetch = object
    object.awakeFromFetch()
    awakeningFromFetch = outer
  }

  /// Loads a to-many fault: the members' rows in one query, their faults prefilled. Nothing is
  /// tracked, observed or recorded.
  func loadMembers(of object: ManagedObject, _ property: Property) throws -> ObjectCollection? {
    guard let store else { throw notFound(object.objectID) }
    let rows = try store.loadMembers(of: object.objectID, relationship: property.name)
    putMembers(rows.map(\.id), rows: rows, in: object, property)
    return object.collection(property)
  }

  private func notFound(_ id: ObjectID) -> ObjectGraphError {
    ObjectGraphError(
      .objectNotFound, entity: id.entityName, value: id.description,
      reason: "the fault \(id) cannot be fulfilled: its store has no such object")
  }

  private func checkShape(_ stored: StoredObject, of object: ManagedObject) throws {
    let count = object.entity.properties.count
    guard stored.properties.count != count else { return }
    throw ObjectGraphError(
      .wrongType, entity: object.entity.name, value: stored.id.description,
      reason: "the store gave \(stored.properties.count) values for \(stored.id), whose entity "
        + "has \(count) properties")
  }

  /// Puts a stored object's attributes and to-one relationships in an object's slots.
  private func put(_ stored: StoredObject, in object: ManagedObject) {
    for property in object.entity.properties where !property.isToMany {
      switch stored.properties[property.slot] {
      case .attribute(let value) where !property.isRelationship:
        object.fill(property.heldValue(of: value) ?? property.heldDefault, at: property.slot)
      case .toOne(let id) where property.isRelationship:
        object.fill(id.flatMap(self.object(with:)), at: property.slot)
      default:
        continue
      }
    }
  }

  /// Puts a to-many relationship's members in an object's slot; the faults of rows the store gave
  /// get their values.
  private func putMembers(
    _ ids: [ObjectID], rows: [StoredObject], in object: ManagedObject, _ property: Property
  ) {
    let collection = ObjectCollection(ordered: property.isOrdered)
    for (index, id) in ids.enumerated() {
      guard let member = self.object(with: id), !collection.contains(member) else { continue }
      if index < rows.count, member.isFaultFlag,
        member.marks & ManagedObject.prefilledMark == 0,
        rows[index].properties.count == member.entity.properties.count
      {
        put(rows[index], in: member)
        member.marks |= ManagedObject.prefilledMark
      }
      collection.insertNew(member)
    }
    object.fill(collection.isEmpty ? nil : collection, at: property.slot)
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
