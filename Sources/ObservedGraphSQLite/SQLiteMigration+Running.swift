import Foundation
import ObservedGraph

extension SQLiteMigrationStage {
  /// Carries the stage out on `connection`, in the caller's transaction: ``MigrationStage``'s
  /// `willMigrate` on a context of the earlier model, the ``steps``, `migrate` on a context of
  /// the ``union``, the ``requirements``, the ``drops``, then `didMigrate` on a context of the
  /// new model. Each context's store is on `connection` (its saves are savepoints); changes a
  /// body leaves unsaved are dropped with its context.
  ///
  /// - Throws: What a statement or a body throws, or ``SQLiteStoreOpenError`` when the file's
  ///   objects stop the stage; the caller's transaction must then roll back.
  func carryOut(
    on connection: SQLiteConnection, path: String, identifier: UUID,
    progress: ((_ done: Int, _ total: Int) -> Void)? = nil
  ) throws {
    // The rows of each table a statement goes through, counted before anything changes.
    var rows: [String: Int] = [:]
    if progress != nil {
      for case .touching(let table, _) in steps + drops where rows[table] == nil {
        let count = try connection.statement("SELECT count(*) FROM \(SQLiteSchema.quoted(table))")
          .rows().first?.first
        if case .integer(let number)? = count { rows[table] = Int(number) }
      }
    }
    let counted = (steps + drops).reduce(0) { sum, step in
      if case .touching(let table, _) = step { sum + (rows[table] ?? 0) } else { sum }
    }
    // A stage that touches no rows counts as one row, done at its end.
    let total = max(counted, 1)
    var done = 0
    progress?(0, total)
    func run(_ body: MigrationStage.Body?, _ model: ObjectModel, _ schema: SQLiteSchema) throws {
      guard let body else { return }
      let store = try SQLiteStore(
        staging: connection, url: URL(fileURLWithPath: path), model: model, schema: schema,
        identifier: identifier)
      try body(PersistentContainer(store: store).newContext(participatesInSwiftObservation: false))
      progress?(done, total)
    }
    func run(_ steps: [Step]) throws {
      for step in steps { try run(step) }
    }
    func run(_ step: Step) throws {
      switch step {
      case .execute(let sql): try connection.execute(sql)
      case .run(let sql, let arguments): try connection.statement(sql).run(arguments)
      case .refuseIf(let sql, let refusal):
        guard try connection.statement(sql).rows().isEmpty else {
          throw SQLiteStoreOpenError.migrationNotInferred(path: path, refusals: [refusal])
        }
      case .touching(let table, let inner):
        try run(inner)
        done += rows[table] ?? 0
        progress?(done, total)
      }
    }
    try run(custom?.willMigrate, source, before)
    try run(steps)
    if let union { try run(custom?.migrate, union.model, union.schema) }
    try run(requirements)
    try run(drops)
    try run(custom?.didMigrate, destination, after)
    if done < total { progress?(total, total) }
  }
}

extension MigrationPlan {
  /// Checks what opening the store file at `url` with this plan would do, without writing to it
  /// (a dry run): the file is opened read-only and every stage is inferred.
  ///
  /// ```swift
  /// let stages = try plan.validate(against: url)   // [2.0.0, 3.0.0]: the file is version 1
  /// ```
  /// - Parameter url: A store file.
  /// - Returns: The versions the file would be migrated to, in order; empty when it is of the
  ///   plan's current version.
  /// - Throws: What ``SQLiteStore/init(url:model:options:)`` would throw for the file and the
  ///   plan's current model, before writing: ``SQLiteError`` for a file SQLite refuses (or no
  ///   file), ``SQLiteStoreOpenError`` for a file that is not a store, another model's, a later
  ///   version's, or a migration that cannot be inferred.
  public func validate(against url: URL) throws -> [ModelVersion] {
    let connection = try SQLiteConnection(path: url.path, create: false, readOnly: true)
    defer { connection.close() }
    let tables = try SQLiteStoreFile.tables(connection)
    guard tables.contains("og_metadata") else {
      throw SQLiteStoreOpenError.notAStore(path: url.path, tables: tables)
    }
    let opening = try SQLiteStoreFile.opening(
      SQLiteStoreFile.metadata(connection), model: currentModel, plan: self, path: url.path,
      entityIDs: SQLiteStoreFile.entityIDs(connection))
    guard case .migrate(let stages) = opening.model else { return [] }
    // What the file's objects must allow (a to-many that becomes a to-one), for the first stage,
    // which reads the file as it is; a later stage's checks run when the file is opened.
    for case .refuseIf(let sql, let refusal) in stages[0].steps {
      guard try connection.statement(sql).rows().isEmpty else {
        throw SQLiteStoreOpenError.migrationNotInferred(path: url.path, refusals: [refusal])
      }
    }
    return stages.compactMap(\.destination.version)
  }
}
