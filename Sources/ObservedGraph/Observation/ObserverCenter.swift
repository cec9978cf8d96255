/// Who listens to a context: per-key observers (counted, so the mutation path skips delivery with
/// one test when there are none), context-wide taps (change recorders), and the subscribers of
/// objects-did-change events, with the news pending for the next event.
///
/// Each object's ``ObserverTable`` and ``PendingState`` are this part's to change.
final class ObserverCenter {
  /// Registered observers, user and internal.
  private(set) var observerCount = 0
  /// Registered internal links (of key-path and dependent-key observations), counted among
  /// ``observerCount``: the only observers that hear a change in a transaction's body.
  private(set) var internalObserverCount = 0
  /// Context-wide listeners of every change.
  /// Read by every set that may be quiet: its reads skip the dynamic exclusivity check.
  @exclusivity(unchecked) private(set) var taps: [Tap] = []
  /// Objects with news for the next objects-did-change event, in the order they got it.
  @exclusivity(unchecked) private(set) var pendingObjects: [ManagedObject] = []
  /// The origins of the pending news (see ``OriginLedger``).
  @exclusivity(unchecked) var origins = OriginLedger()
  private var subscribers: [Subscriber] = []
  private var nextID = 0
  /// Streams made by `objectsDidChange`, finished when the context goes away.
  private var streams: [Int: AsyncStream<ObjectsDidChange>.Continuation] = [:]
  #if OBSERVEDGRAPH_INVARIANTS
    private var fullChecks = FullCheckSchedule()
  #endif

  /// A context-wide listener of every change (see ``ChangeRecorder``).
  struct Tap {
    let id: Int
    let receive: (ManagedObject, String, RawChange) -> Void
    let lifecycle: (ManagedObject, String) -> Void
  }

  /// A subscriber of objects-did-change events.
  struct Subscriber {
    let id: Int
    let receive: (ObjectsDidChange) -> ReceiveResult
  }

  /// Whether a subscriber wants more events.
  enum ReceiveResult {
    case keep, remove
  }

  /// The single test the mutation path makes when nobody listens.
  @inline(__always)
  var isObserved: Bool { observerCount > 0 || !taps.isEmpty }
  /// Whether a tap (a change recorder, an internal listener) hears every change.
  var hasTaps: Bool { !taps.isEmpty }

  // MARK: Observers

  func addObserver(_ observer: Observer, to object: ManagedObject, slot: Int) {
    let table = object.observers ?? ObserverTable(owner: object)
    object.observers = table
    table.add(observer, slot: slot)
    observerCount += 1
    if observer.isInternal { internalObserverCount += 1 }
  }

  func removeObserver(_ observer: Observer, from object: ManagedObject, slot: Int) {
    guard observer.isValid else { return }
    observer.isValid = false
    guard let table = object.observers else { return }
    table.remove(observer, slot: slot)
    if table.isEmpty { object.observers = nil }
    observerCount -= 1
    if observer.isInternal { internalObserverCount -= 1 }
  }

  /// Removes many observers at once, each table slot compacted once: a path observation's links
  /// go in time proportional to their number, however many share a slot.
  func removeObservers(_ links: [(object: ManagedObject?, slot: Int, observer: Observer)]) {
    var touched: [SlotKey: (ObserverTable, Int)] = [:]
    for link in links where link.observer.isValid {
      link.observer.isValid = false
      observerCount -= 1
      if link.observer.isInternal { internalObserverCount -= 1 }
      guard let object = link.object, let table = object.observers else { continue }
      touched[SlotKey(object, link.slot)] = (table, link.slot)
    }
    for (table, slot) in touched.values {
      table.removeInvalid(slot: slot)
      if table.isEmpty { table.owner.observers = nil }
    }
  }

  /// Ends every observation of an object (reset, or the context going away).
  func dropObservers(of object: ManagedObject) {
    guard let table = object.observers else { return }
    for observers in table.bySlot.values {
      for observer in observers where observer.isValid {
        observer.isValid = false
        observerCount -= 1
        if observer.isInternal { internalObserverCount -= 1 }
      }
    }
    object.observers = nil
  }

  func addTap(
    edit: @escaping (ManagedObject, String, RawChange) -> Void,
    lifecycle: @escaping (ManagedObject, String) -> Void
  ) -> Int {
    nextID += 1
    taps.append(Tap(id: nextID, receive: edit, lifecycle: lifecycle))
    return nextID
  }

  func removeTap(_ id: Int) {
    taps.removeAll { $0.id == id }
  }

  func hasTap(_ id: Int) -> Bool { taps.contains { $0.id == id } }

  // MARK: Pending news

  func notePending(_ object: ManagedObject, _ slot: Int) {
    list(object)
    object.insertPending(slot)
  }

  func notePending(_ change: LifecycleChange, _ object: ManagedObject) {
    list(object)
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

  private func list(_ object: ManagedObject) {
    guard !object.pending.listed else { return }
    object.pending.listed = true
    pendingObjects.append(object)
  }

  /// The news since the last event, coalesced per object, and the pending state cleared; nil when
  /// there is nothing to post.
  func takeEvent() -> ObjectsDidChange? {
    guard !pendingObjects.isEmpty else { return nil }
    var event = ObjectsDidChange(inserted: [], updated: [:], deleted: [], refreshed: [])
    let objects = pendingObjects
    let ledger = origins
    pendingObjects.removeAll()
    origins.reset()
    var table: [ObjectID: [String?: Set<ChangeOrigin>]] = [:]
    for object in objects {
      let pending = object.pending
      let slots = object.pendingSlots
      // Once mixed, each change's origins are kept per object and slot.
      if ledger.isMixed {
        let id = object.objectID
        if pending.inserted != pending.deleted {
          table[id] = [nil: ledger.origins(object.changes.pendingOrigins(-1))]
        } else if !pending.inserted {
          for slot in slots {
            table[id, default: [:]][object.entity.properties[slot].name] = ledger.origins(
              object.changes.pendingOrigins(slot))
          }
        }
      }
      object.clearPending()
      switch (pending.inserted, pending.deleted) {
      case (true, true): continue
      case (true, false): event.inserted.insert(object.objectID)
      case (false, true): event.deleted.insert(object.objectID)
      case (false, false):
        guard !slots.isEmpty else { continue }
        event.updated[object.objectID] = Set(slots.map { object.entity.properties[$0].name })
      }
    }
    guard !event.isEmpty else { return nil }
    event.originTable = ledger.isMixed ? .perKey(table) : .one(ledger.uniform)
    event.originTable = event.simplifiedOrigins()
    return event
  }

  /// Forgets pending news (reset).
  func discardPending() {
    for object in pendingObjects { object.clearPending() }
    pendingObjects.removeAll()
    origins.reset()
  }

  // MARK: Subscribers

  func subscribe(_ receive: @escaping (ObjectsDidChange) -> ReceiveResult) -> Int {
    nextID += 1
    subscribers.append(Subscriber(id: nextID, receive: receive))
    return nextID
  }

  func unsubscribe(_ id: Int) {
    subscribers.removeAll { $0.id == id }
    streams[id] = nil
  }

  /// A stream of events; its subscription ends when the stream terminates (the consumer stopped
  /// or was cancelled) — at the next event at the latest — or when the context goes away.
  func makeStream(origins: OriginFilter) -> AsyncStream<ObjectsDidChange> {
    let (stream, continuation) = AsyncStream<ObjectsDidChange>.makeStream()
    let id = subscribe { event in
      let kept = origins.isAll ? event : event.filtered(by: origins)
      if !kept.isEmpty, case .terminated = continuation.yield(kept) { return .remove }
      return .keep
    }
    streams[id] = continuation
    return stream
  }

  /// The number of subscribers, streams included.
  var subscriberCount: Int { subscribers.count }

  /// Calls every subscriber with the event; subscribers added meanwhile wait for the next one,
  /// and ones removed meanwhile are not called.
  func post(_ event: ObjectsDidChange) {
    for subscriber in subscribers where subscribers.contains(where: { $0.id == subscriber.id }) {
      if case .remove = subscriber.receive(event) { unsubscribe(subscriber.id) }
    }
  }

  /// Finishes every stream (the context is going away).
  func finishStreams() {
    for continuation in streams.values { continuation.finish() }
    streams.removeAll()
  }

  // MARK: Invariants

  /// After every mutation: the observer count is not negative and each object the mutation
  /// touched that has news is listed for the next event (O(touched)); while full checks are on,
  /// every 64 mutations, a full scan.
  func checkAfterMutation(_ touched: [ManagedObject]) {
    #if OBSERVEDGRAPH_INVARIANTS
      precondition(observerCount >= 0, "observer count \(observerCount) is negative")
      for object in touched where object.hasPendingNews {
        precondition(object.pending.listed, "\(object.objectID) has news but is not listed")
      }
      if fullChecks.isDue() { checkInvariants() }
    #endif
  }

  /// The observer count is not negative, every pending object is listed once and has news.
  func checkInvariants() {
    precondition(observerCount >= 0, "observer count \(observerCount) is negative")
    precondition(
      (0...observerCount).contains(internalObserverCount),
      "internal observer count \(internalObserverCount) outside 0...\(observerCount)")
    var seen = Set<ObjectIdentifier>()
    for object in pendingObjects {
      precondition(
        seen.insert(ObjectIdentifier(object)).inserted, "\(object.objectID) listed twice")
      precondition(object.pending.listed, "\(object.objectID) pending but not marked listed")
    }
    for (id, _) in streams {
      precondition(subscribers.contains { $0.id == id }, "stream \(id) has no subscriber")
    }
  }
}
