import CSQLite
import Foundation
import ObservedGraph

/// A store that keeps objects in an SQLite file, on the system's SQLite.
///
/// Opening the store opens (or creates) the file: a new file gets the schema the model needs
/// (see Docs/SQLiteStore.md) and the store's metadata; an existing one must have been made by the
/// same model. The file is in WAL mode. Each save is one transaction: when any statement fails, it
/// rolls back and the file is as it was.
///
/// ```swift
/// let store = try SQLiteStore(url: folder.appending(path: "Books.sqlite"), model: model)
/// let container = PersistentContainer(store: store)
/// let context = container.viewContext
/// let book = context.insert(Book.self)
/// book.title = "Dune"
/// try context.save()          // one transaction
/// ```
///
/// A store and its contexts are used from one isolation domain at a time.
public final class SQLiteStore: PersistentStore {
  /// How a store is opened.
  public struct Options: Sendable {
    /// How long a write waits for another connection's lock (another process writing the same
    /// file) before it throws ``SQLiteError/Kind/busy``. 5 seconds by default.
    public var busyTimeout: Duration = .seconds(5)
    /// Where each statement the store runs is reported — its SQL, its bound values and its
    /// time, as a ``TracedStatement`` — or nil for no trace. Off by default, unless the
    /// environment variable `OBSERVEDGRAPH_SQL_DEBUG` is `1`, which writes each statement's
    /// ``TracedStatement/description`` to standard error.
    ///
    /// ```swift
    /// options.sqlTrace = { print($0) }  // SQL: SELECT … WHERE "og_pk" = ? [5] (0.016 ms)
    /// ```
    public var sqlTrace: (@Sendable (TracedStatement) -> Void)?
    /// How many object keys the store reserves in the file at a time (4,096 by default): when it
    /// opens, and at a save once half of them are given out.
    ///
    /// Inserting never waits for the file, so a store whose contexts insert more objects between
    /// two saves than its block holds gives out keys past the block, and the next save reserves
    /// them. Should another store on the same file (another process) have reserved those keys in
    /// the meantime, that save throws `ObjectGraphError` of kind `duplicateObject`, naming the
    /// first object with such a key, and writes nothing, whether or not the other store saved an
    /// object with the key yet (of any entity); so does a fetch or a load that meets one of their
    /// rows, and a context never gives a new object the key of one it loaded: neither the file
    /// nor a context ever holds two objects under one key. With one store per file this never
    /// happens; with several writers, make the block larger than the objects inserted between
    /// saves.
    public var keyBlockSize = 4096
    /// Which check of the whole file an open runs on an existing file before it writes
    /// anything: ``IntegrityCheck/off`` (the default), ``IntegrityCheck/quick`` or
    /// ``IntegrityCheck/full``.
    ///
    /// Without a check, a damaged page that the open does not read (an index page, a leaf of a
    /// large table) is found only when a fetch or a save reaches it, which then throws
    /// ``SQLiteError/Kind/corrupt``. With one, the open reads every page and refuses a damaged
    /// file with ``SQLiteError/Kind/corrupt``, quoting SQLite's report; the file is left as it
    /// was. The check costs time in proportion to the file's size (Docs/SQLiteStore.md gives
    /// figures), which is why it is off by default.
    public var integrityCheck = IntegrityCheck.off
    /// The most memory, in bytes, that SQLite's cache of the file's pages may take for this
    /// store: 32 MiB by default, at least 256 KiB (a smaller value is raised to it). SQLite takes
    /// the memory as it reads pages, so a small file never takes more than its own size.
    ///
    /// SQLite's own default is 2,000 KiB, about 500 pages. Walking relationships reads rows in
    /// the order the relationships name them, not in the order of the table: the items of one
    /// owner lie on as many pages as there are items, and the next owner's items lie on the
    /// same pages again. A cache smaller than one such walk reads each page from the file again
    /// for every row (Docs/Performance.md, "reach"); one that holds it reads each page once.
    ///
    /// ```swift
    /// options.pageCacheSize = 64 * 1024 * 1024  // for walks over more than a million rows
    /// ```
    public var pageCacheSize = 32 * 1024 * 1024
    /// The versions of the store's model, for a file made by an earlier one: opening it migrates
    /// it to the store's model, the plan's last version, in one transaction (see
    /// `MigrationPlan`). Nil by default: a file made by another model is refused.
    ///
    /// ```swift
    /// options.migrationPlan = try MigrationPlan(versions: [v1, v2, v3])
    /// ```
    public var migrationPlan: MigrationPlan?
    /// Where a migrating open reports how far it is (see `MigrationProgress`), on the opening
    /// thread, inside the migration's transaction; nil (the default) for no reports.
    ///
    /// ```swift
    /// options.migrationProgress = { print($0) }   // 1/2 → 2.0.0: 0 of 2000 rows …
    /// ```
    public var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
    /// For tests: the statement of the open's migration at which a failure is injected (1 is
    /// the first); nil for none.
    var migrationFailingStep: Int?
    /// For tests: the library's layout of the file (the current one, or a later format with
    /// its upgrades).
    var fileLayout = FileLayout.current

    /// The default options (with the SQL trace on when `OBSERVEDGRAPH_SQL_DEBUG` is `1`).
    public init() {
      self.init(environment: ProcessInfo.processInfo.environment)
    }

    /// The default options for a process environment.
    init(environment: [String: String]) {
      if environment["OBSERVEDGRAPH_SQL_DEBUG"] == "1" {
        sqlTrace = SQLiteStore.writeToStandardError
      }
    }
  }

  /// Why a file cannot be opened as this model's store.
  public typealias OpenError = SQLiteStoreOpenError

  /// The store's identifier, kept in the file: the same each time the file is opened.
  public let identifier: UUID
  /// The model of the objects the store holds; the file's model is the same.
  public let model: ObjectModel
  /// The plan the store was opened with, for the renames of earlier versions.
  private let migrationPlan: MigrationPlan?
  /// The store's file.
  public let url: URL
  /// The file's metadata: the store's identifier (`storeIdentifier`), its model's version hash
  /// (`versionHash`) and the model itself, as the JSON of its entities.
  public private(set) var metadata: [String: String]
  /// Whether ``close()`` was called.
  public var isClosed: Bool { connection.isClosed }

  let connection: SQLiteConnection
  /// Whether ``close()`` closes the connection: false for a custom migration stage's store.
  private let ownsConnection: Bool
  let schema: SQLiteSchema
  let layouts: [String: EntityLayout]
  /// Each concrete entity's layout, and each entity's name, by its id in `og_entities`.
  let layoutsByID: [EntityLayout?]
  /// `layoutsByID`, unretained: valid while the store lives.
  let layoutReferencesByID: [Unmanaged<EntityLayout>?]
  private let entitiesByID: [EntityDescription?]
  /// Join-table columns that hold keys of an entity's objects, by entity name: a deleted object's
  /// rows in them go with it.
  private let joinColumns: [String: [(table: String, column: String)]]
  private let keyBlockSize: Int64
  /// The next key to give out, and the end of the keys reserved in the file.
  private var nextKey: Int64
  private var reservedEnd: Int64
  /// Keys past this store's blocks that another store on the file reserved (found when this one
  /// reserved its next block past them): a key this store gave out there may name another
  /// store's object of any entity, so an object with it is refused at a save.
  private var reservedElsewhere: [Range<Int64>] = []
  /// The connection's ``SQLiteConnection/lengthLimit``, read once per save (it is a call into
  /// SQLite) for the check of each string and data value.
  private var savedLengthLimit = Int.max
  /// SQLite's schema cookie (`PRAGMA schema_version`) when the store last found the file's model
  /// to be its own: every change of the schema changes it (another process's migration too).
  private var checkedSchemaVersion: Int64 = 0

  /// Opens the store in the file at `url`, creating the file when there is none.
  ///
  /// - Parameters:
  ///   - url: A file URL.
  ///   - model: The model of the objects it holds.
  ///   - options: How to open it.
  /// - Throws: ``SQLiteError`` when SQLite refuses the file (`notADatabase`, `corrupt`, `busy`,
  ///   …) or the check ``Options/integrityCheck`` asks for finds it damaged (`corrupt`, quoting
  ///   SQLite's report); ``OpenError`` for a database that is not a store, a store another model
  ///   (or a later format) made, a store of a later model version, or a migration
  ///   ``Options/migrationPlan`` cannot infer; `ObjectGraphError` of kind `invalidMigrationPlan`
  ///   when `model` is not the plan's last version. A failed open leaves the file as it was: a
  ///   migration runs in one transaction.
  /// - Complexity: O(*e* × *p*) in the model's entities and properties, to check or create the
  ///   schema in one transaction; with ``Options/integrityCheck``, also O(*n*) in the file's
  ///   pages, each read once.
  public convenience init(url: URL, model: ObjectModel, options: Options = Options()) throws {
    let file = try SQLiteStoreFile(
      path: url.path, model: model, busyTimeout: options.busyTimeout,
      integrityCheck: options.integrityCheck, migrationPlan: options.migrationPlan,
      finishing: false, layout: options.fileLayout, progress: options.migrationProgress)
    self.init(
      file.connection, url: url, model: model, schema: file.schema,
      identifier: file.storeIdentifier, plan: options.migrationPlan,
      keyBlockSize: options.keyBlockSize, ownsConnection: true)
    do {
      if let trace = options.sqlTrace { connection.trace = Self.tracer(trace) }
      try connection.execute("PRAGMA journal_mode = WAL")
      try connection.execute("PRAGMA cache_size = -\(Self.pageCacheKibibytes(options))")
      // A migration (or the model's version) is written in the open's one transaction.
      connection.failingStep = options.migrationFailingStep
      defer { connection.failingStep = nil }
      metadata = try connection.transaction {
        try file.finishOpening()
        for statement in schema.indexStatements { try connection.execute(statement) }
        try reserveFirstBlock()
        // Read back before the commit: a file whose damage shows only now is left as it was.
        return try readMetadata()
      }
      // A migration ran with a smaller cache (see `SQLiteStoreFile`). Past the open's
      // transaction: no failure is injected here.
      connection.failingStep = nil
      try connection.execute("PRAGMA cache_size = -\(Self.pageCacheKibibytes(options))")
    } catch {
      connection.close()
      throw error
    }
  }

  /// A store on the connection of a file a migration has open, in the migration's transaction:
  /// a custom stage's contexts read and write through it (``MigrationStage``), its saves are
  /// savepoints, and closing it leaves the connection open.
  convenience init(
    staging connection: SQLiteConnection, url: URL, model: ObjectModel, schema: SQLiteSchema,
    identifier: UUID
  ) throws {
    self.init(
      connection, url: url, model: model, schema: schema, identifier: identifier, plan: nil,
      keyBlockSize: Options().keyBlockSize, ownsConnection: false)
    try reserveFirstBlock()
    metadata = try readMetadata()
  }

  private init(
    _ connection: SQLiteConnection, url: URL, model: ObjectModel, schema: SQLiteSchema,
    identifier: UUID, plan: MigrationPlan?, keyBlockSize: Int, ownsConnection: Bool
  ) {
    self.url = url
    self.model = model
    migrationPlan = plan
    self.connection = connection
    self.schema = schema
    self.identifier = identifier
    self.ownsConnection = ownsConnection
    self.keyBlockSize = Int64(max(1, keyBlockSize))
    var layouts: [String: EntityLayout] = [:]
    for entity in model.entities where !entity.isAbstract {
      layouts[entity.name] = EntityLayout(entity, schema: schema, model: model)
    }
    self.layouts = layouts
    // Ids are those of the file: a migration may have removed some and added others after them.
    let idCount = (schema.entityIDs.values.max() ?? 0) + 1
    var byID = [EntityLayout?](repeating: nil, count: idCount)
    var entitiesByID = [EntityDescription?](repeating: nil, count: idCount)
    for (name, id) in schema.entityIDs {
      byID[id] = layouts[name]
      entitiesByID[id] = model.entity(named: name)
    }
    layoutsByID = byID
    layoutReferencesByID = byID.map { $0.map(Unmanaged.passUnretained) }
    self.entitiesByID = entitiesByID
    joinColumns = Self.joinColumns(model, layouts)
    metadata = [:]
    nextKey = 1
    reservedEnd = 1
  }

  /// Reserves the store's first block of keys, after every key the file names or holds, and
  /// notes the schema the store checked; in the caller's transaction.
  private func reserveFirstBlock() throws {
    var next = try readMetadata()["nextKey"].flatMap { Int64($0) } ?? 1
    for table in Set(layouts.values.map(\.table)) {
      let largest = try connection.statement(
        "SELECT max(\"og_pk\") FROM \(SQLiteSchema.quoted(table))"
      ).rows().first?.first
      if case .integer(let key)? = largest { next = max(next, key + 1) }
    }
    nextKey = next
    reservedEnd = next + keyBlockSize
    try writeNextKey(reservedEnd)
    checkedSchemaVersion = try schemaVersion()
  }

  /// Every metadata entry but the model's description.
  private func readMetadata() throws -> [String: String] {
    var metadata: [String: String] = [:]
    for row in try connection.statement(#"SELECT "key", "value" FROM "og_metadata""#).rows() {
      if case .text(let key) = row[0], key != "model", case .text(let value) = row[1] {
        metadata[key] = value
      }
    }
    return metadata
  }

  /// SQLite's schema cookie.
  private func schemaVersion() throws -> Int64 {
    guard
      case .integer(let version)? = try connection.statement("PRAGMA schema_version").rows()
        .first?.first
    else { return 0 }
    return version
  }

  /// Refuses to write to a file whose model is no longer the store's: another process migrated
  /// it since the store opened. Read in the save's transaction, so no migration can come between
  /// the check and the writes; costs one pragma unless the schema changed.
  private func refuseAnotherModel() throws {
    let version = try schemaVersion()
    guard version != checkedSchemaVersion else { return }
    let stored = try SQLiteStoreFile.metadata(connection)
    let storedHash = stored["versionHash"] ?? ""
    guard storedHash == model.versionHash else {
      throw SQLiteStoreOpenError.modelMismatch(
        path: url.path,
        differences: SQLiteStoreFile.storedModel(stored["model"], like: model)
          .map(model.differences(from:)) ?? [],
        storedHash: storedHash)
    }
    checkedSchemaVersion = version
  }

  private func writeNextKey(_ key: Int64) throws {
    try connection.statement(
      #"INSERT OR REPLACE INTO "og_metadata" ("key", "value") VALUES ('nextKey', ?)"#
    ).run([.text(String(key))])
  }

  /// The name the store's model gives an entity an archived identifier names: the name itself
  /// when the model has it; or else through the renames of every version of
  /// ``Options/migrationPlan`` when the store has one, or the model's own.
  ///
  /// - Parameter archivedName: An entity name, as an archived identifier holds it.
  /// - Returns: The entity's name in the store's model, or nil.
  public func currentEntityName(for archivedName: String) -> String? {
    if model.entity(named: archivedName) != nil { return archivedName }
    return migrationPlan?.currentEntityName(for: archivedName)
      ?? model.currentEntityName(for: archivedName)
  }

  /// Closes the file. Closing a closed store does nothing.
  ///
  /// - Throws: Nothing: the file is closed even when SQLite reports an error closing it.
  public func close() throws {
    if ownsConnection { connection.close() }
  }

  /// Keys from the block reserved in the file, up to its end; past it (many inserts before a
  /// save), keys that the next save reserves in the file.
  ///
  /// - Parameter count: How many keys are wanted, at least 1.
  /// - Returns: Between 1 and `count` consecutive keys (fewer at the end of the reserved block).
  public func reserveKeys(_ count: Int) -> Range<Int64> {
    precondition(count > 0, "ObservedGraph: reserveKeys needs a count of at least 1")
    var end = nextKey + Int64(count)
    if nextKey < reservedEnd { end = min(end, reservedEnd) }
    defer { nextKey = end }
    return nextKey..<end
  }

  // MARK: Loading

  /// Loads one object with one query by key, and several with one query per table and hundred
  /// keys (`og_pk IN (…)`); the objects come back in the order asked for.
  ///
  /// - Parameter ids: The identifiers; one the file has no row for is left out.
  /// - Returns: The stored values, in the order of `ids`.
  /// - Throws: ``SQLiteError`` when a query fails (`closed`, `corrupt`, `ioError`, `busy` after the
  ///   busy timeout), or `ObjectGraphError.Kind.wrongType` for a column holding a value its
  ///   attribute's type cannot take.
  /// - Complexity: One query per table and hundred keys; O(*n*) in the rows read.
  public func loadObjects(_ ids: [ObjectID]) throws -> [StoredObject] {
    var found: [Int64: StoredObject] = [:]
    try forEachRow(of: ids) { key, layout, row in
      let stored = StoredRow(layout, key: key, store: identifier)
      try read(row, layout, key: key, into: stored)
      found[key] = stored.object
    }
    return ids.compactMap { id in found[id.key].flatMap { $0.id == id ? $0 : nil } }
  }

  /// Loads the objects as ``loadObjects(_:)`` does, each row's values given to the loader as
  /// they are read.
  ///
  /// - Parameters:
  ///   - ids: The identifiers; one the file has no row for is left out.
  ///   - loader: Where each row's values go.
  /// - Throws: ``SQLiteError`` when a query fails (`closed`, `corrupt`, `ioError`, `busy` after the
  ///   busy timeout), or `ObjectGraphError.Kind.wrongType` for a column holding a value its
  ///   attribute's type cannot take.
  /// - Complexity: One query per table and hundred keys; O(*n*) in the rows read.
  public func loadObjects(_ ids: [ObjectID], into loader: ObjectLoader) throws {
    try forEachRow(of: ids) { key, layout, row in try load(row, layout, key: key, into: loader) }
  }

  /// Gives a row of a layout's select columns to a loader: the object, and its values when the
  /// loader wants them.
  func load(
    _ row: SQLiteStatement.Row, _ layout: EntityLayout, key: Int64, into loader: ObjectLoader
  )
    throws
  {
    guard loader.beginObject(layout.entity, key: key) else { return }
    try read(row, layout, key: key, into: loader)
  }

  /// Gives a row of the table numbered `table` (see ``EntityLayout/tableNumber``) whose first
  /// columns are `og_pk` and `og_entity`, then its layout's select columns, to a loader; a row of
  /// an entity the store does not know, or of one whose rows are in another table, is skipped. The
  /// layout is used without a reference count. With `fixed`, every row is of its entity (the query
  /// checked it) and the row's `og_entity` is not read.
  func loadRow(
    _ row: SQLiteStatement.Row, inTable table: Int, into loader: ObjectLoader,
    fixed: Unmanaged<EntityLayout>? = nil
  ) throws {
    guard let (key, layout) = keyAndLayout(of: row, inTable: table, fixed: fixed) else { return }
    try layout._withUnsafeGuaranteedRef { layout in
      guard loader.beginObject(layout.entity, key: key) else { return }
      try read(row, layout, key: key, into: loader)
    }
  }

  /// ``loadRow(_:into:)`` for a fetch whose query ordered its rows by the bytes of text columns
  /// (`positions`, a bit per select column), which is Swift's order only for ASCII text: returns
  /// whether those columns of the row hold no text beyond ASCII. A value read into an object is
  /// checked from the bytes it is read from; a column the row does not give (its object's values
  /// are in memory already) is read for the check alone. One pass over each text instead of two,
  /// and three calls into SQLite fewer per row.
  func loadRow(
    _ row: SQLiteStatement.Row, inTable table: Int, into loader: ObjectLoader,
    checkingASCII positions: UInt64, fixed: Unmanaged<EntityLayout>? = nil
  ) throws -> Bool {
    var checked: UInt64 = 0
    if let (key, layout) = keyAndLayout(of: row, inTable: table, fixed: fixed) {
      checked = try layout._withUnsafeGuaranteedRef { layout in
        guard loader.beginObject(layout.entity, key: key) else { return 0 }
        return try read(row, layout, key: key, into: loader, checkingASCII: positions)
      }
    }
    var left = positions & ~checked
    while left != 0 {
      let position = left.trailingZeroBitCount
      left &= left - 1
      if !row.isASCIIText(at: position) { return false }
    }
    return true
  }

  /// The key and the layout of a row of the table numbered `table` whose first columns are
  /// `og_pk` and `og_entity`; nil for an entity id the store does not know or whose rows are in
  /// another table. With `fixed`, the row is of its entity (the query checked it) and its
  /// `og_entity` is not read.
  func object(
    of row: SQLiteStatement.Row, inTable table: Int, fixed: Unmanaged<EntityLayout>? = nil
  ) -> (key: Int64, layout: EntityLayout)? {
    keyAndLayout(of: row, inTable: table, fixed: fixed).map {
      ($0.key, $0.layout.takeUnretainedValue())
    }
  }

  /// The key and the layout, unretained (valid while the store lives), of a row of the table
  /// numbered `table` whose first columns are `og_pk` and `og_entity`; nil for an entity id the
  /// store does not know, or of an entity whose rows are in another table (another program
  /// wrote it: the row's columns are not that entity's). With `fixed`, the row is of its entity
  /// and its `og_entity` is not read.
  @inline(__always)
  private func keyAndLayout(
    of row: SQLiteStatement.Row, inTable table: Int, fixed: Unmanaged<EntityLayout>?
  ) -> (key: Int64, layout: Unmanaged<EntityLayout>)? {
    if let fixed { return (row.rowKey(at: 0), fixed) }
    // `og_pk` is the row's `INTEGER PRIMARY KEY`, never anything but an integer: read without
    // asking its type.
    let entity = row.entityID()
    guard entity > 0, entity < layoutReferencesByID.count,
      let layout = layoutReferencesByID[Int(entity)],
      layout._withUnsafeGuaranteedRef({ $0.tableNumber }) == table
    else { return nil }
    return (row.rowKey(at: 0), layout)
  }

  /// Runs the queries of a load by identifiers and calls `body` with each row found, its key and
  /// its layout.
  private func forEachRow(
    of ids: [ObjectID], _ body: (Int64, EntityLayout, SQLiteStatement.Row) throws -> Void
  ) throws {
    _ = try connection.openHandle(for: nil)
    var byTable: [String: [(key: Int64, layout: EntityLayout)]] = [:]
    for id in ids {
      guard id.storeIdentifier == identifier, let layout = layouts[id.entityName] else { continue }
      byTable[layout.table, default: []].append((id.key, layout))
    }
    for (table, wanted) in byTable {
      let layouts = Dictionary(wanted.map { ($0.key, $0.layout) }) { first, _ in first }
      var start = 0
      while start < wanted.count {
        let chunk = wanted[start..<min(start + 100, wanted.count)]
        start += chunk.count
        let sql =
          chunk.count == 1
          ? chunk.first!.layout.select
          : "SELECT \(EntityLayout.selectList(chunk.first!.layout.selectColumns, prefix: "")) "
            + "FROM \(SQLiteSchema.quoted(table)) WHERE \"og_pk\" IN ("
            + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")"
        try connection.statement(sql).forEachRow(chunk.map { .integer($0.key) }) { row in
          guard let key = row.integer(at: 0), let layout = layouts[key],
            row.entityID() == layout.entityID
          else { return }
          try body(key, layout, row)
        }
      }
    }
  }

  /// Reads a row of a layout's select columns into a target, column by column.
  ///
  /// - Throws: ``ObjectGraphError/Kind/wrongType`` for a column holding a value its attribute's
  ///   type cannot take; the target may have some of the row's values then.
  ///
  /// - Parameter positions: Select columns (a bit per position) whose text is checked for
  ///   bytes beyond ASCII as it is read (see ``loadRow(_:into:checkingASCII:)``).
  /// - Returns: The checked positions read here whose value is not text beyond ASCII.
  @discardableResult
  func read<Target: RowTarget>(
    _ row: SQLiteStatement.Row, _ layout: EntityLayout, key: Int64, into target: Target,
    checkingASCII positions: UInt64 = 0
  ) throws -> UInt64 {
    var asciiPositions: UInt64 = 0
    for column in layout.columns {
      switch column.kind {
      case .attribute(let conversion):
        let bit: UInt64 = column.position < 64 ? 1 << UInt64(column.position) : 0
        var ascii = true
        guard
          row.give(
            at: column.position, as: conversion, slot: column.slot, to: target,
            required: column.required, checkingASCII: positions & bit != 0, &ascii)
        else {
          throw mismatch(key, layout, column, row.value(at: column.position))
        }
        if positions & bit != 0 && ascii { asciiPositions |= bit }
      case .toOne(let entityColumn):
        let related = row.integer(at: column.position)
        if related != nil, let entityColumn,
          let id = row.integer(at: layout.columns[entityColumn].position), let entity = entity(id)
        {
          target.toOne(related, entity, at: column.slot)
          continue
        }
        // The relationship's destination, which the layout keeps: given without a reference count.
        layout.destinationReferences[column.index].unsafelyUnwrapped._withUnsafeGuaranteedRef {
          target.toOne(related, $0, at: column.slot)
        }
      case .toOneEntity:
        continue
      }
    }
    return asciiPositions
  }

  private func mismatch(
    _ key: Int64, _ layout: EntityLayout, _ column: EntityLayout.Column, _ value: SQLiteValue
  ) -> ObjectGraphError {
    let id = ObjectID(storeIdentifier: identifier, entityName: layout.entity.name, key: key)
    let name = layout.entity.propertyNames[column.slot]
    let type = layout.types[column.index].map { "\($0)" } ?? "?"
    guard value != .null else {
      return ObjectGraphError(
        .missingValue, entity: id.entityName, key: name, value: "NULL",
        reason: "the file \(url.path) holds NULL in column \(layout.names[column.index]) of "
          + "\(id), but '\(name)' is a non-optional \(type) (another program wrote the row)")
    }
    return ObjectGraphError(
      .wrongType, entity: id.entityName, key: name, value: "\(value)",
      reason: "the file \(url.path) holds \(value) in column \(layout.names[column.index]) of "
        + "\(id), which is not a value of type \(type)")
  }

  /// The entity with an id of `og_entities`.
  private func entity(_ id: Int64) -> EntityDescription? {
    id > 0 && id < entitiesByID.count ? entitiesByID[Int(id)] : nil
  }

  /// The members of an object's to-many relationship with their stored values, read in one
  /// query, in the relationship's order when it is ordered; empty when the file has no such
  /// object.
  ///
  /// - Parameters:
  ///   - id: The owner's identifier.
  ///   - relationship: The to-many relationship's name.
  /// - Returns: The members' stored values.
  /// - Throws: ``SQLiteError`` when a query fails (`closed`, `corrupt`, `ioError`, `busy` after the
  ///   busy timeout), or `ObjectGraphError.Kind.wrongType` for a column holding a value its
  ///   attribute's type cannot take.
  /// - Complexity: One query; O(*m*) in the members read.
  public func loadMembers(of id: ObjectID, relationship: String) throws -> [StoredObject] {
    var members: [StoredObject] = []
    try forEachMemberRow(of: id, relationship: relationship) { key, layout, row in
      let stored = StoredRow(layout, key: key, store: identifier)
      try read(row, layout, key: key, into: stored)
      members.append(stored.object)
    }
    return members
  }

  /// Loads the members as ``loadMembers(of:relationship:)`` does, in one query, each row's
  /// values given to the loader as they are read.
  ///
  /// - Parameters:
  ///   - id: The owner's identifier.
  ///   - relationship: The to-many relationship's name.
  ///   - loader: Where each member's row goes.
  /// - Throws: ``SQLiteError`` when a query fails (`closed`, `corrupt`, `ioError`, `busy` after the
  ///   busy timeout), or `ObjectGraphError.Kind.wrongType` for a column holding a value its
  ///   attribute's type cannot take.
  /// - Complexity: One query; O(*m*) in the members read.
  public func loadMembers(of id: ObjectID, relationship: String, into loader: ObjectLoader)
    throws
  {
    guard let sql = try membersQuery(of: id, relationship: relationship) else { return }
    try connection.statement(sql).forEachRow(
      [.integer(id.key)],
      reader: LoadingReader(store: self, table: membersTable(of: id, relationship), loader: loader)
    )
  }

  /// Loads the members of one to-many relationship of several owners: one query per hundred
  /// owners of an entity, the owner's key read beside each member's row.
  ///
  /// - Parameters:
  ///   - ids: The owners' identifiers.
  ///   - relationship: The to-many relationship's name.
  ///   - loader: Where each member's row goes.
  /// - Returns: The owner's key of each member given, in the order given.
  /// - Throws: ``SQLiteError`` when a query fails (`closed`, `corrupt`, `ioError`, `busy` after the
  ///   busy timeout), or `ObjectGraphError.Kind.wrongType` for a column holding a value its
  ///   attribute's type cannot take.
  /// - Complexity: One query per hundred owners of an entity; O(*m*) in the members read.
  public func loadMembers(of ids: [ObjectID], relationship: String, into loader: ObjectLoader)
    throws -> [Int64]
  {
    _ = try connection.openHandle(for: nil)
    var owners: [Int64] = []
    var byEntity: [String: [Int64]] = [:]
    for id in ids where id.storeIdentifier == identifier {
      byEntity[id.entityName, default: []].append(id.key)
    }
    for (name, keys) in byEntity.sorted(by: { $0.key < $1.key }) {
      guard let layout = layouts[name],
        let toMany = layout.toMany.first(where: { $0.name == relationship }),
        let columns = layouts.values.first(where: { $0.table == toMany.destinationTable })?
          .selectColumns
      else { continue }
      var start = 0
      while start < keys.count {
        let chunk = Array(keys[start..<min(start + 100, keys.count)])
        start += chunk.count
        guard let sql = membersQuery(toMany, columns: columns, owners: chunk.count) else {
          continue
        }
        let ownerPosition = columns.count
        try connection.statement(sql).forEachRow(chunk.map { .integer($0) }) { row in
          guard let (key, memberLayout) = object(of: row, inTable: toMany.destinationTableNumber),
            let owner = row.integer(at: ownerPosition)
          else { return }
          let before = loader.objectCount
          try load(row, memberLayout, key: key, into: loader)
          if loader.objectCount > before { owners.append(owner) }
        }
      }
    }
    return owners
  }

  /// The number of the table that holds the members of an owner's to-many relationship (see
  /// ``EntityLayout/tableNumber``); -1 when the store has no such relationship.
  private func membersTable(of id: ObjectID, _ relationship: String) -> Int {
    layouts[id.entityName]?.toMany.first { $0.name == relationship }?.destinationTableNumber ?? -1
  }

  /// Runs the query of a to-many relationship's members and calls `body` with each row, its key
  /// and its layout.
  private func forEachMemberRow(
    of id: ObjectID, relationship: String,
    _ body: (Int64, EntityLayout, SQLiteStatement.Row) throws -> Void
  ) throws {
    guard let sql = try membersQuery(of: id, relationship: relationship) else { return }
    try connection.statement(sql).forEachRow([.integer(id.key)]) { row in
      guard let (key, layout) = object(of: row, inTable: membersTable(of: id, relationship))
      else { return }
      try body(key, layout, row)
    }
  }

  /// The query of one owner's members of a to-many relationship (its key bound as the one
  /// argument), their rows' columns first; nil when the store has no such relationship.
  ///
  /// - Throws: ``SQLiteError`` when the store is closed.
  private func membersQuery(of id: ObjectID, relationship: String) throws -> String? {
    guard id.storeIdentifier == identifier, let layout = layouts[id.entityName],
      let toMany = layout.toMany.first(where: { $0.name == relationship })
    else {
      _ = try connection.openHandle(for: nil)
      return nil
    }
    let destination = layouts.values.first { $0.table == toMany.destinationTable }
    guard let columns = destination?.selectColumns else { return nil }
    return membersQuery(toMany, columns: columns, owners: nil)
  }

  /// The query of a to-many relationship's members, their rows' columns first: for one owner
  /// (`owners` nil: `= ?`, ordered only when the relationship is), or for `owners` owners
  /// (`IN (…)`, the owner's key after the columns, by owner then in order). Nil for a
  /// relationship not stored as a to-many.
  private func membersQuery(_ toMany: EntityLayout.ToMany, columns: [String], owners: Int?)
    -> String?
  {
    let table = SQLiteSchema.quoted(toMany.destinationTable)
    let match = owners.map {
      " IN (" + Array(repeating: "?", count: $0).joined(separator: ", ") + ")"
    }
    switch toMany.place {
    case .inverseColumn(_, let column, let order):
      guard let match else {
        return "SELECT \(EntityLayout.selectList(columns, prefix: "")) FROM \(table) WHERE "
          + "\(SQLiteSchema.quoted(column)) = ?"
          + (order.map { " ORDER BY \(SQLiteSchema.quoted($0)), \"og_pk\"" } ?? "")
      }
      let owner = "t.\(SQLiteSchema.quoted(column))"
      let ordering = order.map { "t.\(SQLiteSchema.quoted($0)), " } ?? ""
      return "SELECT \(EntityLayout.selectList(columns, prefix: "t.")), \(owner) FROM \(table) "
        + "AS t WHERE \(owner)\(match) ORDER BY \(owner), \(ordering)t.\"og_pk\""
    case .join(let joinTable, let ownerColumn, let member, let order):
      let owner = "j.\(SQLiteSchema.quoted(ownerColumn))"
      let ordering = order.map { "j.\(SQLiteSchema.quoted($0)), j.rowid" }
      let from =
        " FROM \(SQLiteSchema.quoted(joinTable)) AS j JOIN \(table) AS d ON d.\"og_pk\" = "
        + "j.\(SQLiteSchema.quoted(member))"
      guard let match else {
        return "SELECT \(EntityLayout.selectList(columns, prefix: "d."))\(from) WHERE \(owner) = ?"
          + (ordering.map { " ORDER BY \($0)" } ?? "")
      }
      return "SELECT \(EntityLayout.selectList(columns, prefix: "d.")), \(owner)\(from) WHERE "
        + "\(owner)\(match) ORDER BY \(owner), \(ordering ?? "j.rowid")"
    case .column, .notStored:
      return nil
    }
  }

  // MARK: Saving

  /// Saves the changes in one transaction.
  ///
  /// - Parameter changes: The inserted, updated and deleted objects of the save.
  /// - Throws: ``SQLiteError`` when a statement fails (`constraint`, `full`, `ioError`, `busy`
  ///   after the busy timeout, `closed`); `ObjectGraphError.Kind.otherStore` or
  ///   `ObjectGraphError.Kind.unknownEntity` for an object this store cannot hold;
  ///   `ObjectGraphError.Kind.wrongType` for an object without a value per property of its
  ///   entity; `ObjectGraphError.Kind.duplicateObject` for an inserted object whose key the file
  ///   already holds or reserved for another store on it (this store gave the key out past its
  ///   block of keys, see ``Options/keyBlockSize``);
  ///   `ObjectGraphError.Kind.objectNotFound` for an updated object whose row the file no longer
  ///   holds (deleted since it was loaded: Core Data's optimistic locking failure);
  ///   `ObjectGraphError.Kind.invalidValue` for NaN, which SQLite would keep as NULL;
  ///   `ObjectGraphError.Kind.tooLong` for a string or data value, or a whole row, longer than
  ///   SQLite takes (`SQLITE_LIMIT_LENGTH`), naming the entity and the key;
  ///   ``SQLiteStoreOpenError/modelMismatch(path:differences:storedHash:)`` when another process
  ///   migrated the file to another model since the store opened. The
  ///   transaction is rolled back: the file is as it was.
  /// - Complexity: O(*n*) statements in the number of changed objects and relationship changes,
  ///   in one transaction.
  public func save(_ changes: StoreChanges) throws {
    for id in changes.inserted.map(\.id) + changes.updated.map(\.id) + changes.deleted {
      guard id.storeIdentifier == identifier else {
        throw ObjectGraphError(
          .otherStore, entity: id.entityName, value: id.description,
          reason: "\(id) belongs to store \(id.storeIdentifier), not to \(identifier)")
      }
      guard layouts[id.entityName] != nil else {
        throw ObjectGraphError(
          .unknownEntity, entity: id.entityName, value: id.description,
          reason: "the store's model has no concrete entity \(id.entityName)")
      }
    }
    for object in changes.inserted + changes.updated {
      let count = model.entity(named: object.id.entityName)?.propertyNames.count
      guard object.properties.count == count else {
        throw ObjectGraphError(
          .wrongType, entity: object.id.entityName, value: object.id.description,
          reason: "the change set gives \(object.properties.count) values for \(object.id), "
            + "whose entity has \(count ?? 0) properties")
      }
    }
    let keys = (nextKey, reservedEnd)
    savedLengthLimit = connection.lengthLimit
    do {
      try connection.transaction {
        try refuseAnotherModel()
        try refuseKeysReservedElsewhere(changes.inserted)
        for id in changes.deleted { try delete(id) }
        for object in changes.inserted { try insert(object) }
        for object in changes.updated { try update(object) }
        // Ordered relationships first: a new pair of a many-to-many ordered on one side is then
        // written once, with its position, and the unordered side finds it written.
        var joinRows = Set<JoinRow>()
        for ordered in [true, false] {
          for object in changes.inserted {
            try saveToMany(object, isNew: true, ordered: ordered, &joinRows)
          }
          for object in changes.updated {
            try saveToMany(object, isNew: false, ordered: ordered, &joinRows)
          }
        }
        try reserveAhead()
      }
    } catch {
      (nextKey, reservedEnd) = keys
      throw error
    }
    metadata["nextKey"] = String(reservedEnd)
  }

  private func delete(_ id: ObjectID) throws {
    let layout = layouts[id.entityName]!
    try connection.statement(
      "DELETE FROM \(SQLiteSchema.quoted(layout.table)) WHERE \"og_pk\" = ?"
    ).run([.integer(id.key)])
    for (table, column) in joinColumns[id.entityName] ?? [] {
      try connection.statement(
        "DELETE FROM \(SQLiteSchema.quoted(table)) WHERE \(SQLiteSchema.quoted(column)) = ?"
      ).run([.integer(id.key)])
    }
  }

  private func insert(_ object: StoredObject) throws {
    let layout = layouts[object.id.entityName]!
    var arguments: [SQLiteValue] = [.integer(object.id.key), .integer(layout.entityID)]
    for column in layout.columns {
      arguments.append(try value(of: column, in: object, layout))
    }
    do {
      try connection.statement(layout.insert).run(arguments)
    } catch {
      // `catch … where` on a typed error crashes the compiler (Swift 6.3.1): tested inside.
      if error.code == SQLITE_TOOBIG { throw tooBig(object, layout) }
      guard error.code == SQLITE_CONSTRAINT | 6 << 8 else { throw error }  // _PRIMARYKEY
      // Another store on the file (another process) saved an object with this key first.
      throw ObjectGraphError(
        .duplicateObject, entity: object.id.entityName, value: object.id.description,
        reason: "the file \(url.path) already holds a row with key \(object.id.key) in table "
          + "\(layout.table), so \(object.id) cannot be inserted: another store on the file "
          + "gave out the same key and saved first; the save wrote nothing")
    }
  }

  private func update(_ object: StoredObject) throws {
    let layout = layouts[object.id.entityName]!
    let changed = layout.columns.filter { object.properties[$0.slot] != .omitted }
    guard !changed.isEmpty else {
      // Only to-many relationships changed, which write other rows: the object's own row must
      // still be there, or they would name a row that is gone.
      guard object.properties.contains(where: { $0 != .omitted }) else { return }
      let held = try connection.statement(
        "SELECT 1 FROM \(SQLiteSchema.quoted(layout.table)) WHERE \"og_pk\" = ?"
      ).rows([.integer(object.id.key)])
      if held.isEmpty { throw missingRow(object.id) }
      return
    }
    let sql =
      "UPDATE \(SQLiteSchema.quoted(layout.table)) SET "
      + changed.map { "\(SQLiteSchema.quoted(layout.names[$0.index])) = ?" }
      .joined(separator: ", ")
      + " WHERE \"og_pk\" = ?"
    do {
      try connection.statement(sql).run(
        try changed.map { try value(of: $0, in: object, layout) } + [.integer(object.id.key)])
    } catch let error as SQLiteError {
      if error.code == SQLITE_TOOBIG { throw tooBig(object, layout) }
      throw error
    }
    // No row changed: the row is gone (another context, store or program deleted it after this
    // object was loaded). Read from the connection, no statement runs.
    if connection.changes == 0 { throw missingRow(object.id) }
  }

  /// The error of an update whose row the file no longer holds.
  private func missingRow(_ id: ObjectID) -> ObjectGraphError {
    ObjectGraphError(
      .objectNotFound, entity: id.entityName, value: id.description,
      reason: "the file \(url.path) has no row for \(id) to update: it was deleted after the "
        + "object was loaded (by another context, another store on the file or another "
        + "program); the save wrote nothing")
  }

  /// A column's value for an object (inlined: it runs for each value of a save).
  ///
  /// - Throws: `ObjectGraphError.Kind.invalidValue` for NaN, which SQLite would keep as NULL
  ///   (a context refuses it before it saves); `ObjectGraphError.Kind.tooLong` for a string or
  ///   data longer than the connection's ``SQLiteConnection/lengthLimit``.
  @inline(__always)
  private func value(
    of column: EntityLayout.Column, in object: StoredObject, _ layout: EntityLayout
  ) throws -> SQLiteValue {
    switch (column.kind, object.properties[column.slot]) {
    case (.attribute, .attribute(let value)):
      do {
        return try ColumnValue.sqlite(value, lengthLimit: savedLengthLimit)
      } catch {
        throw refusal(error, of: value, column, object, layout)
      }
    case (.toOne, .toOne(let id?)): return .integer(id.key)
    case (.toOneEntity, .toOne(let id?)):
      return schema.entityIDs[id.entityName].map { .integer(Int64($0)) } ?? .null
    default: return .null
    }
  }

  /// The error of a value SQLite refused (NaN, or longer than it takes), kept out of the path
  /// of the values it takes.
  @inline(never)
  private func refusal(
    _ refusal: ColumnValue.Refusal, of value: StoredValue?, _ column: EntityLayout.Column,
    _ object: StoredObject, _ layout: EntityLayout
  ) -> ObjectGraphError {
    switch refusal {
    case .nan:
      let key = layout.entity.propertyNames[column.slot]
      return ObjectGraphError(
        .invalidValue, entity: object.id.entityName, key: key,
        value: value.map { "\($0)" } ?? "nil",
        reason: "\(object.id).\(key) is NaN (not a number), which SQLite would keep as NULL; "
          + "the save wrote nothing")
    case .tooLong(let bytes):
      return tooLong(object, layout, slot: column.slot, bytes: bytes)
    }
  }

  /// The error of a string or data value longer than SQLite takes.
  private func tooLong(_ object: StoredObject, _ layout: EntityLayout, slot: Int, bytes: Int)
    -> ObjectGraphError
  {
    let key = layout.entity.propertyNames[slot]
    return ObjectGraphError(
      .tooLong, entity: object.id.entityName, key: key, value: "\(bytes) bytes",
      reason: "\(object.id).\(key) holds \(bytes) bytes, more than SQLite's limit of "
        + "\(connection.lengthLimit) bytes for a value (SQLITE_LIMIT_LENGTH); the save wrote "
        + "nothing")
  }

  /// The error of a row whose values together are longer than SQLite takes, each within the
  /// limit: names the longest string or data value among them.
  private func tooBig(_ object: StoredObject, _ layout: EntityLayout) -> ObjectGraphError {
    var longest = (slot: 0, bytes: -1)
    for column in layout.columns {
      guard case .attribute(.some(let value)) = object.properties[column.slot] else { continue }
      let bytes =
        switch value {
        case .string(let text): text.utf8.count
        case .data(let data): data.count
        default: 0
        }
      if bytes > longest.bytes { longest = (column.slot, bytes) }
    }
    let key = layout.entity.propertyNames[longest.slot]
    return ObjectGraphError(
      .tooLong, entity: object.id.entityName, key: key, value: "\(longest.bytes) bytes",
      reason: "the row of \(object.id) is longer than SQLite's limit of "
        + "\(connection.lengthLimit) bytes (SQLITE_LIMIT_LENGTH); its longest value is "
        + "\(key), \(longest.bytes) bytes; the save wrote nothing")
  }

  /// Writes what a to-many relationship's members need beyond their own rows: positions in an
  /// ordered one, and join-table rows. Only relationships the save changed are given (the others
  /// are omitted), and of those only the rows that differ from the file are written: for an
  /// object saved before, one query reads the relationship's rows, then a join row is inserted
  /// per member added, deleted per member removed, and a position written per member whose
  /// position changed.
  ///
  /// `ordered` picks the ordered relationships or the others: a save writes every ordered one
  /// first. `joinRows` collects the join rows the save wrote: a new pair of a many-to-many is
  /// among the members of both sides, and the second side to come finds it written (an unordered
  /// side writes nothing more; an ordered one still writes its position, when both sides are
  /// ordered).
  private func saveToMany(
    _ object: StoredObject, isNew: Bool, ordered: Bool, _ joinRows: inout Set<JoinRow>
  ) throws {
    let layout = layouts[object.id.entityName]!
    for toMany in layout.toMany where toMany.place.isOrdered == ordered {
      guard case .toMany(let members) = object.properties[toMany.slot] else { continue }
      switch toMany.place {
      case .inverseColumn(let table, let column, let order?):
        let t = SQLiteSchema.quoted(table)
        let q = SQLiteSchema.quoted(order)
        // A new owner's members have no position yet; a saved one's keep those that still hold.
        var stored: [Int64: Int64] = [:]
        if !isNew {
          let rows = try connection.statement(
            "SELECT \"og_pk\", \(q) FROM \(t) WHERE \(SQLiteSchema.quoted(column)) = ?"
          ).rows([.integer(object.id.key)])
          for row in rows {
            if case .integer(let key) = row[0], case .integer(let position) = row[1] {
              stored[key] = position
            }
          }
        }
        let statement = try connection.statement(
          "UPDATE \(t) SET \(q) = ? WHERE \"og_pk\" = ?")
        for (position, member) in members.enumerated() where stored[member.key] != Int64(position) {
          try statement.run([.integer(Int64(position)), .integer(member.key)])
          if connection.changes == 0 { throw missingRow(member) }
        }
      case .join(let table, let owner, let member, let order):
        let (t, o, m) = (
          SQLiteSchema.quoted(table), SQLiteSchema.quoted(owner), SQLiteSchema.quoted(member)
        )
        // Each member the file holds for the owner, with its position (nil when unordered).
        var stored: [Int64: Int64?] = [:]
        if !isNew {
          let positions = order.map { ", \(SQLiteSchema.quoted($0))" } ?? ""
          for row in try connection.statement("SELECT \(m)\(positions) FROM \(t) WHERE \(o) = ?")
            .rows([.integer(object.id.key)])
          {
            guard case .integer(let key) = row[0] else { continue }
            var position: Int64?
            if order != nil, case .integer(let held) = row[1] { position = held }
            stored[key] = .some(position)
          }
          let keep = Set(members.map(\.key))
          let gone = stored.keys.filter { !keep.contains($0) }.sorted()
          if !gone.isEmpty {
            let remove = try connection.statement("DELETE FROM \(t) WHERE \(o) = ? AND \(m) = ?")
            for key in gone { try remove.run([.integer(object.id.key), .integer(key)]) }
          }
        }
        let add: SQLiteStatement
        if let order {
          let q = SQLiteSchema.quoted(order)
          add = try connection.statement(
            "INSERT INTO \(t) (\(o), \(m), \(q)) VALUES (?, ?, ?) "
              + "ON CONFLICT DO UPDATE SET \(q) = excluded.\(q)")
        } else {
          add = try connection.statement(
            "INSERT INTO \(t) (\(o), \(m)) VALUES (?, ?) ON CONFLICT DO NOTHING")
        }
        let ownsSource = owner == "source"
        for (position, id) in members.enumerated() {
          // Present with this position (or present, unordered): nothing to write.
          if let held = stored[id.key], order == nil || held == Int64(position) { continue }
          let row =
            ownsSource
            ? JoinRow(table: table, source: object.id.key, target: id.key)
            : JoinRow(table: table, source: id.key, target: object.id.key)
          // Written by the other side in this save: an unordered side has nothing to add.
          if !joinRows.insert(row).inserted && order == nil { continue }
          var arguments: [SQLiteValue] = [.integer(object.id.key), .integer(id.key)]
          if order != nil { arguments.append(.integer(Int64(position))) }
          try add.run(arguments)
        }
      case .inverseColumn, .column, .notStored:
        continue
      }
    }
  }

  /// A join-table row a save wrote.
  struct JoinRow: Hashable {
    let table: String
    let source: Int64
    let target: Int64
  }

  /// Throws `ObjectGraphError.Kind.duplicateObject` for the first inserted object whose key this
  /// store gave out past its block while another store on the file reserved it. That store may
  /// give the key to an object of any entity, so the object is refused whether or not a row
  /// has the key yet: a row of another entity's table would not meet the primary key, and the
  /// file would hold two objects under one key. Reads the file's next key only when an object's
  /// key is past the block or such keys were found before.
  private func refuseKeysReservedElsewhere(_ inserted: [StoredObject]) throws {
    guard !inserted.isEmpty else { return }
    var ranges = reservedElsewhere
    if inserted.contains(where: { $0.id.key >= reservedEnd }) {
      let stored = try storedNextKey()
      if stored > reservedEnd { ranges.append(reservedEnd..<stored) }
    }
    guard !ranges.isEmpty else { return }
    for object in inserted where ranges.contains(where: { $0.contains(object.id.key) }) {
      throw ObjectGraphError(
        .duplicateObject, entity: object.id.entityName, value: object.id.description,
        reason: "the file \(url.path) reserved key \(object.id.key) for another store on it, so "
          + "\(object.id) cannot be inserted: this store gave the key out past its block of keys "
          + "while the other reserved it; the save wrote nothing")
    }
  }

  /// The next key the file has not reserved (`og_metadata`'s `nextKey`).
  private func storedNextKey() throws -> Int64 {
    try connection.statement(#"SELECT "value" FROM "og_metadata" WHERE "key" = 'nextKey'"#)
      .rows().first.flatMap { row -> Int64? in
        if case .text(let text) = row[0] { return Int64(text) }
        return nil
      } ?? 1
  }

  /// Makes sure no key given out can be given out again by any connection to the file, and
  /// reserves the next block when the current one is half used.
  private func reserveAhead() throws {
    guard nextKey > reservedEnd - keyBlockSize / 2 else { return }
    let stored = try storedNextKey()
    if stored > reservedEnd, reservedElsewhere.last != reservedEnd..<stored {
      reservedElsewhere.append(reservedEnd..<stored)
    }
    if nextKey >= reservedEnd || stored != reservedEnd {
      // Used up, or another connection reserved after this one: a fresh block past both.
      nextKey = max(nextKey, stored)
    }
    reservedEnd = max(nextKey, stored) + keyBlockSize
    try writeNextKey(reservedEnd)
  }

  /// The join-table columns that hold keys of each entity's objects.
  private static func joinColumns(_ model: ObjectModel, _ layouts: [String: EntityLayout])
    -> [String: [(table: String, column: String)]]
  {
    var columns: [String: [(table: String, column: String)]] = [:]
    for layout in layouts.values {
      for toMany in layout.toMany {
        guard case .join(let table, let owner, let member, _) = toMany.place else { continue }
        // The owner column holds this entity's keys, the member column those of the
        // destination and its sub-entities.
        columns[layout.entity.name, default: []].append((table, owner))
        for entity in model.entities
        where !entity.isAbstract && entity.isKind(of: toMany.destination) {
          columns[entity.name, default: []].append((table, member))
        }
      }
    }
    return columns.mapValues { list in
      var seen: Set<String> = []
      return list.filter { seen.insert("\($0.table).\($0.column)").inserted }
    }
  }

  // MARK: Trace

  /// One statement the store ran, as its SQL trace (``Options/sqlTrace``) reports it.
  ///
  /// Its ``description`` is the trace's line, with the statement's time; ``statement`` leaves the
  /// time out, so it is the same on every run: what a test or a transcript compares.
  public struct TracedStatement: Sendable, CustomStringConvertible {
    /// The statement's SQL, with a `?` for each bound value.
    public let sql: String
    /// The bound values, in order, as SQL writes them: `5`, `2.5`, `'Dune'` (quotes doubled
    /// inside), `NULL`, and `<16 bytes>` for data.
    public let arguments: [String]
    /// How long the statement took: every step of it, until it was reset.
    public let duration: Duration

    /// The SQL followed by its bound values in brackets, when it has any:
    /// `SELECT … WHERE "og_pk" = ? [5]`.
    public var statement: String {
      arguments.isEmpty ? sql : "\(sql) [\(arguments.joined(separator: ", "))]"
    }

    /// The trace's line: `SQL: `, ``statement``, and the time in milliseconds:
    /// `SQL: SELECT … WHERE "og_pk" = ? [5] (0.016 ms)`.
    public var description: String {
      let milliseconds =
        Double(duration.components.attoseconds) / 1e15
        + Double(duration.components.seconds) * 1000
      return "SQL: \(statement) (\(String(format: "%.3f", milliseconds)) ms)"
    }
  }

  /// The page cache's size for `PRAGMA cache_size`, in KiB: ``Options/pageCacheSize``, at least
  /// 256 KiB.
  static func pageCacheKibibytes(_ options: Options) -> Int {
    max(256, options.pageCacheSize / 1024)
  }

  /// Writes a statement's line of the SQL trace to standard error.
  @Sendable static func writeToStandardError(_ traced: TracedStatement) {
    FileHandle.standardError.write(Data((traced.description + "\n").utf8))
  }

  /// The connection's trace hook for a trace output: one report per statement.
  private static func tracer(_ output: @escaping @Sendable (TracedStatement) -> Void)
    -> (String, [SQLiteValue], Duration) -> Void
  {
    { sql, arguments, duration in
      output(
        TracedStatement(
          sql: sql, arguments: arguments.map(\.traceDescription), duration: duration))
    }
  }
}

extension SQLiteValue {
  /// The value as the trace prints it.
  var traceDescription: String {
    switch self {
    case .null: "NULL"
    case .integer(let number): "\(number)"
    case .real(let number): "\(number)"
    case .text(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let bytes): "<\(bytes.count) bytes>"
    }
  }
}
