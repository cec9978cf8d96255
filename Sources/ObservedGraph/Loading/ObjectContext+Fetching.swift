/// Fetching: the objects of an entity that match a predicate, in order, from the store and the
/// context's unsaved changes together.
extension ObjectContext {
  /// The objects a request describes.
  ///
  /// The objects of the request's entity (and its sub-entities) that match its predicate, in the
  /// order of its sort keys (objects equal on every key in the order of their identifiers), the
  /// offset and the limit applied last. With ``FetchRequest/includesPendingChanges`` (the
  /// default), the context's unsaved changes count: inserted objects that match are in the
  /// results, deleted objects are not, and objects whose unsaved values match are in the results
  /// (and those whose values no longer match are not) — the offset and the limit apply after
  /// that.
  ///
  /// The store applies what it can (the SQLite store translates most predicates and sorts to SQL,
  /// with the same semantics); the rest is done in memory, with the semantics the
  /// ``FetchPredicate`` and ``FetchSort`` documentation gives. Objects not in memory come back
  /// as faults whose values came with the fetch (reading them loads nothing more), unless
  /// ``FetchRequest/returnsObjectsAsFaults`` is false; with ``FetchRequest/fetchBatchSize`` above
  /// 0 they come back as faults without values, loaded in batches as they are read.
  ///
  /// ```swift
  /// let cheap = try context.fetch(
  ///   FetchRequest<Book>(predicate: #Predicate { $0.price < 12 }, sortBy: [SortDescriptor(\.title)]))
  /// ```
  /// - Parameter request: What to fetch.
  /// - Returns: The objects, in order.
  /// - Throws: ``ObjectGraphError``: `unknownEntity` for an entity the model does not have;
  ///   the errors of ``FetchPredicate/validate(for:)`` for a predicate that does not fit the
  ///   entity; `otherStore` for a predicate that names an object (or an ``ObjectID``) of another
  ///   store than the context's; `notToMany` for a sort key path through a to-many relationship;
  ///   what the store throws. Nothing in the context changes when it throws, except faults that
  ///   were loaded.
  /// - Complexity: O(n log n) for the n objects the store gives, and the context's unsaved
  ///   objects of the entity, when sorting happens in memory.
  public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
    let objects = try fetchObjects(request)
    // Objects of exactly `Result`'s class (all of them, mostly) need no cast: the array is already
    // an array of `Result`s, and no object goes through the runtime's dynamic cast.
    let resultClass = ObjectIdentifier(Result.self)
    guard objects.allSatisfy({ ObjectIdentifier(type(of: $0)) == resultClass }) else {
      return objects.map { $0 as! Result }
    }
    return unsafeBitCast(objects, to: [Result].self)
  }

  /// The number of objects ``fetch(_:)`` would return.
  ///
  /// ```swift
  /// let count = try context.count(for: FetchRequest<Book>(predicate: #Predicate { $0.price < 12 }))
  /// ```
  /// - Parameter request: What to count.
  /// - Returns: The number of objects.
  /// - Throws: The errors of ``fetch(_:)``.
  public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
    // Counted by the store, without loading, when nothing unsaved changes the answer.
    if let store {
      let (wanted, pending) = try storeFetch(for: request)
      if pending.isEmpty, let count = try store.count(wanted) { return count }
    }
    var request = request
    request.returnsObjectsAsFaults = true
    request.relationshipKeyPathsForPrefetching = []
    if request.fetchBatchSize == 0 { request.fetchBatchSize = Int.max }
    return try fetchObjects(request).count
  }

  /// The objects of a fetch, in order.
  private func fetchObjects<Result>(_ request: FetchRequest<Result>) throws -> [ManagedObject] {
    var (wanted, pending) = try storeFetch(for: request)
    let (predicate, sorts) = (wanted.predicate, wanted.sortDescriptors)
    let entities = Set(wanted.entities.map(ObjectIdentifier.init))
    // The store's answer is the whole answer when it applied everything and nothing unsaved
    // changes it; otherwise it gives candidates, and the offset and limit apply here.
    if !pending.isEmpty {
      wanted.fetchLimit = 0
      wanted.fetchOffset = 0
    }
    var objects: [ManagedObject]
    var complete: Bool
    // Whether `objects` is known to be in key order; otherwise it is checked.
    var inKeyOrder = false
    if let store {
      (objects, complete, inKeyOrder) = try withLoader { loader in
        let complete = try store.fetch(wanted, into: loader)
        return (loader.objects, complete, loader.inKeyOrder)
      }
    } else {
      objects = registry.registeredObjects.filter {
        entities.contains(ObjectIdentifier($0.entity)) && !$0.isInsertedFlag
      }
      complete = false
    }
    if !pending.isEmpty {
      let changed = Set(pending.map(ObjectIdentifier.init))
      objects.removeAll { changed.contains(ObjectIdentifier($0)) }
      objects += pending.filter { !$0.isDeletedFlag }
      complete = false
    }
    if complete, sorts.isEmpty, request.fetchLimit <= 0, request.fetchOffset <= 0, !inKeyOrder,
      zip(objects, objects.dropFirst()).contains(where: { $0.objectKey > $1.objectKey })
    {
      objects.sort { $0.objectKey < $1.objectKey }
    }
    if !complete {
      if let predicate { objects = try objects.filter { try predicate.evaluate(with: $0) } }
      objects = try sorted(objects, by: sorts)
      objects = Array(objects.dropFirst(max(0, request.fetchOffset)))
      if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
    }
    if !request.returnsObjectsAsFaults {
      try fulfilFetched(objects)
    } else if request.fetchBatchSize > 0 && request.fetchBatchSize != faultBatchSize {
      noteBatchSize(request.fetchBatchSize, of: objects)
    }
    try prefetch(request.relationshipKeyPathsForPrefetching, of: objects)
    return objects
  }

  /// Fulfils the faults a fetch returns, in order. Each object's marks are read a few objects ahead
  /// of its fulfilment, so that the memory loads of several objects overlap: after a large load the
  /// objects are out of the processor's caches, and each fulfilment would otherwise wait for its
  /// object's.
  private func fulfilFetched(_ objects: [ManagedObject]) throws {
    let ahead = 8
    var touched: UInt8 = 0
    // The array holds every object for the walk: each is borrowed, not retained (a retain and a
    // release each, the retain waiting for the object's memory).
    try objects.withUnsafeBufferPointer { buffer in
      try buffer.withMemoryRebound(to: Unmanaged<ManagedObject>.self) { references in
        for index in references.indices {
          if index &+ ahead < references.count {
            touched |= references[index &+ ahead]._withUnsafeGuaranteedRef { $0.marks }
          }
          try references[index]._withUnsafeGuaranteedRef { try fulfilFault(of: $0) }
        }
      }
    }
    faulting.fetchTouch = touched
  }

  /// What a request asks of the store, and the objects with unsaved changes of its entities
  /// that the answer must take in (none when the request leaves unsaved changes out).
  private func storeFetch<Result>(for request: FetchRequest<Result>) throws -> (
    StoreFetch, [ManagedObject]
  ) {
    let (entity, predicate, sorts) = try request.resolved(in: self)
    let wanted = StoreFetch(
      entity: entity, includesSubentities: request.includesSubentities, predicate: predicate,
      sortDescriptors: sorts, fetchLimit: max(0, request.fetchLimit),
      fetchOffset: max(0, request.fetchOffset), loadsValues: request.fetchBatchSize <= 0)
    // Nothing unsaved: the store's answer is the whole answer (no set or dependencies made).
    guard request.includesPendingChanges, !tracker.dirty.isEmpty else { return (wanted, []) }
    let entities = Set(wanted.entities.map(ObjectIdentifier.init))
    var pending = tracker.dirty.filter { entities.contains(ObjectIdentifier($0.entity)) }
    // An unsaved change of an object a key path reaches (a book's category, for
    // `category.name`) changes the answer for the objects that reach it: they are tested too.
    let dependencies = FetchedResultsDependencies(
      entity: entity,
      keyPaths: FetchedResultsDependencies.keyPaths(of: predicate) + sorts.map(\.keyPath))
    if !dependencies.hops.isEmpty {
      var seen = Set(pending.map(ObjectIdentifier.init))
      for object in tracker.dirty {
        for hop in dependencies.hops where object.entity.isKind(of: hop.entity) {
          for origin in dependencies.origins(of: object, through: hop) ?? []
          where entities.contains(ObjectIdentifier(origin.entity))
            && seen.insert(ObjectIdentifier(origin)).inserted
          {
            pending.append(origin)
          }
        }
      }
    }
    return (wanted, pending)
  }

  /// Makes the faults without values of a batched fetch load `size` at a time, in their order.
  private func noteBatchSize(_ size: Int, of objects: [ManagedObject]) {
    for object in objects
    where object.isFaultFlag && object.marks & ManagedObject.prefilledMark == 0 {
      faulting.noteFetchBatchSize(size, of: object.objectKey)
      // Waiting in the batch list already, unless the context batches nothing itself.
      if faultBatchSize <= 1 { faulting.notePendingFault(object.objectKey) }
    }
  }

  /// Loads a to-many relationship of the objects that have not loaded it, for all of them at
  /// once: a load per batch of a hundred owners, not one per owner.
  private func prefetchMembers(
    _ property: Property, of objects: [ManagedObject], from store: any PersistentStore
  ) throws {
    let owners = objects.filter { object in
      object.entity.propertiesByName[property.name] === property
        && object.isUnloadedToMany(property)
    }
    var start = 0
    while start < owners.count {
      let batch = owners[start..<min(start + 100, owners.count)]
      start += batch.count
      try withLoader { loader in
        let keys = try store.loadMembers(
          of: batch.map(\.objectID), relationship: property.name, into: loader)
        var members: [Int64: [ManagedObject]] = [:]
        for (member, owner) in zip(loader.objects, keys) {
          members[owner, default: []].append(member)
        }
        for owner in batch {
          putMembers(members[owner.objectKey] ?? [], in: owner, property)
        }
      }
    }
  }

  /// Objects in the order of sort keys, then of their keys.
  func sorted(_ objects: [ManagedObject], by sorts: [FetchSort]) throws
    -> [ManagedObject]
  {
    var failure: (any Error)?
    let result = objects.sorted { a, b in
      guard failure == nil else { return false }
      do {
        return try sorts.compare(a, b) == .orderedAscending
      } catch {
        failure = error
        return false
      }
    }
    if let failure { throw failure }
    return result
  }

  /// Loads the objects reached through each key path from the objects, one load per
  /// relationship step and batch of faults: the faults a to-one step reaches load together.
  private func prefetch(_ keyPaths: [String], of objects: [ManagedObject]) throws {
    for keyPath in keyPaths {
      var reached = objects
      for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
        var next: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for object in reached {
          guard let property = object.entity.propertiesByName[key], property.isRelationship
          else {
            throw ObjectGraphError(
              .unknownKey, entity: object.entity.name, key: keyPath,
              reason: "\(object.entity.name) has no relationship \(key) to prefetch in "
                + "\(keyPath)")
          }
          try object.fulfilFault(key: key)
        }
        if let store, let property = reached.first?.entity.propertiesByName[key],
          property.isToMany
        {
          try prefetchMembers(property, of: reached, from: store)
        }
        for object in reached {
          guard let property = object.entity.propertiesByName[key] else { continue }
          if property.isToMany { try object.loadToMany(property) }
          for member in object.members(property)
          where seen.insert(ObjectIdentifier(member)).inserted {
            next.append(member)
          }
        }
        // Faults without values load together, a batch per load.
        let faults = next.filter {
          $0.isFaultFlag && $0.marks & ManagedObject.prefilledMark == 0
        }
        if let store, !faults.isEmpty {
          try withLoader { loader in
            try store.loadObjects(faults.map(\.objectID), into: loader)
          }
        }
        reached = next
      }
    }
  }
}

extension ObjectContext {
  /// The results of a fetched property of an object: fetched on first use with `$FETCH_SOURCE`
  /// standing for the object, then kept until it is refreshed or the context reset.
  func fetchedObjects(_ property: FetchedPropertyDescription, of object: ManagedObject) throws
    -> [ManagedObject]
  {
    if let kept = faulting.fetchedResult(property.name, of: object.objectKey) { return kept }
    let request = FetchRequest<ManagedObject>(
      entityName: property.destination,
      predicate: property.predicate.substituting(["FETCH_SOURCE": object]),
      sortDescriptors: property.sortDescriptors)
    let objects = try fetch(request)
    faulting.keepFetchedResult(objects, property.name, of: object.objectKey)
    return objects
  }
}
