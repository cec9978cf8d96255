import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The SQLite store under faults. A failure injected at every statement of saves of every shape
/// (inserts, updates, deletes, to-many reorders, many-to-many join rows, a key-block
/// reservation), a full disk, and a process killed in the middle of a save each leave the file
/// opening to its last saved state, and the context as it was before the save. Damaged files —
/// cut short, with a garbage header, foreign, of another model, with a page SQLite finds
/// corrupt — are refused with an error naming what is wrong, and their bytes stay as they were.
@Suite struct StoreFaultTests {
  static let model = SQLiteStoreModelTests.model

  // MARK: A library and the saves made on it

  /// The objects of a saved library by name: shelves `A` and `B`, books `b0`…`b3`, discs `d0`
  /// and `d1`, tags `t0`…`t2`.
  /// The library of ``makeLibrary(at:)`` in a new file, opened in a store with one context.
  struct Library {
    /// The temporary folder; the file goes with it.
    let folder: SQLiteConnectionTests.Folder
    let url: URL
    let ids: [String: ObjectID]
    let store: SQLiteStore
    let context: ObjectContext
    var objects: Objects { Objects(context: context, ids: ids) }

    init() throws {
      folder = try SQLiteConnectionTests.Folder()
      url = folder.url.appendingPathComponent("library.sqlite")
      ids = try StoreFaultTests.makeLibrary(at: url)
      store = try SQLiteStore(url: url, model: StoreFaultTests.model)
      context = PersistentContainer(store: store).newContext()
    }
  }

  struct Objects {
    let context: ObjectContext
    let ids: [String: ObjectID]

    subscript(_ name: String) -> ManagedObject {
      guard let object = context.object(with: ids[name]!) else {
        preconditionFailure("no object \(name)")
      }
      return object
    }

    func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
      let object = try context.insertObject(forEntityName: entity)
      for (key, value) in values { try object.setValue(value, forKey: key) }
      return object
    }
  }

  /// Creates the library in a new file, saves and closes it; returns the objects' identifiers.
  @discardableResult
  static func makeLibrary(at url: URL) throws -> [String: ObjectID] {
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).newContext()
    let objects = Objects(context: context, ids: [:])
    var made: [String: ManagedObject] = [:]
    for (name, title) in [("b0", "Dune"), ("b1", "Emma"), ("b2", "Ulysses"), ("b3", "Beloved")] {
      made[name] = try objects.insert(
        "Book",
        [
          "title": title, "pages": 100 + title.count, "price": Decimal(string: "12.50")!,
          "published": Date(timeIntervalSinceReferenceDate: 86_400), "authors": [title + " Author"],
        ])
    }
    made["d0"] = try objects.insert("Disc", ["title": "Blue", "pages": Int32(12)])
    made["d1"] = try objects.insert("Disc", ["title": "Kind of Blue", "length": Float(45.5)])
    for (name, text) in [("A", "Fiction"), ("B", "Music")] {
      made[name] = try objects.insert("Shelf", ["name": text])
    }
    for (name, text) in [("t0", "new"), ("t1", "old"), ("t2", "red")] {
      made[name] = try objects.insert("Tag", ["name": text])
    }
    func items(_ owner: String, _ names: [String]) throws {
      for name in names { try made[owner]!.mutableOrderedSet(forKey: "items").append(made[name]!) }
    }
    try items("A", ["b0", "d0", "b1"])
    try items("B", ["b2", "d1"])
    try items("t0", ["b0", "b1", "d0"])
    try items("t1", ["d1", "b0"])
    try made["A"]!.mutableSet(forKey: "keywords").insert(made["t0"]!)
    try made["A"]!.setValue(made["d0"], forKey: "featured")
    try context.save()
    try store.close()
    return made.mapValues(\.objectID)
  }

  /// The shapes of a save, each a set of edits on the library.
  enum Shape: String, CaseIterable, Codable, Sendable {
    case inserts, updates, deletes, reorders, manyToMany, keyBlock, everything

    /// A store with a key block of 4 reserves a new block at a save with any insert.
    var options: SQLiteStore.Options {
      var options = SQLiteStore.Options()
      options.keyBlockSize = self == .keyBlock || self == .everything ? 4 : 4096
      return options
    }

    func edit(_ objects: Objects) throws {
      switch self {
      case .inserts:
        let shelf = try objects.insert("Shelf", ["name": "New"])
        let book = try objects.insert(
          "Book", ["title": "Middlemarch", "price": Decimal(string: "7.25")!])
        let disc = try objects.insert(
          "Disc",
          ["title": "Nevermind", "id": UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!])
        let tag = try objects.insert("Tag", ["name": "blue"])
        try shelf.mutableOrderedSet(forKey: "items").append(book)
        try shelf.mutableOrderedSet(forKey: "items").append(disc)
        try tag.mutableOrderedSet(forKey: "items").append(disc)
        try tag.mutableOrderedSet(forKey: "items").append(book)
        try shelf.mutableSet(forKey: "keywords").insert(tag)
        try shelf.setValue(book, forKey: "featured")
      case .updates:
        let book = objects["b0"]
        try book.setValue("Dune Messiah", forKey: "title")
        try book.setValue(500, forKey: "pages")
        try book.setValue(Decimal(string: "9.99")!, forKey: "price")
        try book.setValue(true, forKey: "signed")
        try book.setValue(Data([1, 2, 3]), forKey: "cover")
        try book.setValue(URL(string: "https://example.com/dune")!, forKey: "site")
        try book.setValue(["Frank Herbert"], forKey: "authors")
        try objects["b3"].setValue(nil, forKey: "published")
        try objects["d0"].setValue(Int32(-1), forKey: "pages")
        try objects["d0"].setValue(Float(1.5), forKey: "length")
        try objects["B"].setValue("Records", forKey: "name")
      case .deletes:
        try objects.context.delete(objects["b1"])  // in shelf A and tag t0
        try objects.context.delete(objects["t1"])  // join rows
        try objects.context.delete(objects["B"])  // nullifies b2 and d1's shelf
      case .reorders:
        try objects["A"].mutableOrderedSet(forKey: "items").move(from: 2, to: 0)
        try objects["t0"].mutableOrderedSet(forKey: "items").move(from: 0, to: 2)
        try objects["t1"].mutableOrderedSet(forKey: "items").move(from: 0, to: 1)
      case .manyToMany:
        try objects["t2"].mutableOrderedSet(forKey: "items").append(objects["b3"])
        try objects["t2"].mutableOrderedSet(forKey: "items").append(objects["d1"])
        try objects["t0"].mutableOrderedSet(forKey: "items").remove(objects["b1"])
        try objects["A"].mutableSet(forKey: "keywords").remove(objects["t0"])
        try objects["A"].mutableSet(forKey: "keywords").insert(objects["t2"])
        try objects["b2"].mutableSet(forKey: "tags").insert(objects["t1"])
      case .keyBlock:
        for index in 0..<6 { _ = try objects.insert("Tag", ["name": "k\(index)"]) }
      case .everything:
        for shape in [Shape.inserts, .updates, .reorders, .manyToMany, .deletes, .keyBlock] {
          try shape.edit(objects)
        }
      }
    }
  }

  /// An object's stored values as text (related objects by identifier, an unordered to-many
  /// sorted), and, with `states`, whether it is inserted, updated or deleted.
  static func snapshot(_ objects: [ManagedObject], states: Bool) throws -> [String] {
    try objects.sorted { $0.objectID.description < $1.objectID.description }.map { object in
      var line = object.objectID.description
      if states {
        line +=
          " i\(object.isInserted ? 1 : 0)u\(object.isUpdated ? 1 : 0)d\(object.isDeleted ? 1 : 0)"
      }
      for attribute in object.entity.allAttributes where !attribute.isTransient {
        line += " \(attribute.name)=\(String(describing: try object.value(forKey: attribute.name)))"
      }
      for relationship in object.entity.allRelationships {
        let related: String
        switch try object.value(forKey: relationship.name) {
        case let one as ManagedObject: related = one.objectID.description
        case let many as [ManagedObject]: related = many.map(\.objectID.description).description
        case let many as Set<ManagedObject>:
          related = many.map(\.objectID.description).sorted().description
        default: related = "nil"
        }
        line += " \(relationship.name)=\(related)"
      }
      return line
    }
  }

  /// What a context holds, as text: each object's state and values, the change sets.
  static func snapshot(of context: ObjectContext, _ held: [ManagedObject]) throws -> [String] {
    func ids(_ objects: Set<ManagedObject>) -> String {
      objects.map(\.objectID.description).sorted().description
    }
    return try snapshot(held, states: true) + [
      "inserted \(ids(context.insertedObjects))", "updated \(ids(context.updatedObjects))",
      "deleted \(ids(context.deletedObjects))", "hasChanges \(context.hasChanges)",
    ]
  }

  /// Checks that a store on the file, opened again, holds what the context saved: each object
  /// the context holds with its values, and none of those it deleted.
  static func expectTheFileHolds(
    _ url: URL, _ saved: [ManagedObject], deleted: [ObjectID], _ comment: Comment
  ) throws {
    let store = try SQLiteStore(url: url, model: model)
    defer { try? store.close() }
    let reader = PersistentContainer(store: store).newContext()
    let again = saved.compactMap { reader.object(with: $0.objectID) }
    let (read, kept) = (try snapshot(again, states: false), try snapshot(saved, states: false))
    #expect(
      read == kept,
      "\(comment): \(read.filter { !kept.contains($0) }) \(kept.filter { !read.contains($0) })")
    for id in deleted {
      #expect(throws: ObjectGraphError.self, comment) { try reader.existingObject(with: id) }
    }
  }

  // MARK: A failure at every statement

  @Test(arguments: Shape.allCases)
  func aFailureAtAnyStatementOfASaveChangesNeitherTheFileNorTheContext(_ shape: Shape) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let ids = try Self.makeLibrary(at: url)
    let store = try SQLiteStore(url: url, model: Self.model, options: shape.options)
    let context = PersistentContainer(store: store).newContext()
    try shape.edit(Objects(context: context, ids: ids))
    // Every object stays in memory, loaded, for the snapshots to compare.
    let held = Array(context.registeredObjects)
    let expected = try Self.snapshot(of: context, held)
    let before = try SQLiteStoreTests.dump(url.path)
    let metadata = store.metadata
    let failed = try Self.failingEachStatement(of: store, "\(shape)") {
      try context.save()
    } check: { (step: Int) throws in
      #expect(try SQLiteStoreTests.dump(url.path) == before, "\(shape) step \(step): the file")
      #expect(
        try Self.snapshot(of: context, held) == expected, "\(shape) step \(step): the context")
      #expect(store.metadata == metadata, "\(shape) step \(step): the reserved keys")
    }
    guard let failed else { return }
    #expect(failed > 4, "\(shape): the save ran \(failed) statements, each failed once")
    #expect(!context.hasChanges)
    let deleted = held.filter(\.isDeleted).map(\.objectID)
    try store.close()
    try Self.expectTheFileHolds(
      url, held.filter { !deleted.contains($0.objectID) }, deleted: deleted, "\(shape)")
    if shape.options.keyBlockSize == 4 {
      #expect(store.metadata != metadata, "\(shape): the save reserved a new block of keys")
    }
  }

  /// Runs `save` with a failure injected at its first statement, then at its second, and so on
  /// until it succeeds, calling `check` with the step after each injected failure. Returns the
  /// number of statements that failed once each; nil, with an issue recorded, when `save` threw
  /// anything but the injected failure.
  static func failingEachStatement(
    of store: SQLiteStore, _ label: String, _ save: () throws -> Void,
    check: (Int) throws -> Void
  ) throws -> Int? {
    var step = 1
    while true {
      store.connection.failingStep = step
      do {
        try save()
        store.connection.failingStep = nil
        return step - 1
      } catch let error as SQLiteError {
        store.connection.failingStep = nil
        guard error.kind == .injected else {
          Issue.record("\(label) step \(step): \(error)")
          return nil
        }
      }
      try check(step)
      step += 1
    }
  }

  /// The number of statements of a save of each shape, each of which the test above fails once.
  @Test func eachShapeOfSaveRunsTheStatementsItNeeds() throws {
    var counts: [Shape: Int] = [:]
    for shape in Shape.allCases {
      let folder = try SQLiteConnectionTests.Folder()
      let url = folder.url.appendingPathComponent("library.sqlite")
      let ids = try Self.makeLibrary(at: url)
      let store = try SQLiteStore(url: url, model: Self.model, options: shape.options)
      let context = PersistentContainer(store: store).newContext()
      try shape.edit(Objects(context: context, ids: ids))
      var statements: [String] = []
      store.connection.trace = { sql, _, _ in statements.append(sql) }
      try context.save()
      counts[shape] = statements.count
      // Members of to-many relationships the save writes are loaded first, then one
      // transaction writes.
      let begin = try #require(statements.firstIndex(of: "BEGIN IMMEDIATE"), "\(shape)")
      #expect(statements[..<begin].allSatisfy { $0.hasPrefix("SELECT") }, "\(shape)")
      #expect(statements.last == "COMMIT", "\(shape)")
      #expect(statements.filter { $0 == "BEGIN IMMEDIATE" }.count == 1, "\(shape)")
      let written = statements.filter { !$0.hasPrefix("SELECT") }.joined(separator: "\n")
      switch shape {
      case .inserts: #expect(written.contains(#"INSERT INTO "og_join_Item_tags""#))
      case .updates: #expect(written.contains(#"UPDATE "Item" SET "title" = ?"#))
      case .deletes: #expect(written.contains(#"DELETE FROM "og_join_Shelf_keywords""#))
      case .reorders: #expect(written.contains(#"SET "shelf_order" = ?"#))
      case .manyToMany: #expect(written.contains(#"DELETE FROM "og_join_Item_tags""#))
      case .keyBlock, .everything: #expect(written.contains("'nextKey'"), "\(shape)")
      }
    }
    #expect(counts.values.allSatisfy { $0 >= 4 }, "\(counts)")
  }

  // MARK: A full disk

  @Test(arguments: Shape.allCases)
  func aFullDiskFailsASaveOfAnyShapeAndTheSaveGoesThroughOnceThereIsRoom(_ shape: Shape) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let ids = try Self.makeLibrary(at: url)
    let store = try SQLiteStore(url: url, model: Self.model, options: shape.options)
    let context = PersistentContainer(store: store).newContext()
    let objects = Objects(context: context, ids: ids)
    try shape.edit(objects)
    // A cover larger than a page: every shape needs pages the file does not have.
    try objects["b3"].setValue(Data(repeating: 7, count: 64 * 1024), forKey: "cover")
    let held = Array(context.registeredObjects)
    let expected = try Self.snapshot(of: context, held)
    let before = try SQLiteStoreTests.dump(url.path)
    let metadata = store.metadata
    let pages = try store.connection.statement("PRAGMA page_count").rows()
    _ = try store.connection.statement("PRAGMA max_page_count = \(pages[0][0].integer!)").rows()
    let error = #expect(throws: SQLiteError.self) { try context.save() }
    #expect(error?.kind == .full, "\(shape): \(String(describing: error))")
    #expect(error?.description.contains(url.path) == true)
    #expect(try SQLiteStoreTests.dump(url.path) == before, "\(shape): the file")
    #expect(try Self.snapshot(of: context, held) == expected, "\(shape): the context")
    #expect(store.metadata == metadata)
    // Room again: the same context saves what it held.
    _ = try store.connection.statement("PRAGMA max_page_count = 1000000").rows()
    try context.save()
    let deleted = held.filter(\.isDeleted).map(\.objectID)
    try store.close()
    try Self.expectTheFileHolds(
      url, held.filter { !deleted.contains($0.objectID) }, deleted: deleted, "\(shape)")
  }

  // MARK: Damaged files

  /// A shelf of 300 books, each with a long title, so that the books' table spans many leaf
  /// pages under an interior root; saved and closed. Returns the shelf's and the books'
  /// identifiers.
  @discardableResult
  static func makeShelf(at url: URL) throws -> (shelf: ObjectID, books: [ObjectID]) {
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).newContext()
    let shelf = try context.insertObject(forEntityName: "Shelf")
    var books: [ObjectID] = []
    for number in 0..<300 {
      let book = try context.insertObject(forEntityName: "Book")
      try book.setValue("\(number) " + String(repeating: "long title ", count: 30), forKey: "title")
      try shelf.mutableOrderedSet(forKey: "items").append(book)
      books.append(book.objectID)
    }
    try context.save()
    try store.close()
    return (shelf.objectID, books)
  }

  /// Where things are in a store file: its page size, the root page of each table and index.
  struct FileLayout {
    let pageSize: Int
    let roots: [String: Int]

    init(_ path: String) throws {
      let connection = try SQLiteConnection(path: path, create: false)
      defer { connection.close() }
      pageSize = Int(try connection.statement("PRAGMA page_size").rows()[0][0].integer!)
      var roots: [String: Int] = [:]
      for row in try connection.statement("SELECT name, rootpage FROM sqlite_master").rows() {
        if case .text(let name) = row[0], let root = row[1].integer, root > 0 {
          roots[name] = Int(root)
        }
      }
      self.roots = roots
    }

    /// The children of an interior table page, left to right, each with the largest key it
    /// holds (nil for the rightmost).
    func children(of page: Int, in bytes: [UInt8]) -> [(page: Int, largestKey: Int64?)] {
      let start = (page - 1) * pageSize
      let header = start + (page == 1 ? 100 : 0)
      precondition(bytes[header] == 0x05, "page \(page) is no interior table page")
      func integer(at offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
      }
      var children: [(page: Int, largestKey: Int64?)] = []
      for cell in 0..<integer(at: header + 3, 2) {
        var offset = start + integer(at: header + 12 + 2 * cell, 2)
        let child = integer(at: offset, 4)
        offset += 4
        var key: Int64 = 0
        for _ in 0..<9 {  // a varint
          key = key << 7 | Int64(bytes[offset] & 0x7F)
          offset += 1
          if bytes[offset - 1] & 0x80 == 0 { break }
        }
        children.append((child, key))
      }
      children.append((integer(at: header + 8, 4), nil))
      return children
    }

    /// The bytes with a page overwritten by a pattern (after the file header on page 1).
    func damaging(page: Int, of bytes: [UInt8]) -> [UInt8] {
      var damaged = bytes
      let start = (page - 1) * pageSize + (page == 1 ? 100 : 0)
      for offset in start..<page * pageSize { damaged[offset] = 0xA5 }
      return damaged
    }
  }

  /// How a file can be wrong, and the error that names it.
  enum Damage: String, CaseIterable {
    case truncated, garbageHeader, zeroedFile, foreignDatabase, otherModel, otherFormat
    case damagedSchemaPage, damagedMetadataPage, damagedTableRoot, damagedLastLeaf

    /// The bytes of a store file, damaged.
    func apply(to bytes: [UInt8], _ layout: FileLayout, folder: SQLiteConnectionTests.Folder)
      throws -> [UInt8]
    {
      switch self {
      case .truncated: return Array(bytes.prefix(bytes.count / 2))
      case .garbageHeader:
        return Array("This is not what SQLite writes.".utf8) + bytes.dropFirst(31)
      case .zeroedFile: return [UInt8](repeating: 0, count: bytes.count)
      case .foreignDatabase, .otherModel, .otherFormat:
        let path = folder.path("other.sqlite")
        if self == .foreignDatabase {
          let other = try SQLiteConnection(path: path, create: true)
          try other.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello')")
          other.close()
        } else if self == .otherModel {
          let notes = try ObjectModel(entities: [
            EntityDescription(
              name: "Note",
              attributes: [AttributeDescription(name: "body", type: .string, defaultValue: "")])
          ])
          try SQLiteStore(url: URL(fileURLWithPath: path), model: notes).close()
        } else {
          try SQLiteStore(url: URL(fileURLWithPath: path), model: model).close()
          let file = try SQLiteConnection(path: path, create: false)
          try file.execute(#"UPDATE "og_metadata" SET "value" = '2' WHERE "key" = 'format'"#)
          file.close()
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
      case .damagedSchemaPage: return layout.damaging(page: 1, of: bytes)
      case .damagedMetadataPage:
        return layout.damaging(page: layout.roots["og_metadata"]!, of: bytes)
      case .damagedTableRoot: return layout.damaging(page: layout.roots["Item"]!, of: bytes)
      case .damagedLastLeaf:
        let last = layout.children(of: layout.roots["Item"]!, in: bytes).last!.page
        return layout.damaging(page: last, of: bytes)
      }
    }

    /// Whether an error names this damage.
    func isNamed(by error: any Error) -> Bool {
      switch (self, error) {
      case (.truncated, let error as SQLiteError):
        error.kind == .corrupt && error.message.contains("truncated")
      case (.garbageHeader, let error as SQLiteError), (.zeroedFile, let error as SQLiteError):
        error.kind == .notADatabase
      case (.foreignDatabase, SQLiteStoreOpenError.notAStore(_, let tables)): tables == ["notes"]
      case (.otherModel, SQLiteStoreOpenError.modelMismatch(_, let differences, _)):
        !differences.isEmpty
      case (.otherFormat, SQLiteStoreOpenError.unknownFormat(_, let format)): format == "2"
      case (.damagedSchemaPage, let error as SQLiteError),
        (.damagedMetadataPage, let error as SQLiteError),
        (.damagedTableRoot, let error as SQLiteError), (.damagedLastLeaf, let error as SQLiteError):
        error.kind == .corrupt && error.description.contains("malformed")
      default: false
      }
    }
  }

  @Test(arguments: Damage.allCases)
  func aDamagedFileIsRefusedAtOpenNamingWhatIsWrongAndKeepsItsBytes(_ damage: Damage) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    try Self.makeShelf(at: url)
    let layout = try FileLayout(url.path)
    let bytes = try damage.apply(
      to: Array(try Data(contentsOf: url)), layout, folder: folder)
    try Data(bytes).write(to: url)
    let error = #expect(throws: (any Error).self, "\(damage)") {
      _ = try SQLiteStore(url: url, model: Self.model)
    }
    #expect(error.map(damage.isNamed(by:)) == true, "\(damage): \(String(describing: error))")
    #expect("\(String(describing: error))".contains(url.path), "the error names the file")
    #expect(try Data(contentsOf: url) == Data(bytes), "\(damage): the bytes are as they were")
  }

  @Test func aPageDamagedInsideATableIsNoticedByEachReadAndWriteThatReachesIt() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let (shelfID, bookIDs) = try Self.makeShelf(at: url)
    let layout = try FileLayout(url.path)
    let bytes = Array(try Data(contentsOf: url))
    // A leaf in the middle: not on the way to the largest key, which the open reads.
    let children = layout.children(of: layout.roots["Item"]!, in: bytes)
    #expect(children.count > 4)
    let middle = children.count / 2
    let (page, largest) = (children[middle].page, children[middle].largestKey!)
    let onPage = bookIDs.filter { $0.key > children[middle - 1].largestKey! && $0.key <= largest }
    #expect(!onPage.isEmpty)
    let elsewhere = bookIDs.first { $0.key > largest }!
    let damaged = layout.damaging(page: page, of: bytes)
    try Data(damaged).write(to: url)
    func pageBytes() throws -> Data {
      try Data(contentsOf: url)[(page - 1) * layout.pageSize..<page * layout.pageSize]
    }
    let pageBefore = try pageBytes()

    let store = try SQLiteStore(url: url, model: Self.model)
    let container = PersistentContainer(store: store)
    func expectCorrupt(_ comment: Comment, _ body: () throws -> Void) {
      let error = #expect(throws: SQLiteError.self, comment) { try body() }
      #expect(error?.kind == .corrupt, comment)
      #expect(error?.description.contains("malformed") == true, "\(String(describing: error))")
    }
    // A fault on the page: reading it throws, and it stays a fault.
    let reader = container.newContext()
    let fault = try #require(reader.object(with: onPage[0]))
    expectCorrupt("a fault on the damaged page") { try fault.fulfilFault() }
    #expect(fault.isFault)
    expectCorrupt("a read by key") { _ = try fault.value(forKey: "title") }
    // One elsewhere loads.
    let other = container.newContext()
    let intact = try #require(other.object(with: elsewhere))
    try intact.fulfilFault()
    #expect(
      (try intact.value(forKey: "title") as? String)?.hasPrefix(
        "\(bookIDs.firstIndex(of: elsewhere)!) ") == true)
    // A fetch that scans the table, and a to-many whose members are on the page.
    expectCorrupt("a fetch") {
      _ = try container.newContext().fetch(FetchRequest<ManagedObject>(entityName: "Book"))
    }
    let shelfContext = container.newContext()
    let shelf = try shelfContext.existingObject(with: shelfID)
    expectCorrupt("a to-many") { _ = try shelf.value(forKey: "items") }
    // Deleting an object on the page (which reads it) and saving: the error reaches the
    // caller, the file and the context's other changes are as they were.
    let writer = container.newContext()
    let changed = try #require(writer.object(with: elsewhere))
    try changed.setValue("changed", forKey: "title")
    let inserted = try writer.insertObject(forEntityName: "Tag")
    func probe() throws -> [[SQLiteValue]] {
      let connection = try SQLiteConnection(path: url.path, create: false)
      defer { connection.close() }
      return try connection.statement(#"SELECT count(*) FROM "Tag""#).rows()
        + connection.statement(#"SELECT "title" FROM "Item" WHERE "og_pk" = ?"#)
        .rows([.integer(elsewhere.key)])
    }
    let probed = try probe()
    expectCorrupt("a delete and a save") {
      try writer.delete(try #require(writer.object(with: onPage[0])))
      try writer.save()
    }
    #expect(writer.hasChanges && inserted.isInserted && changed.isUpdated)
    #expect(try probe() == probed)
    try store.close()
    #expect(try pageBytes() == pageBefore, "the damaged page is never written")
  }

  @Test func deletingAFaultWhoseRowIsGoneThrowsAndChangesNothing() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let ids = try Self.makeLibrary(at: url)
    let container = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
    let (first, second) = (container.newContext(), container.newContext())
    let fault = try #require(second.object(with: ids["b1"]!))
    try first.delete(try first.existingObject(with: ids["b1"]!))
    try first.save()
    let error = #expect(throws: ObjectGraphError.self) { try second.delete(fault) }
    #expect(error?.kind == .objectNotFound)
    #expect(!second.hasChanges && !fault.isDeleted && fault.isFault)
  }

  // MARK: A process killed in the middle of a save

  #if os(Linux) || os(macOS)
    /// In a child process: opens the store at `path`, makes the edits of a shape and saves,
    /// killing the process with SIGKILL right after the `statement`th statement of the save ran.
    static func saveAndKill(path: String, ids: [String: ObjectID], shape: Shape, statement: Int)
      throws
    {
      let store = try SQLiteStore(
        url: URL(fileURLWithPath: path), model: model, options: shape.options)
      let context = PersistentContainer(store: store).newContext()
      try shape.edit(Objects(context: context, ids: ids))
      var count = 0
      store.connection.trace = { _, _, _ in
        count += 1
        if count == statement { kill(getpid(), SIGKILL) }
      }
      try context.save()
    }

    /// The rows of a copy of a store file after a store opened it (which reserves keys in it)
    /// and closed it: the state of the file when a save begins.
    static func dumpAfterAnOpen(
      _ url: URL, in folder: SQLiteConnectionTests.Folder,
      options: SQLiteStore.Options = SQLiteStore.Options()
    ) throws -> [String] {
      let copy = folder.url.appendingPathComponent("opened.sqlite")
      try FileManager.default.copyItem(at: url, to: copy)
      try SQLiteStore(url: copy, model: model, options: options).close()
      defer { try? FileManager.default.removeItem(at: copy) }
      return try SQLiteStoreTests.dump(copy.path)
    }

    @Test func aProcessKilledAfterAnyStatementOfASaveLeavesTheFileAtOneOfItsSaves() async throws {
      let folder = try SQLiteConnectionTests.Folder()
      let base = folder.url.appendingPathComponent("base.sqlite")
      let ids = try Self.makeLibrary(at: base)
      let before = try Self.dumpAfterAnOpen(base, in: folder, options: Shape.everything.options)
      // The same save, in this process, on a copy: how many statements it runs, what it writes.
      let counted = folder.url.appendingPathComponent("counted.sqlite")
      try FileManager.default.copyItem(at: base, to: counted)
      var statements = 0
      do {
        let store = try SQLiteStore(
          url: counted, model: Self.model, options: Shape.everything.options)
        let context = PersistentContainer(store: store).newContext()
        try Shape.everything.edit(Objects(context: context, ids: ids))
        store.connection.trace = { _, _, _ in statements += 1 }
        try context.save()
        try store.close()
      }
      let after = try SQLiteStoreTests.dump(counted.path)
      #expect(after != before && statements > 20)
      for statement in 1...statements {
        let url = folder.url.appendingPathComponent("killed-\(statement).sqlite")
        try FileManager.default.copyItem(at: base, to: url)
        let path = url.path
        await #expect(processExitsWith: .signal(SIGKILL), "statement \(statement)") {
          [path = path as String, ids = ids as [String: ObjectID], statement = statement as Int] in
          try StoreFaultTests.saveAndKill(
            path: path, ids: ids, shape: .everything, statement: statement)
        }
        // Killed before the commit ran: the last save; after it: this one.
        let expected = statement < statements ? before : after
        #expect(try SQLiteStoreTests.dump(path) == expected, "killed after statement \(statement)")
        let check = try SQLiteConnection(path: path, create: false)
        #expect(try check.statement("PRAGMA integrity_check").rows() == [[.text("ok")]])
        check.close()
        try SQLiteStore(url: url, model: Self.model).close()
      }
    }

    @Test func aProcessKilledWhileALargeSaveSpillsIntoTheLogLeavesTheLastSave() async throws {
      let folder = try SQLiteConnectionTests.Folder()
      let url = folder.url.appendingPathComponent("library.sqlite")
      try Self.makeLibrary(at: url)
      let before = try Self.dumpAfterAnOpen(url, in: folder)
      let path = url.path
      await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
        let store = try SQLiteStore(url: URL(fileURLWithPath: path), model: StoreFaultTests.model)
        // A small page cache: the save's pages go to the log before its commit.
        try store.connection.execute("PRAGMA cache_size = 10")
        let context = PersistentContainer(store: store).newContext()
        for number in 0..<2000 {
          let book = try context.insertObject(forEntityName: "Book")
          try book.setValue("\(number) " + String(repeating: "x", count: 500), forKey: "title")
        }
        var count = 0
        store.connection.trace = { _, _, _ in
          count += 1
          if count == 1500 { kill(getpid(), SIGKILL) }
        }
        try context.save()
      }
      let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
      #expect((log ?? 0) > 100_000, "the killed save had written \(log ?? 0) bytes to the log")
      #expect(try SQLiteStoreTests.dump(path) == before)
      let check = try SQLiteConnection(path: path, create: false)
      #expect(try check.statement("PRAGMA integrity_check").rows() == [[.text("ok")]])
      check.close()
      try SQLiteStore(url: url, model: Self.model).close()
    }
  #endif

  /// Inverse upkeep reads the other side's to-many relationship through reads that cannot throw;
  /// the throwing entry points load it first. On a file with a damaged page under a shelf's
  /// items, unlinking a book from the shelf by key-value coding, through the shelf's proxy, or by
  /// deleting the book throws the store's error, and nothing changes.
  @Test(arguments: ["setValue", "proxy", "delete"])
  func changingARelationshipWhoseOtherSideCannotBeLoadedThrows(_ operation: String) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let (shelfID, bookIDs) = try Self.makeShelf(at: url)
    let layout = try FileLayout(url.path)
    let bytes = Array(try Data(contentsOf: url))
    let children = layout.children(of: layout.roots["Item"]!, in: bytes)
    let page = children[children.count / 2].page
    try Data(layout.damaging(page: page, of: bytes)).write(to: url)
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    // The last book's row is on an intact page; its shelf's members are not all.
    let book = try context.existingObject(with: bookIDs.last!)
    let error = #expect(throws: SQLiteError.self) {
      switch operation {
      case "setValue": try book.setValue(nil, forKey: "shelf")
      case "proxy":
        let shelf = try #require(context.object(with: shelfID))
        try shelf.mutableOrderedSet(forKey: "items").remove(book)
      default: try context.delete(book)
      }
    }
    #expect(error?.kind == .corrupt)
    #expect(!context.hasChanges && !book.isDeleted)
    #expect((try book.value(forKey: "shelf") as? ManagedObject)?.objectID == shelfID)
    try store.close()
  }

  // MARK: Found by fuzzing

  /// A string holding a NUL character was bound as a C string: saved, it lost everything from
  /// the NUL on, and a fetch comparing with it compared with its beginning only.
  @Test func aStringWithANulCharacterIsSavedAndComparedWhole() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let container = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
    let writer = container.newContext()
    let book = try writer.insertObject(forEntityName: "Book")
    try book.setValue("before\0after", forKey: "title")
    try writer.save()
    let reader = container.newContext()
    let again = try reader.existingObject(with: book.objectID)
    #expect(try again.value(forKey: "title") as? String == "before\0after")
    let fetch = { (format: String) in
      try container.newContext().fetch(
        FetchRequest<ManagedObject>(
          entityName: "Book", predicate: try FetchPredicate(format: format))
      ).map(\.objectID)
    }
    #expect(try fetch("title == 'before\0after'") == [book.objectID])
    #expect(try fetch("title == 'before'").isEmpty)
    #expect(try fetch("title MATCHES 'be[f\0]ore.*'") == [book.objectID])
  }

  /// A predicate prints as text that parses back to it, but the lexer reads characters
  /// (grapheme clusters): a combining mark printed right after an escape (`\u{0}` then U+0301)
  /// or after the opening quote joined the escape's `}` or the quote into one character, and the
  /// text no longer parsed.
  @Test(arguments: [
    "a\0\u{301}b", "\u{301}x", "a\\\u{301}", "a\"\u{301}", "x\u{600}\n", "tab\t\u{20DD}",
    "e\u{301}", "👍🏽",
  ])
  func aStringConstantPrintsAsTextThatParsesBackToIt(_ value: String) throws {
    let predicate = try FetchPredicate(format: "title == %@", value)
    let again = try FetchPredicate(format: predicate.description)
    #expect(again == predicate, "\(predicate.description.debugDescription)")
  }

  /// The model of the fuzz targets in `Fuzz/` (`FuzzLibrary.model`).
  static let fuzzModel = try! ObjectModel(entities: [
    EntityDescription(
      name: "Category",
      attributes: [
        AttributeDescription(name: "name", type: .string, defaultValue: ""),
        AttributeDescription(name: "rank", type: .int, defaultValue: 0),
      ],
      relationships: [
        RelationshipDescription(
          name: "books", destination: "Book", inverse: "category", toMany: true)
      ]),
    EntityDescription(
      name: "Book",
      attributes: [
        AttributeDescription(name: "serial", type: .int, defaultValue: 0),
        AttributeDescription(name: "title", type: .string, defaultValue: ""),
        AttributeDescription(name: "subtitle", type: .string, isOptional: true),
        AttributeDescription(name: "price", type: .double, defaultValue: 0.0),
        AttributeDescription(name: "pages", type: .int32, defaultValue: Int32(0)),
        AttributeDescription(name: "published", type: .date, isOptional: true),
        AttributeDescription(name: "signed", type: .bool, defaultValue: false),
        AttributeDescription(name: "cost", type: .decimal, defaultValue: Decimal(0)),
        AttributeDescription(name: "id", type: .uuid, isOptional: true),
        AttributeDescription(name: "cover", type: .data, isOptional: true),
        AttributeDescription(name: "site", type: .url, isOptional: true),
      ],
      relationships: [
        RelationshipDescription(name: "category", destination: "Category", inverse: "books"),
        RelationshipDescription(name: "tags", destination: "Tag", inverse: "books", toMany: true),
      ]),
    EntityDescription(
      name: "Tag",
      attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
      relationships: [
        RelationshipDescription(
          name: "books", destination: "Book", inverse: "tags", toMany: true, ordered: true)
      ]),
  ])

  /// A store file (found by the `StoreFile` fuzz target, kept in its corpus) whose metadata page
  /// reads well until the store writes its key reservation into it: the open wrote and committed
  /// the reservation, then threw `corrupt` reading the metadata back, and the failed open had
  /// changed the file. The read now comes before the commit.
  @Test func aFileWhoseDamageShowsAfterTheKeyReservationIsLeftAsItWas() throws {
    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/Corpus/StoreFile/damaged-metadata-after-reservation")
    let bytes = try Data(contentsOf: corpus)
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("store.sqlite")
    try bytes.write(to: url)
    let error = #expect(throws: SQLiteError.self) {
      _ = try SQLiteStore(url: url, model: Self.fuzzModel)
    }
    #expect(error?.kind == .corrupt)
    #expect(try Data(contentsOf: url) == bytes)
  }
}

extension SQLiteValue {
  /// The integer of an integer value.
  var integer: Int64? {
    if case .integer(let value) = self { return value }
    return nil
  }
}
