import CSQLite

/// An error from SQLite: what kind of failure, SQLite's own code and message, and the statement
/// and file involved.
///
/// ```swift
/// do {
///   _ = try SQLiteStore(url: url, model: model)
/// } catch let error as SQLiteError where error.kind == .notADatabase {
///   print(error)   // the file is not an SQLite database: /tmp/notes.txt
/// }
/// ```
public struct SQLiteError: Error, CustomStringConvertible, Equatable, Sendable {
  /// What went wrong, as a caller decides on it.
  public enum Kind: String, Sendable {
    /// The file exists but is not an SQLite database (`SQLITE_NOTADB`).
    case notADatabase
    /// The file is an SQLite database whose content is damaged or cut short (`SQLITE_CORRUPT`).
    case corrupt
    /// The file does not exist and was not to be created, or cannot be opened (`SQLITE_CANTOPEN`).
    case cannotOpen
    /// Another connection holds the lock longer than the busy timeout (`SQLITE_BUSY`,
    /// `SQLITE_LOCKED`).
    case busy
    /// The disk, or the database's page limit, is full (`SQLITE_FULL`).
    case full
    /// A constraint failed (`SQLITE_CONSTRAINT`): a unique key, a check, not null.
    case constraint
    /// Reading or writing the file failed (`SQLITE_IOERR`).
    case ioError
    /// The file is opened read-only (`SQLITE_READONLY`).
    case readOnly
    /// The connection was closed before the call.
    case closed
    /// A failure injected by a test hook.
    case injected
    /// Any other failure; `code` and `message` say which.
    case other
  }

  /// What went wrong; compare it to decide what to do.
  public let kind: Kind
  /// SQLite's extended result code (0 for failures of this layer: `closed`, `injected`).
  public let code: Int32
  /// SQLite's message, or this layer's.
  public let message: String
  /// The statement that failed, if any.
  public let sql: String?
  /// The database file.
  public let path: String

  init(kind: Kind, code: Int32 = 0, message: String, sql: String? = nil, path: String) {
    self.kind = kind
    self.code = code
    self.message = message
    self.sql = sql
    self.path = path
  }

  /// The error of a failed SQLite call on `handle` (nil for a failed open without one).
  init(code: Int32, handle: OpaquePointer?, sql: String?, path: String) {
    let message =
      handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
      ?? String(cString: sqlite3_errstr(code))
    self.init(kind: Self.kind(of: code), code: code, message: message, sql: sql, path: path)
  }

  static func kind(of code: Int32) -> Kind {
    switch code & 0xFF {
    case SQLITE_NOTADB: .notADatabase
    case SQLITE_CORRUPT: .corrupt
    case SQLITE_CANTOPEN: .cannotOpen
    case SQLITE_BUSY, SQLITE_LOCKED: .busy
    case SQLITE_FULL: .full
    case SQLITE_CONSTRAINT: .constraint
    case SQLITE_IOERR: .ioError
    case SQLITE_READONLY: .readOnly
    default: .other
    }
  }

  /// One line: the kind, SQLite's message and code, the statement and the file.
  public var description: String {
    var text = "SQLite \(kind.rawValue): \(message)"
    if code != 0 { text += " (code \(code))" }
    if let sql { text += " in `\(sql)`" }
    return text + " — \(path)"
  }
}
