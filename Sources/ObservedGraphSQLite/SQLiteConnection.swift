import CSQLite
import Foundation

/// One connection to an SQLite file: opening it (and refusing a file that is not a database or is
/// cut short, before anything is written), statements prepared once and kept, transactions that
/// roll back when their body throws, a busy timeout, and a test hook that fails the Nth statement.
///
/// The layer under the SQLite store; it knows nothing of objects.
///
/// ```swift
/// let connection = try SQLiteConnection(path: url.path, create: true)
/// try connection.execute("CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT)")
/// try connection.transaction {
///   try connection.statement("INSERT INTO book (title) VALUES (?)").run([.text("Dune")])
/// }
/// ```
///
/// A connection is used from one thread at a time (SQLite's `NOMUTEX`).
final class SQLiteConnection {
  /// The database file.
  let path: String
  private var handle: OpaquePointer?
  /// Prepared statements by their SQL, kept until the connection closes.
  private var statements: [String: SQLiteStatement] = [:]
  /// Test hook: when set, the statement step with this number (counted from 1 since it was set)
  /// fails with ``SQLiteError/Kind/injected``, as an I/O error would, before it runs.
  var failingStep: Int? {
    didSet { stepsSinceHook = 0 }
  }
  private var stepsSinceHook = 0
  /// Called after each statement runs, with its SQL, its arguments and how long it took (the
  /// store's SQL trace); nil when nothing listens.
  var trace: ((_ sql: String, _ arguments: [SQLiteValue], _ duration: Duration) -> Void)?

  /// Opens the file at `path` for reading and writing.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - create: Whether a missing file is created (empty) rather than refused.
  ///   - busyTimeout: How long a statement waits for another connection's lock before it throws
  ///     ``SQLiteError/Kind/busy``.
  /// - Throws: ``SQLiteError`` of kind `cannotOpen` (missing file, not to be created),
  ///   `notADatabase` or `corrupt` (a damaged or truncated file); the file is left as it was.
  init(path: String, create: Bool, busyTimeout: Duration = .seconds(5), readOnly: Bool = false)
    throws(SQLiteError)
  {
    self.path = path
    if create == false, !FileManager.default.fileExists(atPath: path) {
      throw SQLiteError(kind: .cannotOpen, message: "there is no file to open", path: path)
    }
    // Refused before SQLite reads it: a file its header says is longer than it is.
    try Self.checkLength(of: path)
    var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
    if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
    var opened: OpaquePointer?
    let code = sqlite3_open_v2(path, &opened, flags, nil)
    guard code == SQLITE_OK, let opened else {
      let error = SQLiteError(code: code, handle: opened, sql: nil, path: path)
      sqlite3_close_v2(opened)
      throw error
    }
    handle = opened
    sqlite3_extended_result_codes(opened, 1)
    let milliseconds =
      busyTimeout.components.seconds * 1000
      + busyTimeout.components.attoseconds / 1_000_000_000_000_000
    sqlite3_busy_timeout(opened, Int32(clamping: milliseconds))
    SQLiteFunctions.register(on: opened)
    do {
      // Reads the header and the schema: a file that is not a database fails here, before
      // anything is written.
      _ = try statement("SELECT count(*) FROM sqlite_master").rows().first
    } catch {
      close()
      throw error
    }
  }

  deinit {
    close()
  }

  /// Whether ``close()`` was called.
  var isClosed: Bool { handle == nil }

  /// Finalizes every statement and closes the file. Closing twice does nothing.
  func close() {
    for statement in statements.values { statement.finalize() }
    statements.removeAll()
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  // MARK: Statements

  /// Runs one or more statements without results (schema, pragmas).
  ///
  /// - Throws: ``SQLiteError``; `closed` after ``close()``.
  func execute(_ sql: String) throws(SQLiteError) {
    let handle = try openHandle(for: sql)
    try countStep(sql)
    let started = trace == nil ? nil : ContinuousClock.now
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    if let started { trace?(sql, [], .now - started) }
    guard code == SQLITE_OK else {
      throw SQLiteError(code: code, handle: handle, sql: sql, path: path)
    }
  }

  /// The prepared statement for `sql`, made the first time and kept.
  ///
  /// - Throws: ``SQLiteError`` when the SQL does not compile; `closed` after ``close()``.
  func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    // Closing empties the cache, so a kept statement is one of an open connection.
    if let known = statements[sql] { return known }
    let handle = try openHandle(for: sql)
    var prepared: OpaquePointer?
    let code = sqlite3_prepare_v3(
      handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
    guard code == SQLITE_OK, let prepared else {
      throw SQLiteError(code: code, handle: handle, sql: sql, path: path)
    }
    let statement = SQLiteStatement(sql: sql, handle: prepared, connection: self)
    statements[sql] = statement
    return statement
  }

  /// The number of statements prepared and kept.
  var cachedStatementCount: Int { statements.count }

  /// Runs `body` in one transaction (`BEGIN IMMEDIATE`, so the write lock is taken at once):
  /// committed when it returns, rolled back when it throws (the error is rethrown). Inside a
  /// transaction already open (a custom migration stage's saves, in the open's transaction), it
  /// runs in a savepoint instead: released when it returns, rolled back to when it throws, and
  /// the outer transaction goes on.
  ///
  /// - Throws: What `body` throws, or ``SQLiteError`` from beginning or committing.
  func transaction<T>(_ body: () throws -> T) throws -> T {
    if isInTransaction {
      try execute("SAVEPOINT \"og_savepoint\"")
      do {
        let result = try body()
        try execute("RELEASE \"og_savepoint\"")
        return result
      } catch {
        if let handle {
          sqlite3_exec(handle, "ROLLBACK TO \"og_savepoint\"", nil, nil, nil)
          sqlite3_exec(handle, "RELEASE \"og_savepoint\"", nil, nil, nil)
        }
        throw error
      }
    }
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      // The rollback cannot fail in a way that leaves the transaction open; its own error would
      // hide the one that matters.
      if let handle, sqlite3_get_autocommit(handle) == 0 {
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
      }
      throw error
    }
  }

  /// The number of rows the last insert, update or delete changed (SQLite's `sqlite3_changes`,
  /// a read of the connection's state: no statement runs); 0 when closed.
  var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

  /// The longest string or blob, in bytes, the connection takes (`SQLITE_LIMIT_LENGTH`, a
  /// thousand million bytes unless SQLite was built otherwise); also the limit of a whole row.
  /// Setting it lowers the limit for this connection (tests use it to reach the limit cheaply).
  var lengthLimit: Int {
    get { handle.map { Int(sqlite3_limit($0, SQLITE_LIMIT_LENGTH, -1)) } ?? 0 }
    set {
      if let handle { sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: newValue)) }
    }
  }

  /// Whether a transaction is open.
  var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

  // MARK: Internals

  /// Counts a statement step for the test hook, and fails the one it names.
  func countStep(_ sql: String) throws(SQLiteError) {
    guard let failingStep else { return }
    stepsSinceHook += 1
    if stepsSinceHook == failingStep {
      throw SQLiteError(
        kind: .injected, message: "failure injected at statement \(failingStep)", sql: sql,
        path: path)
    }
  }

  func openHandle(for sql: String?) throws(SQLiteError) -> OpaquePointer {
    guard let handle else { throw closedError(sql) }
    return handle
  }

  private func closedError(_ sql: String?) -> SQLiteError {
    SQLiteError(kind: .closed, message: "the connection is closed", sql: sql, path: path)
  }

  /// Throws `corrupt` when the file's header says it holds more pages than it has bytes for (a
  /// file cut short); a file without an SQLite header is left to SQLite to refuse.
  private static func checkLength(of path: String) throws(SQLiteError) {
    guard let file = FileHandle(forReadingAtPath: path) else { return }
    defer { try? file.close() }
    guard let header = try? file.read(upToCount: 100), header.count == 100,
      header.starts(with: Array("SQLite format 3\0".utf8)),
      let size = try? file.seekToEnd()
    else { return }
    func integer(_ offset: Int, _ count: Int) -> UInt64 {
      header[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
    }
    let pageSize = integer(16, 2) == 1 ? 65_536 : integer(16, 2)
    let pageCount = integer(28, 4)
    // The page count is valid only while the change counter matches "version valid for".
    guard pageCount > 0, integer(24, 4) == integer(92, 4) else { return }
    let expected = pageCount * pageSize
    guard size < expected else { return }
    throw SQLiteError(
      kind: .corrupt,
      message: "the file is truncated: it has \(size) bytes, its header says \(expected)",
      path: path)
  }
}
