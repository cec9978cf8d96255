import BenchSQLite
import Foundation
import GRDB
import ObservedGraph
import ObservedGraphSQLite

// The fetch rows, on the files of the store rows: a predicate on an indexed attribute that
// selects 1 % of the items, and a fetch of 10 % of them sorted by title, fulfilled. Each
// contender reads the title of every object it gets and keeps the objects until the timing ends:
// ours a fetch request in a new context, GRDB a query interface request into records, the raw C
// API a prepared SELECT into plain class instances.
enum FetchBench {
  static func rows(
    ours: URL, raw: URL, grdb: URL, _ sizes: StoreBench.Sizes, rounds: Int
  ) -> [Row] {
    let selected = sizes.items / 100
    let sortedCount = sizes.items / 10
    let predicateTimes = Timing.interleaved(
      rounds: rounds,
      [
        ("ours", { fetchOurs(ours, below: selected, sorted: false) }),
        ("raw", { fetchRaw(raw, below: selected, sorted: false) }),
        ("grdb", { fetchGRDB(grdb, below: selected, sorted: false) }),
        ("grdbSameCache", { fetchGRDB(grdb, below: selected, sorted: false, sameCache: true) }),
      ])
    var predicate = Row(
      key: "storeFetchPredicate",
      title: "SQLite store: fetch \(BenchConfig.short(selected)) of "
        + "\(BenchConfig.short(sizes.items)) objects by a predicate on an indexed attribute",
      unit: "objects/s")
    fill(&predicate, predicateTimes, count: selected)
    let sortedTimes = Timing.interleaved(
      rounds: rounds,
      [
        ("ours", { fetchOurs(ours, below: sortedCount, sorted: true) }),
        ("raw", { fetchRaw(raw, below: sortedCount, sorted: true) }),
        ("grdb", { fetchGRDB(grdb, below: sortedCount, sorted: true) }),
        ("grdbSameCache", { fetchGRDB(grdb, below: sortedCount, sorted: true, sameCache: true) }),
      ])
    var sorted = Row(
      key: "storeFetchSorted",
      title: "SQLite store: fetch \(BenchConfig.short(sortedCount)) objects sorted by title, "
        + "fulfilled", unit: "objects/s")
    fill(&sorted, sortedTimes, count: sortedCount)
    return [predicate, sorted]
  }

  private static func fill(_ row: inout Row, _ times: [String: Double], count: Int) {
    row.ours = times["ours"].map { Double(count) / ($0 / 1e9) }
    row.peers[.sqliteC] = times["raw"].map { Double(count) / ($0 / 1e9) }
    row.peers[.grdb] = times["grdb"].map { Double(count) / ($0 / 1e9) }
    row.check("vsGRDB", "≥ 1 × GRDB", row.ratios[.grdb], limit: 1, atLeast: true)
    StoreBench.addSameCacheFigures(&row, times["grdbSameCache"], count: count)
  }

  /// Items whose value is below `limit` (their values are 0, 1, 2, … so that many), by title when
  /// sorted; each title read.
  static func fetchOurs(_ url: URL, below limit: Int, sorted: Bool) -> Double {
    do {
      let store = try SQLiteStore(url: url, model: StoreBench.model)
      let context = PersistentContainer(store: store).newContext()
      var request = FetchRequest<StoreItem>(
        matching: try FetchPredicate(format: "value < %@", limit),
        sortedBy: sorted ? [FetchSort("title")] : [])
      request.returnsObjectsAsFaults = !sorted
      var held: [StoreItem] = []
      var sum = 0
      let nanoseconds = try Timing.nanoseconds {
        held = try context.fetch(request)
        for item in held { sum &+= item.title.utf8.count }
      }
      precondition(held.count == limit, "graph-bench: the fetch returned \(held.count) items")
      blackHole((sum, held, context))
      return nanoseconds
    } catch {
      fatalError("graph-bench: fetching from the store failed: \(error)")
    }
  }

  static func fetchRaw(_ url: URL, below limit: Int, sorted: Bool) -> Double {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      fatalError("graph-bench: cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(db) }
    var held: [PlainStoredItem] = []
    var sum = 0
    let nanoseconds = Timing.nanoseconds {
      var select: OpaquePointer?
      sqlite3_prepare_v2(
        db,
        "SELECT id, title, value, owner FROM item WHERE value < ?"
          + (sorted ? " ORDER BY title" : ""), -1, &select, nil)
      sqlite3_bind_int64(select, 1, Int64(limit))
      while sqlite3_step(select) == SQLITE_ROW {
        let item = PlainStoredItem(row: select)
        sum &+= item.title.utf8.count
        held.append(item)
      }
      sqlite3_finalize(select)
    }
    precondition(held.count == limit, "graph-bench: the raw fetch returned \(held.count) items")
    blackHole((sum, held))
    return nanoseconds
  }

  static func fetchGRDB(
    _ url: URL, below limit: Int, sorted: Bool, sameCache: Bool = false
  ) -> Double {
    do {
      let queue = try StoreBench.grdbQueue(url, sameCache: sameCache)
      var held: [GRDBItem] = []
      var sum = 0
      let nanoseconds = try Timing.nanoseconds {
        try queue.read { db in
          var request = GRDBItem.filter(Column("value") < limit)
          if sorted { request = request.order(Column("title")) }
          held = try request.fetchAll(db)
          for item in held { sum &+= item.title.utf8.count }
        }
      }
      precondition(held.count == limit, "graph-bench: the GRDB fetch returned \(held.count) items")
      blackHole((sum, held))
      return nanoseconds
    } catch {
      fatalError("graph-bench: GRDB fetch failed: \(error)")
    }
  }
}
