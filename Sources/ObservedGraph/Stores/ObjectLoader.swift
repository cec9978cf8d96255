import Foundation

/// Puts the rows a store reads straight into a context's objects, as the store reads them.
///
/// A context hands a loader to ``PersistentStore/loadObjects(_:into:)`` and
/// ``PersistentStore/loadMembers(of:relationship:into:)-(ObjectID,_,_)``. For each row, the store calls
/// ``beginObject(_:key:)`` and, when that returns true, gives the row's values, each named by its
/// property's name: ``setAttribute(_:forKey:)`` and ``setToOne(_:entity:forKey:)``. No
/// ``StoredObject`` is built: a value of a common type goes into the object's typed field as it
/// is read.
///
/// The values go into faults, which stay faults until they are read; nothing is tracked,
/// observed or recorded for undo. An object whose values are already in memory is not changed:
/// `beginObject` returns false for it, and the store goes on to the next row.
///
/// A store that does not read rows itself need not use it: the protocol's default
/// implementations load ``StoredObject`` values and give them to ``load(_:)``.
///
/// ```swift
/// func loadMembers(of id: ObjectID, relationship: String, into loader: ObjectLoader) throws {
///   for row in rowsOfMembers(id, relationship) {       // the store's own reading
///     guard loader.beginObject(bookEntity, key: row.key) else { continue }
///     loader.setAttribute(.string(row.title), forKey: "title")
///     loader.setToOne(row.categoryKey, entity: categoryEntity, forKey: "category")
///   }
/// }
/// ```
///
/// A loader is used only during the call it is given to, from the context's isolation domain.
public final class ObjectLoader {
  // The loader lives only during the context's call that made it (`withLoader`), and only its own
  // methods touch its state, one at a time: no reference count on the context (an `Unmanaged`
  // reference, used through `withContext`: an `unowned(unsafe)` one is still retained around each
  // call made on it), and no dynamic exclusivity checks on the fields every row touches. Debug
  // builds keep a checked reference, so a store that uses a loader after its call traps there.
  #if OBSERVEDGRAPH_INVARIANTS
    private unowned let context: ObjectContext

    @inline(__always)
    private func withContext<T>(_ body: (ObjectContext) throws -> T) rethrows -> T {
      try body(context)
    }
  #else
    private let contextReference: Unmanaged<ObjectContext>
    private var context: ObjectContext { contextReference.takeUnretainedValue() }

    @inline(__always)
    private func withContext<T>(_ body: (ObjectContext) throws -> T) rethrows -> T {
      try contextReference._withUnsafeGuaranteedRef(body)
    }
  #endif
  /// The object of each row, in the order of the rows, those already in memory included.
  @exclusivity(unchecked) private(set) var objects: [ManagedObject] = []
  /// Whether `objects` came in the order of their keys, as the rows of a fetch without sort keys
  /// mostly do: the context then need not read every object's key again, a load from each object's
  /// memory, to find out.
  @exclusivity(unchecked) private(set) var inKeyOrder = true
  /// The key of the last object appended.
  @exclusivity(unchecked) private var lastKey = Int64.min
  /// The object taking the current row's values; nil when they are not wanted.
  @exclusivity(unchecked) private var current: Unmanaged<ManagedObject>?
  /// How each property of the current row's entity takes a value, by index.
  @exclusivity(unchecked) private var slots: [Slot] = []
  /// The entity `slots` are for.
  @exclusivity(unchecked) private var slotsEntity: ObjectIdentifier?
  /// The related objects rows of the current load named, by key modulo the table's size (see
  /// `relatedObject`); held until the load ends.
  @exclusivity(unchecked) private var relatedCache = ContiguousArray(
    repeating: RelatedEntry(), count: relatedCacheSize)
  /// The places of `relatedCache` this load filled, up to the table's size; beyond it, the load
  /// clears the whole table when it ends (`relatedCacheFull`).
  @exclusivity(unchecked) private var relatedCachePlaces: [Int] = []
  /// Whether this load filled more places than `relatedCachePlaces` keeps.
  @exclusivity(unchecked) private var relatedCacheFull = false
  /// The last entity a store named and the context's entity for it (when the store's model is
  /// another instance than the context's).
  @exclusivity(unchecked) private var lastNamed:
    (given: EntityDescription, own: EntityDescription?)?
  /// Whether the store's model is the context's: its entities are the context's then.
  private let sharesModel: Bool
  /// Whether some fault of the context keeps the key of the object a to-one named before its
  /// values were dropped (``FaultingState/faultsKeepOwnerKeys``): set for each load.
  var readsKeptOwners = false
  /// The address of ``ObjectCollection/unloaded``, the to-many fault's sentinel.
  private let unloadedAddress = UnsafeRawPointer(
    Unmanaged.passUnretained(ObjectCollection.unloaded).toOpaque())
  /// The positions in `objects` of the objects whose values were in memory already: the rows
  /// gave them nothing.
  private(set) var inMemory: [Int] = []
  /// The to-ones of loaded rows that may disagree with a loaded to-many on the other side: the
  /// context settles them when the load ends (`ObjectContext.settleLoadedOwners(_:)`).
  private(set) var ownerChecks: [OwnerCheck] = []

  /// A loaded object's to-one that names an object whose to-many is in memory, or that named
  /// another object before (`previous`, kept by a fault made again).
  struct OwnerCheck {
    let object: ManagedObject
    unowned(unsafe) let property: Property
    let previous: Int64?
  }

  /// How one property takes a loaded value. The references are the entity's, which the model
  /// keeps alive: reading them retains nothing.
  private struct Slot {
    enum Kind { case attribute, toOne, other }
    let kind: Kind
    unowned(unsafe) let property: Property
    unowned(unsafe) let field: FieldAccess?
    /// For an attribute kept in a typed field of a common type: that type, written in place by
    /// the typed setters (`.none` otherwise).
    let direct: FieldAccess.DirectType
    /// The field's byte offset in the object, and whether it holds an optional.
    let offset: Int
    let optional: Bool
    /// Whether the slot is a to-one kept in a `Relationship` wrapper's field (at `offset`). Written
    /// through the offset: a load of the field's access retains it, an atomic retain and release
    /// per row.
    let toOneInField: Bool
    /// For a to-one kept in a field: where the wrapper keeps a key instead of the object (see
    /// ``RelationshipFields/storeKey(_:in:at:keyOffset:)``), and the relationship's
    /// destination, the entity a row's key must name to be kept so.
    let keyOffset: Int
    let keyDestination: ObjectIdentifier?
    /// For a to-one whose inverse is a to-many: that to-many, which a loaded row's value may
    /// disagree with (see ``OwnerCheck``).
    unowned(unsafe) let ownerInverse: Property?
    /// Whether `ownerInverse` is set: tested per row without loading the reference (which
    /// retains it).
    let checksOwner: Bool
    /// Where the destination's objects keep that to-many when it lives in a `Relationship`
    /// wrapper's field (read in place, nothing retained); -1 otherwise.
    let inverseOffset: Int
  }

  init(context: ObjectContext) {
    #if OBSERVEDGRAPH_INVARIANTS
      self.context = context
    #else
      contextReference = Unmanaged.passUnretained(context)
    #endif
    sharesModel = context.store?.model === context.model
  }

  /// Starts the row of the object with a key.
  ///
  /// The object is found in the context or made as a fault. The row's values are wanted when it
  /// is a fault without values; otherwise (its values are in memory, or the key belongs to an
  /// object of another entity, or the entity is unknown to the context) the store skips to its
  /// next row.
  ///
  /// ```swift
  /// guard loader.beginObject(bookEntity, key: 42) else { continue }
  /// ```
  /// - Parameters:
  ///   - entity: The object's entity: a concrete entity of the store's model.
  ///   - key: The object's key, its ``ObjectID/key``.
  /// - Returns: Whether the store should give the row's values.
  @discardableResult
  public func beginObject(_ entity: EntityDescription, key: Int64) -> Bool {
    current = nil
    // The store's entity is the context's when they share the model: passed on as it is,
    // without a reference count.
    if sharesModel { return entity.isAbstract ? false : begin(entity, key: key) }
    guard let own = otherModelsEntity(entity) else { return false }
    return begin(own, key: key)
  }

  /// ``beginObject(_:key:)`` with the context's entity.
  private func begin(_ own: EntityDescription, key: Int64) -> Bool {
    guard let object = withContext({ $0.objectForLoad(own, key: key, batchable: false) }) else {
      return false
    }
    let wanted = object.isFaultFlag && object.marks & ManagedObject.prefilledMark == 0
    if wanted {
      // Marked now; a load that fails takes the marks back (`abandon()`).
      object.marks |= ManagedObject.prefilledMark
      if slotsEntity != ObjectIdentifier(own) { plan(own) }
      current = Unmanaged.passUnretained(object)
    }
    noteKey(key)
    if !wanted { inMemory.append(objects.count) }
    // Last: the array takes the reference over (`objects` holds `current`'s object).
    objects.append(consume object)
    return wanted
  }

  /// Names an object whose values the store does not give now: it comes back as a fault that
  /// loads its values when read (with others, see ``ObjectContext/faultBatchSize``).
  ///
  /// ```swift
  /// loader.appendObject(bookEntity, key: 42)
  /// ```
  /// - Parameters:
  ///   - entity: The object's entity: a concrete entity of the store's model.
  ///   - key: The object's key, its ``ObjectID/key``.
  public func appendObject(_ entity: EntityDescription, key: Int64) {
    current = nil
    guard let own = ownEntity(entity),
      let object = withContext({ $0.objectForLoad(own, key: key, batchable: true) })
    else { return }
    noteKey(key)
    objects.append(object)
  }

  /// Keeps ``inKeyOrder`` for an object about to be appended.
  @inline(__always)
  private func noteKey(_ key: Int64) {
    if key < lastKey { inKeyOrder = false }
    lastKey = key
  }

  /// How many objects the load has given so far (``beginObject(_:key:)`` counts each object
  /// it finds or makes, whether or not it wants the row's values).
  public var objectCount: Int { objects.count }

  /// Puts the objects given so far in the order of sort keys, as the context orders objects in
  /// memory (with ``FetchSort``'s semantics; objects equal on every key in the order of their
  /// keys).
  ///
  /// For a store whose query ordered the rows by an order that is right for most values but not
  /// all (the SQLite store orders strings by their bytes, which is Swift's order for ASCII text),
  /// when it finds a value the query's order may have placed wrongly. The objects' values must
  /// have come with the load: reading them here loads nothing.
  ///
  /// ```swift
  /// if foundTextBeyondASCII { try loader.sortObjects(by: request.sortDescriptors) }
  /// ```
  /// - Parameter sorts: The fetch's sort keys.
  /// - Throws: What reading a sort key's value throws.
  /// - Complexity: O(n log n) for the n objects given so far.
  public func sortObjects(by sorts: [FetchSort]) throws {
    objects = try context.sorted(objects, by: sorts)
    inKeyOrder = false
  }

  /// Gives an attribute's value of the current row.
  ///
  /// A value that is not of the attribute's type leaves the attribute at its default; stores
  /// check values against the model's types and throw before they get here. nil for a
  /// non-optional attribute is NaN for a `Double` or `Float` (SQLite keeps NaN as NULL) and
  /// leaves any other at its default; a store throws ``ObjectGraphError/Kind/missingValue``
  /// for it instead, as the SQLite store does.
  ///
  /// ```swift
  /// loader.setAttribute(.string("Dune"), forKey: "title")
  /// ```
  /// - Parameters:
  ///   - value: The stored value; nil for none.
  ///   - key: The attribute's name in the current row's entity. A name the entity does not have
  ///     stops the program (the store's mistake, not its data's).
  public func setAttribute(_ value: StoredValue?, forKey key: String) {
    guard current != nil else { return }
    setAttribute(value, at: index(of: key))
  }

  /// ``setAttribute(_:forKey:)`` of the property at `index` of the entity's properties: the
  /// SQLite store's rows, whose columns it laid out in that order.
  package func setAttribute(_ value: StoredValue?, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    guard slot.kind == .attribute else { return }
    current._withUnsafeGuaranteedRef { object in
      if let value, let field = slot.field, field.storeStored(value, in: object) { return }
      let property = slot.property
      guard value != nil || property.isOptionalAttribute else {
        return object.fill(property.heldValueForNull, at: index)
      }
      object.fill(property.heldValue(of: value) ?? property.heldDefault, at: index)
    }
  }

  // MARK: Typed values

  // A store that reads a column as one of the common types hands it over as it is: a field of that
  // type takes it in place, without a `StoredValue` on the way. Any other attribute takes it as
  // `setAttribute(_:forKey:)` would, from the `StoredValue` the store would have given.

  /// Gives a string attribute's value of the current row, as `setAttribute(.string(text), at:)`.
  package func setString(_ text: consuming String, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    guard slot.direct == .string else { return setAttribute(.string(text), at: index) }
    // Moved into the field, not copied (an atomic retain and release of the text's storage).
    put(consume text, in: current, slot)
  }

  /// Gives an integer attribute's value of the current row, as
  /// `setAttribute(.integer(number), at:)`.
  package func setInteger(_ number: Int64, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    switch slot.direct {
    case .int: put(Int(truncatingIfNeeded: number), in: current, slot)
    case .int64: put(number, in: current, slot)
    default: setAttribute(.integer(number), at: index)
    }
  }

  /// Gives a floating-point attribute's value of the current row, as
  /// `setAttribute(.double(number), at:)`.
  package func setDouble(_ number: Double, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    guard slot.direct == .double else { return setAttribute(.double(number), at: index) }
    put(number, in: current, slot)
  }

  /// Gives a Boolean attribute's value of the current row, as `setAttribute(.bool(flag), at:)`.
  package func setBool(_ flag: Bool, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    guard slot.direct == .bool else { return setAttribute(.bool(flag), at: index) }
    put(flag, in: current, slot)
  }

  /// Gives a date attribute's value of the current row, as `setAttribute(.date(date), at:)`.
  package func setDate(_ date: Date, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    guard slot.direct == .date else { return setAttribute(.date(date), at: index) }
    put(date, in: current, slot)
  }

  /// Writes a value into the typed field of a slot whose direct type is `T`'s.
  @inline(__always)
  private func put<T>(_ value: consuming T, in object: Unmanaged<ManagedObject>, _ slot: Slot) {
    if slot.optional {
      FieldAddress.of(T?.self, in: object, at: slot.offset).pointee = value
    } else {
      FieldAddress.of(T.self, in: object, at: slot.offset).pointee = value
    }
  }

  /// Gives a to-one relationship's object of the current row.
  ///
  /// The object is the one the context holds for the key. When it holds none, and the
  /// relationship is a `@Relationship` property whose destination is `entity`, no object is made
  /// now: the relationship keeps the key, and its first read makes the object (a fault), as this
  /// call would have.
  ///
  /// ```swift
  /// loader.setToOne(7, entity: categoryEntity, forKey: "category")
  /// ```
  /// - Parameters:
  ///   - key: The related object's key; nil for none.
  ///   - entity: The related object's entity (concrete).
  ///   - name: The relationship's name in the current row's entity. A name the entity does not
  ///     have stops the program (the store's mistake, not its data's).
  public func setToOne(_ key: Int64?, entity: EntityDescription, forKey name: String) {
    guard current != nil else { return }
    setToOne(key, entity: entity, at: index(of: name))
  }

  /// ``setToOne(_:entity:forKey:)`` of the property at `index` of the entity's properties: the
  /// SQLite store's rows, whose columns it laid out in that order.
  package func setToOne(_ key: Int64?, entity: EntityDescription, at index: Int) {
    guard let current else { return }
    let slot = slot(index)
    guard slot.kind == .toOne else { return }
    // The object it named before, which a fault made again keeps in its field (see
    // `keepToOneKey(_:_:)`); read in place, only while some fault keeps one.
    let previous =
      slot.checksOwner && readsKeptOwners && slot.toOneInField
      ? RelationshipFields.heldKey(in: current, at: slot.offset, keyOffset: slot.keyOffset) : nil
    // No closure around the store: a captured object is copied, not moved, which retains and
    // releases the related object on every row.
    var related: ManagedObject? = nil
    if let key {
      switch relatedObject(entity, key: key, keepingKeyFor: slot.keyDestination) {
      case .key:
        if let previous, previous != key { noteOwner(current, slot, previous: previous) }
        return RelationshipFields.storeKey(
          key, in: current, at: slot.offset, keyOffset: slot.keyOffset)
      case .object(let object):
        related = object
      }
    }
    if slot.checksOwner,
      (previous != nil && previous != related?.objectKey)
        || (related.map { mayHoldLoadedMembers($0, slot) } ?? false)
    {
      noteOwner(current, slot, previous: previous)
    }
    if slot.toOneInField {
      RelationshipFields.storeObject(
        related, in: current, at: slot.offset, keyOffset: slot.keyOffset)
    } else {
      current._withUnsafeGuaranteedRef { $0.fill(related, at: index) }
    }
  }

  /// Whether the to-many that is the inverse of `slot`'s to-one may hold loaded members in
  /// `owner`: read in place from the field when it has one (nothing retained, per row).
  @inline(__always)
  private func mayHoldLoadedMembers(_ owner: ManagedObject, _ slot: Slot) -> Bool {
    guard slot.inverseOffset >= 0 else {
      return owner.mayHoldLoadedMembers(slot.ownerInverse.unsafelyUnwrapped)
    }
    return RelationshipFields.mayHoldLoadedMembers(
      in: Unmanaged.passUnretained(owner), at: slot.inverseOffset, unloaded: unloadedAddress)
  }

  /// Notes a loaded row's to-one for the context to settle when the load ends.
  private func noteOwner(_ object: Unmanaged<ManagedObject>, _ slot: Slot, previous: Int64?) {
    ownerChecks.append(
      OwnerCheck(object: object.takeUnretainedValue(), property: slot.property, previous: previous))
  }

  /// What a to-one's key gives a row: the related object (nil for none), or the key itself, kept
  /// until the relationship is read.
  private enum Related {
    case object(ManagedObject?)
    case key
  }

  /// The object a to-one names: one the load's rows named before (found in `relatedCache`), or one
  /// found or made by the context. When no object has the key and the row names an object of
  /// `destination` (the relationship's destination, for a to-one kept in a field), no object is
  /// made: the key is kept, so a fetch makes no objects for the owners its rows name and counts no
  /// reference on each row.
  private func relatedObject(
    _ entity: EntityDescription, key: Int64, keepingKeyFor destination: ObjectIdentifier?
  ) -> Related {
    let place = Int(truncatingIfNeeded: key) & (Self.relatedCacheSize - 1)
    if relatedCache[place].key == key, relatedCache[place].entity == ObjectIdentifier(entity) {
      if let object = relatedCache[place].object { return .object(object) }
      if destination != nil, relatedCache[place].keptFor == destination { return .key }
    }
    var own: EntityDescription? = nil
    if sharesModel {
      if !entity.isAbstract { own = entity }
    } else {
      own = otherModelsEntity(entity)
    }
    guard let own else { return .object(nil) }
    if key > 0, let destination, ObjectIdentifier(own) == destination {
      guard let inMemory = withContext({ $0.objectInMemory(forLoad: own, key: key) }) else {
        remember(RelatedEntry(key: key, entity: ObjectIdentifier(entity), keptFor: destination))
        return .key
      }
      if let related = inMemory {
        remember(RelatedEntry(key: key, entity: ObjectIdentifier(entity), object: related))
      }
      return .object(inMemory)
    }
    guard let related = withContext({ $0.objectForLoad(own, key: key, batchable: true) }) else {
      return .object(nil)
    }
    remember(RelatedEntry(key: key, entity: ObjectIdentifier(entity), object: related))
    return .object(related)
  }

  /// Keeps what a row's to-one key gave, for the next rows of the load that name it.
  private func remember(_ entry: RelatedEntry) {
    let place = Int(truncatingIfNeeded: entry.key) & (Self.relatedCacheSize - 1)
    relatedCache[place] = entry
    if relatedCachePlaces.count < Self.relatedCacheSize {
      relatedCachePlaces.append(place)
    } else {
      relatedCacheFull = true
    }
  }

  /// A related object a row of the current load named, held until the load ends; or, with
  /// `keptFor`, a key no object had, kept for the relationships to that destination entity.
  private struct RelatedEntry {
    var key: Int64 = 0
    var entity: ObjectIdentifier?
    var object: ManagedObject?
    var keptFor: ObjectIdentifier?
  }

  /// How many related objects the loader remembers, by key: the rows of a to-many's members mostly
  /// name the same owner, and a fetch's rows name up to this many owners without asking the context
  /// twice for one; with far fewer places, a fetch whose rows name many owners asks the context on
  /// almost every row. 24 KiB per loader; a load clears only the places it filled.
  private static var relatedCacheSize: Int { 1024 }

  /// Gives the values of a stored object, as ``beginObject(_:key:)`` and the setters would.
  ///
  /// ```swift
  /// for stored in try loadObjects(ids) { try loader.load(stored) }
  /// ```
  /// - Parameter stored: An object of the store, with a value per property of its entity.
  /// - Throws: ``ObjectGraphError/Kind/wrongType`` when it does not have a value per property
  ///   of its entity; nothing of it is loaded then.
  public func load(_ stored: StoredObject) throws {
    guard let entity = context.model.entity(named: stored.id.entityName) else { return }
    guard stored.properties.count == entity.properties.count else {
      throw ObjectGraphError(
        .wrongType, entity: entity.name, value: stored.id.description,
        reason: "the store gave \(stored.properties.count) values for \(stored.id), whose "
          + "entity has \(entity.properties.count) properties")
    }
    guard stored.id.storeIdentifier == context.registry.storeIdentifier,
      beginObject(entity, key: stored.id.key), let object = current?.takeUnretainedValue()
    else { return }
    for (index, value) in stored.properties.enumerated() {
      switch value {
      case .attribute(let value): setAttribute(value, at: index)
      case .toOne(let id):
        if let id, id.storeIdentifier == context.registry.storeIdentifier,
          let destination = context.model.entity(named: id.entityName)
        {
          setToOne(id.key, entity: destination, at: index)
        } else {
          setToOne(nil, entity: entity, at: index)
        }
      case .toMany(let ids) where entity.properties[index].isToMany:
        let members = ids.compactMap(context.object(with:))
        context.putMembers(members, in: object, entity.properties[index])
      case .toMany, .omitted:
        continue
      }
    }
  }

  /// Takes back the marks of a load that failed: the objects it began load again when read.
  func abandon() {
    for object in objects { object.marks &= ~ManagedObject.prefilledMark }
  }

  /// Empties the loader for the next load.
  func reset() {
    objects.removeAll(keepingCapacity: true)
    ownerChecks.removeAll()
    inMemory.removeAll()
    inKeyOrder = true
    lastKey = .min
    current = nil
    // The related objects are let go with the load: the context holds unchanged objects weakly.
    if relatedCacheFull {
      for place in relatedCache.indices { relatedCache[place] = RelatedEntry() }
    } else {
      for place in relatedCachePlaces { relatedCache[place] = RelatedEntry() }
    }
    relatedCachePlaces.removeAll(keepingCapacity: true)
    relatedCacheFull = false
  }

  /// How a property of the current entity takes a value; a store's index out of range stops the
  /// program (a store bug, not a user's data).
  @inline(__always)
  /// The index of the current row's property named `name`.
  private func index(of name: String) -> Int {
    let entity = current.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.entity }
    guard let property = entity.propertiesByName[name] else {
      preconditionFailure(
        "ObservedGraph: a store gave a value for '\(name)', which entity \(entity.name) does not "
          + "have")
    }
    return property.slot
  }

  private func slot(_ index: Int) -> Slot {
    precondition(
      index >= 0 && index < slots.count,
      "ObservedGraph: a store gave a value at index \(index) of an entity with \(slots.count) "
        + "properties")
    return slots[index]
  }

  /// Makes the slots of an entity.
  private func plan(_ entity: EntityDescription) {
    slots = entity.properties.map { property in
      let field = entity.fields[property.slot]
      let direct = !property.isRelationship ? field?.directType ?? .none : .none
      return Slot(
        kind: !property.isRelationship ? .attribute : property.isToMany ? .other : .toOne,
        property: property, field: field,
        direct: direct, offset: field?.offset ?? 0, optional: field?.holdsOptional ?? false,
        toOneInField: property.isToOne && field is RelationshipFieldAccess,
        keyOffset: (field as? RelationshipFieldAccess)?.keyOffset ?? 0,
        keyDestination: field is RelationshipFieldAccess && property.isToOne
          ? property.destination.map(ObjectIdentifier.init) : nil,
        ownerInverse: property.isToOne && property.inverse?.isToMany == true
          ? property.inverse : nil,
        checksOwner: property.isToOne && property.inverse?.isToMany == true,
        inverseOffset: property.isToOne && property.inverse?.isToMany == true
          ? Self.fieldOffset(of: property.inverse) : -1)
    }
    slotsEntity = ObjectIdentifier(entity)
  }

  /// The offset of a relationship's field in the objects of its entity (and of its
  /// sub-entities, whose classes inherit the field); -1 when it lives in the slot array.
  private static func fieldOffset(of property: Property?) -> Int {
    guard let property, let field = property.owner.fields[property.slot] as? RelationshipFieldAccess
    else { return -1 }
    return field.offset
  }

  /// The context's entity for an entity a store names: nil for an abstract or unknown one. Inlined:
  /// each row asks.
  @inline(__always)
  private func ownEntity(_ entity: EntityDescription) -> EntityDescription? {
    if sharesModel { return entity.isAbstract ? nil : entity }
    return otherModelsEntity(entity)
  }

  /// ``ownEntity(_:)`` for a store whose model is another instance than the context's.
  private func otherModelsEntity(_ entity: EntityDescription) -> EntityDescription? {
    if let lastNamed, lastNamed.given === entity { return lastNamed.own }
    var own = context.model.entity(named: entity.name)
    if own?.isAbstract == true { own = nil }
    lastNamed = (entity, own)
    return own
  }
}
