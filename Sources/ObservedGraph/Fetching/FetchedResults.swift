import Observation

/// A fetch request's results kept current as the context changes, each change reported: the
/// library's counterpart of Core Data's `NSFetchedResultsController` and SwiftData's `@Query`.
///
/// Made from a context and a request, it fetches once; from then on it follows the context's
/// objects-did-change events (posted by ``ObjectContext/processPendingChanges()``, and so after
/// each user event, undo, redo, rollback and save). For every object of the request's entity
/// that an event inserts, deletes, updates or refreshes, it evaluates the predicate in memory to
/// decide membership, and finds the object's place by binary search in the sort order: it never
/// fetches again, and never sorts again.
///
/// Changes to related objects count too, beyond Core Data: with the predicate
/// `category.name == 'Fiction'`, renaming a category brings its books in or takes them out; with
/// the sort key `category.name`, they move. The key paths of the predicate, the sort keys and the
/// section key path say which keys of which entities matter; from a changed related object, the
/// inverse relationships lead back to the result objects that reach it, which are checked again.
///
/// Each event that changes something delivers one ``Change``: a `CollectionDifference` that turns
/// the previous ``objects`` into the new ones, exactly, and the objects updated in place. Three
/// ways to hear it, all synchronous with the event except the stream:
///
/// - Swift Observation: the class is `Observable`; reading ``objects`` or ``sections`` inside
///   `withObservationTracking` (or a SwiftUI view's body) tracks them.
/// - ``onChange(origins:_:)``: a callback, until its token ends.
/// - ``changes``: an `AsyncStream` of changes, objects named by identifier.
///
/// Nothing is delivered for an event that changes nothing in the results (an edit of an object
/// that neither matches nor starts to, an edit of an unrelated entity).
///
/// ```swift
/// let results = try FetchedResults(
///   context: context,
///   request: FetchRequest<Book>(
///     matching: try FetchPredicate(format: "category.name == 'Fiction'"),
///     sortedBy: [FetchSort("price")]))
/// let token = results.onChange { change in
///   print(change.difference.insertions.count, "in,", change.updated.count, "updated")
/// }
/// book.price = 4
/// context.processPendingChanges()   // the callback hears book's move
/// ```
///
/// The results always include the context's unsaved changes, whatever the request's
/// ``FetchRequest/includesPendingChanges`` says; ``FetchRequest/fetchOffset`` and
/// ``FetchRequest/fetchLimit`` are not applied (the results are every matching object). The
/// sort values of each result object are read once and kept: the results find an object's old
/// place by them after its values changed. After ``ObjectContext/reset()``, which posts no
/// event, call ``refetch()``.
///
/// Like its context, the results live in one isolation domain (they are not `Sendable`); they
/// hold the context strongly, and the context holds them only through a weak subscription, so
/// releasing the results ends it.
///
/// A sort key outside the model (answered by `value(forUndefinedKey:)`) is named by no event, so
/// every change of a result object (or of an object on the way to that key) counts for it.
/// Relationships on a key path without an inverse give no way back from a changed related object:
/// a change of such an object's keys makes the results fetch again and report the difference
/// (O(n log n) instead of O(log n) for that event).
public final class FetchedResults<Result: ManagedObject>: Observable {
  /// The context whose objects the results hold.
  public let context: ObjectContext
  /// The request the results follow.
  public let request: FetchRequest<Result>
  /// The key path whose values group ``objects`` into ``sections``; nil for none.
  public let sectionKeyPath: String?

  let entity: EntityDescription
  let predicate: FetchPredicate?
  let sorts: [FetchSort]
  let dependencies: FetchedResultsDependencies

  /// The objects, in order; read through ``objects``.
  var storage: [Result] = []
  /// Each result object's kept values, by object key: the sort values, then (with a section key
  /// path) the section value. The objects are in the order of these values, then of their keys.
  var entries: [Int64: [FetchValue?]] = [:]
  private var sectionCache: [Section]?
  private let registrar = ObservationRegistrar()
  /// `\.objects`, made once: a generic class's key path is instantiated at run time each time it is
  /// written.
  private let objectsKeyPath: KeyPath<FetchedResults, [Result]> = \.objects
  private var subscription: ObservationToken?
  private var handlers: [Handler] = []
  private var streams: [Int: AsyncStream<IdentifiedChange>.Continuation] = [:]
  private var nextHandlerID = 0
  /// Changes waiting for delivery while one is delivered (a handler that causes an event), each
  /// with the origins of the changes that made it (nil: every handler hears it) and, while a
  /// handler has an origin filter, the objects after it.
  private var queue: [(change: Change, origins: Set<ChangeOrigin>?, after: [Result]?)] = []
  /// Whether a handler has an origin filter: changes it does not hear fold into the next one it
  /// does.
  var hasFilteredHandlers: Bool { handlers.contains { !$0.origins.isAll } }

  /// A handler of ``onChange(origins:_:)``.
  private struct Handler {
    let id: Int
    let origins: OriginFilter
    let call: (Change) -> Void
    /// The objects as the handler last heard of them, once it did not hear a change (its filter
    /// left the change's origins out); nil while it heard every change.
    var heard: [Result]?
    /// The objects changed in place by the changes it did not hear.
    var unheardUpdates: [Result] = []
  }
  private var isDelivering = false

  /// Fetches a request's results and keeps them current.
  ///
  /// ```swift
  /// let byCategory = try FetchedResults(
  ///   context: context,
  ///   request: FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("category.name"), FetchSort("title")]),
  ///   sectionKeyPath: "category.name")
  /// ```
  /// - Parameters:
  ///   - context: The context to follow.
  ///   - request: What to fetch; its offset and limit are not applied.
  ///   - sectionKeyPath: A key path (through to-one relationships) whose values group the objects
  ///     into ``sections``; nil for none. Sort first by it for one section per value.
  /// - Throws: What ``ObjectContext/fetch(_:)`` throws; ``ObjectGraphError`` `unknownKey` for a
  ///   section key path the entity does not have, `notToMany` for a sort key or section key path
  ///   through a to-many relationship.
  /// - Complexity: That of the fetch, plus reading each result's sort values once.
  public init(
    context: ObjectContext, request: FetchRequest<Result>, sectionKeyPath: String? = nil
  ) throws {
    self.context = context
    self.request = request
    self.sectionKeyPath = sectionKeyPath
    (entity, predicate, sorts) = try Self.resolve(request, in: context)
    var paths = FetchedResultsDependencies.keyPaths(of: predicate) + sorts.map(\.keyPath)
    if let sectionKeyPath {
      try Self.checkSectionKeyPath(sectionKeyPath, of: entity)
      paths.append(sectionKeyPath)
    }
    dependencies = FetchedResultsDependencies(entity: entity, keyPaths: paths)
    try load()
    subscription = context.onObjectsDidChange { [weak self] event in self?.absorb(event) }
  }

  /// The one place that resolves a request into its entity, predicate and sort keys.
  private static func resolve(_ request: FetchRequest<Result>, in context: ObjectContext) throws
    -> (EntityDescription, FetchPredicate?, [FetchSort])
  {
    try request.resolved(in: context)
  }

  private static func checkSectionKeyPath(_ keyPath: String, of entity: EntityDescription)
    throws
  {
    var current: EntityDescription? = entity
    for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
      guard let owner = current,
        let property = FetchedResultsDependencies.property(key, of: owner)
      else {
        throw ObjectGraphError(
          .unknownKey, entity: entity.name, key: keyPath, value: key,
          reason: "the section key path '\(keyPath)' names no property '\(key)' of "
            + "\(current?.name ?? "an attribute")")
      }
      if property.isToMany {
        throw ObjectGraphError(
          .notToMany, entity: entity.name, key: keyPath,
          reason: "a section key path cannot go through a to-many relationship: \(keyPath) has "
            + "no single value")
      }
      current = property.destination
    }
  }

  /// Fetches the results and reads each one's kept values.
  private func load() throws {
    let (objects, entries) = try fetchEntries()
    storage = objects
    self.entries = entries
    sectionCache = nil
  }

  func fetchEntries() throws -> ([Result], [Int64: [FetchValue?]]) {
    var request = request
    request.fetchLimit = 0
    request.fetchOffset = 0
    request.includesPendingChanges = true
    let objects = try context.fetch(request)
    var entries: [Int64: [FetchValue?]] = [:]
    entries.reserveCapacity(objects.count)
    for object in objects { entries[object.objectKey] = try values(of: object) }
    return (objects, entries)
  }

  /// The values kept for an object: its sort values, then its section value.
  func values(of object: ManagedObject) throws -> [FetchValue?] {
    var values = try sorts.map { try $0.value(of: object) }
    if let sectionKeyPath {
      switch try object.fetchOperand(atKeyPath: sectionKeyPath) {
      case .one(let value): values.append(value)
      case .many: values.append(nil)
      }
    }
    return values
  }

  // MARK: Reading

  /// The objects that match the request, in its order.
  ///
  /// Observable: reading it inside `withObservationTracking` (or a SwiftUI body) tracks it, and
  /// an event that inserts, removes or moves an object changes it.
  ///
  /// ```swift
  /// for book in results.objects { print(book.title) }
  /// ```
  public var objects: [Result] {
    registrar.access(self, keyPath: objectsKeyPath)
    return storage
  }

  /// The objects grouped into runs of consecutive objects whose section key path values are
  /// equal; one section of everything (named `""`) without a section key path, none when there
  /// are no objects.
  ///
  /// Sections follow the order of ``objects``: sort by the section key path first (as Core Data
  /// requires) for one section per value; otherwise a value may head several sections. Values are
  /// equal as sort keys compare them (numbers by value, strings by Swift's `==`).
  ///
  /// ```swift
  /// let results = try FetchedResults(
  ///   context: context,
  ///   request: FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("category.name")]),
  ///   sectionKeyPath: "category.name")
  /// print(results.sections.map(\.name))   // ["Fiction", "Science"]
  /// ```
  /// - Complexity: O(n) the first time it is read after a change; O(1) until the next.
  public var sections: [Section] {
    registrar.access(self, keyPath: objectsKeyPath)
    if let sectionCache { return sectionCache }
    let sections = makeSections()
    sectionCache = sections
    return sections
  }

  private func makeSections() -> [Section] {
    guard !storage.isEmpty else { return [] }
    guard sectionKeyPath != nil else {
      return [Section(name: "", range: storage.indices, objects: storage[...])]
    }
    var sections: [Section] = []
    var start = 0
    var value = entries[storage[0].objectKey]?.last ?? nil
    for index in 1...storage.count {
      let next = index < storage.count ? (entries[storage[index].objectKey]?.last ?? nil) : nil
      if index == storage.count || FetchSort.compare(value, next, .swift) != .orderedSame {
        sections.append(
          Section(
            name: Section.name(of: value), range: start..<index, objects: storage[start..<index]))
        start = index
        value = next
      }
    }
    return sections
  }

  // MARK: Delivery

  /// Calls `handler` with each change of the results until the token is invalidated or
  /// released.
  ///
  /// The handler runs synchronously inside ``ObjectContext/processPendingChanges()``, after the
  /// results are up to date; it may change the context (the change it causes is delivered after
  /// the current one, to every handler).
  ///
  /// ```swift
  /// let token = results.onChange { change in
  ///   print(change.difference.count, "rows changed")
  /// }
  /// ```
  ///
  /// With an origin filter, the handler hears the changes made by at least one change whose
  /// origin the filter admits. The results follow every change all the same: a change the
  /// handler does not hear folds into the next one it hears, whose difference then goes from
  /// the objects as the handler last heard of them to the objects now.
  ///
  /// ```swift
  /// let token = results.onChange(origins: .excluding([.merge])) { change in
  ///   animate(change.difference)   // merged changes arrive inside the next local one
  /// }
  /// ```
  /// - Parameters:
  ///   - origins: The origins of the changes heard; all by default.
  ///   - handler: Called with every change heard.
  /// - Returns: The registration's token.
  public func onChange(origins: OriginFilter = .all, _ handler: @escaping (Change) -> Void)
    -> ObservationToken
  {
    nextHandlerID += 1
    let id = nextHandlerID
    handlers.append(Handler(id: id, origins: origins, call: handler))
    return ObservationToken { [weak self] in self?.handlers.removeAll { $0.id == id } }
  }

  /// The changes of the results as an asynchronous sequence, from now on, with objects named by
  /// their identifiers (objects are not `Sendable`; read ``objects`` in the results' isolation
  /// domain for the objects themselves).
  ///
  /// The stream finishes when the results are released; a stream whose consumer stops ends its
  /// registration at the next change.
  ///
  /// ```swift
  /// for await change in results.changes {
  ///   print(change.difference.insertions.count, "inserted")
  /// }
  /// ```
  public var changes: AsyncStream<IdentifiedChange> {
    let (stream, continuation) = AsyncStream<IdentifiedChange>.makeStream()
    nextHandlerID += 1
    streams[nextHandlerID] = continuation
    return stream
  }

  /// Fetches the results again and delivers the difference from the objects held: after
  /// ``ObjectContext/reset()`` (which posts no event), or after changes made with
  /// the context's observation bypassed.
  ///
  /// ```swift
  /// context.reset()
  /// try results.refetch()
  /// ```
  /// - Throws: What ``ObjectContext/fetch(_:)`` throws; the results are unchanged then.
  /// - Complexity: That of the fetch, plus O((n + m) · d) for the difference of d changes.
  public func refetch() throws {
    let (objects, entries) = try fetchEntries()
    replace(with: objects, entries: entries)
  }

  /// Puts fetched objects in place and delivers the difference, made by changes of `origins`
  /// (nil: heard by every handler).
  func replace(
    with objects: [Result], entries: [Int64: [FetchValue?]], origins: Set<ChangeOrigin>? = nil
  ) {
    let difference = objects.difference(from: storage) { $0 === $1 }.inferringMoves()
    self.entries = entries
    if !difference.isEmpty {
      mutate { $0 = objects }
      deliver(Change(difference: difference, updated: [], updatedOffsets: []), origins: origins)
    }
  }

  /// Changes the objects, telling Swift Observation before and after.
  func mutate(_ body: (inout [Result]) -> Void) {
    registrar.withMutation(of: self, keyPath: objectsKeyPath) {
      body(&storage)
      sectionCache = nil
    }
  }

  /// Hands a change, made by changes of `origins` (nil: heard by every handler), to every
  /// handler whose filter admits one of them and to every stream, in order: a change caused by a
  /// handler waits until the current one has reached everyone. Called right after the change is
  /// made to the objects.
  func deliver(_ change: Change, origins: Set<ChangeOrigin>?) {
    checkInvariants()
    queue.append((change, origins, hasFilteredHandlers ? storage : nil))
    guard !isDelivering else { return }
    isDelivering = true
    defer { isDelivering = false }
    while !queue.isEmpty {
      let (next, origins, after) = queue.removeFirst()
      for id in handlers.map(\.id) {
        guard let index = handlers.firstIndex(where: { $0.id == id }) else { continue }
        let handler = handlers[index]
        if let after, let origins, !handler.origins.admitsAny(of: origins) {
          // Not heard: the handler's view stays where it was.
          if handler.heard == nil {
            guard let before = after.applying(next.difference.inverse()) else {
              preconditionFailure("FetchedResults: a change does not apply backwards")
            }
            handlers[index].heard = before
          }
          handlers[index].unheardUpdates += next.updated
        } else if let heard = handler.heard, let after {
          handlers[index].heard = nil
          handlers[index].unheardUpdates = []
          let folded = Self.change(
            from: heard, to: after, updated: handler.unheardUpdates + next.updated)
          if !folded.isEmpty { handler.call(folded) }
        } else {
          handler.call(next)
        }
      }
      guard !streams.isEmpty else { continue }
      let identified = IdentifiedChange(next)
      for (id, continuation) in streams {
        if case .terminated = continuation.yield(identified) { streams[id] = nil }
      }
    }
  }

  /// The change from `old` to `new` objects, with the objects of `updated` that are in `new` and
  /// did not move as changed in place: changes a handler did not hear, folded with the one it
  /// hears.
  private static func change(from old: [Result], to new: [Result], updated: [Result]) -> Change {
    let difference = new.difference(from: old) { $0 === $1 }.inferringMoves()
    var inserted = Set<ObjectIdentifier>()
    for case .insert(_, let element, _) in difference.insertions {
      inserted.insert(ObjectIdentifier(element))
    }
    var offsets: [ObjectIdentifier: Int] = [:]
    for (offset, object) in new.enumerated() { offsets[ObjectIdentifier(object)] = offset }
    var inPlace: [(offset: Int, object: Result)] = []
    var seen = Set<ObjectIdentifier>()
    for object in updated {
      let id = ObjectIdentifier(object)
      guard !inserted.contains(id), let offset = offsets[id], seen.insert(id).inserted else {
        continue
      }
      inPlace.append((offset, new[offset]))
    }
    inPlace.sort { $0.offset < $1.offset }
    return Change(
      difference: difference, updated: inPlace.map(\.object), updatedOffsets: inPlace.map(\.offset))
  }

  deinit {
    for continuation in streams.values { continuation.finish() }
  }

  // MARK: Invariants

  /// Before each delivery, in builds with `OBSERVEDGRAPH_INVARIANTS`: as many kept values as
  /// objects (O(1)); while full checks are on (``FullChecks/isOn``), the objects are in order,
  /// each with its kept values (O(results)).
  func checkInvariants() {
    #if OBSERVEDGRAPH_INVARIANTS
      precondition(
        entries.count == storage.count,
        "FetchedResults: \(entries.count) kept values for \(storage.count) objects")
      guard FullChecks.isOn else { return }
      for index in storage.indices {
        precondition(
          entries[storage[index].objectKey] != nil,
          "FetchedResults: \(storage[index].objectID) has no kept values")
        if index > 0 {
          precondition(
            order(storage[index - 1], before: storage[index]),
            "FetchedResults: \(storage[index - 1].objectID) and \(storage[index].objectID) are "
              + "out of order")
        }
      }
    #endif
  }
}
