/// An object live results check again, with where it was. Not nested in the generic class, so that
/// using it costs no generic metadata look-ups.
private struct Candidate {
  let object: ManagedObject
  /// Its kept values and offset before the event, when it was a result.
  var old: (values: [FetchValue?], offset: Int)?
  /// Its values now, when it matches.
  var new: [FetchValue?]?
}

/// An object updated in place and its offset.
private struct InPlace {
  let offset: Int
  let object: ManagedObject
}

/// Absorbing one objects-did-change event: which objects to check again, where they were and
/// where they go, and the difference that says so.
extension FetchedResults {
  /// Updates the results for one event and delivers the change, if any.
  ///
  /// While a handler has an origin filter, the change carries the origins of the event's changes
  /// that made it: per object (see ``ObjectsDidChange/origins(of:key:)``) when the event has
  /// several origins — a result's own changes, or the changes of the keys the results read on a
  /// related object.
  ///
  /// - Complexity: O(k log n) for the k objects the event names (and the objects found by
  ///   walking back from related ones), plus the array shifts of the objects that come, go or
  ///   move.
  func absorb(_ event: ObjectsDidChange) {
    var candidates: [Int64: Candidate] = [:]
    var touched: [Int64: ManagedObject] = [:]  // results changed with no key the results read
    var untraceable = false
    let registry = context.registry
    let includesSubentities = request.includesSubentities
    // The origins of the changes that made each object a candidate, when they differ by object.
    let eventOrigins: Set<ChangeOrigin>? = hasFilteredHandlers ? event.origins : nil
    var causes: [Int64: Set<ChangeOrigin>]? = (eventOrigins?.count ?? 0) > 1 ? [:] : nil
    func cause(_ object: ManagedObject, _ origins: @autoclosure () -> Set<ChangeOrigin>) {
      if causes != nil { causes![object.objectKey, default: []].formUnion(origins()) }
    }

    func isResultEntity(_ object: ManagedObject) -> Bool {
      includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
    }
    func check(_ object: ManagedObject) {
      guard candidates[object.objectKey] == nil else { return }
      touched[object.objectKey] = nil
      candidates[object.objectKey] = Candidate(object: object)
    }
    func related(_ object: ManagedObject, _ keys: Set<String>?) {
      for hop in dependencies.hops where object.entity.isKind(of: hop.entity) {
        if let keys, !hop.readsUnmodelledKey, keys.isDisjoint(with: hop.keys) { continue }
        guard let origins = dependencies.origins(of: object, through: hop) else {
          untraceable = true
          return
        }
        // The origins of the changes of the keys the results read on the object.
        func readOrigins() -> Set<ChangeOrigin> {
          guard let keys else { return event.origins(of: object.objectID) }
          let read = hop.readsUnmodelledKey ? keys : keys.intersection(hop.keys)
          return read.reduce(into: []) {
            $0.formUnion(event.origins(of: object.objectID, key: $1))
          }
        }
        for origin in origins where isResultEntity(origin) {
          check(origin)
          cause(origin, readOrigins())
        }
      }
    }

    for id in event.deleted {
      guard entries[id.key] != nil, let index = offset(ofKey: id.key) else { continue }
      check(storage[index])
      cause(storage[index], event.origins(of: id))
    }
    for id in event.inserted {
      guard let object = registry.object(for: id), isResultEntity(object) else { continue }
      check(object)
      cause(object, event.origins(of: id))
    }
    for (id, keys) in event.updated {
      guard let object = registry.object(for: id) else { continue }
      if isResultEntity(object) {
        if dependencies.affectsRoot(keys) {
          check(object)
          cause(object, event.origins(of: id))
        } else if entries[object.objectKey] != nil, candidates[object.objectKey] == nil {
          touched[object.objectKey] = object
          cause(object, event.origins(of: id))
        }
      }
      related(object, keys)
    }
    for id in event.refreshed {
      guard let object = registry.object(for: id) else { continue }
      if isResultEntity(object) {
        check(object)
        cause(object, event.origins(of: id))
      }
      related(object, nil)
    }
    if untraceable {
      do {
        let (objects, entries) = try fetchEntries()
        return replace(with: objects, entries: entries, origins: eventOrigins)
      } catch {
        // The request fetched before; a failure now (a store error) leaves the results as
        // they were until the next event.
        return
      }
    }
    guard !candidates.isEmpty || !touched.isEmpty else { return }
    apply(
      Array(candidates.values), touched: Array(touched.values), origins: eventOrigins,
      causes: causes)
  }

  /// Moves the candidates to where they belong, and delivers the difference: made by changes of
  /// `origins`, or, when `causes` are given, of the causes of the objects it names.
  private func apply(
    _ checked: [Candidate], touched: [ManagedObject], origins: Set<ChangeOrigin>?,
    causes: [Int64: Set<ChangeOrigin>]?
  ) {
    var removals: [Candidate] = []
    var insertions: [Candidate] = []
    var inPlace: [ManagedObject] = []
    for var candidate in checked {
      let object = candidate.object
      if let values = entries[object.objectKey], let offset = offset(ofKey: object.objectKey) {
        candidate.old = (values, offset)
      }
      candidate.new = matches(object) ? try? values(of: object) : nil
      switch (candidate.old, candidate.new) {
      case (nil, nil): continue
      case (let old?, let new?) where old.values == new:
        inPlace.append(object)  // same values: same place
      default:
        if candidate.old != nil { removals.append(candidate) }
        if candidate.new != nil { insertions.append(candidate) }
      }
    }
    inPlace += touched

    // Removed objects' old offsets, ascending; the gap of each is the number of objects that
    // stay before it.
    if removals.count > 1 { removals.sort { $0.old!.offset < $1.old!.offset } }
    var oldGap: [ObjectIdentifier: Int] = [:]
    for (rank, removal) in removals.enumerated() {
      oldGap[ObjectIdentifier(removal.object)] = removal.old!.offset - rank
    }
    for removal in removals { entries[removal.object.objectKey] = nil }
    // Inserted objects in order, each placed by the number of staying objects before it.
    if insertions.count > 1 {
      insertions.sort { order($0.new!, $0.object.objectKey, before: $1.new!, $1.object.objectKey) }
    }
    for insertion in insertions { entries[insertion.object.objectKey] = insertion.new! }
    var gaps: [Int] = []
    if !removals.isEmpty || !insertions.isEmpty {
      mutate { objects in
        remove(removals.map { $0.old!.offset }, from: &objects)
        gaps = insertions.map { lowerBound($0.new!, $0.object.objectKey, in: objects) }
        insert(insertions.map { $0.object as! Result }, at: gaps, into: &objects)
      }
    }

    // Objects removed and inserted with as many staying objects before them as before, in the
    // same order among themselves, did not move: the longest run of them in old order stays.
    var sameGap: [Int: [(old: Int, rank: Int)]] = [:]
    for (rank, insertion) in insertions.enumerated() {
      if let gap = oldGap[ObjectIdentifier(insertion.object)], gap == gaps[rank] {
        sameGap[gap, default: []].append((insertion.old!.offset, rank))
      }
    }
    var unmoved = Set<Int>()  // ranks of insertions that did not move
    for group in sameGap.values {
      for index in Self.longestIncreasingRun(group.map(\.old)) { unmoved.insert(group[index].rank) }
    }
    let unmovedObjects = Set(unmoved.map { ObjectIdentifier(insertions[$0].object) })

    var changes: [CollectionDifference<Result>.Change] = []
    for removal in removals where !unmovedObjects.contains(ObjectIdentifier(removal.object)) {
      changes.append(
        .remove(
          offset: removal.old!.offset, element: removal.object as! Result, associatedWith: nil))
    }
    var updated: [InPlace] = []
    for (rank, insertion) in insertions.enumerated() {
      let object = insertion.object as! Result
      if unmoved.contains(rank) {
        updated.append(InPlace(offset: gaps[rank] + rank, object: object))
      } else {
        changes.append(.insert(offset: gaps[rank] + rank, element: object, associatedWith: nil))
      }
    }
    for object in inPlace {
      guard let offset = offset(ofKey: object.objectKey) else { continue }
      updated.append(InPlace(offset: offset, object: storage[offset]))
    }
    guard let difference = CollectionDifference(changes) else {
      preconditionFailure("FetchedResults: the changes of an event do not form a difference")
    }
    guard !difference.isEmpty || !updated.isEmpty else { return }
    if updated.count > 1 { updated.sort { $0.offset < $1.offset } }
    var origins = origins
    if let causes {
      let named = removals.map(\.object) + insertions.map(\.object) + updated.map(\.object)
      origins = named.reduce(into: []) { $0.formUnion(causes[$1.objectKey] ?? []) }
    }
    deliver(
      Change(
        difference: difference.inferringMoves(), updated: updated.map { $0.object as! Result },
        updatedOffsets: updated.map(\.offset)),
      origins: origins)
  }

  /// Removes the objects at ascending offsets: one by one when they are few, in one pass
  /// otherwise.
  private func remove(_ offsets: [Int], from objects: inout [Result]) {
    guard offsets.count > 16 else {
      for offset in offsets.reversed() { objects.remove(at: offset) }
      return
    }
    var next = 0
    var kept: [Result] = []
    kept.reserveCapacity(objects.count - offsets.count)
    for (offset, object) in objects.enumerated() {
      if next < offsets.count, offsets[next] == offset {
        next += 1
      } else {
        kept.append(object)
      }
    }
    objects = kept
  }

  /// Inserts objects in order, the one of rank r before the object at offset `gaps[r]` of the
  /// array as it was: one by one when they are few, in one pass otherwise.
  private func insert(_ inserted: [Result], at gaps: [Int], into objects: inout [Result]) {
    guard inserted.count > 16 else {
      for (rank, object) in inserted.enumerated() { objects.insert(object, at: gaps[rank] + rank) }
      return
    }
    var merged: [Result] = []
    merged.reserveCapacity(objects.count + inserted.count)
    var next = 0
    for (offset, object) in objects.enumerated() {
      while next < inserted.count, gaps[next] == offset {
        merged.append(inserted[next])
        next += 1
      }
      merged.append(object)
    }
    merged += inserted[next...]
    objects = merged
  }

  /// Whether an object is a live result: registered, not deleted, of the entity, matching.
  private func matches(_ object: ManagedObject) -> Bool {
    guard object.lifecycle == .registered, !object.isDeletedFlag, object is Result else {
      return false
    }
    guard request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
    else { return false }
    guard let predicate else { return true }
    // A predicate that throws for this object (a `MATCHES` pattern that is not a regular
    // expression) does not match it, as a fetch would have refused it.
    return (try? predicate.evaluate(with: object)) ?? false
  }

  // MARK: Order

  /// The offset of the result with `key`, found by its kept values; nil when it is not a result.
  func offset(ofKey key: Int64) -> Int? {
    guard let values = entries[key] else { return nil }
    let index = lowerBound(values, key, in: storage)
    if index < storage.count, storage[index].objectKey == key { return index }
    // Kept values out of order (a string comparison that is not a strict order): search.
    return storage.firstIndex { $0.objectKey == key }
  }

  /// The first offset in `objects` whose object orders at or after the values and key.
  func lowerBound(_ values: [FetchValue?], _ key: Int64, in objects: [Result]) -> Int {
    var low = 0
    var high = objects.count
    while low < high {
      let middle = (low + high) / 2
      let other = objects[middle].objectKey
      if order(entries[other] ?? [], other, before: values, key) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  /// Whether `a` comes before `b` by their kept values.
  func order(_ a: ManagedObject, before b: ManagedObject) -> Bool {
    order(entries[a.objectKey] ?? [], a.objectKey, before: entries[b.objectKey] ?? [], b.objectKey)
  }

  /// Whether kept values and key `a` come before `b`: sort key by sort key, then by key.
  func order(_ a: [FetchValue?], _ aKey: Int64, before b: [FetchValue?], _ bKey: Int64) -> Bool {
    for (index, sort) in sorts.enumerated() where index < a.count && index < b.count {
      let order = FetchSort.compare(a[index], b[index], sort.comparison)
      if order == .orderedSame { continue }
      return (order == .orderedAscending) == sort.ascending
    }
    return aKey < bKey
  }

  /// The indices of a longest strictly increasing subsequence of `values`.
  ///
  /// - Complexity: O(m log m).
  static func longestIncreasingRun(_ values: [Int]) -> [Int] {
    guard values.count > 1 else { return Array(values.indices) }
    var tails: [Int] = []  // indices into values: the smallest tail of each run length
    var previous = [Int](repeating: -1, count: values.count)
    for index in values.indices {
      var low = 0
      var high = tails.count
      while low < high {
        let middle = (low + high) / 2
        if values[tails[middle]] < values[index] { low = middle + 1 } else { high = middle }
      }
      if low > 0 { previous[index] = tails[low - 1] }
      if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var run: [Int] = []
    var index = tails.last ?? -1
    while index >= 0 {
      run.append(index)
      index = previous[index]
    }
    return run.reversed()
  }
}
