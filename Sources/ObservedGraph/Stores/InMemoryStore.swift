import Foundation

/// A store that keeps saved objects in memory, for as long as it lives: the default store of a
/// ``PersistentContainer``.
///
/// Contexts of one container share it: what one context saves, another loads. Nothing survives
/// the process.
///
/// ```swift
/// let store = InMemoryStore(model: model)
/// let container = PersistentContainer(store: store)
/// ```
public final class InMemoryStore: PersistentStore {
  /// The store's identifier, given when it was made.
  public let identifier: UUID
  /// The model of the objects the store holds.
  public let model: ObjectModel
  /// Whether ``close()`` was called.
  public private(set) var isClosed = false
  /// Saved objects by key.
  private var objects: [Int64: StoredObject] = [:]
  private var nextKey: Int64 = 1

  /// Creates an empty store for a model.
  /// - Parameters:
  ///   - model: The model of the objects it holds.
  ///   - identifier: The store's identifier; a new one by default.
  public init(model: ObjectModel, identifier: UUID = UUID()) {
    self.model = model
    self.identifier = identifier
  }

  /// The store's identifier (`storeIdentifier`) and its model's version hash (`versionHash`).
  public var metadata: [String: String] {
    ["storeIdentifier": identifier.uuidString, "versionHash": model.versionHash]
  }

  /// How many objects the store holds.
  public var count: Int { objects.count }

  /// Lets go of every saved object; every later call except this one throws.
  ///
  /// - Throws: Nothing: closing a store in memory cannot fail.
  public func close() throws {
    isClosed = true
    objects = [:]
  }

  /// Keys for new objects, counting up from 1; never given out twice by this store.
  ///
  /// - Parameter count: How many keys are wanted, at least 1.
  /// - Returns: `count` consecutive keys.
  public func reserveKeys(_ count: Int) -> Range<Int64> {
    precondition(count > 0, "ObservedGraph: reserveKeys needs a count of at least 1")
    defer { nextKey += Int64(count) }
    return nextKey..<nextKey + Int64(count)
  }

  /// The stored objects, their to-many relationships ``StoredProperty/omitted``: a context loads
  /// those with ``loadMembers(of:relationship:)``, which gives the members' values too.
  ///
  /// - Parameter ids: The identifiers; one the store has no object for is left out.
  /// - Returns: The stored values, in the order of `ids`.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed.
  /// - Complexity: O(*n*) in the number of identifiers and their properties.
  public func loadObjects(_ ids: [ObjectID]) throws -> [StoredObject] {
    try checkOpen()
    return ids.compactMap { id in
      guard var object = objects[id.key], object.id == id else { return nil }
      for (index, value) in object.properties.enumerated() {
        if case .toMany = value { object.properties[index] = .omitted }
      }
      return object
    }
  }

  /// The members of an object's to-many relationship, with their stored values, in order for an
  /// ordered one; empty when the store has no such object or relationship.
  ///
  /// - Parameters:
  ///   - id: The owner's identifier.
  ///   - relationship: The to-many relationship's name.
  /// - Returns: The members' stored values.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed.
  /// - Complexity: O(*m*) in the number of members and their properties.
  public func loadMembers(of id: ObjectID, relationship: String) throws -> [StoredObject] {
    try checkOpen()
    guard let object = objects[id.key], object.id == id,
      let entity = model.entity(named: id.entityName),
      let index = entity.propertyNames.firstIndex(of: relationship),
      case .toMany(let members) = object.properties[index]
    else { return [] }
    return try loadObjects(members)
  }

  /// Saves the changes, or throws before changing anything.
  ///
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed;
  ///   ``ObjectGraphError/Kind/duplicateObject`` for an inserted object whose key the store
  ///   holds; ``ObjectGraphError/Kind/otherStore`` for an object of another store;
  ///   ``ObjectGraphError/Kind/objectNotFound`` for an updated object it does not hold.
  /// - Parameter changes: The inserted, updated and deleted objects of the save.
  /// - Complexity: O(*n*) in the number of changed objects and their properties.
  public func save(_ changes: StoreChanges) throws {
    try checkOpen()
    let ids = changes.inserted.map(\.id) + changes.updated.map(\.id) + changes.deleted
    if let foreign = ids.first(where: { $0.storeIdentifier != identifier }) {
      throw ObjectGraphError(
        .otherStore, entity: foreign.entityName, value: foreign.description,
        reason: "\(foreign) belongs to store \(foreign.storeIdentifier), not to \(identifier)")
    }
    if let duplicate = changes.inserted.first(where: { objects[$0.id.key] != nil }) {
      throw ObjectGraphError(
        .duplicateObject, entity: duplicate.id.entityName, value: duplicate.id.description,
        reason: "the store already holds an object with the key of \(duplicate.id)")
    }
    if let missing = changes.updated.first(where: { objects[$0.id.key]?.id != $0.id }) {
      throw ObjectGraphError(
        .objectNotFound, entity: missing.id.entityName, value: missing.id.description,
        reason: "the store holds no object \(missing.id) to update")
    }
    for id in changes.deleted { objects[id.key] = nil }
    for object in changes.inserted {
      objects[object.id.key] = object
      nextKey = max(nextKey, object.id.key + 1)
    }
    for update in changes.updated {
      var object = objects[update.id.key]!
      for (index, value) in update.properties.enumerated() where value != .omitted {
        object.properties[index] = value
      }
      objects[update.id.key] = object
    }
  }

  /// Gives every object of the fetch's entities, with its values; the context tests, sorts and
  /// counts them.
  ///
  /// - Parameters:
  ///   - request: The entities wanted, and whether their values are.
  ///   - loader: Where the objects go, in key order.
  /// - Returns: False: the store applies no predicate, sort, offset or limit.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed, or what `loader`
  ///   throws.
  /// - Complexity: O(*n* log *n*) in the number of objects the store holds.
  public func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool {
    try checkOpen()
    let names = Set(request.entities.map(\.name))
    for key in objects.keys.sorted() {
      let object = objects[key]!
      guard names.contains(object.id.entityName) else { continue }
      if request.loadsValues {
        var values = object
        for (index, value) in values.properties.enumerated() {
          if case .toMany = value { values.properties[index] = .omitted }
        }
        try loader.load(values)
      } else if let entity = model.entity(named: object.id.entityName) {
        loader.appendObject(entity, key: key)
      }
    }
    return false
  }

  private func checkOpen() throws {
    guard isClosed else { return }
    throw ObjectGraphError(
      .storeClosed, entity: "", value: identifier.uuidString,
      reason: "the in-memory store \(identifier) was closed")
  }
}
