import UndoLog

/// The scratchpad that owns a graph of managed objects: it inserts and deletes them, keeps both
/// sides of every relationship in step, tracks what changed, and records undo steps.
///
/// A context and its objects live in one isolation domain (a context is not `Sendable`); any number
/// of contexts can share an ``ObjectModel``.
///
/// ```swift
/// let context = ObjectContext(model: model)
/// let fiction = context.insert(BookCategory.self)
/// let book = context.insert(Book.self)
/// book.category = fiction          // fiction.books now contains book
/// try context.delete(fiction)      // delete rules run now
/// ```
public final class ObjectContext {
  /// The model the context's objects follow.
  public let model: ObjectModel
  let number: UInt64
  private var lastObjectNumber: UInt64 = 0
  var registry: [ObjectID: ManagedObject] = [:]
  /// Objects whose insertion was undone: kept so that they can be invalidated with the context.
  var limbo: [ObjectIdentifier: ManagedObject] = [:]
  /// Objects inserted, deleted or changed since the last save.
  var dirty: [ObjectIdentifier: ManagedObject] = [:]
  /// Open manual will/did brackets.
  var brackets: [BracketKey: Bracket] = [:]
  /// The undo log (public as ``undoLog``) and the state of its replay; see ObjectContext+Undo.swift.
  var undo = UndoState()
  /// Registered observers (user and internal); zero means the mutation path skips all delivery.
  var observerCount = 0
  /// Context-wide listeners of every change (change recorders).
  var taps: [Tap] = []
  /// Objects with news for the next objects-did-change event, in the order they got it.
  var pendingObjects: [ManagedObject] = []
  /// Subscribers of objects-did-change events.
  var didChangeSubscribers: [Subscriber] = []
  var nextSubscriberID = 0
  /// Streams made by `objectsDidChange`, finished when the context goes away.
  var streamContinuations: [AsyncStream<ObjectsDidChange>.Continuation] = []

  /// Creates an empty context for a model.
  ///
  /// - Parameter model: The model its objects follow.
  public init(model: ObjectModel) {
    self.model = model
    self.number = ContextNumbers.next()
  }

  deinit {
    for object in registry.values { object.invalidate() }
    for object in limbo.values { object.invalidate() }
    for continuation in streamContinuations { continuation.finish() }
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
    guard let entity = model.entity(for: type) else {
      preconditionFailure("ObservedGraph: \(type) is not part of the model \(model)")
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
        reason: "the model has no entity named \(entityName)")
    }
    return try insertObject(of: entity)
  }

  func insertObject(of entity: EntityDescription) throws -> ManagedObject {
    guard !entity.isAbstract else {
      throw ObjectGraphError(
        .abstractEntity, entity: entity.name,
        reason: "\(entity.name) is abstract; insert one of its sub-entities "
          + "(\(entity.subentities.map(\.name).joined(separator: ", ")))")
    }
    lastObjectNumber += 1
    let object = entity.objectClass.init(
      ObjectBootstrap(entity: entity, context: self, number: lastObjectNumber))
    applyLifecycle(.insert, to: object)
    object.awakeFromInsert()
    checkInvariants()
    return object
  }

  // MARK: Looking up

  /// The registered object with the identifier, or nil.
  ///
  /// - Parameter id: An object identifier.
  /// - Returns: The object, if this context has it and its insertion was not undone.
  public func object(with id: ObjectID) -> ManagedObject? {
    registry[id].flatMap { $0.isDeletedFlag && $0.isInsertedFlag ? nil : $0 }
  }

  /// Every object the context has, including deleted ones not yet saved (but not objects inserted
  /// and deleted since the last save: those are simply gone).
  public var registeredObjects: Set<ManagedObject> {
    Set(registry.values.filter { !($0.isDeletedFlag && $0.isInsertedFlag) })
  }

  /// Objects inserted since the last save and not deleted.
  public var insertedObjects: Set<ManagedObject> {
    Set(dirty.values.filter { $0.isInserted })
  }

  /// Saved objects changed since the last save and not deleted.
  public var updatedObjects: Set<ManagedObject> {
    Set(dirty.values.filter { $0.isUpdated })
  }

  /// Saved objects deleted since the last save.
  public var deletedObjects: Set<ManagedObject> {
    Set(dirty.values.filter { $0.isDeleted })
  }

  /// Whether anything was inserted, changed or deleted since the last save.
  public var hasChanges: Bool { dirty.values.contains { $0.hasChanges } }

  // MARK: Objects

  func checkUsable(_ object: ManagedObject, key: String? = nil) throws {
    switch object.lifecycle {
    case .registered where object._context === self:
      return
    case .registered, .unregistered:
      if object._context !== self {
        throw ObjectGraphError(
          .otherContext, entity: object.entity.name, key: key, value: object.shortDescription,
          reason: "\(object.shortDescription) belongs to another context")
      }
      throw ObjectGraphError(
        .deletedObject, entity: object.entity.name, key: key, value: object.shortDescription,
        reason: "\(object.shortDescription) is not in the context any more (it was deleted and the "
          + "context saved, or its insertion was undone)")
    case .invalid, .prototype:
      throw ObjectGraphError(
        .invalidObject, entity: object.entity.name, key: key, value: object.shortDescription,
        reason:
          "\(object.shortDescription) no longer belongs to a context (it was reset or released)")
    }
  }

  func noteDirty(_ object: ManagedObject) {
    dirty[ObjectIdentifier(object)] = object
  }
}
