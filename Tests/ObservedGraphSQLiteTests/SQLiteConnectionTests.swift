import Foundation
import Testing

@testable import ObservedGraphSQLite

/// The SQLite layer on real files in temporary directories: values round-trip, statements are
/// kept, transactions roll back, and bad files, a held lock, a full disk, a failure injected
/// mid-transaction and a closed connection each throw the error that names them, leaving the
/// file as it was.
@Suite struct SQLiteConnectionTests {
  /// A fresh temporary directory, removed when the test ends.
  final class Folder {
    let url: URL

    init() throws {
      url = FileManager.default.temporaryDirectory
        .appendingPathComponent("og-sqlite-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
  }

  /// A database with a table `item (id INTEGER PRIMARY KEY, title TEXT UNIQUE, price REAL,
  /// data BLOB)` and `count` rows.
  static func makeDatabase(at path: String, rows count: Int = 3) throws -> SQLiteConnection {
    let connection = try SQLiteConnection(path: path, create: true)
    try connection.execute(
      "CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT UNIQUE, price REAL, data BLOB)")
    try connection.transaction {
      for index in 0..<count {
        try connection.statement("INSERT INTO item (title, price) VALUES (?, ?)")
          .run([.text("item \(index)"), .real(Double(index))])
      }
    }
    return connection
  }

  static func titles(_ connection: SQLiteConnection) throws -> [SQLiteValue] {
    try connection.statement("SELECT title FROM item ORDER BY id").rows().map { $0[0] }
  }

  @Test func valuesOfEveryKindRoundTrip() throws {
    let folder = try Folder()
    let connection = try Self.makeDatabase(at: folder.path("a.sqlite"), rows: 0)
    let values: [SQLiteValue] = [
      .integer(Int64.min), .text("Grüße 📚"), .real(-0.5), .blob([0, 1, 255]),
    ]
    try connection.statement("INSERT INTO item (id, title, price, data) VALUES (?, ?, ?, ?)")
      .run(values)
    try connection.statement("INSERT INTO item (id, title, price, data) VALUES (?, ?, ?, ?)")
      .run([.integer(7), .null, .null, .blob([])])
    let rows = try connection.statement("SELECT id, title, price, data FROM item ORDER BY id")
      .rows()
    #expect(rows == [values, [.integer(7), .null, .null, .blob([])]])  // an empty blob stays one
  }

  @Test func statementsArePreparedOnceAndReused() throws {
    let folder = try Folder()
    let connection = try Self.makeDatabase(at: folder.path("a.sqlite"))
    let before = connection.cachedStatementCount
    let first = try connection.statement("SELECT price FROM item WHERE title = ?")
    let second = try connection.statement("SELECT price FROM item WHERE title = ?")
    #expect(first === second)
    #expect(connection.cachedStatementCount == before + 1)
    #expect(try first.rows([.text("item 2")]) == [[.real(2)]])
    #expect(try first.rows([.text("item 1")]) == [[.real(1)]])
    #expect(throws: SQLiteError.self) { try connection.statement("SELEC nothing") }
  }

  @Test func aThrowingTransactionLeavesTheFileAsItWas() throws {
    struct Stop: Error {}
    let folder = try Folder()
    let path = folder.path("a.sqlite")
    let connection = try Self.makeDatabase(at: path)
    let before = try Self.titles(connection)
    #expect(throws: Stop.self) {
      try connection.transaction {
        try connection.statement("DELETE FROM item").run()
        throw Stop()
      }
    }
    #expect(!connection.isInTransaction)
    #expect(try Self.titles(connection) == before)
    // A constraint failing in the middle: the rows before it go too.
    let error = #expect(throws: SQLiteError.self) {
      try connection.transaction {
        try connection.statement("INSERT INTO item (title) VALUES (?)").run([.text("new")])
        try connection.statement("INSERT INTO item (title) VALUES (?)").run([.text("item 0")])
      }
    }
    #expect(error?.kind == .constraint)
    #expect(error?.sql == "INSERT INTO item (title) VALUES (?)")
    #expect(try Self.titles(connection) == before)
    connection.close()
    let reopened = try SQLiteConnection(path: path, create: false)
    #expect(try Self.titles(reopened) == before)
  }

  @Test func aFailureInjectedAtTheNthStatementRollsBack() throws {
    let folder = try Folder()
    let connection = try Self.makeDatabase(at: folder.path("a.sqlite"))
    let before = try Self.titles(connection)
    connection.failingStep = 4  // BEGIN, two inserts, then the third insert fails
    let error = #expect(throws: SQLiteError.self) {
      try connection.transaction {
        for index in 0..<5 {
          try connection.statement("INSERT INTO item (title) VALUES (?)").run([.text("n\(index)")])
        }
      }
    }
    #expect(error?.kind == .injected)
    #expect(error?.description.contains("statement 4") == true)
    connection.failingStep = nil
    #expect(try Self.titles(connection) == before)
  }

  @Test func aFullDatabaseThrowsAndRollsBack() throws {
    let folder = try Folder()
    let connection = try Self.makeDatabase(at: folder.path("a.sqlite"))
    let before = try Self.titles(connection)
    let pages = try connection.statement("PRAGMA page_count").rows()[0][0]
    guard case .integer(let count) = pages else {
      Issue.record("page_count is \(pages)")
      return
    }
    try connection.execute("PRAGMA max_page_count = \(count)")
    let big = SQLiteValue.blob(Array(repeating: 7, count: 64 * 1024))
    let error = #expect(throws: SQLiteError.self) {
      try connection.transaction {
        try connection.statement("INSERT INTO item (title, data) VALUES (?, ?)")
          .run([.text("big"), big])
      }
    }
    #expect(error?.kind == .full)
    #expect(try Self.titles(connection) == before)
  }

  @Test func aFileThatIsNotADatabaseIsRefusedUntouched() throws {
    let folder = try Folder()
    let path = folder.path("notes.txt")
    let text = Data(String(repeating: "not a database, just words. ", count: 100).utf8)
    try text.write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: SQLiteError.self) {
      _ = try SQLiteConnection(path: path, create: false)
    }
    #expect(error?.kind == .notADatabase)
    #expect(error?.description.contains(path) == true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["notes.txt"])
  }

  @Test func aTruncatedDatabaseIsRefusedUntouched() throws {
    let folder = try Folder()
    let path = folder.path("a.sqlite")
    let connection = try Self.makeDatabase(at: path, rows: 2_000)
    connection.close()
    let whole = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(whole.count > 8_192)
    let cut = whole.prefix(whole.count / 2)
    try cut.write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: SQLiteError.self) {
      _ = try SQLiteConnection(path: path, create: false)
    }
    #expect(error?.kind == .corrupt)
    #expect(error?.message.contains("truncated") == true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == cut)
  }

  @Test func aMissingFileIsCreatedOnlyWhenAsked() throws {
    let folder = try Folder()
    let path = folder.path("new.sqlite")
    let error = #expect(throws: SQLiteError.self) {
      _ = try SQLiteConnection(path: path, create: false)
    }
    #expect(error?.kind == .cannotOpen)
    #expect(!FileManager.default.fileExists(atPath: path))
    let created = try SQLiteConnection(path: path, create: true)
    #expect(try created.statement("SELECT count(*) FROM sqlite_master").rows() == [[.integer(0)]])
  }

  @Test func aWriteThatFindsTheFileLockedWaitsThenThrows() throws {
    let folder = try Folder()
    let path = folder.path("a.sqlite")
    let holder = try Self.makeDatabase(at: path)
    let writer = try SQLiteConnection(path: path, create: false, busyTimeout: .milliseconds(50))
    try holder.execute("BEGIN IMMEDIATE")
    let error = #expect(throws: SQLiteError.self) {
      try writer.transaction {
        try writer.statement("INSERT INTO item (title) VALUES (?)").run([.text("late")])
      }
    }
    #expect(error?.kind == .busy)
    try holder.execute("ROLLBACK")
    try writer.transaction {
      try writer.statement("INSERT INTO item (title) VALUES (?)").run([.text("late")])
    }
    #expect(try Self.titles(holder).last == .text("late"))
  }

  /// The busy timeout waits: a lock released while a write waits lets the write through.
  @Test func aWriteWaitsForALockReleasedMeanwhile() throws {
    let folder = try Folder()
    let path = folder.path("a.sqlite")
    let holder = try Self.makeDatabase(at: path)
    let writer = try SQLiteConnection(path: path, create: false, busyTimeout: .seconds(20))
    try holder.execute("BEGIN IMMEDIATE")
    // Used by the other thread only until it ends the transaction.
    nonisolated(unsafe) let releasing = holder
    let released = DispatchSemaphore(value: 0)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
      try? releasing.execute("ROLLBACK")
      released.signal()
    }
    try writer.transaction {
      try writer.statement("INSERT INTO item (title) VALUES (?)").run([.text("waited")])
    }
    released.wait()
    #expect(try Self.titles(holder).last == .text("waited"))
  }

  @Test func aClosedConnectionThrows() throws {
    let folder = try Folder()
    let connection = try Self.makeDatabase(at: folder.path("a.sqlite"))
    let kept = try connection.statement("SELECT title FROM item")
    connection.close()
    connection.close()
    #expect(connection.isClosed)
    for attempt in [
      { try connection.execute("SELECT 1") },
      { _ = try connection.statement("SELECT title FROM item") },
      { _ = try kept.rows() },
    ] as [() throws -> Void] {
      let error = #expect(throws: SQLiteError.self) { try attempt() }
      #expect(error?.kind == .closed)
    }
  }
}
