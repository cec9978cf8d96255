import Foundation

/// The objects of a context, by identifier: the registered ones (live, faults, and deleted ones
/// until the next save) and the detached ones undo may bring back (objects whose insertion was
/// undone or whose deletion was saved). It also hands out the keys of new identifiers.
///
/// **Which objects it holds strongly.** Each entry refers to its object without retaining it (the
/// object leaves the table from its `deinit`) and, while ``retainsObjects`` is true, also holds it
/// strongly. What keeps objects alive is, besides the app's own references and the relationships
/// between objects (a to-one reference always; a to-many collection unless a context with a store
/// loaded it and it has no unsaved change, see `ObjectCollection.stopRetaining(registry:)`):
/// - the change tracker, which holds every object with unsaved changes (inserted, updated or
///   deleted) until the save;
/// - the registry's entries, which hold every registered object while the context has no way to
///   load an object again (``retainsObjects``, true without a loader): then the context is the only
///   place saved values live, so dropping an unchanged object would lose it;
/// - nothing else. With a loader (a store), unchanged objects are held weakly, as Core Data holds
///   them: one the app no longer references goes away and comes back as a fault when asked for.
///   Detached objects are always held weakly: undo steps keep the values needed to bring them
///   back.
final class ObjectRegistry {
  /// The identifier of the store whose objects the context holds.
  let storeIdentifier: UUID
  /// Whether registered objects are retained (see the type's documentation).
  // Read by every registration, written only by the context's own calls: this and the key and
  // detached tables skip dynamic exclusivity checks.
  @exclusivity(unchecked) var retainsObjects = true {
    didSet {
      guard retainsObjects != oldValue else { return }
      // Objects let go are released after the loop: one that ends leaves the table from its
      // `deinit`, which must not happen while the table is being walked.
      var letGo: [ManagedObject] = []
      for (key, entry) in registered.entries {
        if case .retained(let object) = entry { letGo.append(object) }
        registered[key] = Entry(entry.object, retained: retainsObjects)
      }
      _ = letGo
    }
  }
  @exclusivity(unchecked) private var nextKey: Int64 = 1
  /// How many objects of the context left memory: a collection that does not retain its members
  /// checks them only when this moved (see `ObjectCollection.membersAreAlive()`).
  @exclusivity(unchecked) private(set) var freedCount: UInt64 = 0
  /// The end of the keys the registry may give out; without a store, unbounded.
  @exclusivity(unchecked) private var keyBlockEnd: Int64 = .max
  /// Where keys come from when the block runs out: the store's ``PersistentStore/reserveKeys(_:)``.
  /// Without one, keys count up from 1 and registering an object moves the count past its key.
  var keySource: (() -> Range<Int64>)? {
    didSet { keyBlockEnd = keySource == nil ? .max : nextKey }
  }
  /// How many keys a context takes from its store at a time.
  static let keyBlockSize = 1024
  /// Registered objects by key (keys are unique within the store): one table, one small entry per
  /// object, in pages of consecutive keys. Read and changed only by the registry's own methods,
  /// which never overlap: the table's fields skip dynamic exclusivity checks.
  let registered = KeyTable<Entry>()
  private let detached = KeyTable<Entry>()
  #if OBSERVEDGRAPH_INVARIANTS
    private var fullChecks = FullCheckSchedule()
  #endif

  /// A reference that keeps its object alive (while the registry retains objects), or one that does
  /// not — valid while the object is in a table, which it leaves in its `deinit`. One pointer: the
  /// case lives in the pointer's spare bits.
  enum Entry {
    case retained(ManagedObject)
    case unretained(Unmanaged<ManagedObject>)

    init(_ object: ManagedObject, retained: Bool) {
      self = retained ? .retained(object) : .unretained(.passUnretained(object))
    }

    var object: ManagedObject {
      switch self {
      case .retained(let object): object
      case .unretained(let reference): reference.takeUnretainedValue()
      }
    }

    /// Where the object is, without a reference to it (an object leaving from its `deinit` may
    /// not be referenced again).
    var address: UnsafeMutableRawPointer {
      switch self {
      case .retained(let object): Unmanaged.passUnretained(object).toOpaque()
      case .unretained(let reference): reference.toOpaque()
      }
    }

    var isRetained: Bool {
      if case .retained = self { return true }
      return false
    }
  }

  init(storeIdentifier: UUID) {
    self.storeIdentifier = storeIdentifier
  }

  // MARK: Identifiers

  /// The key of a new object's identifier.
  ///
  /// A key an object of the context already has is passed over: a store's keys past its reserved
  /// block may be ones another store on the same file gave out and saved, and this context may
  /// have loaded that object (see `SQLiteStore.Options.keyBlockSize`). Never two objects under
  /// one key.
  func newKey() -> Int64 {
    while true {
      if nextKey >= keyBlockEnd, let keySource {
        let block = keySource()
        (nextKey, keyBlockEnd) = (block.lowerBound, block.upperBound)
      }
      let key = nextKey
      nextKey += 1
      if registered[key] == nil && (detached.isEmpty || detached[key] == nil) { return key }
    }
  }

  /// Makes sure new identifiers never reuse `key`, when the registry gives out keys itself (a
  /// store's keys are unique already).
  func reserve(upTo key: Int64) {
    guard keySource == nil else { return }
    nextKey = max(nextKey, key + 1)
  }

  // MARK: Membership

  /// The registered object with the identifier.
  func object(for id: ObjectID) -> ManagedObject? {
    guard let object = registered[id.key]?.object, names(object, id) else {
      return nil
    }
    return object
  }

  /// Whether `id` is the identifier of `object`, an object of this registry with `id`'s key: the
  /// same store and entity name, compared without building the object's identifier, since undo
  /// looks up every object of its steps.
  private func names(_ object: ManagedObject, _ id: ObjectID) -> Bool {
    id.storeIdentifier == storeIdentifier && object.entity.name == id.entityName
  }

  /// The registered object with a key.
  func registeredObject(key: Int64) -> ManagedObject? {
    registered[key]?.object
  }

  /// The detached object with a key (one whose deletion was saved, or whose insertion was undone)
  /// while something still holds it.
  func detachedObject(key: Int64) -> ManagedObject? {
    detached[key]?.object
  }

  /// The registered or detached object with the identifier.
  func anyObject(for id: ObjectID) -> ManagedObject? {
    guard let object = (registered[id.key] ?? detached[id.key])?.object,
      names(object, id)
    else { return nil }
    return object
  }

  /// Where the registered or detached object with a key is, without a reference to it.
  func address(ofKey key: Int64) -> UnsafeMutableRawPointer? {
    (registered[key] ?? detached[key])?.address
  }

  /// Every registered object.
  var registeredObjects: [ManagedObject] { registered.values.map(\.object) }

  /// Makes an object of `entity` with `key` on `link`, not registered: detached until
  /// ``register(_:)`` or ``registerNew(_:)`` takes it in. Each wrapper gets its slot now, not on
  /// first use (see `EntityDescription.wrapperSlots`).
  static func makeObject(_ entity: EntityDescription, key: Int64, link: ContextLink)
    -> ManagedObject
  {
    let object = entity.objectClass.init(ObjectBootstrap(entity: entity, link: link, key: key))
    let reference = Unmanaged.passUnretained(object)
    for (offset, slot) in entity.wrapperSlots {
      FieldAddress.of(Int32.self, in: reference, at: offset).pointee = slot
    }
    object.lifecycle = .detached
    return object
  }

  /// Registers an object: it becomes part of the context.
  func register(_ object: ManagedObject) {
    object.lifecycle = .registered
    let key = object.objectKey
    detached[key] = nil
    registered[key] = Entry(object, retained: retainsObjects)
    reserve(upTo: key)
  }

  /// Registers a new object whose key no registered or detached object has (the caller checked):
  /// one table written, not two.
  func registerNew(_ object: ManagedObject) {
    let key = object.objectKey
    assert(registered[key] == nil && detached[key] == nil, "key \(key) is taken")
    object.lifecycle = .registered
    registered[key] = Entry(object, retained: retainsObjects)
    reserve(upTo: key)
  }

  /// Takes an object out of the context, keeping it findable for undo.
  func detach(_ object: ManagedObject) {
    object.lifecycle = .detached
    let key = object.objectKey
    detached[key] = Entry(object, retained: false)
    // Last: releasing the entry's strong reference may end the object, which calls `forget`.
    let entry = registered.removeValue(forKey: key)
    _ = entry
  }

  /// Called from an object's `deinit`: it leaves whichever table holds it.
  func forget(_ key: Int64, at address: UnsafeMutableRawPointer) {
    freedCount &+= 1
    if registered[key]?.address == address {
      registered[key] = nil
    } else if detached[key]?.address == address {
      detached[key] = nil
    }
  }

  /// Cuts every object loose (reset, or the context going away) and empties the tables.
  func invalidateAll() {
    let objects = registered.values.map(\.object) + detached.values.map(\.object)
    // Hold them while they are invalidated: invalidating drops relationships, which may release
    // objects. The array still holds them when the tables let go of their entries, so that none
    // ends (and leaves a table from its `deinit`) while a table is emptied.
    for object in objects { object.invalidate() }
    registered.removeAll()
    detached.removeAll()
    _ = objects
  }

  // MARK: Invariants

  /// After every mutation: the objects it touched are in the table their lifecycle says, under
  /// their key (O(touched)); while full checks are on, every 64 mutations, a full scan.
  func checkAfterMutation(_ touched: [ManagedObject]) {
    #if OBSERVEDGRAPH_INVARIANTS
      for object in touched {
        let table = object.lifecycle == .registered ? registered : detached
        precondition(
          table[object.objectKey].map { $0.object === object } ?? false,
          "\(object.objectID) is \(object.lifecycle) but not in that table")
      }
      if fullChecks.isDue() { checkInvariants() }
    #endif
  }

  /// Every entry holds the object of its key, in the right lifecycle; registered objects are
  /// retained exactly when the registry retains objects; detached ones never are.
  func checkInvariants() {
    registered.checkInvariants()
    detached.checkInvariants()
    for (key, entry) in registered.entries {
      let id = entry.object.objectID
      precondition(id.key == key, "registry entry \(key) holds \(id)")
      precondition(
        entry.object.lifecycle == .registered, "\(id) registered but \(entry.object.lifecycle)")
      precondition(detached[key] == nil, "\(id) both registered and detached")
      precondition(
        entry.isRetained == retainsObjects,
        "\(id) is \(entry.isRetained ? "" : "not ")retained while the registry "
          + (retainsObjects ? "retains" : "does not retain") + " objects")
    }
    for (key, entry) in detached.entries {
      let id = entry.object.objectID
      precondition(id.key == key, "detached entry \(key) holds \(id)")
      precondition(
        entry.object.lifecycle == .detached, "\(id) detached but \(entry.object.lifecycle)")
      precondition(!entry.isRetained, "detached \(id) is retained")
    }
  }
}
