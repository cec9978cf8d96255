import Foundation
import UndoLog

/// The scratchpad that owns a graph of managed objects: it inserts and deletes them, keeps both
/// sides of every relationship in step, tracks what changed, tells observers, and records undo
/// steps.
///
/// A context and its objects live in one isolation domain (a context is not `Sendable`); any number
/// of contexts can share an ``ObjectModel``. Without a persistent store, a context has an
/// in-memory store of its own: its objects' ``ObjectID``s name that store.
///
/// ```swift
/// let context = ObjectContext(model: model)
/// let fiction = context.insert(BookCategory.self)
/// let book = context.insert(Book.self)
/// book.category = fiction          // fiction.books now contains book
/// try context.delete(fiction)      // delete rules run now
/// ```
///
/// A context is made of owned parts, each with its own invariant checks: the object registry
/// (identifiers, which objects are held strongly), the change tracker (what a save writes), the
/// observer center (who listens), the undo recorder (steps into the ``undoLog``) and the faulting
/// state (faults waiting to load, recently loaded members, the idle loader, fetched properties'
/// results). Every change goes through one mutation path; see Docs/Architecture.md.
public final class ObjectContext {
  /// The model the context's objects follow.
  public let model: ObjectModel
  /// The link every object of the context holds; cleared when the context goes away.
  let link: ContextLink
  /// Objects by identifier.
  let registry: ObjectRegistry
  /// Unsaved changes.
  let tracker = ChangeTracker()
  /// Observers, change recorders and objects-did-change subscribers.
  let center = ObserverCenter()
  /// Undo steps.
  let recorder: UndoRecorder
  /// Faulting and loading: pending faults, recently loaded members, the idle loader, load
  /// conflicts, fetch batch sizes, fetched properties' results.
  @exclusivity(unchecked) var faulting = FaultingState()
  /// Who hears the context's saves.
  var saveSubscribers = SaveSubscribers()
  /// How many transaction bodies and commit deliveries are running: a transaction inside
  /// another, or started by an observer of a commit's delivery, joins its undo group and event.
  var actionDepth = 0
  /// What the open transaction changed, while a transaction's body runs (or its changes are
  /// being taken back); nil otherwise. Every change is held back from listeners outside the
  /// library meanwhile.
  @exclusivity(unchecked) var journal: TransactionJournal?
  /// The origins in force when each running undo or redo began, innermost last.
  var originsBeforeReplay: [ChangeOrigin] = []
  /// The properties and memberships whose latest change came from an origin the undo log does
  /// not track (see ``trackedOrigins``).
  var untracked = UntrackedChanges()
  /// The origins whose changes the undo log records (see ``trackedOrigins``).
  var trackedOriginsStorage: Set<ChangeOrigin> = [.local]
  /// Who hears the properties an undo or redo leaves alone (``onUndoSkip(_:)``).
  var undoSkipHandlers: [(id: Int, handler: (UndoSkip) -> Void)] = []
  var nextUndoSkipHandlerID = 0
  /// ``undoOverwritesUntrackedChanges``.
  var overwritesUntracked = false
  /// Whether a thrown transaction's changes are being taken back: every one of them, whatever
  /// untracked origin wrote meanwhile.
  var takesBackTransaction = false
  /// How many changes undo and redo have left alone so far (``onUndoSkip(_:)``).
  var skipsReported = 0
  /// What the replay being planned leaves alone, reported once it is applied.
  var plannedSkips: [UndoSkip] = []
  /// While a transaction records in a log of its own (``attachPrivateLog(_:over:)``): the
  /// context's own undo log beneath it, if any.
  var logBeneathPrivate: UndoLog??
  /// Who saves: named in every save's events (``SavedObjects/author``), as Core Data's
  /// `transactionAuthor`. Nil by default.
  ///
  /// ```swift
  /// context.author = "importer"
  /// ```
  public var author: String?
  /// The objects whose delete is taking its path (innermost last): deleting one of them again,
  /// from an observer of its delete's changes, does nothing (see ``delete(_:)``).
  var deletesUnderWay: [ObjectIdentifier] = []
  /// Open manual will/did brackets.
  @exclusivity(unchecked) var brackets = BracketTable()
  /// The class and entity of the last typed insert (see `entity(for:)`).
  @exclusivity(unchecked) private var lastInsertedEntity:
    (type: ObjectIdentifier, entity: EntityDescription)?
  /// Counts writes to any object's storage: the mutation path plans again when an observer's prior
  /// call changed the graph between planning and applying.
  var generation: UInt64 {
    get { link.generation }
    set { link.generation = newValue }
  }
  /// The store the context saves to and loads faults from; nil for a context made with
  /// ``init(model:participatesInSwiftObservation:)``, which keeps its saved objects itself.
  public let store: (any PersistentStore)?
  #if OBSERVEDGRAPH_INVARIANTS
    var fullChecks = FullCheckSchedule()
  #endif

  /// Creates an empty context for a model, with an in-memory store of its own.
  ///
  /// ```swift
  /// let context = ObjectContext(model: model)
  /// // A server or a command-line tool that never uses SwiftUI or withObservationTracking:
  /// let quiet = ObjectContext(model: model, participatesInSwiftObservation: false)
  /// ```
  /// - Parameters:
  ///   - model: The model its objects follow.
  ///   - participatesInSwiftObservation: Whether the context's objects take part in Swift
  ///     Observation (see ``participatesInSwiftObservation``). On by default.
  public convenience init(model: ObjectModel, participatesInSwiftObservation: Bool = true) {
    self.init(
      model: model, store: nil, identifier: UUID(),
      participatesInSwiftObservation: participatesInSwiftObservation)
  }

  /// A context on a store (see ``PersistentContainer/newContext(participatesInSwiftObservation:)``):
  /// it holds unchanged objects weakly, loads faults from the store and draws its new objects'
  /// keys from it.
  convenience init(store: any PersistentStore, participatesInSwiftObservation: Bool = true) {
    self.init(
      model: store.model, store: store, identifier: store.identifier,
      participatesInSwiftObservation: participatesInSwiftObservation)
  }

  private init(
    model: ObjectModel, store: (any PersistentStore)?, identifier: UUID,
    participatesInSwiftObservation: Bool
  ) {
    self.model = model
    self.store = store
    self.registry = ObjectRegistry(storeIdentifier: identifier)
    self.recorder = UndoRecorder(storeIdentifier: identifier)
    self.link = ContextLink(
      nil, storeIdentifier: identifier,
      participatesInSwiftObservation: participatesInSwiftObservation)
    link.context = self
    if let store {
      registry.retainsObjects = false
      registry.keySource = { store.reserveKeys(ObjectRegistry.keyBlockSize) }
    }
  }

  /// How many faults one load from the store fulfils at most (batch faulting, as Core Data's):
  /// reading a fault loads its values together with those of up to `faultBatchSize − 1` other
  /// faults made before it (by ``object(with:)`` or as the objects of to-one relationships),
  /// oldest first, in one query. They stay faults until read, and reading them loads nothing.
  /// 100 by default; 1 loads each fault alone. Members of a to-many relationship always come in
  /// one query with their values.
  ///
  /// ```swift
  /// context.faultBatchSize = 50
  /// let books = ids.compactMap { context.object(with: $0) as? Book }
  /// let titles = books.map(\.title)   // 50 books per query
  /// ```
  public var faultBatchSize = 100

  /// Whether the context's objects take part in Swift Observation: fixed when the context is made.
  ///
  /// On (the default), every read of a value on the user's behalf — typed getters, key-value
  /// coding, key paths — is reported to the object's `ObservationRegistrar`, and every change,
  /// whatever made it (a typed set, key-value coding, a to-many proxy, a delete rule, undo, redo),
  /// tells the registrar before and after it applies. SwiftUI, `withObservationTracking` and
  /// `Observations` then see the objects as they see an `@Observable` class. Each object gets its
  /// registrar when it is made, as an `@Observable` object does, with the registrar's own
  /// allocations.
  ///
  /// Off, no object has a registrar, reads report nothing and changes skip the step. Code
  /// that never uses Swift Observation — a server, a command-line tool, a test — saves its cost
  /// on every read and set, and the registrar's memory in every object. The library's own observation (``KeyValueObserving/observe(_:options:origins:changeHandler:)``,
  /// objects-did-change events, ``ChangeRecorder``) works the same either way.
  public var participatesInSwiftObservation: Bool { link.participatesInSwiftObservation }

  deinit {
    recorder.attach(nil, to: self)
    link.context = nil
    registry.invalidateAll()
    center.finishStreams()
  }

  // MARK: Inserting

  /// Inserts a new object of a `ManagedObject` subclass's entity.
  ///
  /// Defaults are applied, then ``ManagedObject/awakeFromInsert()`` runs once before the object is
  /// returned.
  ///
  /// ```swift
  /// let book = context.insert(Book.self)
  /// ```
  /// - Parameter type: A class of the model. Passing a class the model does not describe, or one whose
  ///   entity is abstract, is a programming error and stops the program with a message; use
  ///   ``insertObject(forEntityName:)`` to get an error instead.
  /// - Returns: The new object, registered and marked inserted.
  @discardableResult
  public func insert<Object: ManagedObject>(_ type: Object.Type) -> Object {
    guard let entity = entity(for: type) else {
      preconditionFailure(
        "ObservedGraph: \(type) is not the class of exactly one entity of the model \(model); "
          + "use insertObject(forEntityName:)")
    }
    do {
      return unsafeDowncast(try insertObject(of: entity), to: Object.self)
    } catch {
      preconditionFailure("ObservedGraph: \(error)")
    }
  }

  /// Inserts a new object of the entity named `entityName`.
  ///
  /// ```swift
  /// let asset = try context.insertObject(forEntityName: "Asset")
  /// try asset.setValue("Laptop", forKey: "name")
  /// ```
  /// - Parameter entityName: The entity's name.
  /// - Returns: The new object, of the entity's class (``ManagedObject`` for generic entities).
  /// - Throws: ``ObjectGraphError/Kind/unknownEntity`` or ``ObjectGraphError/Kind/abstractEntity``.
  @discardableResult
  public func insertObject(forEntityName entityName: String) throws -> ManagedObject {
    guard let entity = model.entity(named: entityName) else {
      throw ObjectGraphError(
        .unknownEntity, entity: entityName, value: entityName,
        reason: "the model has no entity named '\(ObjectGraphError.shorten(entityName))'")
    }
    return try insertObject(of: entity)
  }

  /// The entity of a class, the last one asked for kept: inserts come in runs of one class.
  private func entity(for type: ManagedObject.Type) -> EntityDescription? {
    let id = ObjectIdentifier(type)
    if let last = lastInsertedEntity, last.type == id { return last.entity }
    let entity = model.entity(for: type)
    lastInsertedEntity = entity.map { (id, $0) }
    return entity
  }

  func insertObject(of entity: EntityDescription) throws -> ManagedObject {
    guard !entity.isAbstract else {
      throw ObjectGraphError(
        .abstractEntity, entity: entity.name,
        reason: "\(entity.name) is abstract; insert one of its sub-entities "
          + "(\(entity.subentities.map(\.name).joined(separator: ", ")))")
    }
    let object = makeObject(entity, key: registry.newKey())
    if !insertQuietly(object) { perform(.insertObject(object)) }
    object.awakeFromInsert()
    return object
  }

  /// A new instance for an identifier, not yet registered.
  func makeObject(_ entity: EntityDescription, _ id: ObjectID) -> ManagedObject {
    assert(id.storeIdentifier == link.storeIdentifier && id.entityName == entity.name)
    return makeObject(entity, key: id.key)
  }

  /// A new instance for the key of an identifier of this context's store, not yet registered.
  func makeObject(_ entity: EntityDescription, key: Int64) -> ManagedObject {
    ObjectRegistry.makeObject(entity, key: key, link: link)
  }

  // MARK: Looking up

  /// The object with the identifier: a registered object (live, or deleted and not yet saved), or
  /// — when the context has a store that may hold it — a fault whose values load on first use.
  /// Nil for an identifier of another store, of an entity the model does not have, or of an object
  /// that left the context.
  ///
  /// ```swift
  /// let id = book.objectID
  /// #expect(context.object(with: id) === book)
  /// ```
  /// - Parameter id: An object identifier.
  /// - Returns: The object, or nil.
  public func object(with id: ObjectID) -> ManagedObject? {
    if let object = registry.object(for: id) { return object }
    return fault(for: id)
  }

  /// The identifier an archived ``ObjectID/uriRepresentation`` names in the context's store,
  /// with its entity under the name the model gives it now: an identifier archived before a
  /// migration renamed its entity (`og://…/Folder/3` when `Folder` is now `Notebook`) resolves
  /// through the renames the store knows (the model's ``EntityDescription/originalName``, and a
  /// migration plan's). Core Data's `managedObjectID(forURIRepresentation:)`.
  ///
  /// ```swift
  /// let id = context.objectID(forURIRepresentation: URL(string: saved)!)   // Notebook#3
  /// ```
  /// - Parameter url: An `og://` URL.
  /// - Returns: The identifier, or nil when the URL is not one, names another store, or an
  ///   entity the model no longer has.
  public func objectID(forURIRepresentation url: URL) -> ObjectID? {
    guard let archived = ObjectID(uriRepresentation: url), let store,
      archived.storeIdentifier == store.identifier,
      let name = store.currentEntityName(for: archived.entityName)
    else { return nil }
    return ObjectID(storeIdentifier: archived.storeIdentifier, entityName: name, key: archived.key)
  }

  /// The object with the identifier, loaded: like ``object(with:)``, but a fault is fulfilled
  /// before it is returned, so a missing object throws here instead of failing on first use.
  ///
  /// ```swift
  /// let book = try context.existingObject(with: savedID)
  /// ```
  /// - Parameter id: An object identifier.
  /// - Returns: The object, its values loaded.
  /// - Throws: ``ObjectGraphError/Kind/otherStore`` for an identifier of another store;
  ///   ``ObjectGraphError/Kind/deletedObject`` for an object whose deletion was saved or whose
  ///   insertion was undone; ``ObjectGraphError/Kind/objectNotFound`` when no such object exists.
  public func existingObject(with id: ObjectID) throws -> ManagedObject {
    guard id.storeIdentifier == registry.storeIdentifier else {
      throw ObjectGraphError(
        .otherStore, entity: id.entityName, value: id.description,
        reason: "\(id) belongs to store \(id.storeIdentifier), not to this context's store "
          + "\(registry.storeIdentifier)")
    }
    if let object = registry.anyObject(for: id), object.lifecycle == .detached {
      throw ObjectGraphError(
        .deletedObject, entity: id.entityName, value: id.description,
        reason: "\(id) is not in the context any more (its deletion was saved, or its insertion "
          + "undone)")
    }
    guard let object = object(with: id) else {
      throw ObjectGraphError(
        .objectNotFound, entity: id.entityName, value: id.description,
        reason: "no object \(id) exists in this context or its store")
    }
    try fulfilFault(of: object)
    return object
  }

  /// Every object the context has: inserted, changed, unchanged, faults, and deleted ones until
  /// the next save.
  public var registeredObjects: Set<ManagedObject> { Set(registry.registeredObjects) }

  /// Objects inserted since the last save and not deleted.
  public var insertedObjects: Set<ManagedObject> {
    Set(tracker.dirty.filter { $0.isInserted })
  }

  /// Saved objects changed since the last save and not deleted.
  public var updatedObjects: Set<ManagedObject> {
    Set(tracker.dirty.filter { $0.isUpdated })
  }

  /// Saved objects deleted since the last save: what the next save removes from the store.
  /// Objects inserted and deleted since the last save are deleted (``ManagedObject/isDeleted``)
  /// but not listed here: the store never had them.
  public var deletedObjects: Set<ManagedObject> {
    Set(tracker.dirty.filter { $0.isDeleted && !$0.isInsertedFlag })
  }

  /// Whether a save would write anything: an object was inserted, changed or deleted since the
  /// last save.
  public var hasChanges: Bool { tracker.dirty.contains { $0.hasChanges } }

  // MARK: Checks

  /// Whether the object belongs to this context and is registered or waiting for a redo.
  func owns(_ object: ManagedObject) -> Bool {
    object.link === link && (object.lifecycle == .registered || object.lifecycle == .detached)
  }

  /// Throws unless the object may be changed through this context: registered here, not deleted.
  func checkUsable(_ object: ManagedObject, key: String? = nil) throws {
    if object.lifecycle == .registered && object.link === link {
      guard object.isDeletedFlag else { return }
      throw ObjectGraphError(
        .deletedObject, entity: object.entity.name, key: key, value: object.objectID.description,
        reason: "\(object.objectID) was deleted; a deleted object cannot be changed or related")
    }
    try object.checkChangeable(key: key)
    throw ObjectGraphError(
      .otherContext, entity: object.entity.name, key: key, value: object.objectID.description,
      reason: "\(object.objectID) belongs to another context")
  }
}
