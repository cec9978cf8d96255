import Foundation
import ObservedGraph
import Testing
import UndoLog

@testable import ObservedGraphSQLite

final class Shop: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shop") var books: Set<ShopBook>
}

final class ShopBook: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var price: Double = 0
  @Attribute var isbn: String?
  @Relationship(inverse: "books") var shop: Shop?
  @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [ShopPage]
}

final class ShopPage: ManagedObject {
  @Attribute var text: String = ""
  @Relationship(inverse: "pages") var book: ShopBook?
}

/// A store in a real file: what one context saves, a context of a store opened again reads as
/// faults with the same identifiers; a failing save (an injected failure at any statement, a full
/// disk, a lock held too long, a closed store) leaves the file and the context as they were.
@Suite struct SQLiteStoreTests {
  static let shop = try! ObjectModel(types: [Shop.self, ShopBook.self, ShopPage.self])

  /// Every row of every table, as text: equal dumps, equal files.
  static func dump(_ path: String) throws -> [String] {
    let connection = try SQLiteConnection(path: path, create: false)
    defer { connection.close() }
    var lines: [String] = []
    let tables = try connection.statement(
      "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ).rows()
    for case .text(let table) in tables.map({ $0[0] }) {
      for row in try connection.statement("SELECT * FROM \(SQLiteSchema.quoted(table))").rows() {
        lines.append("\(table): \(row)")
      }
    }
    return lines.sorted()
  }

  /// A shop with two books, the first with three pages, saved; returns the store and the context.
  static func savedShop(at url: URL) throws -> (SQLiteStore, ObjectContext, [ShopBook]) {
    let store = try SQLiteStore(url: url, model: shop)
    let context = PersistentContainer(store: store).viewContext
    let shop = context.insert(Shop.self)
    shop.name = "Corner"
    let books = ["Dune", "Emma"].map { title in
      let book = context.insert(ShopBook.self)
      book.title = title
      book.price = title == "Dune" ? 12.5 : 9
      book.shop = shop
      return book
    }
    books[0].pages = (1...3).map { number in
      let page = context.insert(ShopPage.self)
      page.text = "page \(number)"
      return page
    }
    try context.save()
    return (store, context, books)
  }

  @Test func whatASaveWritesAnotherStoreOnTheFileReadsAsFaults() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, writer, books) = try Self.savedShop(at: url)
    defer { _ = writer }
    let ids = books.map(\.objectID)
    let pageIDs = books[0].pages.map(\.objectID)
    let shopID = books[0].shop!.objectID
    try store.close()

    let reopened = try SQLiteStore(url: url, model: Self.shop)
    #expect(reopened.identifier == store.identifier)
    let context = PersistentContainer(store: reopened).viewContext
    let dune = try #require(context.object(with: ids[0]) as? ShopBook)
    #expect(dune.isFault)
    #expect(dune.title == "Dune" && dune.price == 12.5 && dune.isbn == nil)
    #expect(dune.pages.map(\.objectID) == pageIDs, "an ordered to-many keeps its order")
    #expect(dune.pages.map(\.text) == ["page 1", "page 2", "page 3"])
    let shop = try #require(dune.shop)
    #expect(shop.objectID == shopID && shop.name == "Corner")
    #expect(Set(shop.books.map(\.objectID)) == Set(ids))
    #expect(shop.books.contains(dune), "one object per identifier")
    #expect(!context.hasChanges)
    #expect(reopened.metadata["versionHash"] == Self.shop.versionHash)
    #expect(reopened.metadata["storeIdentifier"] == store.identifier.uuidString)
  }

  @Test func updatesReordersAndDeletesReachTheFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, books) = try Self.savedShop(at: url)
    let (dune, emma) = (books[0], books[1])
    let pages = dune.pages
    let shopID = dune.shop!.objectID
    dune.title = "Dune Messiah"
    dune.isbn = "978"
    dune.pages = [pages[2], pages[0]]  // page 2 leaves (nullify), the others swap
    emma.pages = [pages[1]]
    try context.delete(emma.shop!)
    try context.save()
    try store.close()

    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: Self.shop))
      .viewContext
    let again = try #require(reader.object(with: dune.objectID) as? ShopBook)
    #expect(again.title == "Dune Messiah" && again.isbn == "978")
    #expect(again.pages.map(\.text) == ["page 3", "page 1"])
    #expect(again.shop == nil, "the shop's delete nullified the books' shop")
    let emmaAgain = try #require(reader.object(with: emma.objectID) as? ShopBook)
    #expect(emmaAgain.pages.map(\.text) == ["page 2"])
    let error = #expect(throws: ObjectGraphError.self) { try reader.existingObject(with: shopID) }
    #expect(error?.kind == .objectNotFound)
  }

  @Test func aFailureAtAnyStatementOfASaveLeavesTheFileAndTheContextAsTheyWere() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, first, saved) = try Self.savedShop(at: url)
    let ids = saved.map(\.objectID)
    let before = try Self.dump(url.path)
    let container = PersistentContainer(store: store)
    _ = first
    var step = 1
    while true {
      // A fresh context each round, making the same changes.
      let context = container.newContext()
      let books = ids.map { context.object(with: $0) as! ShopBook }
      books[0].title = "changed"
      books[0].pages.remove(at: 0)
      let page = context.insert(ShopPage.self)
      page.book = books[1]
      let shop = try #require(books[1].shop)
      try context.delete(shop)
      store.connection.failingStep = step
      do {
        try context.save()
        store.connection.failingStep = nil
        break
      } catch let error as SQLiteError {
        #expect(error.kind == .injected)
      }
      store.connection.failingStep = nil
      #expect(try Self.dump(url.path) == before, "step \(step): the file is as it was")
      #expect(context.hasChanges && page.isInserted && books[0].isUpdated, "step \(step)")
      #expect(books[0].title == "changed" && shop.isDeleted && books[1].shop == nil)
      step += 1
    }
    #expect(step > 10, "the save ran \(step - 1) statements, each of which failed once")
    #expect(try Self.dump(url.path) != before)
    let reader = container.newContext()
    #expect((reader.object(with: ids[0]) as? ShopBook)?.title == "changed")
  }

  /// A save checks each changed object's to-many counts, loading a to-many that is still a
  /// fault: a store that fails that load makes the save throw (it used to stop the program), and
  /// the same save succeeds once the store works.
  @Test func aToManyThatCannotLoadWhileASaveChecksItThrowsOutOfTheSave() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, first, saved) = try Self.savedShop(at: url)
    _ = first
    let context = PersistentContainer(store: store).newContext()
    let book = try #require(context.object(with: saved[0].objectID) as? ShopBook)
    book.title = "changed"
    let before = try Self.dump(url.path)
    store.connection.failingStep = 1
    let error = #expect(throws: SQLiteError.self) { try context.save() }
    store.connection.failingStep = nil
    #expect(error?.kind == .injected)
    #expect(error?.sql?.contains("\"ShopPage\"") == true, "the load of the pages failed")
    #expect(try Self.dump(url.path) == before)
    #expect(book.isUpdated && context.hasChanges)
    try context.save()
    #expect(book.pages.map(\.text) == ["page 1", "page 2", "page 3"])
    let reader = PersistentContainer(store: store).newContext()
    #expect((reader.object(with: saved[0].objectID) as? ShopBook)?.title == "changed")
  }

  @Test func aConstraintFailureRollsTheSaveBackWhole() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, books) = try Self.savedShop(at: url)
    books[0].title = "changed"
    let page = context.insert(ShopPage.self)
    // Another writer took the page's key meanwhile.
    try store.connection.statement(
      #"INSERT INTO "ShopPage" ("og_pk", "og_entity", "text") VALUES (?, 3, 'theirs')"#
    ).run([.integer(page.objectID.key)])
    let before = try Self.dump(url.path)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .duplicateObject && error?.value == page.objectID.description)
    #expect(try Self.dump(url.path) == before, "the title change was rolled back too")
    #expect(page.isInserted && books[0].isUpdated && context.hasChanges)
  }

  @Test func undoAndRefreshWorkAcrossSavesOnAFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, books) = try Self.savedShop(at: url)
    context.undoLog = UndoLog()
    let dune = books[0]
    let pages = dune.pages
    try context.delete(dune)
    context.processPendingChanges()
    try context.save()
    #expect(try store.loadObjects([dune.objectID]).isEmpty)
    try context.undoLog?.undo()
    #expect(dune.context === context && dune.pages == pages && dune.isInserted)
    try context.save()
    let reader = PersistentContainer(store: store).newContext()
    let again = try #require(reader.object(with: dune.objectID) as? ShopBook)
    #expect(again.title == "Dune" && again.pages.map(\.text) == ["page 1", "page 2", "page 3"])
    // A change, saved, then the object refreshed into a fault: undo still restores it.
    again.title = "Dune Messiah"
    reader.undoLog = UndoLog()
    again.price = 20
    reader.processPendingChanges()
    try reader.save()
    try reader.refresh(again, mergeChanges: false)
    #expect(again.isFault)
    try reader.undoLog?.undo()
    #expect(again.price == 12.5 && again.title == "Dune Messiah")
    try reader.save()
    let stored = try #require(try store.loadObject(dune.objectID))
    #expect(stored.properties[0] == .attribute(.string("Dune Messiah")))
    #expect(stored.properties[1] == .attribute(.double(12.5)), "the undone price was saved")
  }

  @Test func aFullDiskFailsTheSaveAndLeavesTheFileAsItWas() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, _) = try Self.savedShop(at: url)
    let before = try Self.dump(url.path)
    let pages = try store.connection.statement("PRAGMA page_count").rows()[0][0]
    guard case .integer(let count) = pages else {
      throw SQLiteError(kind: .other, message: "", path: "")
    }
    _ = try store.connection.statement("PRAGMA max_page_count = \(count + 1)").rows()
    for number in 0..<2000 {
      let page = context.insert(ShopPage.self)
      page.text = String(repeating: "x", count: 100) + "\(number)"
    }
    let error = #expect(throws: SQLiteError.self) { try context.save() }
    #expect(error?.kind == .full)
    #expect(context.insertedObjects.count == 2000)
    #expect(try Self.dump(url.path) == before)
  }

  @Test func aWriteWaitsForAnotherConnectionsLockThenSaysSo() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    _ = try Self.savedShop(at: url)
    var options = SQLiteStore.Options()
    options.busyTimeout = .milliseconds(100)
    let store = try SQLiteStore(url: url, model: Self.shop, options: options)
    let context = PersistentContainer(store: store).viewContext
    let page = context.insert(ShopPage.self)
    let other = try SQLiteConnection(path: url.path, create: false)
    try other.execute("BEGIN IMMEDIATE")
    let started = ContinuousClock.now
    let error = #expect(throws: SQLiteError.self) { try context.save() }
    #expect(error?.kind == .busy)
    #expect(ContinuousClock.now - started >= .milliseconds(100), "it waited")
    #expect(page.isInserted)
    try other.execute("ROLLBACK")
    other.close()
    try context.save()
    #expect(!page.isInserted)
  }

  @Test func aClosedStoreThrowsOnEveryUse() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, context, books) = try Self.savedShop(at: url)
    let id = books[0].objectID
    try store.close()
    #expect(store.isClosed)
    books[0].title = "after"
    let error = #expect(throws: SQLiteError.self) { try context.save() }
    #expect(error?.kind == .closed)
    #expect(throws: SQLiteError.self) { try store.loadObjects([id]) }
    #expect(throws: SQLiteError.self) { try store.loadMembers(of: id, relationship: "pages") }
    try store.close()
    // The file was released: another store opens it and sees the last save.
    let again = try SQLiteStore(url: url, model: Self.shop)
    #expect(try again.loadObject(id) != nil)
  }

  /// A file in a new folder (kept alive by the caller) and options with a key block size.
  static func file(keyBlockSize: Int) throws -> (
    SQLiteConnectionTests.Folder, URL, SQLiteStore.Options
  ) {
    let folder = try SQLiteConnectionTests.Folder()
    var options = SQLiteStore.Options()
    options.keyBlockSize = keyBlockSize
    return (folder, folder.url.appendingPathComponent("shop.sqlite"), options)
  }

  /// Two stores on one file, as two processes would open it, and a context on each.
  static func twoStores(_ url: URL, _ options: SQLiteStore.Options) throws
    -> (SQLiteStore, SQLiteStore, ObjectContext, ObjectContext)
  {
    let first = try SQLiteStore(url: url, model: Self.shop, options: options)
    let second = try SQLiteStore(url: url, model: Self.shop, options: options)
    return (
      first, second, PersistentContainer(store: first).viewContext,
      PersistentContainer(store: second).viewContext
    )
  }

  @Test func keysAreUniqueAcrossStoresOnOneFileAndStableAcrossReopening() throws {
    let (folder, url, options) = try Self.file(keyBlockSize: 8)
    defer { withExtendedLifetime(folder) {} }
    let (first, second, a, b) = try Self.twoStores(url, options)
    var keys: Set<Int64> = []
    for _ in 0..<20 {
      keys.insert(a.insert(ShopPage.self).objectID.key)
      try a.save()
      keys.insert(b.insert(ShopPage.self).objectID.key)
      try b.save()
    }
    #expect(keys.count == 40, "no key given out twice")
    try first.close()
    try second.close()
    let third = try SQLiteStore(url: url, model: Self.shop, options: options)
    let c = PersistentContainer(store: third).viewContext
    let page = c.insert(ShopPage.self)
    #expect(!keys.contains(page.objectID.key))
    let id = page.objectID
    try c.save()
    #expect(page.objectID == id)
  }

  /// Contexts draw 1,024 keys at a time: a store whose block is larger gives out its block in
  /// several draws, and must not run on into a block another store reserved meanwhile.
  @Test func aStoreNeverRunsIntoABlockAnotherReservedMeanwhile() throws {
    let (folder, url, options) = try Self.file(keyBlockSize: 3000)
    defer { withExtendedLifetime(folder) {} }
    let (first, _, a, b) = try Self.twoStores(url, options)
    var keys: Set<Int64> = []
    for _ in 0..<1100 { keys.insert(a.insert(ShopPage.self).objectID.key) }
    try a.save()  // more than half of the first block is given out
    // The second store's 3,000 keys are exactly its block.
    for _ in 0..<3000 {
      keys.insert(a.insert(ShopPage.self).objectID.key)
      keys.insert(b.insert(ShopPage.self).objectID.key)
    }
    try a.save()
    try b.save()
    #expect(keys.count == 7100)
    #expect(first.metadata["nextKey"].flatMap { Int64($0) }.map { $0 > keys.max()! } == true)
  }

  @Test func theTraceShowsEachStatementWithItsValuesAndTime() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, _, books) = try Self.savedShop(at: url)
    let id = books[1].objectID
    try store.close()
    final class Lines: @unchecked Sendable {
      var statements: [SQLiteStore.TracedStatement] = []
      var lines: [String] { statements.map(\.description) }
    }
    let lines = Lines()
    var options = SQLiteStore.Options()
    options.sqlTrace = { lines.statements.append($0) }
    let traced = try SQLiteStore(url: url, model: Self.shop, options: options)
    lines.statements.removeAll()
    let context = PersistentContainer(store: traced).viewContext
    let emma = try #require(context.object(with: id) as? ShopBook)
    #expect(lines.lines.isEmpty, "a fault costs nothing until it is read")
    _ = emma.title
    #expect(lines.lines.count == 1, "a fault costs one query: \(lines.lines)")
    let sql =
      #"SELECT "og_pk", "og_entity", "title", "price", "isbn", "shop" FROM "ShopBook" WHERE "og_pk" = ?"#
    let fault = try #require(lines.statements.first)
    #expect(fault.sql == sql)
    #expect(fault.arguments == ["\(id.key)"])
    #expect(fault.statement == "\(sql) [\(id.key)]")
    #expect(fault.duration > .zero)
    // The line: the statement and its time in milliseconds, three decimals.
    let line = fault.description
    #expect(line.hasPrefix("SQL: \(sql) [\(id.key)] ("), "\(line)")
    let time = line.dropFirst("SQL: \(sql) [\(id.key)] (".count)
    #expect(time.hasSuffix(" ms)") && Double(time.dropLast(4)) != nil, "\(line)")
    #expect(time.split(separator: ".").last?.count == 7, "\(line)")  // "016 ms)"
    // The shop's books come in one query with their values: reading them loads nothing more.
    lines.statements.removeAll()
    let shop = try #require(emma.shop)
    let titles = shop.books.map(\.title).sorted()
    #expect(titles == ["Dune", "Emma"])
    #expect(lines.lines.count == 2, "the shop's row, then its books' rows: \(lines.lines)")
    #expect(lines.lines[1].contains(#"FROM "ShopBook" WHERE "shop" = ?"#))
    // A to-many is loaded on first use, in one query.
    lines.statements.removeAll()
    let dune = try #require(shop.books.first { $0.title == "Dune" })
    #expect(lines.lines.isEmpty)
    #expect(dune.pages.count == 3)
    #expect(lines.lines.count == 1 && lines.lines[0].contains(#"FROM "ShopPage" WHERE "book" = ?"#))
    // Faults made by identifier load together when the first is read.
    lines.statements.removeAll()
    let reader = PersistentContainer(store: traced).newContext()
    let faults = [id, dune.objectID].compactMap { reader.object(with: $0) as? ShopBook }
    #expect(faults.map(\.title) == ["Emma", "Dune"])
    #expect(lines.lines.count == 1, "\(lines.lines)")
    #expect(lines.lines[0].contains(#"WHERE "og_pk" IN (?, ?)"#))
  }

  @Test func theEnvironmentVariableSwitchesTheTraceOn() {
    #expect(SQLiteStore.Options(environment: ["OBSERVEDGRAPH_SQL_DEBUG": "1"]).sqlTrace != nil)
    #expect(SQLiteStore.Options(environment: ["OBSERVEDGRAPH_SQL_DEBUG": "0"]).sqlTrace == nil)
    #expect(SQLiteStore.Options(environment: [:]).sqlTrace == nil)
  }

  /// The page cache is the option's size in KiB: 32 MiB by default, never below 256 KiB.
  @Test func thePageCacheTakesTheOptionsSize() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("shop.sqlite")
    func cacheSize(_ bytes: Int?) throws -> [[SQLiteValue]] {
      var options = SQLiteStore.Options()
      if let bytes { options.pageCacheSize = bytes }
      let store = try SQLiteStore(url: url, model: Self.shop, options: options)
      defer { try? store.close() }
      return try store.connection.statement("PRAGMA cache_size").rows()
    }
    #expect(try cacheSize(nil) == [[.integer(-32_768)]])
    #expect(try cacheSize(64 * 1024 * 1024) == [[.integer(-65_536)]])
    #expect(try cacheSize(1_000) == [[.integer(-256)]])
    #expect(try cacheSize(-1) == [[.integer(-256)]])
  }

  @Test func aFileThatIsNoDatabaseOrIsTruncatedIsRefusedUntouched() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let text = folder.url.appendingPathComponent("notes.sqlite")
    try Data("not a database, just some notes".utf8).write(to: text)
    let error = #expect(throws: SQLiteError.self) {
      _ = try SQLiteStore(url: text, model: Self.shop)
    }
    #expect(error?.kind == .notADatabase)
    #expect(try Data(contentsOf: text) == Data("not a database, just some notes".utf8))

    let url = folder.url.appendingPathComponent("shop.sqlite")
    let (store, _, _) = try Self.savedShop(at: url)
    try store.close()
    let whole = try Data(contentsOf: url)
    let cut = whole.prefix(whole.count / 2)
    try cut.write(to: url)
    try? FileManager.default.removeItem(at: URL(fileURLWithPath: url.path + "-wal"))
    try? FileManager.default.removeItem(at: URL(fileURLWithPath: url.path + "-shm"))
    let truncated = #expect(throws: SQLiteError.self) {
      _ = try SQLiteStore(url: url, model: Self.shop)
    }
    #expect(truncated?.kind == .corrupt)
    #expect(try Data(contentsOf: url) == cut)
  }
}
