import BenchSQLite
import Foundation
import GRDB
import ObservedGraph
import ObservedGraphSQLite

// The SQLite store rows: saving objects in one save, reaching them as faults through their
// owners' to-many relationships and reading one attribute of each, and the memory given back
// when they are dropped or refreshed. Peers do the same work on the same file system in the same
// run: the raw SQLite C API with prepared statements in one transaction, and GRDB, each reading
// rows into plain Swift class instances with one query per owner where we fulfil faults.

/// An owner of many stored items.
final class StoreOwner: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "owner") var items: Set<StoreItem>
}

/// A stored item: two attributes (one indexed, for the fetch rows) and an indexed to-one.
final class StoreItem: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var value: Int = 0
  @Relationship(inverse: "items") var owner: StoreOwner?

  override class var indexedKeys: Set<String> { ["value"] }
}

/// The peers' item: a plain class, as an app without an object graph would write it.
final class PlainStoredItem {
  let id: Int64
  let title: String
  let value: Int
  let owner: Int64

  init(id: Int64, title: String, value: Int, owner: Int64) {
    self.id = id
    self.title = title
    self.value = value
    self.owner = owner
  }
}

extension PlainStoredItem {
  /// The item of the current row of a raw `SELECT id, title, value, owner …`.
  convenience init(row statement: OpaquePointer?) {
    self.init(
      id: sqlite3_column_int64(statement, 0),
      title: String(cString: sqlite3_column_text(statement, 1)),
      value: Int(sqlite3_column_int64(statement, 2)), owner: sqlite3_column_int64(statement, 3))
  }
}

/// The same item as GRDB reads and writes it.
final class GRDBItem: FetchableRecord, PersistableRecord {
  static let databaseTableName = "item"
  let id: Int64
  let title: String
  let value: Int
  let owner: Int64

  init(id: Int64, title: String, value: Int, owner: Int64) {
    self.id = id
    self.title = title
    self.value = value
    self.owner = owner
  }

  required init(row: GRDB.Row) {
    id = row["id"]
    title = row["title"]
    value = row["value"]
    owner = row["owner"]
  }

  func encode(to container: inout PersistenceContainer) {
    container["id"] = id
    container["title"] = title
    container["value"] = value
    container["owner"] = owner
  }
}

enum StoreBench {
  static let model: ObjectModel = {
    do {
      return try ObjectModel(types: [StoreOwner.self, StoreItem.self])
    } catch {
      fatalError("graph-bench: the store model is invalid: \(error)")
    }
  }()

  /// A title of 40 characters or more: too long for a string's inline storage, so it lives on the
  /// heap.
  static func title(_ index: Int) -> String {
    "Stored item number \(index) with a long title"
  }

  struct Sizes {
    let items: Int
    let owners: Int
    var perOwner: Int { items / owners }
  }

  /// The store rows' sizes; under `--profile`, `GRAPH_BENCH_PROFILE_ITEMS` raises the 20 k items
  /// (a thousand per owner), so a profile can show a figure per item at a size closer to the
  /// full run's.
  static func sizes(_ config: BenchConfig) -> Sizes {
    if config.profile {
      let items =
        ProcessInfo.processInfo.environment["GRAPH_BENCH_PROFILE_ITEMS"].flatMap { Int($0) }
        ?? 20_000
      return Sizes(items: items, owners: max(1, items / 1_000))
    }
    return config.quick
      ? Sizes(items: 50_000, owners: 50) : Sizes(items: 1_000_000, owners: 1_000)
  }

  static func run(_ config: BenchConfig) -> [Row] {
    let sizes = sizes(config)
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("graph-bench-store-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let rounds = config.profile ? 1 : config.quick ? 2 : 3
    var round = 0
    func file(_ name: String) -> URL {
      folder.appendingPathComponent("\(name)-\(round).sqlite")
    }
    let items = (0..<sizes.items).map { index in
      PlainStoredItem(
        id: Int64(sizes.owners + 1 + index), title: title(index), value: index,
        owner: Int64(1 + index % sizes.owners))
    }

    // Save: each contender writes the same objects into a new file.
    var oursFile = file("ours")
    var rawFile = file("raw")
    var grdbFile = file("grdb")
    var ownerIDs: [ObjectID] = []
    let saves = Timing.interleaved(
      rounds: rounds,
      [
        (
          "ours",
          {
            round += 1
            oursFile = file("ours")
            let (nanoseconds, ids) = saveOurs(to: oursFile, sizes)
            ownerIDs = ids
            return nanoseconds
          }
        ),
        (
          "raw",
          {
            rawFile = file("raw")
            return saveRaw(items, sizes, to: rawFile)
          }
        ),
        (
          "grdb",
          {
            grdbFile = file("grdb")
            return saveGRDB(items, sizes, to: grdbFile)
          }
        ),
      ])
    let count = Double(sizes.items + sizes.owners)
    var save = Row(
      key: "storeSave",
      title: "SQLite store: save \(BenchConfig.short(sizes.items)) objects "
        + "(two attributes, an indexed to-one) in one save", unit: "objects/s")
    save.ours = saves["ours"].map { count / ($0 / 1e9) }
    save.peers[.sqliteC] = saves["raw"].map { count / ($0 / 1e9) }
    save.peers[.grdb] = saves["grdb"].map { count / ($0 / 1e9) }
    save.check("vsGRDB", "≥ 1 × GRDB", save.ratios[.grdb], limit: 1, atLeast: true)

    // Reach and read: one query per owner, every item read once.
    let reaches = Timing.interleaved(
      rounds: rounds,
      [
        ("ours", { reachOurs(oursFile, ownerIDs, sizes, hold: true).nanoseconds }),
        (
          "oursOff",
          {
            reachOurs(oursFile, ownerIDs, sizes, hold: true, participates: false).nanoseconds
          }
        ),
        ("raw", { reachRaw(rawFile, sizes) }),
        ("grdb", { reachGRDB(grdbFile, sizes) }),
        ("grdbSameCache", { reachGRDB(grdbFile, sizes, sameCache: true) }),
      ])
    var reach = Row(
      key: "storeReach",
      title: "SQLite store: reach \(BenchConfig.short(sizes.items)) objects as faults through "
        + "their owners' to-many and read one attribute each", unit: "objects/s")
    reach.ours = reaches["ours"].map { Double(sizes.items) / ($0 / 1e9) }
    reach.peers[.sqliteC] = reaches["raw"].map { Double(sizes.items) / ($0 / 1e9) }
    reach.peers[.grdb] = reaches["grdb"].map { Double(sizes.items) / ($0 / 1e9) }
    reach.check("vsGRDB", "≥ 1 × GRDB", reach.ratios[.grdb], limit: 1, atLeast: true)
    reach.check("vsSQLite", "≥ 0.5 × raw C API", reach.ratios[.sqliteC], limit: 0.5, atLeast: true)
    addSameCacheFigures(&reach, reaches["grdbSameCache"], count: sizes.items)
    // The same reach in a context that does not take part in Swift Observation (servers,
    // tools): its objects have no registrar. Same peers, same run.
    var reachOff = Row(
      key: "storeReachParticipationOff",
      title: "SQLite store: the same reach, Swift Observation participation off",
      unit: "objects/s")
    reachOff.ours = reaches["oursOff"].map { Double(sizes.items) / ($0 / 1e9) }
    reachOff.peers = reach.peers
    reachOff.check("vsGRDB", "≥ 1 × GRDB", reachOff.ratios[.grdb], limit: 1, atLeast: true)
    reachOff.check(
      "vsSQLite", "≥ 0.5 × raw C API", reachOff.ratios[.sqliteC], limit: 0.5, atLeast: true)
    addSameCacheFigures(&reachOff, reaches["grdbSameCache"], count: sizes.items)

    // The fetch rows take a tenth of a second a contender: three times the rounds (the medians
    // of three moved the sorted row by a tenth between full runs); GRAPH_BENCH_FETCH_ROUNDS sets
    // them, for a profile of the fetches alone.
    let fetchRounds =
      ProcessInfo.processInfo.environment["GRAPH_BENCH_FETCH_ROUNDS"].flatMap { Int($0) }
      ?? (config.profile ? 1 : rounds * 3)
    let fetches = FetchBench.rows(
      ours: oursFile, raw: rawFile, grdb: grdbFile, sizes, rounds: fetchRounds)
    return [save, reach, reachOff] + fetches + memoryRows(oursFile, ownerIDs, sizes)
  }

  // MARK: Ours

  /// Inserts the owners and items into a context on a new store and times its save.
  static func saveOurs(to url: URL, _ sizes: Sizes) -> (Double, [ObjectID]) {
    do {
      let store = try SQLiteStore(url: url, model: model)
      let context = PersistentContainer(store: store).newContext()
      let owners = (0..<sizes.owners).map { index in
        let owner = context.insert(StoreOwner.self)
        owner.name = "Owner \(index)"
        return owner
      }
      for index in 0..<sizes.items {
        let item = context.insert(StoreItem.self)
        item.title = title(index)
        item.value = index
        item.owner = owners[index % sizes.owners]
      }
      let nanoseconds = try Timing.nanoseconds { try context.save() }
      let ids = owners.map(\.objectID)
      try store.close()
      return (nanoseconds, ids)
    } catch {
      fatalError("graph-bench: saving the store failed: \(error)")
    }
  }

  /// Opens the file in a new store and context, reaches every item through its owner and reads
  /// its title; returns the time and what the user holds (the items and owners).
  static func reachOurs(
    _ url: URL, _ owners: [ObjectID], _ sizes: Sizes, hold: Bool = false, participates: Bool = true
  ) -> (nanoseconds: Double, context: ObjectContext, held: [StoreItem]) {
    do {
      let store = try SQLiteStore(url: url, model: model)
      let context = PersistentContainer(store: store).newContext(
        participatesInSwiftObservation: participates)
      var held: [StoreItem] = []
      if hold { held.reserveCapacity(sizes.items) }
      var sum = 0
      let nanoseconds = Timing.nanoseconds {
        for id in owners {
          let owner = unsafeDowncast(context.object(with: id)!, to: StoreOwner.self)
          for item in owner.items {
            sum &+= item.title.utf8.count
            if hold { held.append(item) }
          }
        }
      }
      blackHole(sum)
      return (nanoseconds, context, held)
    } catch {
      fatalError("graph-bench: opening the store failed: \(error)")
    }
  }

  // MARK: Raw SQLite C API

  static func saveRaw(_ items: [PlainStoredItem], _ sizes: Sizes, to url: URL) -> Double {
    let db = openRaw(url)
    defer { sqlite3_close_v2(db) }
    execRaw(db, "PRAGMA journal_mode = WAL")
    execRaw(db, "CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT)")
    execRaw(
      db, "CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT, value INTEGER, owner INTEGER)")
    execRaw(db, "CREATE INDEX item_owner ON item (owner)")
    execRaw(db, "CREATE INDEX item_value ON item (value)")
    return Timing.nanoseconds {
      execRaw(db, "BEGIN IMMEDIATE")
      var owner: OpaquePointer?
      sqlite3_prepare_v2(db, "INSERT INTO owner (id, name) VALUES (?, ?)", -1, &owner, nil)
      for index in 0..<sizes.owners {
        sqlite3_bind_int64(owner, 1, Int64(index + 1))
        sqlite3_bind_text(owner, 2, "Owner \(index)", -1, transient)
        sqlite3_step(owner)
        sqlite3_reset(owner)
      }
      sqlite3_finalize(owner)
      var insert: OpaquePointer?
      sqlite3_prepare_v2(
        db, "INSERT INTO item (id, title, value, owner) VALUES (?, ?, ?, ?)", -1, &insert, nil)
      for item in items {
        sqlite3_bind_int64(insert, 1, item.id)
        sqlite3_bind_text(insert, 2, item.title, -1, transient)
        sqlite3_bind_int64(insert, 3, Int64(item.value))
        sqlite3_bind_int64(insert, 4, item.owner)
        guard sqlite3_step(insert) == SQLITE_DONE else {
          fatalError("graph-bench: raw insert failed: \(String(cString: sqlite3_errmsg(db)))")
        }
        sqlite3_reset(insert)
      }
      sqlite3_finalize(insert)
      execRaw(db, "COMMIT")
    }
  }

  static func reachRaw(_ url: URL, _ sizes: Sizes) -> Double {
    let db = openRaw(url)
    defer { sqlite3_close_v2(db) }
    var held: [PlainStoredItem] = []
    held.reserveCapacity(sizes.items)
    var sum = 0
    let nanoseconds = Timing.nanoseconds {
      var select: OpaquePointer?
      sqlite3_prepare_v2(
        db, "SELECT id, title, value, owner FROM item WHERE owner = ?", -1, &select, nil)
      for owner in 1...Int64(sizes.owners) {
        sqlite3_bind_int64(select, 1, owner)
        while sqlite3_step(select) == SQLITE_ROW {
          let item = PlainStoredItem(row: select)
          sum &+= item.title.utf8.count
          held.append(item)
        }
        sqlite3_reset(select)
      }
      sqlite3_finalize(select)
    }
    blackHole((sum, held))
    return nanoseconds
  }

  static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  private static func openRaw(_ url: URL) -> OpaquePointer? {
    var db: OpaquePointer?
    guard
      sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK
    else { fatalError("graph-bench: cannot open \(url.path)") }
    return db
  }

  private static func execRaw(_ db: OpaquePointer?, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
      fatalError("graph-bench: \(sql) failed: \(String(cString: sqlite3_errmsg(db)))")
    }
  }

  // MARK: GRDB

  static func saveGRDB(_ items: [PlainStoredItem], _ sizes: Sizes, to url: URL) -> Double {
    do {
      let queue = try DatabaseQueue(path: url.path)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute(
          sql:
            "CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT, value INTEGER, owner INTEGER)")
        try db.execute(sql: "CREATE INDEX item_owner ON item (owner)")
        try db.execute(sql: "CREATE INDEX item_value ON item (value)")
      }
      let records = items.map {
        GRDBItem(id: $0.id, title: $0.title, value: $0.value, owner: $0.owner)
      }
      return try Timing.nanoseconds {
        try queue.write { db in
          for index in 0..<sizes.owners {
            try db.execute(
              sql: "INSERT INTO owner (id, name) VALUES (?, ?)",
              arguments: [index + 1, "Owner \(index)"])
          }
          for record in records { try record.insert(db) }
        }
      }
    } catch {
      fatalError("graph-bench: GRDB save failed: \(error)")
    }
  }

  /// A GRDB queue on `url`: as GRDB opens it, or with our store's default page cache.
  static func grdbQueue(_ url: URL, sameCache: Bool) throws -> DatabaseQueue {
    var configuration = Configuration()
    if sameCache {
      let kibibytes = SQLiteStore.Options().pageCacheSize / 1024
      configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA cache_size = -\(kibibytes)")
      }
    }
    return try DatabaseQueue(path: url.path, configuration: configuration)
  }

  /// Adds the figures of GRDB given our store's page cache: its throughput and our ratio to it.
  /// The row's target compares with GRDB as it opens a file (SQLite's 2,000 KiB cache); these
  /// say how much of the ratio the cache's size makes.
  static func addSameCacheFigures(_ row: inout Row, _ nanoseconds: Double?, count: Int) {
    let throughput = nanoseconds.map { Double(count) / ($0 / 1e9) }
    let mebibytes = SQLiteStore.Options().pageCacheSize / (1024 * 1024)
    row.figures.append(
      Row.Figure(
        key: "grdbSameCache", label: "GRDB given our store's \(mebibytes) MiB page cache",
        value: throughput, unit: row.unit))
    row.figures.append(
      Row.Figure(
        key: "vsGRDBSameCache", label: "ours ÷ GRDB with that cache",
        value: throughput.flatMap { peer in row.ours.map { $0 / peer } }, unit: "×"))
  }

  static func reachGRDB(_ url: URL, _ sizes: Sizes, sameCache: Bool = false) -> Double {
    do {
      let queue = try grdbQueue(url, sameCache: sameCache)
      var held: [GRDBItem] = []
      held.reserveCapacity(sizes.items)
      var sum = 0
      let nanoseconds = try Timing.nanoseconds {
        try queue.read { db in
          for owner in 1...Int64(sizes.owners) {
            let items = try GRDBItem.filter(Column("owner") == owner).fetchAll(db)
            for item in items { sum &+= item.title.utf8.count }
            held += items
          }
        }
      }
      blackHole((sum, held))
      return nanoseconds
    } catch {
      fatalError("graph-bench: GRDB read failed: \(error)")
    }
  }

  // MARK: Memory

  /// Memory given back when the user drops its references to the fulfilled objects, and when it
  /// refreshes the fulfilled objects it still holds.
  static func memoryRows(_ url: URL, _ owners: [ObjectID], _ sizes: Sizes) -> [Row] {
    var dropped = Row(
      key: "storeDropped",
      title: "SQLite store: memory returned when the user drops \(BenchConfig.short(sizes.items)) "
        + "fulfilled objects", unit: "% of their memory")
    var refreshed = Row(
      key: "storeRefreshed",
      title: "SQLite store: memory returned by refreshing \(BenchConfig.short(sizes.items)) "
        + "fulfilled objects still held", unit: "% of their values' heap")
    guard MemoryStats.heapInUse() != nil else {
      dropped.status = .pending("needs glibc's mallinfo2 (Linux x86-64)")
      refreshed.status = .pending("needs glibc's mallinfo2 (Linux x86-64)")
      return [dropped, refreshed]
    }
    // Dropped: everything the reach built, freed when the user lets go. SQLite's own heap (the
    // store's page cache, which the store keeps) is counted apart: it is not the objects'.
    do {
      let sqliteBefore = Int(sqlite3_memory_used())
      let before = MemoryStats.heapInUse()! - sqliteBefore
      var reached: (nanoseconds: Double, context: ObjectContext, held: [StoreItem])? = reachOurs(
        url, owners, sizes, hold: true)
      let sqliteHolding = Int(sqlite3_memory_used())
      let holding = MemoryStats.heapInUse()! - sqliteHolding
      reached?.held = []
      let context = reached?.context
      reached = nil
      let after = MemoryStats.heapInUse()! - Int(sqlite3_memory_used())
      blackHole(context)
      let built = Double(holding - before)
      dropped.ours = 100 * Double(holding - after) / built
      dropped.figures.append(
        Row.Figure(
          key: "heldBytes", label: "heap the fulfilled objects took",
          value: built / Double(sizes.items), unit: "bytes per object"))
      dropped.figures.append(
        Row.Figure(
          key: "sqliteBytes", label: "SQLite's own heap for the reach (its page cache; kept)",
          value: Double(sqliteHolding - sqliteBefore) / Double(sizes.items),
          unit: "bytes per object"))
      dropped.check("returned", "≥ 90 %", dropped.ours, limit: 90, atLeast: true)
    }
    // Refreshed: the values' heap (the titles) goes, the objects stay.
    do {
      let reached = reachOurs(url, owners, sizes, hold: true)
      let holding = MemoryStats.heapInUse()!
      for item in reached.held {
        try? reached.context.refresh(item, mergeChanges: false)
      }
      let after = MemoryStats.heapInUse()!
      let titles = MemoryStats.heapGrowth {
        (0..<sizes.items).map { title($0) }
      }
      blackHole(titles.result)
      let valuesHeap = Double(titles.bytes ?? 0) - Double(sizes.items * 8)
      refreshed.ours = 100 * Double(holding - after) / valuesHeap
      refreshed.figures.append(
        Row.Figure(
          key: "valuesBytes", label: "heap of the values (the titles)",
          value: valuesHeap / Double(sizes.items), unit: "bytes per object"))
      refreshed.check("returned", "≥ 90 %", refreshed.ours, limit: 90, atLeast: true)
      blackHole(reached)
    }
    return [dropped, refreshed]
  }
}
