import Foundation
import Observation

/// An object of an ``ObjectContext``: storage for the properties its entity describes, observed,
/// undoable and kept consistent with the other side of every relationship.
///
/// Subclass it and declare properties with ``Attribute`` and ``Relationship`` to get typed access, or
/// use it as is for generic objects that are read and written by key. Objects are made by a context,
/// never with an initializer:
///
/// ```swift
/// final class Book: ManagedObject {
///   @Attribute var title: String = ""
///   @Attribute var price: Double = 0
///   @Relationship(inverse: "books") var category: BookCategory?
///   @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [Page]
///
///   override func awakeFromInsert() {
///     super.awakeFromInsert()
///     title = "Untitled"
///   }
/// }
///
/// let book = context.insert(Book.self)
/// book.title = "Dune"
/// ```
///
/// A `ManagedObject` belongs to the isolation domain of its context and is not `Sendable`; pass its
/// ``objectID`` across domains instead.
open class ManagedObject: Hashable, CustomStringConvertible, Observable {
  /// The object's entity.
  public let entity: EntityDescription
  /// The object's identifier: fixed at insert, never changing; see ``ObjectID``.
  public var objectID: ObjectID {
    ObjectID(
      storeIdentifier: link?.storeIdentifier ?? ObjectID.noStore, entityName: entity.name,
      key: objectKey)
  }
  /// The key of ``objectID``: the identifier's store is the context link's, its entity name the
  /// entity's, so an object keeps 8 bytes of it rather than 40.
  let objectKey: Int64
  /// The link to the context; nil only for the prototypes a model reads its wrappers from.
  @usableFromInline let link: ContextLink?
  /// The property values, one slot per property of the entity; reached only through the read
  /// and write functions of ManagedObject+Storage.swift.
  ///
  /// This and the change and pending state are touched on every set; release builds skip the
  /// dynamic exclusivity checks of these three, debug builds keep them.
  #if OBSERVEDGRAPH_INVARIANTS
    var storage: ObjectStorage
  #else
    @exclusivity(unchecked) var storage: ObjectStorage
  #endif
  // Every change of the state below voids the quiet bits (`quietSlots`, the audience decision's
  // cache: ObjectContext+Audience.swift): they are set again by the next typed set that finds the
  // slot quiet. These flags are read by every set and written only by
  // the context's parts, never while a read is under way: their reads skip the dynamic exclusivity
  // check.
  @exclusivity(unchecked) var lifecycle: Lifecycle { didSet { voidQuietBits() } }
  @exclusivity(unchecked) var isInsertedFlag = false { didSet { voidQuietBits() } }
  @exclusivity(unchecked) var isDeletedFlag = false { didSet { voidQuietBits() } }
  /// Whether the values are not loaded yet: the first read asks the context to fulfil the fault.
  @exclusivity(unchecked) @usableFromInline final var isFaultFlag = false {
    didSet { voidQuietBits() }
  }
  /// The context's `quietEpoch` when `quietSlots` was last set.
  @exclusivity(unchecked) @usableFromInline final var quietEpoch: UInt32 = 0
  /// Bit `s` (for slots below 64): a typed set of slot `s` needs nothing but the store (inside the
  /// registrar's `willSet` and `didSet` when the object has one) and, when the object has
  /// observers, a call of the slot's typed observers (the observer table's `typedSlots`: no other
  /// observer of the object hears slot `s`) — the object live and loaded, the slot tracked and
  /// pending, and (while `quietEpoch` matches the context's) no undo log and no tap. The typed
  /// setter tests it inline; `beginTypedSet` sets it; any change of the observer table voids it.
  @exclusivity(unchecked) @usableFromInline final var quietSlots: UInt64 = 0
  #if OBSERVEDGRAPH_INVARIANTS
    /// Which slots changed since the last save, with their committed values (the change
    /// tracker's).
    var changes = ChangeState() { didSet { voidQuietBits() } }
    /// Slots changed since the context last posted objects-did-change, and lifecycle news (the
    /// observer center's).
    var pending = PendingState() { didSet { voidQuietBits() } }
  #else
    @exclusivity(unchecked) var changes = ChangeState() { didSet { voidQuietBits() } }
    @exclusivity(unchecked) var pending = PendingState() { didSet { voidQuietBits() } }
  #endif
  /// Marks the context's parts set on the object for the length of one operation, in the byte
  /// after `pending`: bit 0 while the running undo or redo has noted the object as restored,
  /// bits 1–5 the snapshot events it noted (`UndoRecorder.noteRestored`), bit 6 while the object
  /// is a fault whose values a load put in place (`prefilledMark`), and bit 7 while a
  /// delete gathers its cascade set and the object is in it (`ObjectContext.cascadeSet`), or
  /// while the quiet undo of a delete checks its objects and the object is one it brings back
  /// (`ObjectContext.canReplayQuietly`).
  @exclusivity(unchecked) var marks: UInt8 = 0
  /// Whether a change by an origin the undo log does not track wrote one of the object's
  /// properties or memberships (see ``UntrackedChanges``): its changes take the whole path, which
  /// keeps that table. In the padding after `marks`.
  @exclusivity(unchecked) var hasUntrackedChanges = false { didSet { voidQuietBits() } }
  static var restoredMark: UInt8 { 1 }
  static var restoredEventBits: UInt8 { 0x3E }
  static var cascadeMark: UInt8 { 0x80 }
  /// A fault whose values a to-many load already put in place: fulfilling it loads nothing more
  /// than its own to-many relationships.
  static var prefilledMark: UInt8 { 0x40 }
  /// The object's place in the change tracker's list of objects with unsaved changes, -1 when it is
  /// not in it (the tracker's). Declared here, it takes the padding after `marks` and
  /// `hasUntrackedChanges`; written by the
  /// tracker only, so no dynamic exclusivity check.
  @exclusivity(unchecked) var dirtyIndex: Int32 = -1
  /// Observers of this object's keys; nil until the first observer is added.
  @exclusivity(unchecked) @usableFromInline final var observers: ObserverTable? {
    didSet { voidQuietBits() }
  }
  /// The Swift Observation registrar: joined when the object is made if its context takes part in
  /// Swift Observation (shared with up to 15 other objects of the context, each naming its slots
  /// with key paths of its own: see ``RegistrarHandle``), nil otherwise. Reached without retains.
  @usableFromInline let registrar: RegistrarHandle?

  /// Where an object stands with its context.
  enum Lifecycle: UInt8 {
    /// Made to read a class's property wrappers; has no context.
    case prototype
    /// Registered with its context (live, or deleted until the next save).
    case registered
    /// Out of its context, but undo may bring it back: its insertion was undone, or its deletion
    /// was saved.
    case detached
    /// Its context was reset or released.
    case invalid
  }

  /// Unavailable: objects are made by a context.
  ///
  /// Chosen by the compiler for `Book()`, so that the error says how to make an object instead
  /// of asking for an argument.
  @available(
    *, unavailable,
    message:
      "objects are made by a context: 'context.insert(<the class>.self)', or 'try context.insertObject(forEntityName:)'"
  )
  public convenience init() {
    fatalError("unavailable")
  }

  /// Creates an object for a context. Only the library calls this; subclasses that override it
  /// must call `super.init(bootstrap)`.
  ///
  /// - Parameter bootstrap: The context's opaque creation token.
  public required init(_ bootstrap: consuming ObjectBootstrap) {
    // The entity and the link are moved out of the bootstrap, not copied, and the registrar is
    // joined before the stores, not between them (a call there retains and releases both around
    // it): every reference count a new object touches here is shared by all the context's objects,
    // one atomic operation each.
    if let link = bootstrap.link.take(), let entity = bootstrap.entity.take() {
      self.registrar = link.participatesInSwiftObservation ? link.joinRegistrar() : nil
      self.entity = entity
      self.objectKey = bootstrap.key
      self.link = link
      self.storage = ObjectStorage(entity.initialStorage)
      self.lifecycle = .registered
    } else {
      self.entity = EntityDescription.prototype
      self.objectKey = 0
      self.link = nil
      self.storage = ObjectStorage([])
      self.lifecycle = .prototype
      self.registrar = nil
    }
    // The class's wrappers were initialized with their declared values; an entity built from
    // descriptions may give other defaults. (Testing first skips walking the empty array, which
    // retains and releases it.)
    if !entity.fieldDefaults.isEmpty {
      for (field, value) in entity.fieldDefaults { field.store(value, in: self) }
    }
  }

  deinit {
    registrar?.release()
    // The registry holds objects without retaining them (it keeps some alive through a separate
    // strong table); an object going away leaves it here.
    if lifecycle == .registered || lifecycle == .detached, let context = link?.context {
      context.registry.forget(objectKey, at: Unmanaged.passUnretained(self).toOpaque())
    }
  }

  /// The name of the entity a subclass describes; the class name by default.
  ///
  /// Override it to give the entity another name:
  /// ```swift
  /// override class var entityName: String { "Category" }
  /// ```
  open class var entityName: String { String(describing: self) }

  /// The entity's name in the previous model version, when the class's entity was renamed (an
  /// ``EntityDescription/originalName``); nil by default. A migration from that version keeps
  /// the objects under the new name.
  ///
  /// ```swift
  /// final class Volume: ManagedObject {
  ///   override class var originalEntityName: String? { "Book" }
  /// }
  /// ```
  open class var originalEntityName: String? { nil }

  /// Whether the entity this class describes is abstract.
  ///
  /// Class properties are inherited, so answer for the class itself only:
  /// ```swift
  /// class Person: ManagedObject {
  ///   override class var isAbstract: Bool { self == Person.self }
  /// }
  /// ```
  open class var isAbstract: Bool { false }

  /// The context the object belongs to; nil once the object left it (its deletion was saved, or
  /// its insertion undone) or the context was reset or released.
  ///
  /// ```swift
  /// try context.delete(book)
  /// try context.save()
  /// #expect(book.context == nil && book.isDeleted)
  /// ```
  public var context: ObjectContext? {
    lifecycle == .registered ? link?.context : nil
  }

  // MARK: Lifecycle hooks

  /// Called once in the object's life, when it is inserted, after defaults are applied and before
  /// the caller receives it. Never called again on redo of the insert or undo of a delete.
  ///
  /// Values and relationships set here are part of the insert: undoing the insert takes them back
  /// with it. Call `super`.
  open func awakeFromInsert() {}

  /// Called each time the object's values are loaded from its store: when a fault is fulfilled,
  /// again after a ``ObjectContext/refresh(_:mergeChanges:)`` turned it back into a fault. Never
  /// for an inserted object.
  ///
  /// Change processing is off while it runs: attribute values set here (transient values, caches)
  /// are stored without being tracked as changes, without observers hearing them and without undo
  /// steps, so the object stays unchanged. Relationship changes made here take the ordinary path.
  /// Call `super`.
  ///
  /// ```swift
  /// override func awakeFromFetch() {
  ///   super.awakeFromFetch()
  ///   summary = "\(title) (\(pages.count) pages)"   // a transient attribute; nothing changes
  /// }
  /// ```
  open func awakeFromFetch() {}

  /// Called before the object becomes a fault (``ObjectContext/refresh(_:mergeChanges:)`` with
  /// `mergeChanges: false`) or leaves the context after its delete was saved; its values are still
  /// readable. Release caches here. Call `super`.
  open func willTurnIntoFault() {}

  /// Called after the object became a fault, or left the context after its delete was saved.
  /// Call `super`.
  open func didTurnIntoFault() {}

  /// Called at the start of ``ObjectContext/save()`` for each object the save writes (inserted,
  /// updated or deleted), before validation. Changes made here are part of the save; changing
  /// values every time leads to an endless stream of saves, as in Core Data. Call `super`.
  open func willSave() {}

  /// Called after a successful ``ObjectContext/save()`` for each object it wrote. Call `super`.
  open func didSave() {}

  /// Called at the start of ``ObjectContext/delete(_:)``, before the delete rules run, with every
  /// relationship still intact. Call `super`.
  open func prepareForDeletion() {}

  /// Called after an undo, a redo, a rollback or a refresh restored the object's state; the default
  /// does nothing.
  ///
  /// Undo and redo call it once per restored object, after the whole undo group was applied, so
  /// every relationship already agrees on both sides. Recompute derived or transient state here.
  /// Changes made here are observed and tracked but not recorded for undo: they belong to the
  /// state being restored.
  ///
  /// ```swift
  /// override func awake(fromSnapshotEvents events: SnapshotEvents) {
  ///   super.awake(fromSnapshotEvents: events)
  ///   if events.contains(.undoDeletion) { cachedSummary = nil }
  /// }
  /// ```
  /// - Parameter events: What restored the object; several at once when one undo did several
  ///   things to it (for example `[.undoDeletion, .undoUpdate]`).
  open func awake(fromSnapshotEvents events: SnapshotEvents) {}

  /// Checks the object before it is saved for the first time. The default checks non-optional
  /// attributes and relationships and the count limits of to-many relationships.
  ///
  /// Overrides call `super` and combine errors.
  /// - Throws: ``ObjectGraphError`` (``ObjectGraphError/Kind/multipleErrors`` for several).
  open func validateForInsert() throws { try validateProperties() }

  /// Checks a changed object before it is saved. The default is the same as ``validateForInsert()``.
  ///
  /// - Throws: ``ObjectGraphError`` (``ObjectGraphError/Kind/multipleErrors`` for several).
  open func validateForUpdate() throws { try validateProperties() }

  /// Checks a deleted object before its delete is saved. The default accepts it: delete rules
  /// already ran when it was deleted.
  ///
  /// - Throws: ``ObjectGraphError`` (``ObjectGraphError/Kind/multipleErrors`` for several).
  open func validateForDelete() throws {}

  // MARK: Model hooks

  /// The rules the attribute `key` of this class's entity follows at save (see
  /// ``AttributeRules``); asked once per attribute when a model is built from classes. The
  /// default has none.
  ///
  /// ```swift
  /// override class func rules(forKey key: String) -> AttributeRules {
  ///   switch key {
  ///   case "price": AttributeRules(minimum: 0)
  ///   case "isbn": AttributeRules(pattern: "[0-9]{13}")
  ///   default: super.rules(forKey: key)
  ///   }
  /// }
  /// ```
  /// - Parameter key: An attribute the class declares.
  /// - Returns: Its rules.
  open class func rules(forKey key: String) -> AttributeRules { AttributeRules() }

  /// The attributes of this class's entity that stores index (see
  /// ``AttributeDescription/isIndexed``); asked when a model is built from classes. Empty by
  /// default.
  ///
  /// ```swift
  /// override class var indexedKeys: Set<String> { ["title"] }
  /// ```
  open class var indexedKeys: Set<String> { [] }

  /// The fetched properties of this class's entity; asked when a model is built from classes.
  /// Empty by default.
  ///
  /// ```swift
  /// override class var fetchedProperties: [FetchedPropertyDescription] {
  ///   [FetchedPropertyDescription(
  ///     name: "bargainBooks", destination: "Book",
  ///     predicate: try! FetchPredicate(format: "price < 12 AND category == $FETCH_SOURCE"))]
  /// }
  /// ```
  open class var fetchedProperties: [FetchedPropertyDescription] { [] }

  // MARK: Observation hooks

  /// Whether setters and key-value coding notify observers of `key` by themselves.
  ///
  /// The model asks this once per key when it is built. Return false to make a key manual-only:
  /// then only ``willChangeValue(forKey:)`` /
  /// ``didChangeValue(forKey:)`` pairs notify its observers. Storage, change tracking and undo are
  /// unaffected.
  ///
  /// ```swift
  /// override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
  ///   key == "price" ? false : super.automaticallyNotifiesObservers(forKey: key)
  /// }
  /// ```
  /// - Parameter key: A property name.
  /// - Returns: true by default.
  open class func automaticallyNotifiesObservers(forKey key: String) -> Bool { true }

  /// The key paths whose changes change the value of `key` (dependent keys).
  ///
  /// Observers of `key` are told, with its old and new value, whenever one of these changes.
  /// Dependencies may be key paths through relationships and may themselves be dependent keys.
  ///
  /// ```swift
  /// override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
  ///   switch key {
  ///   case "fullName": ["firstName", "lastName"]
  ///   default: super.keyPathsForValuesAffectingValue(forKey: key)
  ///   }
  /// }
  /// ```
  /// - Parameter key: A key, usually of a computed property.
  /// - Returns: The empty set by default.
  open class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> { [] }

  /// The value of a key that is not a property of the entity; ``value(forKey:)`` asks this for
  /// such keys. Override it to expose computed values (such as dependent keys) by name.
  ///
  /// ```swift
  /// override func value(forUndefinedKey key: String) throws -> Any? {
  ///   key == "fullName" ? fullName : try super.value(forUndefinedKey: key)
  /// }
  /// ```
  /// - Parameter key: The key.
  /// - Returns: The value.
  /// - Throws: ``ObjectGraphError/Kind/unknownKey`` by default.
  open func value(forUndefinedKey key: String) throws -> Any? {
    throw ObjectGraphError(
      .unknownKey, entity: entity.name, key: key, value: key,
      reason: "\(entity.name) has no property '\(ObjectGraphError.shorten(key))'")
  }

  // MARK: Identity

  /// Objects are equal only to themselves.
  public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  /// The hash a `Set` or a `Dictionary` of objects uses: the object's address mixed with the
  /// table's seed by a 64-bit finalizer (two multiplications), without a `Hasher`. Like
  /// ``hash(into:)``, it depends on the object's identity only, so equal objects hash alike. A
  /// relationship's `Set` hashes each member this way when it is made.
  ///
  /// ```swift
  /// Set([dune, emma]).contains(dune)  // true
  /// ```
  ///
  /// - Parameter seed: The table's seed.
  /// - Returns: The hash.
  public func _rawHashValue(seed: Int) -> Int {
    var bits = UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
    bits ^= UInt64(UInt(bitPattern: seed))
    bits = (bits ^ bits >> 33) &* 0xff51_afd7_ed55_8ccd
    bits = (bits ^ bits >> 33) &* 0xc4ce_b9fe_1a85_ec53
    return Int(truncatingIfNeeded: bits ^ bits >> 33)
  }

  /// `Book#3 { title: "Dune" (String), price: 12.0 (Double) }`: the object's identifier, as every
  /// message spells it, then its attribute values (`<fault>` for a fault, which is not loaded).
  open var description: String {
    guard !isFaultFlag else { return "\(objectID) <fault>" }
    let values = entity.properties.filter { !$0.isRelationship }.map { property in
      "\(property.name): \(ObjectGraphError.describe(read(property.slot, tracking: false)))"
    }
    return "\(objectID) { \(values.joined(separator: ", ")) }"
  }
}

extension EntityDescription {
  /// The entity of prototype objects, which only exist while a model reads their wrappers.
  static let prototype = EntityDescription(name: "<prototype>")
}
