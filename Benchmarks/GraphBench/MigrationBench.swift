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
