import Observation

/// The read hook and the writes: the only code that touches an object's storage.
///
/// Every read of a value — typed getters, key-value coding, key paths, snapshots, `description`,
/// an observer's `.initial` call, validation, saving, the mutation path's own reads — goes through
/// ``read(_:tracking:keyPath:)``. It fulfils a fault first and, for reads made on the user's
/// behalf (`tracking`), reports the read to Swift Observation (or, while a typed key path is being
/// resolved, to the access recording). Writes go through ``write(_:at:)``.
extension ManagedObject {
  /// The read hook.
  ///
  /// - Parameters:
  ///   - slot: The property's slot.
  ///   - tracking: Whether the read is the user's (typed getter, key-value coding, key paths):
  ///     then Swift Observation hears of it.
  ///   - keyPath: The wrapped key path of a typed getter, for resolving typed key paths.
  /// - Returns: The held value.
  @usableFromInline
  final func read(_ slot: Int, tracking: Bool, keyPath: AnyKeyPath? = nil) -> Any? {
    if isFaultFlag { fulfilFaultOrStop() }
    if tracking { noteAccess(slot, keyPath) }
    // A to-many slot is read where every relationship read is: a fault or members that left
    // memory load there.
    let property = entity.properties[slot]
    if property.isToMany { return relationshipReference(property) }
    return load(slot)
  }

  /// Whether a typed getter's read needs nothing but the registrar's `access`: the object is loaded
  /// and no typed key path is being resolved.
  @inlinable @inline(__always)
  final var readsPlainly: Bool { !isFaultFlag && link.unsafelyUnwrapped.accessRecording == nil }

  /// The read hook of a typed getter, which then loads its field itself: fulfils a fault and
  /// reports the read to Swift Observation. Returns true while a typed key path is being
  /// resolved: the getter then reports its key path with ``recordTypedRead(_:keyPath:)`` (a key
  /// path is only made when it is needed).
  @usableFromInline
  final func readHook(_ slot: Int) -> Bool {
    // The common case first: a loaded object that has a registrar, outside a key path's resolution.
    if let registrar, !isFaultFlag, link.unsafelyUnwrapped.accessRecording == nil {
      registrar.access(self, slot)
      return false
    }
    if isFaultFlag { fulfilFaultOrStop() }
    if link?.accessRecording != nil { return true }
    noteAccess(slot, nil)
    return false
  }

  /// A typed getter's read while a typed key path is being resolved, with the getter's key path.
  @usableFromInline
  final func recordTypedRead(_ slot: Int, keyPath: AnyKeyPath) {
    noteAccess(slot, keyPath)
  }

  /// Writes a slot: the mutation path's apply phase and primitive sets (each counts itself as a
  /// change of the graph, see `ObjectContext.generation`).
  func write(_ value: consuming Any?, at slot: Int) {
    if let field = entity.fields[slot] {
      field.store(value, in: self)
    } else {
      storage[entity.storageIndex[slot]] = value
    }
  }

  /// A slot's held value, from the wrapper's field or the slot array.
  private func load(_ slot: Int) -> Any? {
    if let field = entity.fields[slot] { return field.load(self) }
    return storage[entity.storageIndex[slot]]
  }

  /// Reports a user's read: to the access recording while a typed key path is being resolved,
  /// otherwise to Swift Observation if the context takes part in it.
  private func noteAccess(_ slot: Int, _ keyPath: AnyKeyPath?) {
    if let recording = link?.accessRecording {
      recording.reads.append((self, slot, keyPath))
      return
    }
    registrar?.access(self, slot)
  }

  // MARK: Typed access

  /// How a typed attribute set goes on, decided by ``beginTypedSet(_:)``.
  @usableFromInline
  enum TypedSet {
    /// Nobody but Swift Observation hears the set and the slot is already tracked and pending:
    /// the setter's store is applied with nothing to track (`Attribute.exchange`).
    case quiet
    /// The set is recorded for undo and nothing else hears it: the setter stores as for `quiet`
    /// and records the old value in the context's open undo column (``AttributeColumn``) unless
    /// it is equal (`Attribute.setRecorded`).
    case recorded
    /// As `quiet`, but the slot has observers, all of them typed (see
    /// ``ObserverTable/typedSlots``): the setter keeps the old value, stores as for `quiet`, and
    /// hands both values to the observers as they are.
    case observed
    /// The set takes the whole mutation path: the setter hands the old and new values to
    /// ``commitAttribute(slot:old:new:changes:)``.
    case full
  }

  /// The first half of a typed attribute set: loads a fault, stops if the object cannot change, and
  /// says how the set goes on. It is quiet when the slot is already tracked as changed and pending
  /// for the next event with the origin in force noted, and the set's audience (``ObjectContext/audience(of:slot:)``) is at most
  /// Swift Observation with, besides, either the slot's typed observers or the undo recorder,
  /// which the setter serves itself. A quiet answer is kept in the slot's quiet bit
  /// (``cacheQuietSet(_:recorded:)``), so that the next set of the slot can skip this call; the
  /// setter then hands its store to the one apply (`Attribute.exchange`).
  @usableFromInline
  final func beginTypedSet(_ slot: Int) -> TypedSet {
    if isFaultFlag { fulfilFaultOrStop() }
    let context = typedSetContext(slot: slot)
    guard isTrackedAndPending(slot), context.notesOrigin(of: self, slot) else { return .full }
    switch context.audience(of: self, slot: slot).subtracting(.registrar) {
    case []:
      cacheQuietSet(slot, recorded: false)
      return .quiet
    case .typedObservers:
      cacheQuietSet(slot, recorded: false)
      return .observed
    case .undoRecorder:
      // The next set of this slot finds it by `isRecordedQuietInline(_:)`.
      cacheQuietSet(slot, recorded: true)
      return .recorded
    default:
      return .full
    }
  }

  /// Whether a typed set of `slot` needs nothing but the store, the count of the change, and the
  /// registrar's calls when there is one: the inline test of the typed setter (see
  /// `quietSlots`).
  @inlinable @inline(__always)
  final func isQuietInline(_ slot: Int) -> Bool {
    quietSlots & (1 &<< UInt64(truncatingIfNeeded: slot)) != 0 && slot < 64
      && quietEpoch == link.unsafelyUnwrapped.quietEpoch
  }

  /// Records a quiet typed set of `slot` in the context's open undo column when it can take it:
  /// adds the entry and returns the column, whose values the caller adds the old value to. Nil
  /// when a new column is needed (``startUndoColumn(_:slot:)``).
  @usableFromInline
  final func growUndoColumn(slot: Int, valueType: ObjectIdentifier)
    -> Unmanaged<AttributeColumn>?
  {
    Unmanaged.passUnretained(link.unsafelyUnwrapped.context.unsafelyUnwrapped.recorder)
      ._withUnsafeGuaranteedRef { $0.growColumn(self, slot: slot, valueType: valueType) }
  }

  /// Records a quiet typed set of `slot` in a new undo column, which holds its old value.
  @usableFromInline
  final func startUndoColumn(_ column: AttributeColumn, slot: Int) {
    link.unsafelyUnwrapped.context.unsafelyUnwrapped.recorder.startColumn(column, self, slot: slot)
  }

  /// The flag of ``quietEpoch`` for quiet bits set by a recorded set (``TypedSet/recorded``): such
  /// a bit says the slot's set needs nothing but the store, the count of the change, the
  /// registrar's calls and the record of the old value in the context's undo column. The inline
  /// test of the setter (``isQuietInline(_:)``) never matches it; the setter's out-of-line part
  /// tests it (``isRecordedQuietInline(_:)``). A context's own epoch never carries the flag.
  @usableFromInline static var recordedQuietFlag: UInt32 { 1 << 31 }

  /// Whether a typed set of `slot` is recorded in the context's undo column and needs nothing
  /// else but the store, the count of the change and the registrar's calls (see
  /// ``recordedQuietFlag``).
  @inlinable @inline(__always)
  final func isRecordedQuietInline(_ slot: Int) -> Bool {
    quietSlots & (1 &<< UInt64(truncatingIfNeeded: slot)) != 0 && slot < 64
      && quietEpoch == link.unsafelyUnwrapped.quietEpoch | Self.recordedQuietFlag
  }

  /// The store of a quiet typed set, made by `store` (the setter's typed code), applied by the
  /// context's one apply with nothing to track (``ObjectContext/setQuietly(_:_:store:)``).
  @usableFromInline
  final func applyQuietStore(_ slot: Int, _ store: () -> Void) {
    // The context lives while the object is in it (the caller checked the object is).
    Unmanaged.passUnretained(link.unsafelyUnwrapped.context.unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef { $0.setQuietly(self, slot: slot, store: store) }
  }

  /// The debug checks of the context's parts after a quiet set (nothing in release builds).
  @usableFromInline
  final func checkQuietSet(_ slot: Int) {
    #if OBSERVEDGRAPH_INVARIANTS
      if let context = link?.context {
        let edit = Edit.set(self, entity.properties[slot], old: nil, new: nil)
        context.checkAfterMutation(SingleEdit(PlannedEdit(edit)))
      }
    #endif
  }

  /// The rest of a typed attribute set that takes the whole mutation path.
  @usableFromInline
  final func commitAttribute(slot: Int, old: consuming Any?, new: consuming Any?, changes: Bool) {
    let property = entity.properties[slot]
    typedSetContext(property).performAttribute(self, property, old: old, new: new, changes: changes)
  }

  /// The members a typed relationship getter returns.
  @usableFromInline
  final func readMembers(slot: Int, keyPath: AnyKeyPath) -> [ManagedObject] {
    if isFaultFlag { fulfilFaultOrStop() }
    noteAccess(slot, keyPath)
    return members(entity.properties[slot])
  }

  /// The members a typed to-many getter reads, unretained (for a to-one slot, its object): alive
  /// while the relationship holds them, which the getter's caller does not change while it makes
  /// its value from them. A `Set` of the members is then made without an array of them retained and
  /// released on the way.
  @usableFromInline
  final func readMemberReferences(slot: Int, keyPath: AnyKeyPath)
    -> ContiguousArray<Unmanaged<ManagedObject>>
  {
    if isFaultFlag { fulfilFaultOrStop() }
    noteAccess(slot, keyPath)
    let property = entity.properties[slot]
    guard property.isToMany else {
      return toOne(property).map { [Unmanaged.passUnretained($0)] } ?? []
    }
    return collection(property)?.references ?? []
  }

  /// The object a typed to-one getter returns (nil for none; a to-many slot's first member).
  @usableFromInline
  final func readToOne(slot: Int, keyPath: AnyKeyPath) -> ManagedObject? {
    if isFaultFlag { fulfilFaultOrStop() }
    noteAccess(slot, keyPath)
    let property = entity.properties[slot]
    guard property.isToMany else { return toOne(property) }
    return collection(property)?.references.first?.takeUnretainedValue()
  }

  /// The typed to-one setter: misuse the compiler cannot see stops the program.
  @usableFromInline
  final func writeToOne(_ target: ManagedObject?, slot: Int) {
    let property = entity.properties[slot]
    let context = typedSetContext(property)
    if let target {
      do {
        try context.checkRelatable(target, for: property, of: self)
      } catch {
        preconditionFailure("ObservedGraph: \(error)")
      }
    }
    // Tried before a request is made: copying the request's payload cost a fifth of a quiet set.
    if context.relateQuietly(self, property, to: target) { return }
    context.performPlanned(.toOne(self, property, target))
  }

  /// The typed relationship setter: misuse the compiler cannot see stops the program.
  @usableFromInline
  final func writeRelationship(_ objects: [ManagedObject], slot: Int) {
    let property = entity.properties[slot]
    let context = typedSetContext(property)
    do {
      if property.isToMany {
        let objects = try context.checkedMembers(objects, for: property, of: self)
        context.perform(.assignMembers(self, property, objects))
      } else {
        try objects.first.map { try context.checkRelatable($0, for: property, of: self) }
        context.perform(.toOne(self, property, objects.first))
      }
    } catch {
      preconditionFailure("ObservedGraph: \(error)")
    }
  }

  /// The context of a typed set, or a stop naming why the object cannot be changed.
  private func typedSetContext(_ property: Property) -> ObjectContext {
    typedSetContext(slot: property.slot)
  }

  /// The context of a typed set of `slot`, or a stop naming why the object cannot be changed.
  private func typedSetContext(slot: Int) -> ObjectContext {
    do {
      return try usableContext(key: entity.properties[slot].name)
    } catch {
      // The reason alone: the error's own prefix names the entity and key again.
      preconditionFailure(
        "ObservedGraph: cannot set \(entity.properties[slot].qualifiedName): "
          + ((error as? ObjectGraphError)?.reason ?? "\(error)"))
    }
  }

  // MARK: Internal reads and writes

  /// Whether a set of `slot` leaves nothing to track: the slot is already tracked as changed and
  /// pending for the next event (its first set since the last save and the last event did both).
  final func isTrackedAndPending(_ slot: Int) -> Bool {
    changes.contains(slot) && pendingContains(slot)
  }

  /// Whether the object is registered and not deleted: it may change and be related.
  var isLive: Bool { lifecycle == .registered && !isDeletedFlag }

  /// The object a to-one slot holds.
  func toOne(_ property: Property) -> ManagedObject? {
    relationshipReference(property).map { unsafeDowncast($0, to: ManagedObject.self) }
  }

  /// What a relationship slot holds, read in place: from the wrapper's field, or from the slot
  /// array of an object without wrappers (see `ObjectStorage.reference(at:)`).
  private func relationshipReference(_ property: Property) -> AnyObject? {
    if isFaultFlag { fulfilFaultOrStop() }
    let reference = heldReference(property)
    // Only a to-many slot can be a fault; a to-one read skips the sentinel's global.
    if property.isToMany, let reference {
      let collection = unsafeDowncast(reference, to: ObjectCollection.self)
      if collection === ObjectCollection.unloaded || !collection.membersAreAlive() {
        return loadToManyOrStop(property)
      }
    }
    return reference
  }

  /// The context that makes the object of a to-one a load named by its key (see
  /// ``RelationshipFieldAccess``): nil once the object left its context (the context was reset
  /// or released), whose relationships then hold nothing.
  var contextForLoadedKey: ObjectContext? {
    isInLiveContext ? link.unsafelyUnwrapped.context : nil
  }

  /// Whether the object is registered or detached in a context that still exists: what loading
  /// its values or a related object's needs. Read without a reference to the context.
  @inline(__always) var isInLiveContext: Bool {
    (lifecycle == .registered || lifecycle == .detached) && link?.hasContext == true
  }

  /// What a relationship slot holds, as it is: a to-many fault stays one.
  private func heldReference(_ property: Property) -> AnyObject? {
    assert(property.isRelationship)
    if let (offset, keyOffset) = relationshipFieldOffsets(property) {
      return RelationshipFields.reference(in: self, at: offset, keyOffset: keyOffset)
    }
    return storage.reference(at: entity.storageIndex[property.slot])
  }

  /// Where a relationship's wrapper keeps its value and a loaded key (see
  /// ``RelationshipFieldAccess``); nil for a slot of the slot array. The access is read in this
  /// scope only, so that a call after it does not keep it alive: otherwise every read of a
  /// relationship retains and releases the entity's shared access.
  @inline(__always)
  private func relationshipFieldOffsets(_ property: Property) -> (Int, Int)? {
    guard let field = entity.fields[property.slot] else { return nil }
    let access = unsafeDowncast(field, to: RelationshipFieldAccess.self)
    return (access.offset, access.keyOffset)
  }

  /// The key of the object a to-one slot names, read in place: neither a fault is fulfilled nor
  /// an object a load named by its key made. Nil for none.
  func toOneKey(_ property: Property) -> Int64? {
    assert(property.isToOne)
    if let (offset, keyOffset) = relationshipFieldOffsets(property) {
      return RelationshipFields.heldKey(
        in: Unmanaged.passUnretained(self), at: offset, keyOffset: keyOffset)
    }
    return storage.reference(at: entity.storageIndex[property.slot]).map {
      unsafeDowncast($0, to: ManagedObject.self).objectKey
    }
  }

  /// Keeps a to-one's object as its key, for an object whose values are dropped (a fault
  /// again): its next load finds which object it named before. A slot of the slot array keeps
  /// nothing.
  func keepToOneKey(_ key: Int64?, _ property: Property) {
    guard let key, let (offset, keyOffset) = relationshipFieldOffsets(property) else {
      return fill(nil, at: property.slot)
    }
    RelationshipFields.storeKey(
      key, in: Unmanaged.passUnretained(self), at: offset, keyOffset: keyOffset)
    link?.context?.faulting.faultsKeepOwnerKeys = true
  }

  /// Whether a to-many's members may be in memory: it holds a collection that is not a to-many
  /// fault, or the object is loaded and keeps it empty (no collection). Read in place, nothing
  /// fulfilled or loaded.
  func mayHoldLoadedMembers(_ property: Property) -> Bool {
    guard let held = heldReference(property) else { return !isFaultFlag }
    return held !== ObjectCollection.unloaded
  }

  /// A to-many slot's collection when its members are in memory, read in place without
  /// fulfilling a fault: nil for none, for a to-many fault, and for members one of which left
  /// memory.
  func loadedCollection(_ property: Property) -> ObjectCollection? {
    assert(property.isToMany)
    guard let held = heldReference(property) else { return nil }
    let collection = unsafeDowncast(held, to: ObjectCollection.self)
    guard collection !== ObjectCollection.unloaded, collection.membersAreAlive() else {
      return nil
    }
    return collection
  }

  /// Whether a to-one slot holds the key a load gave, its object not made yet (see
  /// ``RelationshipFieldAccess``).
  func holdsLoadedKey(_ property: Property) -> Bool {
    guard property.isToOne, let (_, keyOffset) = relationshipFieldOffsets(property) else {
      return false
    }
    return RelationshipFields.holdsKey(in: self, keyOffset: keyOffset)
  }

  /// Whether a to-many slot is a to-many fault — its members are still in the store — or holds
  /// members some of which left memory (reading it loads them again).
  func isToManyFault(_ property: Property) -> Bool {
    guard property.isToMany, !isFaultFlag, let held = heldReference(property) else { return false }
    let collection = unsafeDowncast(held, to: ObjectCollection.self)
    return collection === ObjectCollection.unloaded || !collection.membersAreAlive()
  }

  /// Makes a to-many slot's collection retain its members: the slot is about to hold unsaved
  /// changes, which the store does not have.
  func retainMembers(ofSlot slot: Int) {
    let property = entity.properties[slot]
    guard property.isToMany, let held = heldReference(property) else { return }
    let collection = unsafeDowncast(held, to: ObjectCollection.self)
    if collection !== ObjectCollection.unloaded { collection.startRetaining() }
  }

  /// The objects a relationship slot holds without loading or making anything: nil for a to-many
  /// fault, and for a to-one that holds the key a load gave.
  func loadedMembers(_ property: Property) -> [ManagedObject]? {
    if isToManyFault(property) || holdsLoadedKey(property) { return nil }
    return members(property)
  }

  /// Loads a to-many fault's members, or stops the program saying why (a read that cannot
  /// throw, like a typed getter of a fault).
  private func loadToManyOrStop(_ property: Property) -> ObjectCollection? {
    do {
      return try loadToMany(property)
    } catch {
      preconditionFailure(
        "ObservedGraph: \(error). A relationship whose members cannot be loaded cannot be read; "
          + "call `try object.value(forKey:)` to get an error instead")
    }
  }

  /// Loads a to-many fault's members now — or loads them again when one of them left memory
  /// (see `ObjectCollection.membersAreAlive()`); does nothing for a loaded one. Its collection.
  @discardableResult
  func loadToMany(_ property: Property) throws -> ObjectCollection? {
    guard let held = heldReference(property) else { return nil }
    let collection = unsafeDowncast(held, to: ObjectCollection.self)
    if collection !== ObjectCollection.unloaded && collection.membersAreAlive() {
      return collection
    }
    guard let context = link?.context, lifecycle == .registered || lifecycle == .detached else {
      throw ObjectGraphError(
        .invalidObject, entity: entity.name, key: property.name, value: objectID.description,
        reason: "the members of \(objectID).\(property.name) cannot be loaded: its context was "
          + "reset or released")
    }
    return try context.loadMembers(of: self, property)
  }

  /// Stores what a relationship slot holds: a related object, a collection, or nil.
  func setRelationshipReference(_ reference: AnyObject?, for property: Property) {
    assert(property.isRelationship)
    if let (offset, keyOffset) = relationshipFieldOffsets(property) {
      RelationshipFields.setReference(reference, in: self, at: offset, keyOffset: keyOffset)
    } else {
      storage[entity.storageIndex[property.slot]] = reference
    }
  }

  /// The collection of a to-many slot, if it was ever filled.
  func collection(_ property: Property) -> ObjectCollection? {
    relationshipReference(property).map { unsafeDowncast($0, to: ObjectCollection.self) }
  }

  /// The collection of a to-many slot, made on first use.
  func makeCollection(_ property: Property) -> ObjectCollection {
    if let collection = collection(property) { return collection }
    let collection = ObjectCollection(ordered: property.isOrdered)
    setRelationshipReference(collection, for: property)
    return collection
  }

  /// The objects a relationship slot holds, in order (empty for none).
  func members(_ property: Property) -> [ManagedObject] {
    if property.isToMany { return collection(property)?.items ?? [] }
    return toOne(property).map { [$0] } ?? []
  }

  /// The public form of a slot: the attribute value, the object, a `Set` or an `Array` of objects.
  func publicValue(_ property: Property, tracking: Bool) -> Any? {
    let held = read(property.slot, tracking: tracking)
    guard property.isToMany else { return held }
    let members = (held as? ObjectCollection)?.items ?? []
    return property.isOrdered ? members : Set(members) as Any
  }

  /// A slot's value as a value: the attribute's stored form, or the related objects' identifiers.
  func snapshotValue(_ property: Property) -> SnapshotValue {
    if property.isToMany { return .toMany(collection(property)?.memberIDs ?? []) }
    if property.isRelationship { return .toOne(toOne(property)?.objectID) }
    return .attribute(property.storedValue(of: read(property.slot, tracking: false)))
  }

  /// Whether a slot holds `value` (an unordered to-many in any order), without making the slot's
  /// ``snapshotValue(_:)``: a relationship's objects are compared with the identifiers in place,
  /// since undo of a cascade delete checks every slot it puts back.
  func holds(_ value: SnapshotValue, _ property: Property) -> Bool {
    switch value {
    case .toMany(let saved) where property.isToMany:
      guard let collection = collection(property) else { return saved.isEmpty }
      guard collection.count == saved.count else { return false }
      var inOrder = true
      for (index, reference) in collection.references.enumerated()
      where !saved[index].names(reference.takeUnretainedValue()) {
        inOrder = false
        break
      }
      guard !inOrder && !property.isOrdered else { return inOrder }
      return Set(collection.memberIDs) == Set(saved)
    case .toOne(let saved) where property.isToOne:
      guard let object = toOne(property) else { return saved == nil }
      return saved?.names(object) == true
    default:
      return snapshotValue(property) == value
    }
  }

  /// The attribute values, for bringing the object back from an undo step.
  func attributeSnapshot() -> ObjectSnapshot {
    if isFaultFlag { fulfilFaultOrStop() }
    // One array, sized once: each deleted object keeps one.
    var values: [ObjectSnapshot.Value] = []
    values.reserveCapacity(entity.attributeProperties.count)
    for property in entity.attributeProperties {
      values.append(
        ObjectSnapshot.Value(
          slot: property.slot, value: property.storedValue(of: load(property.slot))))
    }
    return ObjectSnapshot(values: values)
  }

  /// Cuts the object loose from its context: observers end, relationships and change state are
  /// dropped (ending reference cycles), attribute values stay readable, and every later change
  /// fails with `invalidObject`.
  func invalidate() {
    if observers != nil, let context = link?.context { context.center.dropObservers(of: self) }
    lifecycle = .invalid
    // A fault stays one: it has no values to show, and it can no longer load them.
    changes.removeAll()
    clearPending()
    for property in entity.relationshipProperties { setRelationshipReference(nil, for: property) }
  }
}

/// The Swift Observation registrar of one object, boxed: the registrar's layout is opaque to this
/// module, so an optional of it would cost value-witness calls on every test and copy.
///
/// Its holders (the objects that share it, and the link while it hands out members) count
/// themselves in ``holders`` without atomic operations, as the registry counts its objects: objects
/// are made and released on their context's isolation. The box holds one retain of itself for them
/// all, given back when the count reaches zero, so making or releasing an object makes no atomic
/// retain or release of the shared box.
@usableFromInline
final class SwiftObservation {
  @usableFromInline let registrar = ObservationRegistrar()
  /// How many holders share the box.
  @exclusivity(unchecked) var holders = 0

  @usableFromInline init() {}

  /// A new box with one holder, retained for its holders.
  static func make() -> UnsafeRawPointer {
    let box = SwiftObservation()
    box.holders = 1
    return UnsafeRawPointer(Unmanaged.passRetained(box).toOpaque())
  }

  /// Counts one more holder of the box at `address`.
  static func hold(_ address: UnsafeRawPointer) {
    Unmanaged<SwiftObservation>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.holders += 1 }
  }

  /// Counts one holder less of the box at `address`, and lets it go with the last.
  static func leave(_ address: UnsafeRawPointer) {
    let box = Unmanaged<SwiftObservation>.fromOpaque(address)
    let left = box._withUnsafeGuaranteedRef { box in
      box.holders -= 1
      return box.holders
    }
    if left == 0 { box.release() }
  }
}

/// An object's handle on its registrar's box, counted as one of its holders until the object's
/// `deinit`. The registrar's calls borrow the box and the slot's key path (constants of the object
/// and its entity, both alive for the call) instead of retaining and releasing them around the
/// call, as a strong reference would.
///
/// Up to ``groupSize`` objects of a context share one registrar, each as a *member* of it: an
/// object's reads and changes name its slots to the registrar with key paths of its member number
/// (`\ManagedObject.[observationSlot: slot, member: member]`), so a change of one member never
/// reaches what tracks another. Making a registrar allocates twice inside Swift Observation, which
/// each object fetched from a store would pay with a registrar of its own. The member number rides
/// in the low four bits of the box's address, which the allocator aligns to 16 bytes (a box found
/// at another address gets no other member: see ``ContextLink/joinRegistrar()``).
@usableFromInline
struct RegistrarHandle {
  /// The box's address plus the member number.
  @usableFromInline let tagged: UnsafeRawPointer

  /// How many objects share a registrar at most.
  @usableFromInline static var groupSize: Int { 16 }

  /// A handle for member `member` of the registrar in `box`, taking over one hold of the box.
  init(box: UnsafeRawPointer, member: Int) {
    assert(
      member == 0 || (Int(bitPattern: box) & (Self.groupSize - 1) == 0 && member < Self.groupSize))
    tagged = box + member
  }

  /// The member number: where the object's key paths sit among its slot's (see
  /// ``EntityDescription/observationKeyPaths``).
  @usableFromInline var member: Int { Int(bitPattern: tagged) & (Self.groupSize - 1) }

  /// The shared box, without taking a hold.
  var box: Unmanaged<SwiftObservation> { .fromOpaque(tagged - member) }

  /// Gives back the handle's hold; called once, by the object's `deinit`.
  func release() { SwiftObservation.leave(box.toOpaque()) }

  /// Calls `body` with the registrar and the key path that names `slot` of this member, both
  /// borrowed.
  @inlinable @inline(__always)
  func with(
    _ object: ManagedObject, _ slot: Int,
    _ body: (borrowing ObservationRegistrar, KeyPath<ManagedObject, Int>) -> Void
  ) {
    let member = self.member
    Unmanaged<SwiftObservation>.fromOpaque(tagged - member)._withUnsafeGuaranteedRef { box in
      Unmanaged.passUnretained(
        object.entity.observationKeyPaths[slot &* RegistrarHandle.groupSize &+ member]
      )._withUnsafeGuaranteedRef { body(box.registrar, $0) }
    }
  }

  /// The registrar's `access` for a read of `slot`.
  @inlinable @inline(__always)
  func access(_ object: ManagedObject, _ slot: Int) {
    with(object, slot) { $0.access(object, keyPath: $1) }
  }

  /// The registrar's `willSet` for a change of `slot`.
  @usableFromInline
  func willSet(_ object: ManagedObject, _ slot: Int) {
    with(object, slot) { $0.willSet(object, keyPath: $1) }
  }

  /// The registrar's `didSet` for a change of `slot`.
  @usableFromInline
  func didSet(_ object: ManagedObject, _ slot: Int) {
    with(object, slot) { $0.didSet(object, keyPath: $1) }
  }
}

extension ManagedObject {
  /// Key paths that stand for one slot of one member of a shared registrar, for the Swift
  /// Observation registrar: the slot's key paths for members 0 to 15, then the next slot's.
  // Immutable after initialization; key paths are immutable objects.
  nonisolated(unsafe) static let observationKeyPaths: [KeyPath<ManagedObject, Int>] =
    (0..<128 * RegistrarHandle.groupSize).map {
      \ManagedObject.[
        observationSlot: $0 / RegistrarHandle.groupSize,
        member: $0 % RegistrarHandle.groupSize]
    }

  /// The key paths of a slot, one per member, in member order.
  static func observationKeyPaths(_ slot: Int) -> ArraySlice<KeyPath<ManagedObject, Int>> {
    let size = RegistrarHandle.groupSize
    if slot < 128 { return observationKeyPaths[slot * size..<(slot + 1) * size] }
    return ArraySlice((0..<size).map { \ManagedObject.[observationSlot: slot, member: $0] })
  }

  /// The slot itself; exists only so that a key path can name a slot of a member.
  subscript(observationSlot slot: Int, member member: Int) -> Int { slot }
}

extension ManagedObject {
  /// Writes a slot without counting it as a change of the graph: a fault's values arriving, or an
  /// object being brought back for undo before it rejoins its context.
  func fill(_ value: Any?, at slot: Int) {
    write(value, at: slot)
  }

  /// Whether a to-many relationship's members are not loaded yet (a to-many fault).
  func isUnloadedToMany(_ property: Property) -> Bool {
    heldReference(property) === ObjectCollection.unloaded
  }

  /// Whether a relationship's slot holds nothing: no object, and no collection (loaded or not).
  func isEmptyRelationship(_ property: Property) -> Bool {
    load(property.slot) == nil
  }
}

/// The object a relationship slot holds (a related object, or a to-many slot's collection), out of
/// the `Any` the slot keeps it in, without the runtime's cast: `as AnyObject` bridges through a
/// dynamic cast.
///
/// Unsafe inside: an `Any` holding an instance of a class keeps the reference in the first word of
/// its inline buffer, and relationship slots hold only instances of `T` (written by the storage
/// functions above from a `ManagedObject?` or an `ObjectCollection`). Debug builds check both.
@inline(__always)
func heldReference<T: AnyObject>(_ held: Any, as type: T.Type) -> T {
  let reference = withUnsafePointer(to: held) {
    UnsafeRawPointer($0).load(as: Unmanaged<T>.self).takeUnretainedValue()
  }
  assert(reference === (held as AnyObject) && held is T, "a relationship slot holds \(held)")
  return reference
}
