import BenchSQLite
import Foundation
import ObservedGraph
import ObservedGraphSQLite

// Migrations in place: a file of version 1 with n items opened by version 2 through a
// MigrationPlan, timed against a plain open of the migrated file by version 2 (the target:
// ≤ 2 ×, at 10 k and at 1 M rows, since neither migration touches a row). Each round copies the
// version 1 file first (untimed), so every migrating open starts from the same bytes.
enum MigrationBench {
  /// Version 1: an item with a title, a number and optional notes.
  static func version1() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Item",
          attributes: [
            AttributeDescription(name: "title", type: .string, defaultValue: ""),
            AttributeDescription(name: "value", type: .int, defaultValue: 0),
            AttributeDescription(name: "notes", type: .string, isOptional: true),
          ])
      ], fetchRequestTemplates: [], version: "1.0.0")
  }

  /// Version 2 adding `archived: Bool = false`.
  static func addingAttribute() throws -> ObjectModel {
    var attributes = try version1().entities[0].attributes
    attributes.append(AttributeDescription(name: "archived", type: .bool, defaultValue: false))
    return try ObjectModel(
      entities: [EntityDescription(name: "Item", attributes: attributes)],
      fetchRequestTemplates: [], version: "2.0.0")
  }

  /// Version 2 renaming `notes` to `details`.
  static func renamingAttribute() throws -> ObjectModel {
    var attributes = try version1().entities[0].attributes
    attributes[2] = AttributeDescription(
      name: "details", type: .string, isOptional: true, originalName: "notes")
    return try ObjectModel(
      entities: [EntityDescription(name: "Item", attributes: attributes)],
      fetchRequestTemplates: [], version: "2.0.0")
  }

  static func run(_ config: BenchConfig) -> [Row] {
    let sizes = config.quick ? [10_000, 100_000] : [10_000, 1_000_000]
    let rounds = config.quick ? 3 : 5
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("graph-bench-migration-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
      let templates = try sizes.map { size in
        let url = folder.appendingPathComponent("version1-\(size).sqlite")
        try makeVersion1(url, items: size)
        return url
      }
      return [
        try row(
          key: "migrationAddAttribute", what: "adding an attribute with a default",
          to: addingAttribute(), sizes: sizes, templates: templates, rounds: rounds, in: folder),
        try row(
          key: "migrationRename", what: "renaming an attribute",
          to: renamingAttribute(), sizes: sizes, templates: templates, rounds: rounds, in: folder),
        try toManyRow(items: sizes[sizes.count - 1], rounds: config.quick ? 2 : 4, in: folder),
        try peakMemoryRow(items: sizes[sizes.count - 1], templates: templates.last!, in: folder),
      ]
    } catch {
      fatalError("graph-bench: the migration rows failed: \(error)")
    }
  }

  /// The row of one migration: the migrating open ÷ the plain open, at each size.
  static func row(
    key: String, what: String, to version2: ObjectModel, sizes: [Int], templates: [URL],
    rounds: Int, in folder: URL
  ) throws -> Row {
    let plan = try MigrationPlan(versions: [version1(), version2])
    var options = SQLiteStore.Options()
    options.migrationPlan = plan
    var row = Row(
      key: key,
      title: "migrating open \(what) ÷ a plain open of the migrated file, at "
        + sizes.map(BenchConfig.short).joined(separator: " and ") + " rows",
      unit: "ratio")
    for (size, template) in zip(sizes, templates) {
      var migrating: [Double] = []
      var plain: [Double] = []
      for round in 0..<rounds {
        let url = folder.appendingPathComponent("round-\(round).sqlite")
        remove(url)
        try FileManager.default.copyItem(at: template, to: url)
        var store: SQLiteStore?
        migrating.append(
          try Timing.nanoseconds {
            store = try SQLiteStore(url: url, model: version2, options: options)
          })
        precondition(store?.metadata["modelVersion"] == "2.0.0", "graph-bench: no migration")
        try store?.close()
        plain.append(try Timing.nanoseconds { store = try SQLiteStore(url: url, model: version2) })
        try store?.close()
        remove(url)
      }
      let ratio = Timing.median(migrating) / Timing.median(plain)
      let label = BenchConfig.short(size)
      row.figures += [
        Row.Figure(
          key: "migrating\(label)", label: "migrating open, \(label) rows",
          value: Timing.median(migrating) / 1e6, unit: "ms"),
        Row.Figure(
          key: "plain\(label)", label: "plain open, \(label) rows",
          value: Timing.median(plain) / 1e6, unit: "ms"),
        Row.Figure(key: "ratio\(label)", label: "ratio, \(label) rows", value: ratio, unit: "×"),
      ]
      row.check("vsPlainOpen\(label)", "≤ 2 × a plain open at \(label) rows", ratio, limit: 2)
      row.ours = ratio
    }
    return row
  }

  // MARK: Peak memory

  /// Version 2 for a custom stage: a required `label` without a default, filled by the stage
  /// from `title` and `value`, which it removes.
  static func labelled() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Item",
          attributes: [
            AttributeDescription(name: "label", type: .string, isOptional: false),
            AttributeDescription(name: "notes", type: .string, isOptional: true),
          ])
      ], fetchRequestTemplates: [], version: "2.0.0")
  }

  /// The custom stage of `labelled()`: five thousand unlabelled items at a time, each batch
  /// saved (a savepoint) and the context reset, so that memory holds one batch.
  static let labelling = MigrationStage(
    to: "2.0.0",
    migrate: { context in
      var batch = FetchRequest<ManagedObject>(
        entityName: "Item", predicate: try FetchPredicate(format: "label == nil"))
      batch.fetchLimit = 5_000
      while true {
        let items = try context.fetch(batch)
        if items.isEmpty { break }
        for item in items {
          let title = try item.value(forKey: "title") as? String ?? ""
          let value = try item.value(forKey: "value") as? Int ?? 0
          try item.setValue("\(title) #\(value)", forKey: "label")
        }
        try context.save()
        context.reset()
      }
    })

  /// What a child process of graph-bench runs (`--migration-child <kind> <path>`): opens the file
  /// — migrating it for kind `toMany` or `custom`, plainly for `plainToMany` or `plainCustom` —
  /// and prints its peak resident set (VmHWM) in bytes.
  static func child(_ arguments: [String]) -> Never {
    guard arguments.count == 2 else { fatalError("graph-bench: --migration-child <kind> <path>") }
    let url = URL(fileURLWithPath: arguments[1])
    do {
      var options = SQLiteStore.Options()
      let model: ObjectModel
      switch arguments[0] {
      case "toMany", "plainToMany":
        model = try owned(toMany: true)
        if arguments[0] == "toMany" {
          options.migrationPlan = try MigrationPlan(versions: [owned(toMany: false), model])
        }
      case "custom", "plainCustom":
        model = try labelled()
        if arguments[0] == "custom" {
          options.migrationPlan = try MigrationPlan(
            versions: [version1(), model], stages: [labelling])
        }
      default:
        fatalError("graph-bench: no migration child \(arguments[0])")
      }
      let store = try SQLiteStore(url: url, model: model, options: options)
      precondition(store.metadata["modelVersion"] == "2.0.0", "graph-bench: not migrated")
      try store.close()
    } catch {
      fatalError("graph-bench: the migration child failed: \(error)")
    }
    print(MemoryStats.procStatus("VmHWM") ?? -1)
    exit(0)
  }

  /// The peak resident set of a child process running `kind` on `url`, in bytes.
  static func childPeak(_ kind: String, _ url: URL) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    process.arguments = ["--migration-child", kind, url.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
      let peak = Int(
        String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else { fatalError("graph-bench: the migration child \(kind) failed") }
    return peak
  }

  /// The peak memory a migrating open adds: the VmHWM of a child process running it, minus that
  /// of a child opening the migrated file plainly, for the to-one → to-many migration and for a
  /// custom stage that fills a required attribute in batches (target: ≤ 64 MiB each).
  static func peakMemoryRow(items: Int, templates version1: URL, in folder: URL) throws -> Row {
    let label = BenchConfig.short(items)
    var row = Row(
      key: "migrationPeakMemory",
      title: "peak memory a migrating open adds at \(label) rows (VmHWM of a child process, "
        + "minus that of a plain open of the migrated file)",
      unit: "MiB")
    guard MemoryStats.procStatus("VmHWM") != nil else {
      row.status = .pending("no /proc/self/status on this platform: VmHWM is Linux's")
      return row
    }
    let owned = folder.appendingPathComponent("owned-\(items).sqlite")
    var worst = 0.0
    for (kind, template, what) in [
      ("toMany", owned, "to-one → to-many"), ("custom", version1, "custom stage, 5 k a batch"),
    ] {
      let url = folder.appendingPathComponent("peak-\(kind).sqlite")
      remove(url)
      try FileManager.default.copyItem(at: template, to: url)
      let migrating = try childPeak(kind, url)
      let plain = try childPeak("plain" + kind.prefix(1).uppercased() + kind.dropFirst(), url)
      remove(url)
      let added = Double(migrating - plain) / 1_048_576
      worst = max(worst, added)
      row.figures += [
        Row.Figure(
          key: "\(kind)Migrating", label: "\(what): migrating open's VmHWM",
          value: Double(migrating) / 1_048_576, unit: "MiB"),
        Row.Figure(
          key: "\(kind)Plain", label: "\(what): plain open's VmHWM",
          value: Double(plain) / 1_048_576, unit: "MiB"),
        Row.Figure(key: "\(kind)Added", label: "\(what): added", value: added, unit: "MiB"),
      ]
      row.check("\(kind)Added", "\(what): ≤ 64 MiB more than a plain open", added, limit: 64)
    }
    row.ours = worst
    return row
  }

  // MARK: To-one → to-many

  /// An item with an optional owner (`owner`, whose inverse `items` is a to-many), as version 1;
  /// version 2 makes `owner` a to-many `owners` (items and owners many-to-many).
  static func owned(toMany: Bool) throws -> ObjectModel {
    let name = toMany ? "owners" : "owner"
    return try ObjectModel(
      entities: [
        EntityDescription(
          name: "Item",
          attributes: [AttributeDescription(name: "title", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: name, destination: "Owner", inverse: "items", toMany: toMany,
              originalName: toMany ? "owner" : nil)
          ]),
        EntityDescription(
          name: "Owner",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "items", destination: "Item", inverse: .named(name), toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: toMany ? "2.0.0" : "1.0.0")
  }

  /// The migrating open that turns `owner` into `owners` at `items` items (a thousand per
  /// owner), against the same migration written by hand with the C API, with the page cache our
  /// migrations run with: the column's index dropped, the join table made, filled with one
  /// `INSERT … SELECT`, its index made, the column dropped.
  static func toManyRow(items: Int, rounds: Int, in folder: URL) throws -> Row {
    let template = folder.appendingPathComponent("owned-\(items).sqlite")
    try makeOwned(template, items: items)
    let version2 = try owned(toMany: true)
    var options = SQLiteStore.Options()
    options.migrationPlan = try MigrationPlan(versions: [owned(toMany: false), version2])
    var ours: [Double] = []
    var raw: [Double] = []
    // Each round runs both, in turn first, each after the disk has taken every earlier write.
    for round in 0..<rounds {
      let url = folder.appendingPathComponent("owned-round-\(round).sqlite")
      for contender in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
        remove(url)
        try FileManager.default.copyItem(at: template, to: url)
        // The copy and the other contender's writes (its close copies its log into the file)
        // reach the disk first: neither is timed while the other's writes are still going out.
        sync()
        if contender == 0 {
          var store: SQLiteStore?
          ours.append(
            try Timing.nanoseconds {
              store = try SQLiteStore(url: url, model: version2, options: options)
            })
          try store?.close()
        } else {
          raw.append(migrateByHand(url))
        }
        let joined = try count(#"SELECT count(*) FROM "og_join_Item_owners""#, in: url)
        precondition(joined == items, "graph-bench: a migration joined \(joined) items")
      }
      remove(url)
    }
    let label = BenchConfig.short(items)
    var row = Row(
      key: "migrationToMany",
      title: "migrating open turning a to-one into a to-many at \(label) rows ÷ the same "
        + "migration written with the C API",
      unit: "ratio")
    row.ours = Timing.median(ours) / Timing.median(raw)
    row.figures = [
      Row.Figure(
        key: "ours", label: "migrating open", value: Timing.median(ours) / 1e6, unit: "ms"),
      Row.Figure(
        key: "raw", label: "C API migration", value: Timing.median(raw) / 1e6, unit: "ms"),
    ]
    row.check("vsSQLite", "≤ 2 × the C API's migration at \(label) rows", row.ours, limit: 2)
    return row
  }

  /// The migration by hand: the schema version 2 has, in one transaction; returns its
  /// nanoseconds, from the open to the commit (the close, which copies the log into the file,
  /// is left out, as it is from ours).
  static func migrateByHand(_ url: URL) -> Double {
    var db: OpaquePointer?
    let started = ContinuousClock.now
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      fatalError("graph-bench: cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(db) }
    let sql = [
      // The page cache our store's migrations run with (16 MiB), so that both rewrite the table
      // and sort the index with the same memory.
      "PRAGMA cache_size = -16384",
      "BEGIN IMMEDIATE",
      // The column's index goes first: with it, SQLite reads `owner IS NOT NULL` through the
      // covering index, in owner order, and the join table's primary key (source, target) then
      // takes its rows out of order. Without it, the table is read in key order, as ours does.
      #"DROP INDEX "og_index_Item_owner""#,
      #"CREATE TABLE "og_join_Item_owners" ("source" INTEGER NOT NULL, "target" INTEGER NOT NULL, PRIMARY KEY ("source", "target"))"#,
      #"INSERT INTO "og_join_Item_owners" ("source", "target") SELECT "og_pk", "owner" FROM "Item" WHERE "owner" IS NOT NULL"#,
      #"CREATE INDEX "og_index_og_join_Item_owners_target" ON "og_join_Item_owners" ("target")"#,
      #"ALTER TABLE "Item" DROP COLUMN "owner""#,
      "COMMIT",
    ]
    for statement in sql {
      guard sqlite3_exec(db, statement, nil, nil, nil) == SQLITE_OK else {
        fatalError("graph-bench: \(statement) failed: \(String(cString: sqlite3_errmsg(db)))")
      }
    }
    return (ContinuousClock.now - started).nanoseconds
  }

  /// A version 1 file of items and owners, a thousand items an owner, written with the C API.
  static func makeOwned(_ url: URL, items: Int) throws {
    try SQLiteStore(url: url, model: owned(toMany: false)).close()
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      fatalError("graph-bench: cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(db) }
    let owners = max(1, items / 1_000)
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    var insertOwner: OpaquePointer?
    // Ids: Item 1, Owner 2 (in name order).
    sqlite3_prepare_v2(
      db, #"INSERT INTO "Owner" ("og_pk", "og_entity", "name") VALUES (?, 2, ?)"#, -1,
      &insertOwner, nil)
    for index in 0..<owners {
      sqlite3_bind_int64(insertOwner, 1, Int64(items + index + 1))
      sqlite3_bind_text(insertOwner, 2, "owner \(index)", -1, StoreBench.transient)
      guard sqlite3_step(insertOwner) == SQLITE_DONE else { fatalError("graph-bench: insert") }
      sqlite3_reset(insertOwner)
    }
    sqlite3_finalize(insertOwner)
    var insertItem: OpaquePointer?
    sqlite3_prepare_v2(
      db, #"INSERT INTO "Item" ("og_pk", "og_entity", "title", "owner") VALUES (?, 1, ?, ?)"#,
      -1, &insertItem, nil)
    for index in 0..<items {
      sqlite3_bind_int64(insertItem, 1, Int64(index + 1))
      sqlite3_bind_text(insertItem, 2, "item \(index)", -1, StoreBench.transient)
      sqlite3_bind_int64(insertItem, 3, Int64(items + index % owners + 1))
      guard sqlite3_step(insertItem) == SQLITE_DONE else { fatalError("graph-bench: insert") }
      sqlite3_reset(insertItem)
    }
    sqlite3_finalize(insertItem)
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
  }

  /// The single integer a query returns.
  static func count(_ sql: String, in url: URL) throws -> Int {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
      fatalError("graph-bench: cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { return -1 }
    return Int(sqlite3_column_int64(statement, 0))
  }

  /// A version 1 file with `items` items, written with the C API in one transaction after the
  /// store made the schema.
  static func makeVersion1(_ url: URL, items: Int) throws {
    try SQLiteStore(url: url, model: version1()).close()
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      fatalError("graph-bench: cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(db) }
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    var insert: OpaquePointer?
    sqlite3_prepare_v2(
      db,
      #"INSERT INTO "Item" ("og_pk", "og_entity", "title", "value", "notes") VALUES (?, 1, ?, ?, ?)"#,
      -1, &insert, nil)
    for index in 0..<items {
      sqlite3_bind_int64(insert, 1, Int64(index + 1))
      let title = "item \(index)"
      sqlite3_bind_text(insert, 2, title, -1, StoreBench.transient)
      sqlite3_bind_int64(insert, 3, Int64(index))
      if index.isMultiple(of: 2) {
        sqlite3_bind_text(insert, 4, "notes \(index)", -1, StoreBench.transient)
      } else {
        sqlite3_bind_null(insert, 4)
      }
      guard sqlite3_step(insert) == SQLITE_DONE else { fatalError("graph-bench: insert failed") }
      sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
  }

  static func remove(_ url: URL) {
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
  }
}
