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
    fault(for: id, batchable: true)
  }

  /// A fault; a batchable one waits in ``FaultingState/pendingFaults`` to be loaded with the
  /// next fault that is read (a fault whose values come right away, from a to-many's rows, is
  /// not batchable).
  func fault(for id: ObjectID, batchable: Bool) -> ManagedObject? {
    guard store != nil, id.storeIdentifier == registry.storeIdentifier,
      let entity = faulting.entity(named: id.entityName, in: model)
    else { return nil }
    return fault(entity, key: id.key, batchable: batchable)
  }

  /// A new fault for a key no object of the context has, of a concrete entity of the model.
  private func fault(_ entity: EntityDescription, key: Int64, batchable: Bool) -> ManagedObject? {
    guard store != nil, !entity.isAbstract, key > 0, registry.address(ofKey: key) == nil else {
      return nil
    }
    return newFault(entity, key: key, batchable: batchable)
  }

  /// A new fault for a key no registered or detached object has (the caller checked), of a
  /// concrete entity, in a context with a store.
  private func newFault(_ entity: EntityDescription, key: Int64, batchable: Bool)
    -> ManagedObject
  {
    let object = makeObject(entity, key: key)
    object.isFaultFlag = true
    registry.registerNew(object)
    if batchable && faultBatchSize > 1 { faulting.notePendingFault(key) }
    return object
  }

  /// The object of a key a store's row names, of an entity of the context's model: the
  /// registered one, or a new fault (batchable when its values do not come with the row).
  /// Nil when the key belongs to an object of another entity.
  func objectForLoad(
    _ entity: EntityDescription, key: Int64, batchable: Bool, notingConflict: Bool = true
  ) -> ManagedObject? {
    if let object = objectInMemory(forLoad: entity, key: key, notingConflict: notingConflict) {
      return object
    }
    // No object has the key: each table has been asked once.
    guard store != nil, !entity.isAbstract, key > 0 else { return nil }
    return newFault(entity, key: key, batchable: batchable)
  }

  /// The part of ``objectForLoad(_:key:batchable:notingConflict:)`` that looks in memory:
  /// `.some` of the object (or of nil, for a key of an object of another entity or of an object
  /// inserted here), or nil when no object has the key. An object inserted here with the key is
  /// kept as the load's conflict when `notingConflict`.
  func objectInMemory(
    forLoad entity: EntityDescription, key: Int64, notingConflict: Bool = true
  ) -> ManagedObject?? {
    if let object = registry.registeredObject(key: key) {
      // An object inserted here has no row yet: a row with its key is another object, which
      // another store on the file saved with a key this context gave out past its store's
      // reserved block (see `SQLiteStore.Options.keyBlockSize`). Refused, never mixed up.
      if object.isInsertedFlag {
        if notingConflict { faulting.noteLoadConflict(object) }
        return .some(nil)
      }
      return object.entity === entity ? object : nil
    }
    // No fault for a key a detached object holds. A row can only name a key the store once had:
    // a detached object with it left the store (its deletion was saved, or an undo brought it
    // back and a rollback took it out again). The row (a no-action reference) names the object
    // still held (by the undo log), as an object that stayed in memory does.
    if let object = registry.detachedObject(key: key) {
      return object.entity === entity ? object : nil
    }
    return nil
  }

  /// The object a to-one's key names, when the relationship that a load gave only the key of is
  /// first read (see ``RelationshipFields``): what ``objectForLoad(_:key:batchable:
  /// notingConflict:)`` gives, a batchable fault when no object has the key. An object inserted
  /// here with the key gives nil and is not the next load's conflict: the load that gave the key
  /// found no object with it.
  func objectForLoadedKey(_ entity: EntityDescription, key: Int64) -> ManagedObject? {
    objectForLoad(entity, key: key, batchable: true, notingConflict: false)
  }

  /// Other faults to load with `object`: up to ``faultBatchSize`` − 1 of those waiting (or the
  /// batch size of the fetch that made `object`, see ``FetchRequest/fetchBatchSize``), oldest
  /// first, that are still faults without values; the ones passed over leave the list.
  private func batch(with object: ManagedObject) -> [ManagedObject] {
    let limit = faulting.takeFetchBatchSize(of: object.objectKey) ?? faultBatchSize
    var batch: [ManagedObject] = []
    while batch.count < limit - 1, let key = faulting.takePendingFault() {
      guard key != object.objectKey, let other = registry.registeredObject(key: key),
        other.isFaultFlag, other.marks & ManagedObject.prefilledMark == 0
      else { continue }
      batch.append(other)
      _ = faulting.takeFetchBatchSize(of: key)
    }
    faulting.dropTakenFaults()
    return batch
  }

  /// Loads a fault's values. Nothing is tracked, observed or recorded. Its to-many
  /// relationships become to-many faults, unless the store gave their members; a fault a load
  /// prefilled loads nothing.
  ///
  /// - Throws: ``ObjectGraphError/Kind/objectNotFound`` when the store has no such object (or
  ///   there is no store), or what the store throws.
  func fulfilFault(of object: ManagedObject) throws {
    guard object.isFaultFlag else { return }
    // A fault whose values came with a load (prefilled) needs neither its identifier nor the store.
    if object.marks & ManagedObject.prefilledMark == 0 {
      let id = object.objectID
      guard let store else { throw notFound(id) }
      // Faults waiting to be read come in the same load (batch faulting), their values put in
      // place: they stay faults until read, then cost no load.
      let others = batch(with: object)
      try withLoader { loader in
        try store.loadObjects([id] + others.map(\.objectID), into: loader)
      }
      // Settling the load's owners may have read the object, which completed its fulfilment.
      guard object.marks & ManagedObject.prefilledMark != 0 || !object.isFaultFlag else {
        throw notFound(id)
      }
    }
    if object.isFaultFlag { object.completeFulfilment() }
  }

  /// Loads a to-many fault: the members' rows in one query, their faults prefilled. Nothing is
  /// tracked, observed or recorded.
  func loadMembers(of object: ManagedObject, _ property: Property) throws -> ObjectCollection? {
    guard let store else { throw notFound(object.objectID) }
    try withLoader { loader in
      try store.loadMembers(of: object.objectID, relationship: property.name, into: loader)
      var members = loader.objects
      // A member whose values were in memory keeps them: when its to-one names another owner
      // (another store moved it since it was loaded, or it moved here), it is not a member.
      if let inverse = property.inverse, inverse.isToOne, !loader.inMemory.isEmpty {
        let leaving = Set(
          loader.inMemory.filter { members[$0].toOneKey(inverse) != object.objectKey })
        if !leaving.isEmpty {
          members = members.indices.filter { !leaving.contains($0) }.map { members[$0] }
        }
      }
      putMembers(members, in: object, property)
    }
    return object.collection(property)
  }

  /// Runs a load with the context's loader (a new one when a load is already under way); when
  /// the load fails, the objects it began are left without values.
  func withLoader<T>(_ body: (ObjectLoader) throws -> T) throws -> T {
    let loader = faulting.startLoad() ?? ObjectLoader(context: self)
    loader.readsKeptOwners = faulting.faultsKeepOwnerKeys
    let result: T
    var checks: [ObjectLoader.OwnerCheck] = []
    do {
      defer {
        checks = loader.ownerChecks
        loader.reset()
        faulting.endLoad(leaving: loader)
      }
      do {
        result = try body(loader)
        if let conflict = faulting.takeLoadConflict() { throw keyConflict(conflict) }
      } catch {
        _ = faulting.takeLoadConflict()
        loader.abandon()
        throw error
      }
    }
    // After the loader is idle again: telling observers may load more.
    if !checks.isEmpty { settleLoadedOwners(checks) }
    return result
  }

  /// The error of a load that met a row holding the key of an object inserted in this context.
  private func keyConflict(_ object: ManagedObject) -> ObjectGraphError {
    let id = object.objectID
    return ObjectGraphError(
      .duplicateObject, entity: id.entityName, value: id.description,
      reason: "the store holds a row with key \(id.key), which \(id) inserted in this context "
        + "also has: another store on the same file gave out that key and saved first (this "
        + "context inserted more objects than its store's block of keys holds); the load was "
        + "refused, and saving the object will fail the same way")
  }

  private func notFound(_ id: ObjectID) -> ObjectGraphError {
    ObjectGraphError(
      .objectNotFound, entity: id.entityName, value: id.description,
      reason: "the fault \(id) cannot be fulfilled: its store has no such object")
  }

  /// Puts a to-many relationship's members in an object's slot.
  func putMembers(_ objects: [ManagedObject], in object: ManagedObject, _ property: Property) {
    // A store gives each member once, and mostly in the order of their keys (then this check is
    // all it costs); otherwise the repeats go.
    var members = objects
    if zip(objects, objects.dropFirst()).contains(where: { $0.objectKey >= $1.objectKey }) {
      var seen = Set<ObjectIdentifier>()
      members = objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
    // The store has every member: the collection does not retain them, and the context keeps
    // the last few loaded relationships' members alive so that using one again costs no load.
    let collection =
      members.isEmpty
      ? nil : ObjectCollection(loaded: members, ordered: property.isOrdered, registry: registry)
    object.fill(collection, at: property.slot)
    faulting.keepRecentlyLoaded(members)
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
    guard isInLiveContext else {
      throw ObjectGraphError(
        .invalidObject, entity: entity.name, key: key, value: objectID.description,
        reason: "the fault \(objectID) cannot be fulfilled: its context was reset or released")
    }
    // A fault whose values came with a load needs nothing of its context, so the first read of a
    // fetched object takes no reference to the context.
    if marks & ManagedObject.prefilledMark != 0 { return completeFulfilment() }
    // Held for the call: the app's `awakeFromFetch` may drop the last other reference to the
    // context.
    let context = link.unsafelyUnwrapped.context.unsafelyUnwrapped
    try context.fulfilFault(of: self)
  }

  /// Ends a fulfilment once the values are in place: to-many relationships whose members did
  /// not come with them become to-many faults, the object stops being a fault, and its
  /// ``awakeFromFetch()`` runs, its sets stored without being tracked, observed or recorded.
  /// Reaches the link, which the object holds, and not the context, which `awakeFromFetch` may
  /// release.
  func completeFulfilment() {
    marks &= ~ManagedObject.prefilledMark
    // (Tested first: walking an empty array retains and releases it.)
    if !entity.toManyProperties.isEmpty {
      for property in entity.toManyProperties where isEmptyRelationship(property) {
        fill(ObjectCollection.unloaded, at: property.slot)
      }
    }
    isFaultFlag = false
    let outer = link.unsafelyUnwrapped.awakeningFromFetch
    link.unsafelyUnwrapped.awakeningFromFetch = ObjectIdentifier(self)
    awakeFromFetch()
    link.unsafelyUnwrapped.awakeningFromFetch = outer
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
