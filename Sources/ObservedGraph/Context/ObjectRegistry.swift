import Foundation

/// The objects of a context, by identifier: the registered ones (live, faults, and deleted ones
/// until the next save) and the detached ones undo may bring back (objects whose insertion was
/// undone or whose deletion was saved). It also hands out the keys of new identifiers.
///
/// **Which objects it holds strongly.** The registry's own tables never retain an object: an
/// object leaves them from its `deinit`. What keeps objects alive is, besides the app's own
/// references and the relationships between objects:
/// - the change tracker, which holds every object with unsaved changes (inserted, updated or
///   deleted) until the save;
/// - the registry's `retained` table, which holds every registered object while the context has no
///   way to load an object again (``retainsObjects``, true without a loader): then the context is
///   the only place saved values live, so dropping an unchanged object would lose it;
/// - nothing else. With a loader (a store), unchanged objects are held weakly, as Core Data holds
///   them: one the app no longer references goes away and comes back as a fault when asked for.
///   Detached objects are always held weakly: undo steps keep the values needed to bring them
///   back.
final class ObjectRegistry {
  /// The identifier of the store whose objects the context holds.
  let storeIdentifier: UUID
  /// Whether registered objects are retained (see the type's documentation).
  var retainsObjects = true {
    didSet {
      guard retainsObjects != oldValue else { return }
      retained =
        retainsObjects ? Dictionary(uniqueKeysWithValues: registered.map { ($0, $1.object) }) : [:]
    }
  }
  private var nextKey: Int64 = 1
  private(set) var registered: [ObjectID: Unretained] = [:]
  private var detached: [ObjectID: Unretained] = [:]
  private var retained: [ObjectID: ManagedObject] = [:]
  #if OBSERVEDGRAPH_INVARIANTS
    private var changesUntilFullCheck = 0
  #endif

  /// A reference that does not keep its object alive; valid while the object is in a table, which
  /// it leaves in its `deinit`.
  struct Unretained {
    unowned(unsafe) let object: ManagedObject
  }

  init(storeIdentifier: UUID) {
    self.storeIdentifier = storeIdentifier
  }

  // MARK: Identifiers

  /// A new identifier for an object of `entity`.
  func newID(for entity: EntityDescription) -> ObjectID {
    defer { nextKey += 1 }
    return ObjectID(storeIdentifier: storeIdentifier, entityName: entity.name, key: nextKey)
  }

  /// Makes sure new identifiers never reuse `key` (a key the store already gave out).
  func reserve(upTo key: Int64) {
    nextKey = max(nextKey, key + 1)
  }

  // MARK: Membership

  /// The registered object with the identifier.
  func object(for id: ObjectID) -> ManagedObject? { registered[id]?.object }

  /// The registered or detached object with the identifier.
  func anyObject(for id: ObjectID) -> ManagedObject? {
    (registered[id] ?? detached[id])?.object
  }

  /// Every registered object.
  var registeredObjects: [ManagedObject] { registered.values.map(\.object) }

  /// Registers an object: it becomes part of the context.
  func register(_ object: ManagedObject) {
    object.lifecycle = .registered
    detached[object.objectID] = nil
    registered[object.objectID] = Unretained(object: object)
    if retainsObjects { retained[object.objectID] = object }
    reserve(upTo: object.objectID.key)
  }

  /// Takes an object out of the context, keeping it findable for undo.
  func detach(_ object: ManagedObject) {
    object.lifecycle = .detached
    registered[object.objectID] = nil
    detached[object.objectID] = Unretained(object: object)
    // Last: releasing it may end the object, which calls `forget`.
    retained[object.objectID] = nil
  }

  /// Called from an object's `deinit`: it leaves whichever table holds it.
  func forget(_ id: ObjectID, _ identity: ObjectIdentifier) {
    if let entry = registered[id], ObjectIdentifier(entry.object) == identity {
      registered[id] = nil
    } else if let entry = detached[id], ObjectIdentifier(entry.object) == identity {
      detached[id] = nil
    }
  }

  /// Cuts every object loose (reset, or the context going away) and empties the tables.
  func invalidateAll() {
    let objects = registered.values.map(\.object) + detached.values.map(\.object)
    // Hold them while they are invalidated: invalidating drops relationships, which may release
    // objects.
    for object in objects { object.invalidate() }
    registered.removeAll()
    detached.removeAll()
    retained.removeAll()
    _ = objects
  }

  // MARK: Invariants

  /// Cheap checks after every mutation, with a full scan now and then.
  func checkAfterMutation() {
    #if OBSERVEDGRAPH_INVARIANTS
      if changesUntilFullCheck <= 0 {
        changesUntilFullCheck = 64
        checkInvariants()
      } else {
        changesUntilFullCheck -= 1
        precondition(
          !retainsObjects || retained.count == registered.count,
          "registry retains \(retained.count) of \(registered.count) registered objects")
      }
    #endif
  }

  /// Every entry names its object's identifier and lifecycle; retained objects are registered.
  func checkInvariants() {
    for (id, entry) in registered {
      precondition(
        entry.object.objectID == id, "registry entry \(id) holds \(entry.object.objectID)")
      precondition(
        entry.object.lifecycle == .registered, "\(id) registered but \(entry.object.lifecycle)")
      precondition(detached[id] == nil, "\(id) both registered and detached")
    }
    for (id, entry) in detached {
      precondition(
        entry.object.objectID == id, "detached entry \(id) holds \(entry.object.objectID)")
      precondition(
        entry.object.lifecycle == .detached, "\(id) detached but \(entry.object.lifecycle)")
    }
    for id in retained.keys {
      precondition(registered[id] != nil, "retained \(id) is not registered")
    }
    precondition(
      !retainsObjects || retained.count == registered.count,
      "registry retains \(retained.count) of \(registered.count) registered objects")
  }
}
