/// The objects one save writes, by identifier: what the will-save and did-save events of a
/// context carry (Core Data's `NSManagedObjectContextWillSave` and `…DidSave`).
///
/// ```swift
/// let token = context.onDidSave { saved in
///   print("saved \(saved.inserted.count) new objects")
/// }
/// ```
public struct SavedObjects: Hashable, Sendable {
  /// Objects saved for the first time, in key order.
  public let inserted: [ObjectID]
  /// Saved objects whose persistent values changed, in key order.
  public let updated: [ObjectID]
  /// Saved objects the save deleted, in key order.
  public let deleted: [ObjectID]
  /// Who saved: the context's ``ObjectContext/author`` at the save (Core Data's
  /// `transactionAuthor`).
  public let author: String?
  /// The origin of every object change, when they have one.
  private let origin: ChangeOrigin?
  /// Each object change's origins, when they have several.
  private let objectOrigins: [ObjectID: Set<ChangeOrigin>]

  /// Whether the save writes nothing.
  var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

  init(_ changes: ChangeSet, author: String?) {
    inserted = changes.inserted
    updated = changes.updated.map(\.object)
    deleted = changes.deleted
    self.author = author
    origin = changes.origin
    objectOrigins = changes.objectOrigins
  }

  /// The origins of the save's changes (see ``ChangeOrigin``).
  ///
  /// ```swift
  /// try context.withOrigin("import") { importBooks() }
  /// book.title = "Dune"
  /// try context.save()   // did-save subscribers see origins ["import", "local"]
  /// ```
  public var origins: Set<ChangeOrigin> {
    if let origin { return [origin] }
    return objectOrigins.values.reduce(into: []) { $0.formUnion($1) }
  }

  /// The origins of one object change of the save: an insert's or delete's origin, or those of
  /// the changes of an updated object's saved keys since the last save. Changes made to an
  /// object after its insert are part of the insert.
  ///
  /// ```swift
  /// #expect(saved.origins(of: book.objectID) == ["import"])
  /// ```
  /// - Parameter object: An object the save inserts, updates or deletes.
  /// - Returns: Its change's origins; empty for an object the save does not write.
  public func origins(of object: ObjectID) -> Set<ChangeOrigin> {
    if let origin {
      let saves = inserted.contains(object) || updated.contains(object) || deleted.contains(object)
      return saves ? [origin] : []
    }
    return objectOrigins[object] ?? []
  }
}

/// The subscribers of a context's save events.
struct SaveSubscribers {
  enum Phase { case willSave, didSave }

  private var subscribers: [(id: Int, phase: Phase, handler: (SavedObjects) -> Void)] = []
  private var nextID = 0

  mutating func add(_ phase: Phase, _ handler: @escaping (SavedObjects) -> Void) -> Int {
    nextID += 1
    subscribers.append((nextID, phase, handler))
    return nextID
  }

  mutating func remove(_ id: Int) {
    subscribers.removeAll { $0.id == id }
  }

  func post(_ phase: Phase, _ saved: SavedObjects) {
    for subscriber in subscribers where subscriber.phase == phase { subscriber.handler(saved) }
  }
}

extension ObjectContext {
  /// Calls `handler` at the start of every save that writes something, after the objects'
  /// ``ManagedObject/willSave()`` and validation, before the store writes, until the token is
  /// invalidated or released.
  ///
  /// ```swift
  /// let token = context.onWillSave { saved in log("saving \(saved.updated)") }
  /// ```
  /// - Parameter handler: Called synchronously from ``save()`` with what it is about to write.
  /// - Returns: The subscription's token.
  public func onWillSave(_ handler: @escaping (SavedObjects) -> Void) -> ObservationToken {
    let id = saveSubscribers.add(.willSave, handler)
    return ObservationToken { [link] in link.context?.saveSubscribers.remove(id) }
  }

  /// Calls `handler` after every save that wrote something, once the context committed, until the
  /// token is invalidated or released. A failed save calls nothing.
  ///
  /// ```swift
  /// let token = context.onDidSave { saved in
  ///   sendToServer(saved.inserted + saved.updated)   // identifiers are Sendable
  /// }
  /// ```
  /// - Parameter handler: Called synchronously from ``save()`` with what it wrote.
  /// - Returns: The subscription's token.
  public func onDidSave(_ handler: @escaping (SavedObjects) -> Void) -> ObservationToken {
    let id = saveSubscribers.add(.didSave, handler)
    return ObservationToken { [link] in link.context?.saveSubscribers.remove(id) }
  }
}
