/// What a context keeps for faulting and loading: the faults waiting to be loaded with the next
/// one read (batch faulting), the members of the last loaded to-many relationships, the loader
/// the next load uses and the conflict the load under way met, the batch sizes of fetches, and
/// the results of fetched properties.
///
/// A struct the context stores inline (`ObjectContext.faulting`): fault fulfilment and loads read
/// and write these fields on every load, without a reference to follow or a dynamic exclusivity
/// check. Only the context's faulting, fetching, refresh and reset code changes it, through the
/// operations below; it reaches no object's state.
struct FaultingState {
  /// Keys of faults made without values, oldest first from ``pendingFaultsStart``: the next fault
  /// read loads some of them with it (see ``ObjectContext/faultBatchSize``).
  private(set) var pendingFaults: [Int64] = []
  /// Where the keys not yet taken begin in ``pendingFaults``: those before it were taken by a
  /// load and are dropped in bulk (see ``dropTakenFaults()``).
  private(set) var pendingFaultsStart = 0
  /// The members of the last loaded to-many relationships, kept alive (see
  /// ``keepRecentlyLoaded(_:)``): at most ``recentlyLoadedLimit`` lists, none empty.
  var recentlyLoaded: [[ManagedObject]] = []
  /// Where the next list of ``recentlyLoaded`` goes once the ring is full.
  private(set) var recentlyLoadedNext = 0
  /// The entity of the last fault made (see ``entity(named:in:)``).
  private var lastFaultEntity: EntityDescription?
  /// Where `fulfilFetched(_:)` leaves what it read ahead, so that the reads are kept.
  var fetchTouch: UInt8 = 0
  /// The loader the next load from the store uses (see ``ObjectLoader``), reset; nil while the
  /// only one made is under way.
  private(set) var idleLoader: ObjectLoader?
  /// An object inserted in the context whose key a row of the load under way also holds (see
  /// ``ObjectContext/objectForLoad(_:key:batchable:notingConflict:)``): the load throws
  /// `duplicateObject` when it ends.
  private(set) var loadConflict: ManagedObject?
  /// The batch size of the fetch that made a fault without values, by its key, when it is not
  /// ``ObjectContext/faultBatchSize`` (see ``FetchRequest/fetchBatchSize``); never below 1.
  private(set) var fetchBatchSizes: [Int64: Int] = [:]
  /// The results of fetched properties, by object key and property name, kept until the object
  /// is refreshed or the context reset.
  private(set) var fetchedResults: [Int64: [String: [ManagedObject]]] = [:]
  /// Whether a fault made again (``ObjectContext/refresh(_:mergeChanges:)``) may keep the key of
  /// the object a to-one named: loads then read it (see ``ObjectLoader/readsKeptOwners``).
  /// Cleared by ``removeAll()``.
  var faultsKeepOwnerKeys = false
  #if OBSERVEDGRAPH_INVARIANTS
    /// How many loads are under way (a load may start another): a load conflict is kept only
    /// while one is.
    private(set) var loadsUnderWay = 0
  #endif

  /// How many loaded to-many relationships keep their members alive.
  static let recentlyLoadedLimit = 8
  /// How many taken keys ``pendingFaults`` may keep at its front: beyond it, when they are also
  /// more than half of the list, ``dropTakenFaults()`` drops them.
  static let takenFaultsKept = 4_096

  // MARK: Pending faults

  /// Notes a fault made without values: it waits to be loaded with the next fault read.
  @inline(__always)
  mutating func notePendingFault(_ key: Int64) {
    pendingFaults.append(key)
  }

  /// The oldest key waiting, taken; nil when none waits. Call ``dropTakenFaults()`` when done
  /// taking.
  @inline(__always)
  mutating func takePendingFault() -> Int64? {
    guard pendingFaultsStart < pendingFaults.count else { return nil }
    let key = pendingFaults[pendingFaultsStart]
    pendingFaultsStart += 1
    return key
  }

  /// After taking keys: an empty list starts over; more than ``takenFaultsKept`` taken keys that
  /// are also more than half of the list are dropped.
  mutating func dropTakenFaults() {
    if pendingFaultsStart == pendingFaults.count {
      pendingFaults.removeAll(keepingCapacity: true)
      pendingFaultsStart = 0
    } else if pendingFaultsStart > Self.takenFaultsKept
      && pendingFaultsStart * 2 > pendingFaults.count
    {
      pendingFaults.removeFirst(pendingFaultsStart)
      pendingFaultsStart = 0
    }
  }

  // MARK: Fetch batch sizes

  /// Makes a fault without values that a fetch made load `size` at a time (`size` ≥ 1).
  mutating func noteFetchBatchSize(_ size: Int, of key: Int64) {
    fetchBatchSizes[key] = size
  }

  /// The batch size a fetch gave the fault with the key, which forgets it; nil when it has none.
  @inline(__always)
  mutating func takeFetchBatchSize(of key: Int64) -> Int? {
    guard !fetchBatchSizes.isEmpty else { return nil }
    return fetchBatchSizes.removeValue(forKey: key)
  }

  // MARK: Entities of faults

  /// The entity of a name, the last one asked for kept: faults come in runs of one entity (the
  /// members of a to-many).
  @inline(__always)
  mutating func entity(named name: String, in model: ObjectModel) -> EntityDescription? {
    if let last = lastFaultEntity, last.name == name { return last }
    lastFaultEntity = model.entity(named: name)
    return lastFaultEntity
  }

  // MARK: Loads

  /// Counts a load that starts, and hands it the idle loader, which is no longer idle; nil when
  /// there is none (the first load, or one that starts while another is under way).
  @inline(__always)
  mutating func startLoad() -> ObjectLoader? {
    #if OBSERVEDGRAPH_INVARIANTS
      loadsUnderWay += 1
    #endif
    guard let idle = idleLoader else { return nil }
    idleLoader = nil
    return idle
  }

  /// Counts a load that ended, leaving its loader (reset) for the next load.
  @inline(__always)
  mutating func endLoad(leaving loader: ObjectLoader) {
    idleLoader = loader
    #if OBSERVEDGRAPH_INVARIANTS
      loadsUnderWay -= 1
    #endif
  }

  /// Notes an object inserted in the context whose key a row of the load under way holds, unless
  /// the load met one already.
  @inline(__always)
  mutating func noteLoadConflict(_ object: ManagedObject) {
    if loadConflict == nil { loadConflict = object }
  }

  /// The conflict the load met, forgotten; nil when it met none.
  @inline(__always)
  mutating func takeLoadConflict() -> ManagedObject? {
    guard let conflict = loadConflict else { return nil }
    loadConflict = nil
    return conflict
  }

  // MARK: Recently loaded members

  /// Keeps the members of the last ``recentlyLoadedLimit`` loaded to-many relationships alive.
  mutating func keepRecentlyLoaded(_ members: [ManagedObject]) {
    guard !members.isEmpty else { return }
    if recentlyLoaded.count < Self.recentlyLoadedLimit {
      recentlyLoaded.append(members)
    } else {
      recentlyLoaded[recentlyLoadedNext] = members
    }
    recentlyLoadedNext = (recentlyLoadedNext + 1) % Self.recentlyLoadedLimit
  }

  // MARK: Fetched properties

  /// The kept results of an object's fetched property; nil until it is fetched.
  func fetchedResult(_ name: String, of key: Int64) -> [ManagedObject]? {
    fetchedResults[key]?[name]
  }

  /// Keeps the results of an object's fetched property.
  mutating func keepFetchedResult(_ objects: [ManagedObject], _ name: String, of key: Int64) {
    fetchedResults[key, default: [:]][name] = objects
  }

  /// Forgets every fetched property's results of an object (it is refreshed).
  mutating func forgetFetchedResults(of key: Int64) {
    fetchedResults[key] = nil
  }

  // MARK: Reset

  /// Forgets everything that names the context's objects (reset): the faults waiting, the
  /// recently loaded members (released), the fetches' batch sizes, the fetched properties'
  /// results, and whether faults keep owners' keys. The idle loader (reset, so holding nothing)
  /// and the last fault entity (the model's) stay; so does the conflict of a load under way,
  /// which that load's end takes.
  mutating func removeAll() {
    pendingFaults.removeAll()
    pendingFaultsStart = 0
    recentlyLoaded.removeAll()
    recentlyLoadedNext = 0
    fetchBatchSizes.removeAll()
    fetchedResults.removeAll()
    faultsKeepOwnerKeys = false
  }

  // MARK: Invariants

  /// Traps with a message unless: the keys not yet taken begin within ``pendingFaults``, and
  /// none of the list is left taken (an empty list starts over), nor more than
  /// ``takenFaultsKept`` taken keys that are more than half of it; every key waiting is a
  /// store's (above 0); ``recentlyLoaded`` holds at most ``recentlyLoadedLimit`` lists, none
  /// empty, and the next goes within the ring; every fetch batch size is at least 1; every
  /// object with kept fetched results keeps those of a property at least; the idle loader holds
  /// nothing of a past load;
  /// and in builds with `OBSERVEDGRAPH_INVARIANTS`, a load conflict is kept only while a load is
  /// under way.
  /// - Complexity: O(pending faults + batch sizes + objects with fetched results).
  func checkInvariants() {
    precondition(
      pendingFaultsStart < pendingFaults.count
        || (pendingFaultsStart == 0 && pendingFaults.isEmpty),
      "pending faults start at \(pendingFaultsStart) of \(pendingFaults.count)")
    precondition(
      pendingFaultsStart <= Self.takenFaultsKept || pendingFaultsStart * 2 <= pendingFaults.count,
      "\(pendingFaultsStart) taken pending faults of \(pendingFaults.count) are kept")
    precondition(
      pendingFaults[pendingFaultsStart...].allSatisfy { $0 > 0 },
      "a pending fault has a key that is not a store's")
    precondition(
      recentlyLoaded.count <= Self.recentlyLoadedLimit,
      "\(recentlyLoaded.count) recently loaded relationships are kept")
    precondition(
      (0..<Self.recentlyLoadedLimit).contains(recentlyLoadedNext),
      "the next recently loaded relationship goes at \(recentlyLoadedNext)")
    precondition(
      !recentlyLoaded.contains { $0.isEmpty }, "an empty relationship is kept as recently loaded")
    precondition(
      fetchBatchSizes.values.allSatisfy { $0 >= 1 }, "a fetch batch size is below 1")
    precondition(
      fetchedResults.values.allSatisfy { !$0.isEmpty }, "an object keeps no fetched results")
    if let idleLoader {
      precondition(
        idleLoader.objects.isEmpty && idleLoader.inMemory.isEmpty
          && idleLoader.ownerChecks.isEmpty,
        "the idle loader holds \(idleLoader.objects.count) objects of a past load")
    }
    #if OBSERVEDGRAPH_INVARIANTS
      precondition(loadsUnderWay >= 0, "\(loadsUnderWay) loads under way")
      precondition(
        loadConflict == nil || loadsUnderWay > 0,
        "a load conflict (\(loadConflict.map { "\($0.objectID)" } ?? "")) is kept while no load "
          + "is under way")
    #endif
  }
}
