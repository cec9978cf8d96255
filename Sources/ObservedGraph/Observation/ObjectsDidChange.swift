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
  /// - Parameter handler: Called synchronously from ``processPendingChanges()``.
  /// - Returns: The subscription's token.
  public func onObjectsDidChange(_ handler: @escaping (ObjectsDidChange) -> Void)
    -> ObservationToken
  {
    let id = center.subscribe { event in
      handler(event)
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
    center.makeStream()
  }
}
