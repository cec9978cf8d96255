import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

final class Volume: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var subtitle: String?
  @Attribute var price: Double = 0
  @Attribute var pages: Int = 0
  @Attribute var stock: Int?
  @Attribute var isSigned: Bool = false
  @Attribute var published: Date = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var cost: Decimal = 0
  @Attribute var code: Int = 0
  @Relationship(inverse: "volumes") var genre: Genre?

  override class var indexedKeys: Set<String> { ["code"] }
}

final class Genre: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var rank: Int = 0
  @Relationship(inverse: "children") var parent: Genre?
  @Relationship(inverse: "parent") var children: Set<Genre>
  @Relationship(inverse: "genre") var volumes: Set<Volume>

  override class var fetchedProperties: [FetchedPropertyDescription] {
    [
      FetchedPropertyDescription(
        name: "bargains", destination: "Volume",
        predicate: try! FetchPredicate(format: "price < 12 AND genre == $FETCH_SOURCE"),
        sortDescriptors: [FetchSort("title")])
    ]
  }
}

/// Fetching from a file gives what fetching in memory gives: every predicate and sort runs both
/// ways, over titles with non-ASCII and canonically equivalent strings, and the answers agree.
@Suite struct SQLiteFetchTests {
  static let model = try! ObjectModel(types: [Volume.self, Genre.self])

  static let titles = [
    "Caf\u{E9} Society", "Cafe\u{301} Noir", "cafe", "Stra\u{DF}e", "STRASSE", "\u{C9}cole",
    "ecole", "a10", "a2", "Zebra", "zebra", "\u{212A}elvin", "Kelvin", "", "The first book",
  ]

  /// A file with a volume per title and genres (nested, one volume without genre); returns the
  /// store's URL and the writing context (whose objects hold the same values).
  static func library(_ folder: SQLiteConnectionTests.Folder) throws -> (URL, ObjectContext) {
    let url = folder.url.appendingPathComponent("library.sqlite")
    let context = PersistentContainer(store: try SQLiteStore(url: url, model: model)).viewContext
    let genres = ["Fiction", "Caf\u{E9}", "Cafe\u{301}", "Science"].enumerated().map {
      index, name in
      let genre = context.insert(Genre.self)
      genre.name = name
      genre.rank = index % 2
      return genre
    }
    genres[2].parent = genres[0]
    genres[3].parent = genres[1]
    for (index, title) in titles.enumerated() {
      let volume = context.insert(Volume.self)
      volume.title = title
      volume.subtitle = index % 3 == 0 ? nil : titles[(index * 7) % titles.count]
      volume.price = [9.5, 12, 12.0, 3, 100, 0.25][index % 6]
      volume.pages = index * 37 % 11
      volume.stock = index % 4 == 0 ? nil : index % 5
      volume.isSigned = index % 2 == 0
      volume.published = Date(timeIntervalSinceReferenceDate: Double(index % 7) * 86_400)
      volume.cost = Decimal(index % 5) / 4
      volume.code = index * 13 % 17
      volume.genre = index == 5 ? nil : genres[index % genres.count]
    }
    try context.save()
    return (url, context)
  }

  static let formats = [
    "title == 'caf\u{E9}'", "title == 'Cafe\u{301} Noir'", "title == 'Caf\u{E9} Noir'",
    "title ==[c] 'CAFE'", "title ==[cd] 'CAFE'", "title !=[d] 'cafe'", "title == 'Kelvin'",
    "title < 'a2'", "title >= 'Zebra'", "title <=[c] 'strasse'", "title BETWEEN {'a', 'z'}",
    "title BEGINSWITH 'Caf'", "title BEGINSWITH[cd] 'cafe'", "title ENDSWITH 'e'",
    "title CONTAINS[c] 'ss'", "title CONTAINS ''", "title LIKE 'a?'", "title LIKE[c] '*E*'",
    "title MATCHES '[a-z]+'", "title MATCHES[c] 'z.*'", "title IN {'cafe', 'ecole', 'nope'}",
    "title IN {'cafe\u{301}', nil}", "subtitle == nil", "subtitle != nil",
    "subtitle != 'cafe'", "subtitle < 'b'", "subtitle BEGINSWITH 'a'",
    "price == 12", "price < 9.5", "price >= 12 AND price < 100", "price BETWEEN {3, 12}",
    "price IN {3, 100, 7}", "pages > 5", "stock == nil", "stock != 2", "stock < 3",
    "stock IN {1, nil}", "isSigned == YES", "isSigned != NO", "published > CAST(86400, 'NSDate')",
    "cost > 0.5", "cost == 1 AND price > 1", "code == 4", "code BETWEEN {2, 9}",
    "genre == nil", "genre.name == 'Fiction'", "genre.name ==[d] 'cafe'",
    "genre.name != 'Fiction'", "genre.rank == 1", "genre.parent.name == 'Fiction'",
    "genre.parent == nil", "genre.parent.name == nil", "genre.parent.rank < 1",
    "ANY genre.volumes.price > 50", "genre.volumes.@count > 3", "NOT (price < 10)",
    "price < 10 OR title BEGINSWITH 'Z'", "NOT (subtitle == nil OR pages < 3)",
    "TRUEPREDICATE", "FALSEPREDICATE", "12 > price", "'m' <= title",
    "NOT (stock < 3)", "NOT (genre.rank == 1)", "NOT (stock IN {1, 2})",
  ]

  /// Predicates on genres, through their to-many volumes.
  static let genreFormats = [
    "ANY volumes.price > 50", "ANY volumes.stock == nil", "ALL volumes.price > 1",
    "ALL volumes.stock < 4", "NONE volumes.title BEGINSWITH 'a'",
    "ANY volumes.title ==[cd] 'ecole'",
    "volumes.@count > 3", "volumes.@count == 0", "children.@count >= 1", "ANY children.rank == 1",
    "NOT (ALL volumes.stock != nil)", "ANY volumes.genre.name == nil", "volumes.@sum.price > 20",
  ]

  @Test(arguments: genreFormats)
  func aPredicateOverAToManySelectsTheSameObjectsInTheFileAsInMemory(_ format: String) throws {
    try Self.expectTheSameObjectsBothWays(format, Genre.self)
  }

  @Test(arguments: formats)
  func aPredicateSelectsTheSameObjectsInTheFileAsInMemory(_ format: String) throws {
    try Self.expectTheSameObjectsBothWays(format, Volume.self)
  }

  /// Fetches the objects of a class that match a predicate from a new context on the library's
  /// file, and expects those the predicate selects in memory, in key order.
  static func expectTheSameObjectsBothWays<T: ManagedObject>(_ format: String, _ type: T.Type)
    throws
  {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, writer) = try library(folder)
    let predicate = try FetchPredicate(format: format)
    let all = try writer.fetch(FetchRequest<T>())
    let expected = try all.filter { try predicate.evaluate(with: $0) }.map(\.objectID)
    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: model)).newContext()
    let fetched = try reader.fetch(FetchRequest<T>(matching: predicate))
    #expect(fetched.map(\.objectID) == expected.sorted { $0.key < $1.key })
  }

  static let sorts: [[FetchSort]] = [
    [FetchSort("title")], [FetchSort("title", ascending: false)],
    [FetchSort("title", comparison: .localizedStandard)],
    [FetchSort("title", comparison: .localized)], [FetchSort("subtitle")],
    [FetchSort("price"), FetchSort("title", ascending: false)], [FetchSort("stock")],
    [FetchSort("stock", ascending: false)], [FetchSort("published"), FetchSort("isSigned")],
    [FetchSort("genre.name"), FetchSort("pages")], [FetchSort("genre.parent.name")],
    [FetchSort("cost"), FetchSort("code")],
  ]

  /// Strings whose bytes order them differently from Swift, or nearly: a decomposed "é" after
  /// "f" (its "e" byte is smaller), a prefix followed by a combining mark, long shared prefixes.
  @Test func stringsSortInSwiftsOrderWhereTheirBytesDisagree() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("order.sqlite")
    let context = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .viewContext
    let titles = [
      "e\u{301}", "f", "e", "e\u{301}x", "ex", "Stored item number 12 with a long title",
      "Stored item number 3 with a long title", "Stored item number 12 with a long title!",
      "Stored item number 12 with a long titlE\u{301}", "Stored item number 12 with a long titlF",
      "abcdefgh", "abcdefghi", "abcdefgh\u{301}",
    ]
    for title in titles { context.insert(Volume.self).title = title }
    try context.save()
    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let fetched = try reader.fetch(
      FetchRequest<Volume>(matching: nil, sortedBy: [FetchSort("title")]))
    #expect(fetched.map(\.title) == titles.sorted())
    #expect(
      fetched.map(\.title).firstIndex(of: "f")! < fetched.map(\.title).firstIndex(of: "e\u{301}")!)
  }

  @Test(arguments: sorts)
  func sortKeysOrderTheSameInTheFileAsInMemory(_ sorts: [FetchSort]) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, writer) = try Self.library(folder)
    // The writing context holds unsaved changes of no volume: add one, so its fetch sorts in
    // memory, and leave it out of the comparison.
    let extra = writer.insert(Volume.self)
    let inMemory = try writer.fetch(FetchRequest<Volume>(matching: nil, sortedBy: sorts))
      .filter { $0 !== extra }.map(\.objectID)
    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let fetched = try reader.fetch(FetchRequest<Volume>(matching: nil, sortedBy: sorts))
    #expect(fetched.map(\.objectID) == inMemory)
    #expect(fetched.count == Self.titles.count)
  }
}

/// What a fetch returns around the store: unsaved changes merged before the offset and the
/// limit, faults or loaded objects, batches, counts, entities by name, and prefetching.
@Suite struct FetchRequestTests {
  typealias Library = SQLiteFetchTests

  /// A reader context on the library's file, and a trace of its statements.
  static func reader(_ url: URL) throws -> (ObjectContext, SQLiteStore) {
    let store = try SQLiteStore(url: url, model: Library.model)
    return (PersistentContainer(store: store).newContext(), store)
  }

  static func titles(_ volumes: [Volume]) -> [String] { volumes.map(\.title) }

  @Test func formatsThatSQLiteCanAnswerAreTranslatedWhole() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (_, store) = try Self.reader(url)
    let entity = try #require(Library.model.entity(named: "Volume"))
    let untranslated: Set<String> = [
      "cost > 0.5", "ANY genre.volumes.price > 50", "genre.volumes.@count > 3",
    ]
    let genre = try #require(Library.model.entity(named: "Genre"))
    let genreUntranslated: Set<String> = [
      "ANY volumes.genre.name == nil", "volumes.@sum.price > 20",
    ]
    for format in Library.genreFormats {
      var query = SQLQuery(store: store)
      let (sql, exact) = query.translate(
        try FetchPredicate(format: format), entity: genre, alias: "t")
      #expect(exact == !genreUntranslated.contains(format), "\(format)")
      #expect((sql != nil) == !genreUntranslated.contains(format), "\(format)")
    }
    let partly: Set<String> = ["cost == 1 AND price > 1"]
    for format in Library.formats {
      var query = SQLQuery(store: store)
      let (sql, exact) = query.translate(
        try FetchPredicate(format: format), entity: entity, alias: "t")
      let whole = !untranslated.contains(format) && !partly.contains(format)
      #expect(exact == whole, "\(format)")
      #expect((sql != nil) == !untranslated.contains(format), "\(format)")
    }
    // An AND keeps its translated part.
    var query = SQLQuery(store: store)
    let (sql, exact) = query.translate(
      try FetchPredicate(format: "cost > 0.5 AND price < 10"), entity: entity, alias: "t")
    #expect(!exact && sql == #"((t."price" < ?))"#)
    #expect(query.arguments == [.integer(10)])
  }

  @Test func aTypedPredicateAndSortFetchFromTheFileAsTheirStringForms() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    var statements: [String] = []
    store.connection.trace = { sql, _, _ in statements.append(sql) }
    let typed = try context.fetch(
      FetchRequest<Volume>(
        predicate: #Predicate { $0.price < 12 && $0.genre?.name == "Fiction" },
        sortBy: [SortDescriptor(\.title, order: .reverse)]))
    let parsed = try context.fetch(
      FetchRequest<Volume>(
        matching: try FetchPredicate(format: "price < 12 AND genre.name == 'Fiction'"),
        sortedBy: [FetchSort("title", ascending: false)]))
    #expect(!typed.isEmpty)
    #expect(typed.map(\.objectID) == parsed.map(\.objectID))
    #expect(statements.count == 2 && statements[0] == statements[1], "one SQL for both")
    // Without a limit, titles sort by their bytes in SQL (checked row by row for ASCII).
    #expect(statements[0].contains(#"ORDER BY t."title" DESC, t."og_pk""#))
    // With one, SQL must give Swift's order itself: the collation.
    var limited = FetchRequest<Volume>(
      matching: try FetchPredicate(format: "price < 12 AND genre.name == 'Fiction'"),
      sortedBy: [FetchSort("title", ascending: false)])
    limited.fetchLimit = 2
    #expect(try context.fetch(limited).map(\.objectID) == typed.prefix(2).map(\.objectID))
    #expect(statements.count == 3)
    #expect(statements.last?.contains(#"ORDER BY t."title" COLLATE og_swift DESC"#) == true)
  }

  @Test func unsavedChangesCountBeforeTheOffsetAndTheLimit() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (_, context) = try Library.library(folder)
    var request = FetchRequest<Volume>(
      matching: try FetchPredicate(format: "price < 10"), sortedBy: [FetchSort("title")])
    let saved = try context.fetch(request)
    // Swift's order: "\u{212A}elvin" (Kelvin sign) equals "Kelvin"; the two keep their keys'
    // order.
    let kelvinSign = "\u{212A}elvin"
    #expect(
      Self.titles(saved) == [
        "Caf\u{E9} Society", kelvinSign, "Kelvin", "Stra\u{DF}e", "Zebra", "ecole", "\u{C9}cole",
      ])
    // Insert one that matches, delete one, make one stop matching and one start.
    let new = context.insert(Volume.self)
    new.title = "Aardvark"
    new.price = 1
    try context.delete(saved[1])
    saved[2].price = 50
    let a10 = try #require(try context.fetch(FetchRequest<Volume>()).first { $0.title == "a10" })
    a10.price = 2
    #expect(
      Self.titles(try context.fetch(request)) == [
        "Aardvark", "Caf\u{E9} Society", "Stra\u{DF}e", "Zebra", "a10", "ecole", "\u{C9}cole",
      ])
    request.fetchOffset = 1
    request.fetchLimit = 2
    #expect(Self.titles(try context.fetch(request)) == ["Caf\u{E9} Society", "Stra\u{DF}e"])
    #expect(try context.count(for: request) == 2)
    // As the store answers: the deleted one is there, the inserted one is not, the changed
    // ones are where their saved values put them.
    request.includesPendingChanges = false
    #expect(Self.titles(try context.fetch(request)) == [kelvinSign, "Kelvin"])
  }

  @Test func theStoreAppliesTheOffsetAndTheLimitWhenNothingIsUnsaved() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    var statements: [String] = []
    store.connection.trace = { sql, _, _ in statements.append(sql) }
    var request = FetchRequest<Volume>(
      matching: try FetchPredicate(format: "price >= 12"), sortedBy: [FetchSort("title")])
    request.fetchOffset = 1
    request.fetchLimit = 3
    let volumes = try context.fetch(request)
    #expect(statements.count == 1 && statements[0].contains("LIMIT ? OFFSET ?"))
    #expect(volumes.allSatisfy { $0.isFault }, "faults, whose values came with the fetch")
    #expect(Self.titles(volumes) == ["Cafe\u{301} Noir", "STRASSE", "The first book"])
    #expect(statements.count == 1, "reading them loads nothing more")
    #expect(try context.count(for: FetchRequest<Volume>()) == Library.titles.count)
  }

  @Test func objectsComeBackLoadedOrAsFaultsWithoutValuesInBatches() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    var loaded = FetchRequest<Volume>()
    loaded.returnsObjectsAsFaults = false
    #expect(try context.fetch(loaded).allSatisfy { !$0.isFault })
    // The request's batch size, whatever the context's (100 by default, or 1: no batching).
    for contextBatchSize in [100, 1] {
      let (batched, batchedStore) = try Self.reader(url)
      batched.faultBatchSize = contextBatchSize
      var statements: [String] = []
      batchedStore.connection.trace = { sql, _, _ in statements.append(sql) }
      var request = FetchRequest<Volume>(matching: nil, sortedBy: [FetchSort("code")])
      request.fetchBatchSize = 4
      let volumes = try batched.fetch(request)
      #expect(statements.count == 1)
      #expect(
        statements[0].hasPrefix(
          #"SELECT t."og_pk", 2 AS "og_entity" FROM "Volume" AS t WHERE t."og_entity" = 2 "#))
      #expect(volumes.count == Library.titles.count)
      _ = volumes.map(\.title)
      // One load of volumes per batch of four, in the fetch's order.
      let volumeLoads = statements.dropFirst().filter { $0.contains(#"FROM "Volume""#) }
      #expect(volumeLoads.count == (Library.titles.count + 3) / 4, "\(contextBatchSize)")
    }
    _ = store
  }

  @Test func rowsWhoseEntityColumnNamesNoEntityOrAnotherAreLeftOut() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    // Another program changed the entity column of four volumes' rows: an id no entity has,
    // zero, text, and the id of the file's other entity (genres have a table of their own).
    let keys = try store.connection.statement(
      #"SELECT "og_pk" FROM "Volume" ORDER BY "og_pk" LIMIT 4"#
    ).rows().map { row -> Int64 in
      guard case .integer(let key) = row[0] else { return 0 }
      return key
    }
    #expect(keys.count == 4 && !keys.contains(0))
    let genreID = try #require(store.schema.entityIDs["Genre"])
    let entities = [
      SQLiteValue.integer(99), .integer(0), .text("Volume"), .integer(Int64(genreID)),
    ]
    for (key, entity) in zip(keys, entities) {
      try store.connection.statement(#"UPDATE "Volume" SET "og_entity" = ? WHERE "og_pk" = ?"#)
        .run([entity, .integer(key)])
    }
    let expected = Library.titles.count - 4
    var loaded = FetchRequest<Volume>()
    loaded.returnsObjectsAsFaults = false
    let volumes = try context.fetch(loaded)
    #expect(volumes.count == expected)
    #expect(volumes.allSatisfy { !keys.contains($0.objectID.key) })
    #expect(try context.fetch(FetchRequest<Volume>()).count == expected)
    #expect(
      try context.fetch(FetchRequest<Volume>(matching: nil, sortedBy: [FetchSort("title")])).count
        == expected)
    var batched = FetchRequest<Volume>(
      matching: try FetchPredicate(format: "pages >= 0"), sortedBy: [])
    batched.fetchBatchSize = 4
    #expect(try context.fetch(batched).count == expected)
    // Asked for by identifier, such a row is not found either.
    for key in keys {
      let id = ObjectID(storeIdentifier: store.identifier, entityName: "Volume", key: key)
      let missing = #expect(throws: ObjectGraphError.self) { try context.existingObject(with: id) }
      #expect(missing?.kind == .objectNotFound)
    }
    // Nor is it a member of its genre, whether the genres' members load together or one
    // genre's at a time.
    let volumeID = try #require(store.schema.entityIDs["Volume"])
    let withGenre = try store.connection.statement(
      #"SELECT count(*) FROM "Volume" WHERE "genre" IS NOT NULL AND "og_entity" = ?"#
    ).rows([.integer(Int64(volumeID))])
    #expect(withGenre.first?[0] == .integer(Int64(Library.titles.count - 5)))
    for batchSize in [100, 1] {
      let (members, _) = try Self.reader(url)
      members.faultBatchSize = batchSize
      let genres = try members.fetch(FetchRequest<Genre>())
      let volumesOfGenres = genres.flatMap(\.volumes)
      #expect(volumesOfGenres.count == Library.titles.count - 5, "\(batchSize)")
      #expect(volumesOfGenres.allSatisfy { !keys.contains($0.objectID.key) }, "\(batchSize)")
    }
  }

  @Test func entitiesByNameSubentitiesAndWrongEntities() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (context, _) = try Self.reader(url)
    let generic = try context.fetch(
      FetchRequest<ManagedObject>(
        entityName: "Genre", predicate: try FetchPredicate(format: "rank == 1"),
        sortDescriptors: [FetchSort("name", ascending: false)]))
    #expect(
      try generic.map { try $0.value(forKey: "name") as? String } == ["Science", "Caf\u{E9}"])
    let unknown = #expect(throws: ObjectGraphError.self) {
      try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf"))
    }
    #expect(unknown?.kind == .unknownEntity && unknown?.entity == "Shelf")
    let wrong = #expect(throws: ObjectGraphError.self) {
      try context.fetch(FetchRequest<Volume>(entityName: "Genre"))
    }
    #expect(wrong?.kind == .wrongEntity)
    let badKey = #expect(throws: ObjectGraphError.self) {
      try context.fetch(FetchRequest<Volume>(matching: try FetchPredicate(format: "weight > 1")))
    }
    #expect(badKey?.kind == .unknownKey && badKey?.entity == "Volume" && badKey?.key == "weight")
    let badSort = #expect(throws: ObjectGraphError.self) {
      try context.fetch(FetchRequest<Genre>(matching: nil, sortedBy: [FetchSort("volumes.price")]))
    }
    #expect(badSort?.kind == .notToMany)
  }

  @Test func prefetchingLoadsEachRelationshipStepInOneLoad() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    var statements: [String] = []
    store.connection.trace = { sql, _, _ in statements.append(sql) }
    var request = FetchRequest<Volume>()
    request.relationshipKeyPathsForPrefetching = ["genre.parent"]
    let volumes = try context.fetch(request)
    // The volumes, then their genres in one load; the genres' parents are among them.
    #expect(statements.count == 2)
    #expect(statements.last?.contains(#"FROM "Genre" WHERE "og_pk" IN (?, ?, ?, ?)"#) == true)
    #expect(Set(volumes.compactMap { $0.genre?.parent?.name }) == ["Fiction", "Caf\u{E9}"])
    #expect(statements.count == 2, "reading them loads nothing more")
  }

  @Test func prefetchingAToManyLoadsEveryOwnersMembersInOneLoad() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, writer) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    var statements: [String] = []
    store.connection.trace = { sql, _, _ in statements.append(sql) }
    var request = FetchRequest<Genre>(matching: nil, sortedBy: [FetchSort("name")])
    request.relationshipKeyPathsForPrefetching = ["volumes"]
    let genres = try context.fetch(request)
    #expect(statements.count == 2, "the genres, then the volumes of all of them")
    let saved = try writer.fetch(FetchRequest<Genre>(matching: nil, sortedBy: [FetchSort("name")]))
    #expect(
      genres.map { Set($0.volumes.map(\.objectID)) }
        == saved.map { Set($0.volumes.map(\.objectID)) })
    _ = genres.flatMap { $0.volumes.map(\.title) }
    #expect(statements.count == 2, "reading the members loads nothing more")
  }

  @Test func prefetchingAnOrderedManyToManyKeepsEachOwnersOrder() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("tags.sqlite")
    let model = SQLiteStoreModelTests.model
    let writer = PersistentContainer(store: try SQLiteStore(url: url, model: model)).viewContext
    let books = try (0..<5).map { index in
      let book = try writer.insertObject(forEntityName: "Book")
      try book.setValue("Book \(index)", forKey: "title")
      return book
    }
    var expected: [String: [String]] = [:]
    for (index, name) in ["a", "b", "c"].enumerated() {
      let tag = try writer.insertObject(forEntityName: "Tag")
      try tag.setValue(name, forKey: "name")
      let members = [books[(index + 2) % 5], books[index], books[(index + 4) % 5]]
      try tag.setValue(members, forKey: "items")
      expected[name] = try members.map { try $0.value(forKey: "title") as! String }
    }
    try writer.save()
    // Reordered after the first save: the join rows keep their order, their order column changes.
    for tag in try writer.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) {
      let items = try tag.value(forKey: "items") as! [ManagedObject]
      try tag.setValue(Array(items.reversed()), forKey: "items")
      let name = try tag.value(forKey: "name") as! String
      expected[name]?.reverse()
    }
    try writer.save()
    let store = try SQLiteStore(url: url, model: model)
    let reader = PersistentContainer(store: store).newContext()
    var statements: [String] = []
    store.connection.trace = { sql, _, _ in statements.append(sql) }
    var request = FetchRequest<ManagedObject>(entityName: "Tag")
    request.relationshipKeyPathsForPrefetching = ["items"]
    let tags = try reader.fetch(request)
    #expect(statements.count == 2)
    for tag in tags {
      let name = try tag.value(forKey: "name") as! String
      let items = try tag.value(forKey: "items") as! [ManagedObject]
      #expect(try items.map { try $0.value(forKey: "title") as! String } == expected[name])
    }
    #expect(statements.count == 2)
  }

  @Test func aCountIsOneQueryThatLoadsNothingWhenTheStoreCanAnswerIt() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, writer) = try Library.library(folder)
    let (context, store) = try Self.reader(url)
    var statements: [String] = []
    store.connection.trace = { sql, _, _ in statements.append(sql) }
    let cheap = try FetchPredicate(format: "price < 10")
    let expected = try writer.fetch(FetchRequest<Volume>(matching: cheap)).count
    #expect(try context.count(for: FetchRequest<Volume>(matching: cheap)) == expected)
    #expect(statements.count == 1 && statements[0].hasPrefix("SELECT COUNT(*)"))
    #expect(context.registeredObjects.isEmpty, "nothing was loaded")
    var window = FetchRequest<Volume>(matching: cheap)
    window.fetchOffset = 2
    window.fetchLimit = 3
    #expect(try context.count(for: window) == min(3, expected - 2))
    // A predicate SQL cannot answer whole, or unsaved changes: counted from the objects.
    let decimal = try FetchPredicate(format: "cost > 0.5")
    let decimals = try writer.fetch(FetchRequest<Volume>(matching: decimal)).count
    #expect(try context.count(for: FetchRequest<Volume>(matching: decimal)) == decimals)
    context.insert(Volume.self).price = 1
    #expect(try context.count(for: FetchRequest<Volume>(matching: cheap)) == expected + 1)
  }

  @Test func aContextWithoutAStoreFetchesItsObjects() throws {
    let context = ObjectContext(model: Library.model)
    for (index, title) in ["b", "a", "c"].enumerated() {
      let volume = context.insert(Volume.self)
      volume.title = title
      volume.price = Double(index)
    }
    let request = FetchRequest<Volume>(
      matching: try FetchPredicate(format: "price > 0"), sortedBy: [FetchSort("title")])
    #expect(Self.titles(try context.fetch(request)) == ["a", "c"])
    context.processPendingChanges()
    #expect(try context.count(for: request) == 2)
  }
}

/// Fetched properties: a named fetch an object answers by key, with `$FETCH_SOURCE` standing for
/// it, fetched on first use and kept until the object is refreshed.
@Suite struct FetchedPropertyTests {
  typealias Library = SQLiteFetchTests

  @Test func aFetchedPropertyAnswersWithItsObjectAndIsKeptUntilARefresh() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Library.library(folder)
    let store = try SQLiteStore(url: url, model: Library.model)
    let context = PersistentContainer(store: store).newContext()
    let genres = try context.fetch(
      FetchRequest<Genre>(matching: nil, sortedBy: [FetchSort("name")]))
    let fiction = try #require(genres.first { $0.name == "Fiction" })
    let bargains = try #require(try fiction.value(forKey: "bargains") as? [ManagedObject])
    let expected = fiction.volumes.filter { $0.price < 12 }.sorted {
      ($0.title, $0.objectID.key) < ($1.title, $1.objectID.key)
    }
    #expect(bargains.map(\.objectID) == expected.map(\.objectID))
    #expect(!expected.isEmpty)
    // Kept: a change does not show until the genre is refreshed.
    let dear = try #require(expected.first as Volume?)
    dear.price = 500
    #expect((try fiction.value(forKey: "bargains") as? [ManagedObject])?.count == expected.count)
    try context.refresh(fiction, mergeChanges: false)
    let again = try #require(try fiction.value(forKey: "bargains") as? [ManagedObject])
    #expect(again.map(\.objectID) == expected.dropFirst().map(\.objectID))
    // Through a key path too, and unknown keys still throw.
    #expect((try fiction.value(forKeyPath: "bargains") as? [ManagedObject])?.count == again.count)
    #expect(throws: ObjectGraphError.self) { try fiction.value(forKey: "bargainz") }
  }

  @Test func aModelRefusesFetchedPropertiesThatDoNotFit() throws {
    func model(_ fetched: FetchedPropertyDescription) throws -> ObjectModel {
      try ObjectModel(entities: [
        EntityDescription(
          name: "Shelf", attributes: [AttributeDescription(name: "name", type: .string)],
          fetchedProperties: [fetched]),
        EntityDescription(
          name: "Item", attributes: [AttributeDescription(name: "price", type: .double)]),
      ])
    }
    let cheap = try FetchPredicate(format: "price < 12")
    let clash = #expect(throws: ObjectGraphError.self) {
      try model(FetchedPropertyDescription(name: "name", destination: "Item", predicate: cheap))
    }
    #expect(clash?.kind == .duplicateProperty && clash?.entity == "Shelf" && clash?.key == "name")
    let nowhere = #expect(throws: ObjectGraphError.self) {
      try model(FetchedPropertyDescription(name: "cheap", destination: "Nope", predicate: cheap))
    }
    #expect(nowhere?.kind == .unknownDestination && nowhere?.value == "Nope")
    let badKey = #expect(throws: ObjectGraphError.self) {
      try model(
        FetchedPropertyDescription(
          name: "cheap", destination: "Item", predicate: try FetchPredicate(format: "cost < 1")))
    }
    #expect(badKey?.kind == .unknownKey && badKey?.entity == "Item" && badKey?.key == "cost")
    let badSort = #expect(throws: ObjectGraphError.self) {
      try model(
        FetchedPropertyDescription(
          name: "cheap", destination: "Item", predicate: cheap, sortDescriptors: [FetchSort("x")]))
    }
    #expect(badSort?.kind == .unknownKey)
    #expect(
      try model(FetchedPropertyDescription(name: "cheap", destination: "Item", predicate: cheap))
        .entity(named: "Shelf")?.fetchedProperties.map(\.name) == ["cheap"])
  }
}
