import CSQLite

extension SQLiteStore {
  /// Which of SQLite's checks of the whole file a store runs when it opens an existing file
  /// (``Options/integrityCheck``).
  ///
  /// SQLite reads a page only when a statement needs it, so a damaged page that the open does
  /// not read — an index page, a leaf of a large table — goes unnoticed until a fetch or a save
  /// reaches it. A check reads every page at open, after the file's header and the store's
  /// metadata were checked and before anything is written, and refuses a file it finds damaged
  /// with ``SQLiteError/Kind/corrupt``, naming what SQLite reported. The file is left as it was.
  ///
  /// ```swift
  /// var options = SQLiteStore.Options()
  /// options.integrityCheck = .quick
  /// let store = try SQLiteStore(url: url, model: model, options: options)
  /// ```
  ///
  /// The cost grows with the file: the check reads every page once (see Docs/SQLiteStore.md for
  /// figures). A new file is not checked.
  public enum IntegrityCheck: String, Sendable, CaseIterable {
    /// No check: the open reads only the header, the schema and the metadata (the default).
    case off
    /// `PRAGMA quick_check`: every page of every table and index is read and its structure
    /// checked (page headers, cells, free list, key order), but an index's entries are not
    /// compared with its table's rows.
    case quick
    /// `PRAGMA integrity_check`: what `quick` checks, and that every index holds exactly the
    /// entries of its table's rows. Slower than `quick` (about twice, for a file with indexes).
    case full

    /// The pragma that runs the check, asking for at most `limit` lines of errors.
    var pragma: String? {
      switch self {
      case .off: nil
      case .quick: "PRAGMA quick_check(\(Self.reportedLines))"
      case .full: "PRAGMA integrity_check(\(Self.reportedLines))"
      }
    }

    /// How many of SQLite's lines an error quotes.
    static let reportedLines = 5
  }
}

extension SQLiteStoreFile {
  /// Runs `check` on the file; throws ``SQLiteError/Kind/corrupt`` quoting SQLite's first lines
  /// when it finds damage. Reads only.
  static func verify(
    _ connection: SQLiteConnection, _ check: SQLiteStore.IntegrityCheck, path: String
  ) throws {
    guard let pragma = check.pragma else { return }
    var lines: [String] = []
    do {
      for row in try connection.statement(pragma).rows() {
        if case .text(let line) = row.first { lines.append(line) }
      }
    } catch {
      // Damage that stops the check itself (a page it cannot walk). `catch … where` on a typed
      // error crashes the compiler (Swift 6.3.1): tested inside.
      guard error.kind == .corrupt else { throw error }
      lines = [error.message]
    }
    guard lines != ["ok"] else { return }
    throw SQLiteError(
      kind: .corrupt, code: SQLITE_CORRUPT,
      message: "the \(check == .quick ? "quick" : "full") integrity check found the file "
        + "damaged: "
        + lines.prefix(SQLiteStore.IntegrityCheck.reportedLines)
        .joined(separator: "; "),
      sql: pragma, path: path)
  }
}
