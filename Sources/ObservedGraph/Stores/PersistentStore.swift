import Foundation

/// Where a context's saved objects live: a store gives out object keys, loads objects and the
/// members of their to-many relationships, and saves the changes of one save atomically.
///
/// The library ships ``InMemoryStore``, the default of a ``PersistentContainer``, and
/// `SQLiteStore` (module `ObservedGraphSQLite`), which keeps them in an SQLite file. A store is
/// open from the moment it is made (its initializer opens it, and throws when it cannot) until
/// ``close()``; every other call of a closed store throws. Contexts reach their store through a
/// ``PersistentContainer``:
///
/// ```swift
/// let container = PersistentContainer(store: InMemoryStore(model: model))
/// let context = container.viewContext
/// let book = context.insert(Book.self)
/// try context.save()                         // the store now holds the book
/// let other = container.newContext()
/// let again = other.object(with: book.objectID)!   // a fault, loaded from the store
/// ```
///
/// A store is used from one isolation domain at a time, like the contexts that use it.
///
/// ## Topics
/// ### Values as stores keep them
/// - ``StoredObject``
/// - ``StoredProperty``
/// - ``StoreChanges``
public protocol PersistentStore: AnyObject {
  /// The store's identifier: the ``ObjectID/storeIdentifier`` of every object it holds, the same
  /// each time the store is opened.
  var identifier: UUID { get }
  /// The model of the objects the store holds.
  var model: ObjectModel { get }
  /// What the store says about itself, such as its identifier and its model's
  /// ``ObjectModel/versionHash``.
  var metadata: [String: String] { get }
  /// Whether ``close()`` was called.
  var isClosed: Bool { get }

  /// Releases what the store holds open (a file); every later call except this one throws.
  /// Closing a closed store does nothing.
  ///
  /// - Throws: What releasing the store's resources throws (for a store in a file, the error of
  ///   closing it); the store counts as closed all the same.
  func close() throws

  /// Keys for new objects, never given out before, in this process or (for a store in a file)
  /// any other that opened the same store: the context draws on them as it inserts.
  ///
  /// It never does I/O and never fails: a store reserves keys ahead (a file store in its file,
  /// when it opens and at each save) and makes sure at each save that no key it gave out can be
  /// given out again.
  /// - Parameter count: How many keys are wanted, at least 1.
  /// - Returns: Between 1 and `count` consecutive keys (fewer at the end of a reserved block).
  func reserveKeys(_ count: Int) -> Range<Int64>

  /// The stored values of the objects with the identifiers, in the order asked for; an
  /// identifier the store has no object for is left out.
  ///
  /// A to-many relationship may be left ``StoredProperty/omitted``: the context asks
  /// ``loadMembers(of:relationship:)`` when it needs the members.
  ///
  /// - Parameter ids: The identifiers of the objects wanted.
  /// - Returns: The stored values of each object the store holds, in the order of `ids`.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed, or the store's
  ///   own error when it cannot read (for a store in a file, an I/O or corruption error).
  /// - Complexity: O(*n*) in the number of identifiers, plus the store's cost of reading them.
  func loadObjects(_ ids: [ObjectID]) throws -> [StoredObject]

  /// The members of an object's to-many relationship with their stored values, in the
  /// relationship's order when it is ordered; empty when the store has no such object.
  ///
  /// One call loads them all (one query for a store in a file): the context keeps the values of
  /// members it has not loaded yet in their faults, so that reading each of them costs no more
  /// loads.
  ///
  /// - Parameters:
  ///   - id: The owner's identifier.
  ///   - relationship: The name of a to-many relationship of the owner's entity.
  /// - Returns: The members' stored values.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed, or the store's
  ///   own error when it cannot read.
  /// - Complexity: O(*m*) in the number of members, plus the store's cost of reading them.
  func loadMembers(of id: ObjectID, relationship: String) throws -> [StoredObject]

  /// Loads the objects with the identifiers into a context's objects: what
  /// ``loadObjects(_:)`` gives, put in place by `loader` as each row is read.
  ///
  /// Contexts load through this call. The default implementation calls ``loadObjects(_:)`` and
  /// gives each object to ``ObjectLoader/load(_:)``; a store that reads rows gives their values to
  /// the loader itself, so that no ``StoredObject`` is built.
  ///
  /// ```swift
  /// try store.loadObjects([book.objectID], into: loader)
  /// ```
  /// - Parameters:
  ///   - ids: The identifiers; one the store has no object for is left out.
  ///   - loader: Where the rows' values go.
  /// - Throws: What ``loadObjects(_:)`` throws, or what `loader` throws for a value that does
  ///   not fit the model.
  /// - Complexity: O(*n*) in the number of identifiers, plus the store's cost of reading them.
  func loadObjects(_ ids: [ObjectID], into loader: ObjectLoader) throws

  /// Loads the members of an object's to-many relationship into a context's objects, in the
  /// relationship's order when it is ordered: what ``loadMembers(of:relationship:)`` gives, put in
  /// place by `loader` as each row is read.
  ///
  /// Contexts load through this call. The default implementation calls
  /// ``loadMembers(of:relationship:)`` and gives each object to ``ObjectLoader/load(_:)``; a
  /// store that reads rows gives their values to the loader itself (see ``ObjectLoader``).
  ///
  /// - Parameters:
  ///   - id: The owner's identifier.
  ///   - relationship: The to-many relationship's name.
  ///   - loader: Where the members' rows go, one ``ObjectLoader/beginObject(_:key:)`` per member.
  /// - Throws: What ``loadMembers(of:relationship:)`` throws, or what `loader` throws for a value
  ///   that does not fit the model.
  /// - Complexity: O(*m*) in the number of members, plus the store's cost of reading them.
  func loadMembers(of id: ObjectID, relationship: String, into loader: ObjectLoader) throws

  /// Loads the members of one to-many relationship of several objects into a context's objects,
  /// in as few loads as the store can (prefetching).
  ///
  /// The store gives the members of each owner in turn, in the relationship's order when it is
  /// ordered, each with ``ObjectLoader/beginObject(_:key:)``, and returns the key of the owner of
  /// each member it gave, in the same order. The default implementation calls
  /// ``loadMembers(of:relationship:into:)`` once per owner.
  ///
  /// ```swift
  /// let owners = try store.loadMembers(of: categoryIDs, relationship: "books", into: loader)
  /// ```
  /// - Parameters:
  ///   - ids: The owners' identifiers.
  ///   - relationship: The to-many relationship's name.
  ///   - loader: Where the members' rows go.
  /// - Returns: The owner's key of each member given, in the order given.
  /// - Throws: What ``loadMembers(of:relationship:into:)`` throws.
  /// - Complexity: O(*n* + *m*) in the number of owners and of members, plus the store's cost of
  ///   reading them.
  func loadMembers(of ids: [ObjectID], relationship: String, into loader: ObjectLoader) throws
    -> [Int64]

  /// Saves one save's changes: all of them, or — when it throws — none, the store left as it was.
  ///
  /// - Parameter changes: The inserted, updated and deleted objects of the save.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed,
  ///   ``ObjectGraphError/Kind/duplicateObject`` for an inserted object whose key the store
  ///   holds, ``ObjectGraphError/Kind/otherStore`` for an object of another store, or the store's
  ///   own error when it cannot write; in every case the store is left as it was.
  /// - Complexity: O(*n*) in the number of changed objects and their changed values, plus the
  ///   store's cost of writing them.
  func save(_ changes: StoreChanges) throws

  /// Gives the objects a fetch asks for to the loader, in order.
  ///
  /// A store applies what it can of the fetch and says whether it applied all of it. When it
  /// did, the objects it gave are exactly the answer: those that match, in order, the offset and
  /// the limit applied (without sort keys, offset or limit, in any order: the context puts them
  /// in key order). When it did not, it gives every object that may match (at least the
  /// objects of the entities that match; any order) and the context tests, sorts and counts them
  /// in memory, with the library's semantics. A store gives each object with
  /// ``ObjectLoader/beginObject(_:key:)`` and its values, or — when ``StoreFetch/loadsValues``
  /// is false — with ``ObjectLoader/appendObject(_:key:)``.
  ///
  /// ```swift
  /// let complete = try store.fetch(StoreFetch(entity: bookEntity), into: loader)
  /// ```
  /// - Parameters:
  ///   - request: What is wanted.
  ///   - loader: Where the objects go.
  /// - Returns: Whether the objects given are exactly the answer.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed, the store's own
  ///   error when it cannot read, or what `loader` throws for a value that does not fit the model.
  /// - Complexity: O(*n*) in the number of objects given, plus the store's cost of finding them.
  func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool

  /// The number of objects a fetch would give, counted by the store without loading them; nil
  /// when the store cannot apply all of the fetch (the context then counts what ``fetch(_:into:)``
  /// gives). The default implementation returns nil.
  ///
  /// ```swift
  /// let count = try store.count(StoreFetch(entity: bookEntity))   // 3
  /// ```
  /// - Parameter request: What is counted (its ``StoreFetch/loadsValues`` does not matter).
  /// - Returns: The number of objects, or nil.
  /// - Throws: ``ObjectGraphError/Kind/storeClosed`` when the store is closed, or the store's
  ///   own error when it cannot read.
  func count(_ request: StoreFetch) throws -> Int?

  /// The name the store's model gives an entity that an identifier archived under an earlier
  /// model version names (see ``ObjectContext/objectID(forURIRepresentation:)``); nil when the
  /// model has no such entity. A name the model has is its own (an identifier archived under the
  /// current model); another is followed through the model's own renames
  /// (``ObjectModel/currentEntityName(for:)``) by default, and a store that knows the earlier
  /// versions (a migration plan) follows theirs too.
  ///
  /// - Parameter archivedName: An entity name, as an archived identifier holds it.
  /// - Returns: The entity's name in the store's model, or nil.
  func currentEntityName(for archivedName: String) -> String?
}

extension PersistentStore {
  /// The name itself when the model has it, or else the model's own renames:
  /// ``ObjectModel/currentEntityName(for:)``.
  ///
  /// - Parameter archivedName: An entity name, as an archived identifier holds it.
  /// - Returns: The entity's name in the store's model, or nil.
  public func currentEntityName(for archivedName: String) -> String? {
    model.entity(named: archivedName) != nil
      ? archivedName : model.currentEntityName(for: archivedName)
  }
}

extension PersistentStore {
  /// The stored values of one object; nil when the store has no such object.
  ///
  /// ```swift
  /// let stored = try store.loadObject(book.objectID)   // nil once its delete is saved
  /// ```
  /// - Parameter id: The object's identifier.
  /// - Returns: Its stored values, or nil.
  /// - Throws: What ``loadObjects(_:)`` throws.
  public func loadObject(_ id: ObjectID) throws -> StoredObject? {
    try loadObjects([id]).first
  }

  /// Nil: the context counts what ``fetch(_:into:)`` gives.
  ///
  /// - Parameter request: What is counted.
  /// - Returns: Nil.
  /// - Throws: Nothing; a store that counts may throw what its reads throw.
  public func count(_ request: StoreFetch) throws -> Int? { nil }

  /// Loads the objects with ``loadObjects(_:)`` and gives each to ``ObjectLoader/load(_:)``.
  ///
  /// - Parameters:
  ///   - ids: The identifiers; one the store has no object for is left out.
  ///   - loader: Where the objects' values go.
  /// - Throws: What ``loadObjects(_:)`` or the loader throws.
  /// - Complexity: O(*n*) in the number of identifiers, plus the cost of ``loadObjects(_:)``.
  public func loadObjects(_ ids: [ObjectID], into loader: ObjectLoader) throws {
    for stored in try loadObjects(ids) { try loader.load(stored) }
  }

  /// Loads each owner's members with ``loadMembers(of:relationship:into:)``, one owner at a time.
  ///
  /// - Parameters:
  ///   - ids: The owners' identifiers.
  ///   - relationship: The to-many relationship's name.
  ///   - loader: Where the members' rows go.
  /// - Returns: The owner's key of each member given, in the order given.
  /// - Throws: What ``loadMembers(of:relationship:into:)`` throws.
  /// - Complexity: One load per owner: O(*n* + *m*) in the number of owners and of members.
  public func loadMembers(of ids: [ObjectID], relationship: String, into loader: ObjectLoader)
    throws -> [Int64]
  {
    var owners: [Int64] = []
    for id in ids {
      let before = loader.objectCount
      try loadMembers(of: id, relationship: relationship, into: loader)
      owners += repeatElement(id.key, count: loader.objectCount - before)
    }
    return owners
  }

  /// Loads the members with ``loadMembers(of:relationship:)`` and gives each to
  /// ``ObjectLoader/load(_:)``.
  ///
  /// - Parameters:
  ///   - id: The owner's identifier.
  ///   - relationship: The to-many relationship's name.
  ///   - loader: Where the members' values go.
  /// - Throws: What ``loadMembers(of:relationship:)`` or the loader throws.
  /// - Complexity: O(*m*) in the number of members, plus the cost of
  ///   ``loadMembers(of:relationship:)``.
  public func loadMembers(of id: ObjectID, relationship: String, into loader: ObjectLoader) throws {
    for stored in try loadMembers(of: id, relationship: relationship) { try loader.load(stored) }
  }
}

/// One object as a store keeps it: its identifier and a value per property of its entity, in the
/// order of ``EntityDescription/propertyNames``.
///
/// ```swift
/// let stored = try store.loadObject(book.objectID)!
/// let entity = store.model.entity(named: stored.id.entityName)!
/// let title = stored.properties[entity.propertyNames.firstIndex(of: "title")!]
/// // .attribute(.string("Dune"))
/// ```
public struct StoredObject: Hashable, Sendable {
  /// The object's identifier.
  public var id: ObjectID
  /// A value per property of the object's entity, inherited properties first, in the order of
  /// ``EntityDescription/propertyNames``.
  public var properties: [StoredProperty]

  /// Creates a stored object.
  /// - Parameters:
  ///   - id: The object's identifier.
  ///   - properties: A value per property of its entity, in the order of
  ///     ``EntityDescription/propertyNames``.
  public init(id: ObjectID, properties: [StoredProperty]) {
    self.id = id
    self.properties = properties
  }
}

/// The value of one property as a store keeps it.
public enum StoredProperty: Hashable, Sendable {
  /// An attribute's value; nil for none.
  case attribute(StoredValue?)
  /// A to-one relationship's object; nil for none.
  case toOne(ObjectID?)
  /// A to-many relationship's objects, in order for an ordered one.
  case toMany([ObjectID])
  /// No value given: in a load, a to-many relationship loaded on first use or a transient
  /// attribute (which keeps its default); in an update, a property the save does not change.
  case omitted
}

/// The changes of one save, as a store receives them, each list in key order.
///
/// Inserted objects come with every property (transient attributes ``StoredProperty/omitted``);
/// updated objects with the properties that changed and the others omitted. A change to a
/// relationship comes on both sides: an inserted book in a category is in the category's
/// `books` and has the category as its `category`. A deleted object's relationships were emptied
/// by its delete rules: objects that still point to it (a `noAction` rule) are not changed.
public struct StoreChanges: Hashable, Sendable {
  /// New objects.
  public var inserted: [StoredObject]
  /// Saved objects whose persistent properties changed.
  public var updated: [StoredObject]
  /// Saved objects that are deleted.
  public var deleted: [ObjectID]

  /// Creates a set of changes.
  ///
  /// - Parameters:
  ///   - inserted: New objects, with every property.
  ///   - updated: Saved objects whose persistent properties changed, with those properties.
  ///   - deleted: Saved objects that are deleted.
  public init(
    inserted: [StoredObject] = [], updated: [StoredObject] = [], deleted: [ObjectID] = []
  ) {
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
  }

  /// Whether there is nothing to save.
  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
