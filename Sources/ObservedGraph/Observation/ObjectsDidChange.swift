/// One context-wide event: what was inserted, updated (and which keys), deleted and refreshed since
/// the previous event, coalesced per object.
///
/// An object inserted and then changed in the same event is only *inserted*; inserted and deleted,
/// it appears nowhere; changed and deleted, it is *deleted*. The event holds identifiers, so it is
/// `Sendable`; look objects up with ``ObjectContext/object(with:)``.
///
/// Each change keeps its origin (see ``ChangeOrigin``): ``origins`` gives the event's,
/// ``origins(of:key:)`` those of one object or key. An inserted or deleted object's origins are
/// those of its insert or delete; changes folded into an insert are not named apart.
///
/// ```swift
/// let token = context.onObjectsDidChange { event in
///   print("inserted \(event.inserted.count), updated \(event.updated.keys.count)")
/// }
/// ```
public struct ObjectsDidChange: Sendable, Equatable, CustomStringConvertible {
  /// Objects inserted since the last event.
  public var inserted: Set<ObjectID>
  /// Objects changed since the last event (not inserted or deleted in it), with the changed keys.
  public var updated: [ObjectID: Set<String>]
  /// Objects deleted since the last event.
  public var deleted: Set<ObjectID>
  /// Objects whose values were refreshed from their store.
  public var refreshed: Set<ObjectID>
  /// Where the changes came from: one origin for the whole event (nil for an empty one), or,
  /// once several origins made it, per object and key (nil: the insert or delete).
  var originTable: OriginTable = .one(nil)

  /// The origins of an event's changes.
  enum OriginTable: Sendable, Equatable {
    case one(ChangeOrigin?)
    case perKey([ObjectID: [String?: Set<ChangeOrigin>]])
  }

  init(
    inserted: Set<ObjectID>, updated: [ObjectID: Set<String>], deleted: Set<ObjectID>,
    refreshed: Set<ObjectID>, originTable: OriginTable = .one(nil)
  ) {
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
    self.refreshed = refreshed
    self.originTable = originTable
  }

  /// The origins of the event's changes.
  ///
  /// ```swift
  /// try context.withOrigin("import") { book.title = "Dune" }
  /// author.name = "Frank"
  /// context.processPendingChanges()   // subscribers hear an event whose origins are [import, local]
  /// ```
  public var origins: Set<ChangeOrigin> {
    switch originTable {
    case .one(let origin): return origin.map { [$0] } ?? []
    case .perKey(let table):
      return table.values.reduce(into: []) { $0.formUnion($1.values.joined()) }
    }
  }

  /// The origins of the changes of one object the event names, or of one of its keys.
  ///
  /// ```swift
  /// #expect(event.origins(of: book.objectID, key: "title") == ["import"])
  /// ```
  /// - Parameters:
  ///   - object: An object the event names.
  ///   - key: One of its keys in ``updated``; nil for all of its changes (an inserted or deleted
  ///     object: its insert's or delete's).
  /// - Returns: The origins; empty when the event does not name the object, or does not name
  ///   the key among the object's updated keys.
  public func origins(of object: ObjectID, key: String? = nil) -> Set<ChangeOrigin> {
    // A key is named only as a key of an updated object; an object, in any of the sets.
    let named =
      if let key {
        updated[object]?.contains(key) == true
      } else {
        updated[object] != nil || inserted.contains(object) || deleted.contains(object)
          || refreshed.contains(object)
      }
    guard named else { return [] }
    switch originTable {
    case .one(let origin): return origin.map { [$0] } ?? []
    case .perKey(let table):
      guard let entries = table[object] else { return [] }
      if let key { return entries[key] ?? [] }
      if updated[object] == nil { return entries[nil] ?? [] }
      return entries.values.reduce(into: []) { $0.formUnion($1) }
    }
  }

  /// The part of the event whose changes the filter admits: each inserted, deleted or refreshed
  /// object whose insert, delete or refresh it admits, and each updated key with a change it
  /// admits.
  ///
  /// - Parameter filter: The origins to keep.
  /// - Returns: The event restricted to them (perhaps empty).
  public func filtered(by filter: OriginFilter) -> ObjectsDidChange {
    switch originTable {
    case .one(let origin):
      guard let origin, !filter.admits(origin) else { return self }
      return ObjectsDidChange(inserted: [], updated: [:], deleted: [], refreshed: [])
    case .perKey(let table):
      var kept = ObjectsDidChange(inserted: [], updated: [:], deleted: [], refreshed: [])
      var keptTable: [ObjectID: [String?: Set<ChangeOrigin>]] = [:]
      func admitted(_ object: ObjectID, _ key: String?) -> Bool {
        guard let origins = table[object]?[key], filter.admitsAny(of: origins) else {
          return false
        }
        keptTable[object, default: [:]][key] = origins
        return true
      }
      kept.inserted = inserted.filter { admitted($0, nil) }
      kept.deleted = deleted.filter { admitted($0, nil) }
      kept.refreshed = refreshed.filter { admitted($0, nil) }
      for (object, keys) in updated {
        let keys = keys.filter { admitted(object, $0) }
        if !keys.isEmpty { kept.updated[object] = keys }
      }
      kept.originTable = .perKey(keptTable)
      kept.originTable = kept.simplifiedOrigins()
      return kept
    }
  }

  /// The table as one origin when the changes have one.
  func simplifiedOrigins() -> OriginTable {
    guard case .perKey = originTable else { return originTable }
    let all = origins
    return all.count <= 1 ? .one(all.first) : originTable
  }

  /// Whether the event reports nothing.
  public var isEmpty: Bool {
    inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty
  }

  /// Sorted, stable text: `inserted [..] updated [Book#3: price title] deleted [..]`.
  public var description: String {
    func ids(_ set: Set<ObjectID>) -> String {
      set.map(\.description).sorted().joined(separator: ", ")
    }
    let updates = updated.map { "\($0.key): \($0.value.sorted().joined(separator: " "))" }.sorted()
    return "inserted [\(ids(inserted))] updated [\(updates.joined(separator: ", "))] "
      + "deleted [\(ids(deleted))] refreshed [\(ids(refreshed))]"
  }
}

extension ObjectContext {
  /// Posts one objects-did-change event with everything inserted, updated and deleted since the
  /// last one, and ends the current undo group (one user event is one undo step).
  ///
  /// Nothing pending: nothing is posted. The event names objects by identifier; an object that
  /// left the context in the event (undo of its insert, a delete that a save then committed) is
  /// named under `deleted`, and ``object(with:)`` no longer finds it.
  ///
  /// ```swift
  /// book.title = "Dune"
  /// context.processPendingChanges()   // subscribers hear: updated [Book#3: title]
  /// ```
  ///
  /// In a transaction's body it does nothing: the transaction's commit posts its event (see
  /// ``transaction(actionName:origin:_:)``).
  /// - Complexity: O(objects changed since the last event).
  public func processPendingChanges() {
    // A transaction's body: its commit posts.
    guard journal == nil else { return }
    recorder.closeEvent()
    // Nobody to tell: the news is dropped without making the event, however many objects it names.
    guard center.subscriberCount > 0 else { return center.discardPending() }
    guard let event = center.takeEvent() else { return }
    center.post(event)
  }

  /// Calls `handler` with every objects-did-change event until the token is invalidated or released.
  ///
  /// ```swift
  /// let token = context.onObjectsDidChange { event in print(event) }
  /// ```
  /// With an origin filter, the handler gets each event restricted to the changes the filter
  /// admits (``ObjectsDidChange/filtered(by:)``), and no call for an event with none.
  ///
  /// ```swift
  /// let token = context.onObjectsDidChange(origins: .excluding(["import"])) { event in
  ///   markDocumentEdited(event)
  /// }
  /// ```
  /// - Parameters:
  ///   - origins: The origins of the changes heard; all by default.
  ///   - handler: Called synchronously from ``processPendingChanges()``.
  /// - Returns: The subscription's token.
  public func onObjectsDidChange(
    origins: OriginFilter = .all, _ handler: @escaping (ObjectsDidChange) -> Void
  ) -> ObservationToken {
    let id = center.subscribe { event in
      if origins.isAll {
        handler(event)
      } else {
        let kept = event.filtered(by: origins)
        if !kept.isEmpty { handler(kept) }
      }
      return .keep
    }
    // Tokens hold the context's link, not the context: a weak reference would move all of the
    // context's reference counting to the slow path.
    return ObservationToken { [link] in link.context?.center.unsubscribe(id) }
  }

  /// Objects-did-change events as an asynchronous sequence, from now on.
  ///
  /// The stream finishes when the context is released. A stream whose consumer stops or is
  /// cancelled ends its subscription (at the next event at the latest), so abandoned streams cost
  /// nothing.
  ///
  /// ```swift
  /// for await event in context.objectsDidChange { print(event.inserted.count) }
  /// ```
  public var objectsDidChange: AsyncStream<ObjectsDidChange> {
    center.makeStream(origins: .all)
  }

  /// Objects-did-change events as an asynchronous sequence, from now on, each restricted to the
  /// changes whose origin `origins` admits; an event with none is not yielded.
  ///
  /// ```swift
  /// for await event in context.objectsDidChange(origins: .only([.merge])) { refreshBadge(event) }
  /// ```
  /// - Parameter origins: The origins of the changes heard.
  /// - Returns: The stream; it ends as ``objectsDidChange`` does.
  public func objectsDidChange(origins: OriginFilter) -> AsyncStream<ObjectsDidChange> {
    center.makeStream(origins: origins)
  }
}
