import CSQLite
import Foundation

/// A value as SQLite stores it.
enum SQLiteValue: Equatable, Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the bind returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement of a ``SQLiteConnection``, kept by the connection and reused: bind the
/// arguments, step through the rows, and it resets itself for the next use.
///
/// ```swift
/// let titles = try connection.statement("SELECT title FROM book WHERE price < ?")
///   .rows([.real(12)]).map { $0[0] }
/// ```
final class SQLiteStatement {
  let sql: String
  private(set) var handle: OpaquePointer?
  // The connection keeps its statements and finalizes them when it closes; a statement is used only
  // while its connection is alive. Release builds keep an `Unmanaged` reference, which each step
  // reads without a reference count (an `unowned` reference counts on every row, and an
  // `unowned(unsafe)` one is still retained around each call on it); debug builds keep the checked
  // reference.
  #if DEBUG
    private unowned let connection: SQLiteConnection

    /// Whether the connection is closed, and whether it counts steps to fail one.
    private var connectionState: (isClosed: Bool, countsSteps: Bool) {
      (connection.isClosed, connection.failingStep != nil)
    }
  #else
    private let connectionReference: Unmanaged<SQLiteConnection>
    private var connection: SQLiteConnection { connectionReference.takeUnretainedValue() }

    /// Whether the connection is closed, and whether it counts steps to fail one.
    private var connectionState: (isClosed: Bool, countsSteps: Bool) {
      connectionReference._withUnsafeGuaranteedRef { ($0.isClosed, $0.failingStep != nil) }
    }
  #endif

  init(sql: String, handle: OpaquePointer, connection: SQLiteConnection) {
    self.sql = sql
    self.handle = handle
    #if DEBUG
      self.connection = connection
    #else
      connectionReference = Unmanaged.passUnretained(connection)
    #endif
  }

  /// Runs the statement with `arguments` for its effect (an insert, an update, a delete).
  ///
  /// - Throws: ``SQLiteError`` (a constraint, a full disk, the lock held too long, …); the
  ///   statement is reset either way.
  func run(_ arguments: [SQLiteValue] = []) throws(SQLiteError) {
    try start(arguments)
    let started = connection.trace == nil ? nil : ContinuousClock.now
    defer {
      reset()
      if let started { connection.trace?(sql, arguments, .now - started) }
    }
    while try step() {}
  }

  /// Runs the statement with `arguments` and returns every row, each column as a value.
  ///
  /// - Throws: ``SQLiteError``; the statement is reset either way.
  func rows(_ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
    try start(arguments)
    defer { reset() }
    var rows: [[SQLiteValue]] = []
    let started = connection.trace == nil ? nil : ContinuousClock.now
    while try step() {
      rows.append((0..<columnCount).map(value(at:)))
    }
    if let started { connection.trace?(sql, arguments, .now - started) }
    return rows
  }

  /// Runs the statement with `arguments` and calls `body` with each row, read in place.
  ///
  /// - Throws: ``SQLiteError``, or what `body` throws; the statement is reset either way.
  func forEachRow<Failure: Error>(
    _ arguments: [SQLiteValue], _ body: (Row) throws(Failure) -> Void
  ) throws {
    try start(arguments)
    let started = connection.trace == nil ? nil : ContinuousClock.now
    defer {
      reset()
      if let started { connection.trace?(sql, arguments, .now - started) }
    }
    let row = Row(statement: self)
    while try step() { try body(row) }
  }

  /// Runs the statement with `arguments` and gives each row to `reader`, read in place.
  ///
  /// - Throws: ``SQLiteError``, or what `reader` throws; the statement is reset either way.
  func forEachRow<Reader: RowReader>(_ arguments: [SQLiteValue], reader: Reader) throws {
    try start(arguments)
    let started = connection.trace == nil ? nil : ContinuousClock.now
    defer {
      reset()
      if let started { connection.trace?(sql, arguments, .now - started) }
    }
    let row = Row(statement: self)
    while try step() { try reader.read(row) }
  }

  /// The current row of a statement, valid inside ``forEachRow(_:_:)``'s body.
  struct Row {
    let statement: SQLiteStatement

    /// The value of a column (from 0).
    func value(at column: Int) -> SQLiteValue { statement.value(at: column) }
  }

  /// The number of columns of a row.
  var columnCount: Int { handle.map { Int(sqlite3_column_count($0)) } ?? 0 }

  // MARK: Steps

  private func start(_ arguments: [SQLiteValue]) throws(SQLiteError) {
    let handle = try liveHandle()
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    for (index, argument) in arguments.enumerated() {
      let position = Int32(index + 1)
      let code: Int32
      switch argument {
      case .null: code = sqlite3_bind_null(handle, position)
      case .integer(let value): code = sqlite3_bind_int64(handle, position, value)
      case .real(let value): code = sqlite3_bind_double(handle, position, value)
      case .text(let value):
        // With its length: a string may hold NUL characters, which a C string would end at. A
        // length beyond `Int32` is refused as SQLite refuses one beyond its limit.
        guard let count = Int32(exactly: value.utf8.count) else { throw error(SQLITE_TOOBIG) }
        code = sqlite3_bind_text(handle, position, value, count, transient)
      case .blob(let bytes):
        guard let count = Int32(exactly: bytes.count) else { throw error(SQLITE_TOOBIG) }
        code = bytes.withUnsafeBytes {
          sqlite3_bind_blob(handle, position, $0.baseAddress, count, transient)
        }
      }
      guard code == SQLITE_OK else { throw error(code) }
    }
  }

  /// One step: true while it yields a row.
  private func step() throws(SQLiteError) -> Bool {
    let state = connectionState
    guard let handle, !state.isClosed else { throw closedError() }
    if state.countsSteps { try connection.countStep(sql) }
    let code = sqlite3_step(handle)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw error(code)
    }
  }

  private func value(at column: Int) -> SQLiteValue {
    guard let handle else { return .null }
    let index = Int32(column)
    switch sqlite3_column_type(handle, index) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
    case SQLITE_TEXT:
      guard let text = sqlite3_column_text(handle, index) else { return .text("") }
      let count = Int(sqlite3_column_bytes(handle, index))
      return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(handle, index))
      guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return .null
    }
  }

  private func reset() {
    if let handle { sqlite3_reset(handle) }
  }

  /// Frees the statement (the connection closes).
  func finalize() {
    if let handle { sqlite3_finalize(handle) }
    handle = nil
  }

  private func liveHandle() throws(SQLiteError) -> OpaquePointer {
    guard let handle, !connection.isClosed else { throw closedError() }
    return handle
  }

  private func closedError() -> SQLiteError {
    SQLiteError(kind: .closed, message: "the connection is closed", sql: sql, path: connection.path)
  }

  private func error(_ code: Int32) -> SQLiteError {
    SQLiteError(
      code: code, handle: try? connection.openHandle(for: sql), sql: sql, path: connection.path)
  }
}
