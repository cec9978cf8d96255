import Foundation
import ObservedGraph

/// An SQLite file as a store keeps it: the schema of its model, and the metadata that says which
/// store and which model made it. Opening a new (or empty) file creates both in one transaction;
/// opening an existing one reads the metadata and refuses a file that is no store or that a
/// different model made, naming what differs, before anything is written — or, given a
/// ``MigrationPlan`` that lists the file's model version, migrates it to the current one in one
/// transaction (``SQLiteMigrationStage``).
///
/// The metadata (`og_metadata`): `format` (``FileLayout``), `storeIdentifier` (a UUID, the store identifier
/// of every object identifier the file's objects have), `versionHash` (the model's
/// ``ObjectModel/versionHash``), `modelVersion` (the model's ``ObjectModel/version``, when it
/// has one) and `model` (the model's entity descriptions as JSON, so that a later model can say
/// what differs).
final class SQLiteStoreFile {

  let connection: SQLiteConnection
  let schema: SQLiteSchema
  /// The store identifier the file keeps.
  let storeIdentifier: UUID

  /// What the open still has to write under the write lock (a migration, or the model's version),
  /// as ``finishOpening()`` does; nil when nothing.
  private var unfinished:
    (model: ObjectModel, plan: MigrationPlan?, path: String, layout: FileLayout)?
  /// Where a migration reports how far it is.
  private let progress: (@Sendable (MigrationProgress) -> Void)?

  /// Opens (or creates) the store file at `path` for `model`.
  ///
  /// An existing file is then checked as `integrityCheck` asks (``SQLiteStore/IntegrityCheck``).
  /// A file of an earlier model version that `migrationPlan` lists is migrated in a transaction
  /// of its own, unless `finishing` is false: then ``finishOpening()`` migrates it in the
  /// caller's transaction (the store's open, so that one commit ends both), and ``schema`` is
  /// already the migrated file's.
  ///
  /// - Throws: ``SQLiteError`` for a file SQLite refuses (see ``SQLiteConnection``) or the check
  ///   finds damaged (`corrupt`), or ``SQLiteStoreOpenError``; the file is left as it was.
  init(
    path: String, model: ObjectModel, create: Bool = true, busyTimeout: Duration = .seconds(5),
    integrityCheck: SQLiteStore.IntegrityCheck = .off, migrationPlan: MigrationPlan? = nil,
    finishing: Bool = true, layout: FileLayout = .current,
    progress: (@Sendable (MigrationProgress) -> Void)? = nil
  ) throws {
    let connection = try SQLiteConnection(path: path, create: create, busyTimeout: busyTimeout)
    self.connection = connection
    self.progress = progress
    do {
      let tables = try Self.tables(connection)
      if tables.isEmpty {
        storeIdentifier = UUID()
        schema = SQLiteSchema(model: model)
        try Self.create(connection, schema, model, storeIdentifier, layout)
      } else {
        guard tables.contains("og_metadata") else {
          throw SQLiteStoreOpenError.notAStore(path: path, tables: tables)
        }
        let metadata = try Self.metadata(connection)
        let ids = try Self.entityIDs(connection)
        let opening = try Self.opening(
          metadata, model: model, plan: migrationPlan, path: path, layout: layout, entityIDs: ids)
        storeIdentifier = try Self.identifier(metadata, path: path)
        if case .migrate(let stages) = opening.model {
          schema = SQLiteSchema(model: model, entityIDs: stages[stages.count - 1].entityIDs)
        } else {
          schema = try Self.schema(of: model, ids, path: path)
        }
        if !opening.writesNothing { unfinished = (model, migrationPlan, path, layout) }
        try Self.verify(connection, integrityCheck, path: path)
        if finishing, unfinished != nil {
          try connection.transaction { try finishOpening() }
        }
      }
    } catch {
      connection.close()
      throw error
    }
  }

  /// Writes what the open found the file needs — a migration, or the model's version — in the
  /// caller's transaction (which holds the write lock), after deciding again: another process
  /// may have migrated the file since it was read. Does nothing the second time.
  ///
  /// - Throws: What a migration's statements throw; ``SQLiteStoreOpenError`` when the file
  ///   changed since it was read so that it can no longer be opened, or its entity ids are no
  ///   longer those of ``schema``. The caller's transaction must then roll back.
  func finishOpening() throws {
    guard let (model, plan, path, layout) = unfinished else { return }
    let again = try Self.opening(
      Self.metadata(connection), model: model, plan: plan, path: path, layout: layout,
      entityIDs: Self.entityIDs(connection))
    try Self.carry(
      out: again, connection, model, path: path, identifier: storeIdentifier, progress: progress)
    let ids = try Self.entityIDs(connection)
    guard model.entities.allSatisfy({ ids[$0.name] == schema.entityIDs[$0.name] }) else {
      throw SQLiteStoreOpenError.unknownFormat(
        path: path,
        format: "\(layout.format) whose entity ids changed while it was opened (another process "
          + "migrated it with another plan)")
    }
    unfinished = nil
  }

  /// The entity ids the file keeps in `og_entities`, by name.
  static func entityIDs(_ connection: SQLiteConnection) throws -> [String: Int] {
    var ids: [String: Int] = [:]
    for row in try connection.statement(#"SELECT "id", "name" FROM "og_entities""#).rows() {
      if case .integer(let id) = row[0], case .text(let name) = row[1] { ids[name] = Int(id) }
    }
    return ids
  }

  /// The schema of `model` with the file's entity ids; every entity of the model must have one.
  private static func schema(of model: ObjectModel, _ ids: [String: Int], path: String)
    throws -> SQLiteSchema
  {
    for entity in model.entities where ids[entity.name] == nil {
      throw SQLiteStoreOpenError.unknownFormat(
        path: path, format: "without an id for the entity \(entity.name)")
    }
    return SQLiteSchema(model: model, entityIDs: ids)
  }

  /// The names of the file's tables, sorted.
  static func tables(_ connection: SQLiteConnection) throws -> [String] {
    try connection.statement(
      "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ).rows().compactMap { row -> String? in
      if case .text(let name) = row[0] { return name }
      return nil
    }
  }

  /// Writes the schema, the metadata and the entity ids into an empty file, in one transaction.
  private static func create(
    _ connection: SQLiteConnection, _ schema: SQLiteSchema, _ model: ObjectModel,
    _ storeIdentifier: UUID, _ layout: FileLayout
  ) throws {
    try connection.transaction {
      for statement in schema.statements { try connection.execute(statement) }
      try writeMetadata(
        [("format", String(layout.format)), ("storeIdentifier", storeIdentifier.uuidString)],
        connection)
      try writeModel(model, connection)
      let entities = try connection.statement(
        #"INSERT INTO "og_entities" ("id", "name") VALUES (?, ?)"#)
      for (name, id) in schema.entityIDs.sorted(by: { $0.value < $1.value }) {
        try entities.run([.integer(Int64(id)), .text(name)])
      }
    }
  }

  /// Writes (or replaces) metadata entries.
  private static func writeMetadata(_ entries: [(String, String)], _ connection: SQLiteConnection)
    throws
  {
    let metadata = try connection.statement(
      #"INSERT OR REPLACE INTO "og_metadata" ("key", "value") VALUES (?, ?)"#)
    for (key, value) in entries { try metadata.run([.text(key), .text(value)]) }
  }

  /// Writes what the metadata says of the model: its hash, its description and its version
  /// (removed when it has none).
  private static func writeModel(_ model: ObjectModel, _ connection: SQLiteConnection) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let modelJSON = String(decoding: try encoder.encode(model.entities), as: UTF8.self)
    try writeMetadata([("versionHash", model.versionHash), ("model", modelJSON)], connection)
    if let version = model.version {
      try writeMetadata([("modelVersion", version.description)], connection)
    } else {
      try connection.statement(#"DELETE FROM "og_metadata" WHERE "key" = 'modelVersion'"#).run()
    }
  }

  /// Every metadata entry.
  static func metadata(_ connection: SQLiteConnection) throws -> [String: String] {
    var metadata: [String: String] = [:]
    for row in try connection.statement(#"SELECT "key", "value" FROM "og_metadata""#).rows() {
      if case .text(let key) = row[0], case .text(let value) = row[1] { metadata[key] = value }
    }
    return metadata
  }

  /// What opening an existing file takes: the upgrades of the library's own layout, then what
  /// the model needs.
  struct Opening {
    /// What the model needs.
    enum Model {
      /// Nothing: the file is of the model.
      case asItIs
      /// Noting the model's version: the file is of the model, and its metadata names an
      /// earlier version with the same hash, or none.
      case recordVersion
      /// Migrating through these stages, in order.
      case migrate([SQLiteMigrationStage])
    }

    /// The upgrades of the file's format, oldest first.
    var upgrades: [FileLayout.Upgrade]
    var model: Model

    /// Whether opening writes nothing.
    var writesNothing: Bool {
      guard upgrades.isEmpty, case .asItIs = model else { return false }
      return true
    }
  }

  /// Decides what opening a file with `metadata` for `model` takes, or throws why it cannot be
  /// opened: another format, a later model version, a model the plan does not list (naming what
  /// differs), a migration that cannot be inferred (naming each change).
  static func opening(
    _ metadata: [String: String], model: ObjectModel, plan: MigrationPlan?, path: String,
    layout: FileLayout = .current, entityIDs: @autoclosure () throws -> [String: Int]
  ) throws -> Opening {
    guard let text = metadata["format"], let format = Int(text), format >= 1,
      let upgrades = layout.upgrades(from: format)
    else {
      throw SQLiteStoreOpenError.unknownFormat(path: path, format: metadata["format"] ?? "none")
    }
    return Opening(
      upgrades: upgrades,
      model: try modelOpening(
        metadata, model: model, plan: plan, path: path, entityIDs: entityIDs()))
  }

  /// What the model needs of a file with `metadata`, or why it cannot be opened.
  private static func modelOpening(
    _ metadata: [String: String], model: ObjectModel, plan: MigrationPlan?, path: String,
    entityIDs: @autoclosure () throws -> [String: Int]
  ) throws -> Opening.Model {
    let storedHash = metadata["versionHash"] ?? ""
    var storedVersion: ModelVersion?
    if let text = metadata["modelVersion"] {
      guard let version = ModelVersion(text) else {
        throw SQLiteStoreOpenError.unknownFormat(
          path: path, format: "\(metadata["format"] ?? "none") with the model version \"\(text)\"")
      }
      storedVersion = version
    }
    if let storedVersion, let current = model.version, current < storedVersion {
      throw SQLiteStoreOpenError.newerModelVersion(
        path: path, fileVersion: storedVersion, appVersion: current)
    }
    func mismatch(_ expected: ObjectModel) -> SQLiteStoreOpenError {
      .modelMismatch(
        path: path,
        differences: storedModel(metadata["model"], like: expected)
          .map(expected.differences(from:)) ?? [],
        storedHash: storedHash)
    }
    guard let plan else {
      guard storedHash == model.versionHash else { throw mismatch(model) }
      return model.version != nil && storedVersion != model.version ? .recordVersion : .asItIs
    }
    let current = plan.currentModel
    guard current.version == model.version, current.versionHash == model.versionHash else {
      throw ObjectGraphError(
        .invalidMigrationPlan, entity: "", value: model.version?.description ?? "none",
        reason: "the store's model (version \(model.version?.description ?? "none")) is not the "
          + "last version of its migration plan (\(current.version!))")
    }
    let source =
      storedVersion.map { plan.model(of: $0) } ?? plan.earliestModel(withHash: storedHash)
    guard let source, source.versionHash == storedHash else {
      throw mismatch(source ?? model)
    }
    if source.version == model.version {
      return storedVersion == nil ? .recordVersion : .asItIs
    }
    let later = Array(plan.versions(after: source.version!))
    var ids = try entityIDs()
    var stages: [SQLiteMigrationStage] = []
    for (from, to) in zip([source] + later, later) {
      stages.append(
        SQLiteMigrationStage(
          from: from, to: to, entityIDs: ids, custom: to.version.flatMap(plan.stage(to:))))
      ids = stages[stages.count - 1].entityIDs
    }
    let refusals = stages.flatMap(\.refusals)
    guard refusals.isEmpty else {
      throw SQLiteStoreOpenError.migrationNotInferred(path: path, refusals: refusals)
    }
    return .migrate(stages)
  }

  /// Carries out what ``opening(_:model:plan:path:layout:entityIDs:)`` decided, in the caller's
  /// transaction: the format's upgrades first, then the model's migration.
  private static func carry(
    out opening: Opening, _ connection: SQLiteConnection, _ model: ObjectModel, path: String,
    identifier: UUID, progress: (@Sendable (MigrationProgress) -> Void)?
  ) throws {
    for upgrade in opening.upgrades {
      for statement in upgrade.statements { try connection.execute(statement) }
      try writeMetadata([("format", String(upgrade.from + 1))], connection)
    }
    switch opening.model {
    case .asItIs:
      return
    case .recordVersion:
      break
    case .migrate(let stages):
      // A migration rewrites tables and sorts new indexes, and SQLite's sorter keeps as much in
      // memory as the page cache holds: with a cache of at most 16 MiB, the two stay within
      // 32 MiB (Docs/Performance.md, "Migrating opens"). The store sets its own cache again
      // once the open's transaction ends, after it made the indexes the migration dropped.
      try connection.execute("PRAGMA cache_size = -\(Self.migrationCacheKibibytes)")
      for (index, stage) in stages.enumerated() {
        try stage.carryOut(
          on: connection, path: path, identifier: identifier,
          progress: progress.map { report in
            { done, total in
              report(
                MigrationProgress(
                  version: stage.destination.version!, stage: index + 1,
                  stageCount: stages.count, rowsDone: done, rowsTotal: total))
            }
          })
      }
    }
    try writeModel(model, connection)
  }

  /// The page cache, in KiB, a migration runs with.
  static let migrationCacheKibibytes = 16 * 1024

  /// The store identifier the metadata names.
  private static func identifier(_ metadata: [String: String], path: String) throws -> UUID {
    guard let text = metadata["storeIdentifier"], let identifier = UUID(uuidString: text) else {
      throw SQLiteStoreOpenError.unknownFormat(path: path, format: "without a store identifier")
    }
    return identifier
  }

  /// The model a store's metadata describes, read with the transformable types of `model`; nil
  /// when it cannot be read back.
  static func storedModel(_ json: String?, like model: ObjectModel) -> ObjectModel? {
    guard let json else { return nil }
    let decoder = JSONDecoder()
    decoder.userInfo[AttributeType.transformableTypesKey] = model.entities.flatMap(\.attributes)
      .compactMap { $0.type.valueType as? any (Codable & Hashable & Sendable).Type }
    guard let entities = try? decoder.decode([EntityDescription].self, from: Data(json.utf8))
    else { return nil }
    return try? ObjectModel(entities: entities)
  }
}

/// Why a file cannot be opened as this model's store.
public enum SQLiteStoreOpenError: Error, Equatable, Sendable, CustomStringConvertible {
  /// An SQLite database that holds other tables and no store metadata.
  case notAStore(path: String, tables: [String])
  /// A store made by a different model; `differences` names each entity and property that
  /// differs (empty when the stored model could not be read back, then the hashes differ).
  case modelMismatch(path: String, differences: [ModelDifference], storedHash: String)
  /// A store of a format this version does not read.
  case unknownFormat(path: String, format: String)
  /// A store made by a later version of the model than the app's: an older app does not open
  /// (or migrate back) a file a newer one made.
  case newerModelVersion(path: String, fileVersion: ModelVersion, appVersion: ModelVersion)
  /// A store of an earlier model version whose migration to the app's cannot be inferred:
  /// each change that stops it, with what it needs. Nothing was written.
  case migrationNotInferred(path: String, refusals: [MigrationRefusal])

  public var description: String {
    switch self {
    case .notAStore(let path, let tables):
      "\(path) is an SQLite database but not a store: it has the tables "
        + tables.joined(separator: ", ") + " and no store metadata"
    case .modelMismatch(let path, let differences, let storedHash):
      "\(path) was made by a different model (version hash \(storedHash)): "
        + (differences.isEmpty
          ? "its model could not be read back"
          : differences.map(\.description).joined(separator: "; "))
    case .unknownFormat(let path, let format):
      if let number = Int(format), number > FileLayout.current.format {
        "\(path) is a store of format \(format), newer than this version's "
          + "\(FileLayout.current.format): a later version of ObservedGraph made it"
      } else {
        "\(path) is a store of format \(format), which this version does not read"
      }
    case .newerModelVersion(let path, let fileVersion, let appVersion):
      "\(path) was made by model version \(fileVersion), which is newer than this app's "
        + "\(appVersion)"
    case .migrationNotInferred(let path, let refusals):
      "\(path) cannot be migrated without code: "
        + refusals.map(\.description).joined(separator: "; ")
    }
  }
}

/// The library's own layout of a store file — its tables and columns beside the model's — as a
/// format number that a version of the library writes, and the upgrades that bring a file of an
/// earlier format to it. A later version that adds a table or a column of its own raises the
/// format and appends the upgrade: a store opening a file of an earlier format runs the upgrades
/// in order, in the open's one transaction (decided again under the write lock, so that two
/// processes upgrade a file once), and writes the new format; a file of a later format is
/// refused, saying it is newer.
///
/// Format 1 is the first: `og_metadata` and `og_entities` beside the model's tables (see
/// ``SQLiteSchema``). No upgrade exists yet; tests give the store a layout of their own.
struct FileLayout: Sendable {
  /// The statements that turn a file of format `from` into one of format `from + 1`.
  struct Upgrade: Sendable {
    let from: Int
    let statements: [String]
  }

  /// The format this layout writes.
  let format: Int
  /// The upgrades from each earlier format, each to the next.
  let upgrades: [Upgrade]

  /// The layout of this version of the library.
  static let current = FileLayout(format: 1, upgrades: [])

  /// The upgrades a file of `format` needs, in order; nil for a later format, or an earlier one
  /// the upgrades do not reach.
  func upgrades(from format: Int) -> [Upgrade]? {
    guard format <= self.format else { return nil }
    var needed: [Upgrade] = []
    for from in format..<self.format {
      guard let upgrade = upgrades.first(where: { $0.from == from }) else { return nil }
      needed.append(upgrade)
    }
    return needed
  }
}
