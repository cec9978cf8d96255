/// One context-wide event: what was inserted, updated (and which keys), deleted and refreshed since
/// the previous event, coalesced per object.
///
/// An object inserted and then changed in the same event is only *inserted*; inserted and deleted,
/// it appears nowhere; changed and deleted, it is *deleted*. The event holds identifiers, so it is
/// `Sendable`; look objects up with ``ObjectContext/object(with:)``.
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

  /// Whether the event reports nothing.
  public var isEmpty: Bool {
    inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty
  }

  /// Sorted, stable text: `inserted [..] updated [Book/c1/3: price, title] deleted [..]`.
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
  /// A subscriber of objects-did-change events.
  struct Subscriber {
    let id: Int
    let receive: (ObjectsDidChange) -> Void
  }

  /// Posts one objects-did-change event with everything inserted, updated and deleted since the
  /// last one, and ends the current undo group (one user event is one undo step).
  ///
  /// Nothing pending: nothing is posted.
  ///
  /// ```swift
  /// book.title = "Dune"
  /// context.processPendingChanges()   // subscribers hear: updated [Book: title]
  /// ```
  /// - Complexity: O(objects changed since the last event).
  public func processPendingChanges() {
    closeUndoEvent()
    guard !pendingObjects.isEmpty else { return }
    var event = ObjectsDidChange(inserted: [], updated: [:], deleted: [], refreshed: [])
    let objects = pendingObjects
    pendingObjects.removeAll()
    for object in objects {
      let pending = object.pending
      object.pending = PendingState()
      switch (pending.inserted, pending.deleted) {
      case (true, true): continue
      case (true, false): event.inserted.insert(object.objectID)
      case (false, true): event.deleted.insert(object.objectID)
      case (false, false):
        guard !pending.slots.isEmpty else { continue }
        event.updated[object.objectID] = Set(
          pending.slots.slots.map { object.entity.properties[$0].name })
      }
    }
    guard !event.isEmpty else { return }
    for subscriber in didChangeSubscribers
    where didChangeSubscribers.contains(where: { $0.id == subscriber.id }) {
      subscriber.receive(event)
    }
  }

  /// Calls `handler` with every objects-did-change event until the token is invalidated or released.
  ///
  /// ```swift
  /// let token = context.onObjectsDidChange { event in print(event) }
  /// ```
  /// - Parameter handler: Called synchronously from ``processPendingChanges()``.
  /// - Returns: The subscription's token.
  public func onObjectsDidChange(_ handler: @escaping (ObjectsDidChange) -> Void)
    -> ObservationToken
  {
    nextSubscriberID += 1
    let id = nextSubscriberID
    didChangeSubscribers.append(Subscriber(id: id, receive: handler))
    return ObservationToken { [weak self] in
      self?.didChangeSubscribers.removeAll { $0.id == id }
    }
  }

  /// Objects-did-change events as an asynchronous sequence, from now on. The stream finishes when
  /// the context is released.
  ///
  /// ```swift
  /// for await event in context.objectsDidChange { print(event.inserted.count) }
  /// ```
  public var objectsDidChange: AsyncStream<ObjectsDidChange> {
    let (stream, continuation) = AsyncStream<ObjectsDidChange>.makeStream()
    nextSubscriberID += 1
    let id = nextSubscriberID
    didChangeSubscribers.append(Subscriber(id: id, receive: { continuation.yield($0) }))
    streamContinuations.append(continuation)
    continuation.onTermination = { _ in }
    return stream
  }

  // MARK: Pending news

  func notePending(_ object: ManagedObject, _ slot: Int) {
    if !object.pending.listed {
      object.pending.listed = true
      pendingObjects.append(object)
    }
    object.pending.slots.insert(slot)
  }

  func notePending(_ change: LifecycleChange, _ object: ManagedObject) {
    if !taps.isEmpty {
      for tap in taps { tap.lifecycle(object, "\(change)") }
    }
    if !object.pending.listed {
      object.pending.listed = true
      pendingObjects.append(object)
    }
    switch change {
    case .insert:
      if object.pending.deleted {
        object.pending.deleted = false
      } else {
        object.pending.inserted = true
      }
    case .uninsert, .delete:
      object.pending.deleted = true
    case .undelete:
      if object.pending.deleted && !object.pending.inserted {
        object.pending.deleted = false
      } else {
        object.pending.inserted = true
        object.pending.deleted = false
      }
    }
  }
}
