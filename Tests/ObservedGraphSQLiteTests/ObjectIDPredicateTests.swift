import Foundation
import Testing

@testable import ObservedGraph
@testable import ObservedGraphSQLite

// A board of cards: a to-one (a card's column), a to-many kept by the members' column (a
// column's cards) and a many-to-many kept in a join table (cards and tags).

final class KanbanColumn: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "column") var cards: Set<KanbanCard>
}

final class KanbanCard: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "cards") var column: KanbanColumn?
  @Relationship(inverse: "cards") var tags: Set<KanbanTag>

  /// Gives the identifier back, but is not `objectID`: a predicate cannot use it.
  var identifier: ObjectID { objectID }
}

final class KanbanTag: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "tags") var cards: Set<KanbanCard>
}

/// The board's objects by name, and their identifiers (what a `#Predicate` can capture).
struct KanbanBoard {
  static let model = try! ObjectModel(
    types: [KanbanColumn.self, KanbanCard.self, KanbanTag.self])

  /// Cards: name, column, tags.
  static let cards: [(String, String?, [String])] = [
    ("Write", "Todo", ["urgent"]), ("Test", "Todo", ["urgent", "later"]),
    ("Ship", "Doing", ["later"]), ("Idea", nil, []), ("Fix", "Done", ["urgent"]),
  ]

  /// Identifiers by name: columns, cards and tags have names of their own.
  struct IDs: Sendable {
    let byName: [String: ObjectID]

    subscript(_ name: String) -> ObjectID { byName[name]! }
  }

  /// Inserts the board into `context`.
  @discardableResult
  static func insert(into context: ObjectContext) -> IDs {
    var objects: [String: ManagedObject] = [:]
    for name in ["Todo", "Doing", "Done"] {
      let column = context.insert(KanbanColumn.self)
      column.name = name
      objects[name] = column
    }
    for name in ["urgent", "later", "unused"] {
      let tag = context.insert(KanbanTag.self)
      tag.name = name
      objects[name] = tag
    }
    for (name, column, tags) in cards {
      let card = context.insert(KanbanCard.self)
      card.name = name
      card.column = column.map { objects[$0] as! KanbanColumn }
      card.tags = Set(tags.map { objects[$0] as! KanbanTag })
      objects[name] = card
    }
    return IDs(byName: objects.mapValues(\.objectID))
  }

  /// The names of objects of the board's classes.
  static func names(_ objects: [ManagedObject]) -> [String] {
    objects.map { object in
      switch object {
      case let card as KanbanCard: card.name
      case let column as KanbanColumn: column.name
      case let tag as KanbanTag: tag.name
      default: "?"
      }
    }
  }
}

/// How a test spells an identifier in a predicate's description, written out here rather than
/// taken from the library.
func spelled(_ id: ObjectID) -> String {
  "CAST(\"og://\(id.storeIdentifier.uuidString)/\(id.entityName)/\(id.key)\", \"ObjectID\")"
}

/// A `#Predicate` on one of the board's classes, erased to what the tests do with it.
struct KanbanQuery {
  /// The name of the entity of the predicate's class.
  let entityName: String
  /// The converted fetch predicate.
  let convert: (ObjectModel) throws -> FetchPredicate
  /// The names of the objects a fetch with the `#Predicate` returns, in key order.
  let fetch: (ObjectContext) throws -> [String]
  /// The names of the objects of the class in the context (unsaved changes included) that the
  /// `#Predicate` itself, evaluated by Foundation, accepts: Swift's answer.
  let swift: (ObjectContext) throws -> [String]

  init<T: ManagedObject>(_ predicate: Predicate<T>) {
    entityName = T.entityName
    convert = { try FetchPredicate(predicate, model: $0) }
    fetch = { context in
      KanbanBoard.names(try context.fetch(FetchRequest<T>(predicate: predicate)))
    }
    swift = { context in
      let all = try context.fetch(FetchRequest<T>())
      return KanbanBoard.names(try all.filter { try predicate.evaluate($0) })
    }
  }
}

/// One form of `#Predicate` with object identifiers: the predicate made from the board's
/// identifiers, its string form, the description both must have, and what it selects from the
/// board.
struct ObjectIDForm: Sendable, CustomTestStringConvertible {
  let testDescription: String
  let query: @Sendable (KanbanBoard.IDs) -> KanbanQuery
  let format: @Sendable (KanbanBoard.IDs) throws -> FetchPredicate
  let expected: @Sendable (KanbanBoard.IDs) -> String
  /// The names of the objects selected from the saved board, in key order.
  let selects: [String]

  init<T: ManagedObject>(
    _ name: String, selects: [String],
    expected: @escaping @Sendable (KanbanBoard.IDs) -> String,
    format: @escaping @Sendable (KanbanBoard.IDs) throws -> FetchPredicate,
    predicate: @escaping @Sendable (KanbanBoard.IDs) -> Predicate<T>
  ) {
    testDescription = name
    query = { KanbanQuery(predicate($0)) }
    self.format = format
    self.expected = expected
    self.selects = selects
  }
}

/// A `#Predicate` that uses `objectID` other than whole, and what its error must say.
struct RefusedObjectIDForm: Sendable, CustomTestStringConvertible {
  let testDescription: String
  let mentions: String
  let predicate: Predicate<KanbanCard>

  init(_ name: String, mentions: String, _ predicate: Predicate<KanbanCard>) {
    testDescription = name
    self.mentions = mentions
    self.predicate = predicate
  }
}

/// Where the home context of a fetch keeps its objects, and where the foreign identifiers come
/// from: another context of the same kind.
enum KanbanStoreKind: String, Sendable, CaseIterable {
  case none, inMemory, sqlite

  /// A context holding a saved board (for `none`, an unsaved one), and the board's identifiers.
  func board(in folder: SQLiteConnectionTests.Folder, _ name: String) throws -> (
    ObjectContext, KanbanBoard.IDs
  ) {
    let context: ObjectContext
    switch self {
    case .none: context = ObjectContext(model: KanbanBoard.model)
    case .inMemory: context = PersistentContainer(model: KanbanBoard.model).viewContext
    case .sqlite:
      let url = folder.url.appendingPathComponent("\(name).sqlite")
      context =
        PersistentContainer(store: try SQLiteStore(url: url, model: KanbanBoard.model))
        .viewContext
    }
    let ids = KanbanBoard.insert(into: context)
    if self != .none { try context.save() }
    return (context, ids)
  }
}

@Suite("Object identifiers in #Predicate")
struct ObjectIDPredicateTests {
  static let identity: [ObjectIDForm] = [
    ObjectIDForm(
      "$0.objectID == id", selects: ["Test"], expected: { "SELF == \(spelled($0["Test"]))" },
      format: { try FetchPredicate(format: "SELF == %@", $0["Test"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let test = ids["Test"]
        return #Predicate { $0.objectID == test }
      }),
    ObjectIDForm(
      "$0.objectID != id", selects: ["Write", "Ship", "Idea", "Fix"],
      expected: { "SELF != \(spelled($0["Test"]))" },
      format: { try FetchPredicate(format: "SELF != %@", $0["Test"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let test = ids["Test"]
        return #Predicate { $0.objectID != test }
      }),
    ObjectIDForm(
      "id == $0.objectID", selects: ["Test"], expected: { "\(spelled($0["Test"])) == SELF" },
      format: { try FetchPredicate(format: "%@ == SELF", $0["Test"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let test = ids["Test"]
        return #Predicate { test == $0.objectID }
      }),
  ]

  static let toOne: [ObjectIDForm] = [
    ObjectIDForm(
      "$0.column?.objectID == id", selects: ["Write", "Test"],
      expected: { "column == \(spelled($0["Todo"]))" },
      format: { try FetchPredicate(format: "column == %@", $0["Todo"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let todo = ids["Todo"]
        return #Predicate { $0.column?.objectID == todo }
      }),
    ObjectIDForm(
      "$0.column?.objectID != id", selects: ["Ship", "Idea", "Fix"],
      expected: { "column != \(spelled($0["Todo"]))" },
      format: { try FetchPredicate(format: "column != %@", $0["Todo"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let todo = ids["Todo"]
        return #Predicate { $0.column?.objectID != todo }
      }),
    ObjectIDForm(
      "$0.column == nil", selects: ["Idea"], expected: { _ in "column == nil" },
      format: { _ in try FetchPredicate(format: "column == nil") },
      predicate: { _ -> Predicate<KanbanCard> in #Predicate { $0.column == nil } }),
    ObjectIDForm(
      "$0.column != nil", selects: ["Write", "Test", "Ship", "Fix"],
      expected: { _ in "column != nil" },
      format: { _ in try FetchPredicate(format: "column != nil") },
      predicate: { _ -> Predicate<KanbanCard> in #Predicate { $0.column != nil } }),
  ]

  static let lists: [ObjectIDForm] = [
    ObjectIDForm(
      "[id].contains($0.objectID)", selects: ["Write", "Test"],
      expected: { "SELF IN {\(spelled($0["Test"])), \(spelled($0["Write"]))}" },
      format: { try FetchPredicate(format: "SELF IN %@", [$0["Test"], $0["Write"]]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let chosen = [ids["Test"], ids["Write"]]
        return #Predicate { chosen.contains($0.objectID) }
      }),
    ObjectIDForm(
      "Set<ObjectID>.contains($0.objectID)", selects: ["Test"],
      expected: { "SELF IN {\(spelled($0["Test"]))}" },
      format: { try FetchPredicate(format: "SELF IN %@", Set([$0["Test"]])) },
      predicate: { ids -> Predicate<KanbanCard> in
        let chosen: Set = [ids["Test"]]
        return #Predicate { chosen.contains($0.objectID) }
      }),
    ObjectIDForm(
      "[id, nil].contains($0.column.flatMap { $0.objectID })", selects: ["Ship", "Idea"],
      expected: { "column IN {\(spelled($0["Doing"])), nil}" },
      format: { try FetchPredicate(format: "column IN %@", [$0["Doing"], nil] as [ObjectID?]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let chosen: [ObjectID?] = [ids["Doing"], nil]
        return #Predicate { chosen.contains($0.column.flatMap { $0.objectID }) }
      }),
  ]

  static let toMany: [ObjectIDForm] = [
    ObjectIDForm(
      "$0.tags.contains { $0.objectID == id }", selects: ["Write", "Test", "Fix"],
      expected: { "ANY tags == \(spelled($0["urgent"]))" },
      format: { try FetchPredicate(format: "ANY tags == %@", $0["urgent"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let urgent = ids["urgent"]
        return #Predicate { $0.tags.contains { $0.objectID == urgent } }
      }),
    ObjectIDForm(
      "!$0.tags.contains { $0.objectID == id }", selects: ["Ship", "Idea"],
      expected: { "NOT ANY tags == \(spelled($0["urgent"]))" },
      format: { try FetchPredicate(format: "NOT ANY tags == %@", $0["urgent"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let urgent = ids["urgent"]
        return #Predicate { !$0.tags.contains { $0.objectID == urgent } }
      }),
    ObjectIDForm(
      "$0.tags.allSatisfy { $0.objectID != id }", selects: ["Ship", "Idea"],
      expected: { "ALL tags != \(spelled($0["urgent"]))" },
      format: { try FetchPredicate(format: "ALL tags != %@", $0["urgent"]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let urgent = ids["urgent"]
        return #Predicate { $0.tags.allSatisfy { $0.objectID != urgent } }
      }),
    ObjectIDForm(
      "$0.tags.contains { ids.contains($0.objectID) }", selects: ["Test", "Ship"],
      expected: { "ANY tags IN {\(spelled($0["later"])), \(spelled($0["unused"]))}" },
      format: { try FetchPredicate(format: "ANY tags IN %@", [$0["later"], $0["unused"]]) },
      predicate: { ids -> Predicate<KanbanCard> in
        let chosen = [ids["later"], ids["unused"]]
        return #Predicate { $0.tags.contains { chosen.contains($0.objectID) } }
      }),
    ObjectIDForm(
      "$0.cards.contains { $0.objectID == id }", selects: ["Doing"],
      expected: { "ANY cards == \(spelled($0["Ship"]))" },
      format: { try FetchPredicate(format: "ANY cards == %@", $0["Ship"]) },
      predicate: { ids -> Predicate<KanbanColumn> in
        let ship = ids["Ship"]
        return #Predicate { $0.cards.contains { $0.objectID == ship } }
      }),
  ]

  static let forms = identity + toOne + lists + toMany

  /// A file holding the saved board, and its identifiers.
  static func savedFile(_ folder: SQLiteConnectionTests.Folder) throws -> (URL, KanbanBoard.IDs) {
    let url = folder.url.appendingPathComponent("board.sqlite")
    let writer = PersistentContainer(store: try SQLiteStore(url: url, model: KanbanBoard.model))
      .viewContext
    let ids = KanbanBoard.insert(into: writer)
    try writer.save()
    return (url, ids)
  }

  @Test(arguments: forms)
  func convertsAsTheStringForm(_ form: ObjectIDForm) throws {
    let context = ObjectContext(model: KanbanBoard.model)
    let ids = KanbanBoard.insert(into: context)
    let converted = try form.query(ids).convert(KanbanBoard.model)
    #expect(converted.description == form.expected(ids))
    #expect(converted == (try form.format(ids)))
  }

  @Test(arguments: forms)
  func fetchesInMemory(_ form: ObjectIDForm) throws {
    // A context without a store: every object is unsaved.
    let context = ObjectContext(model: KanbanBoard.model)
    let ids = KanbanBoard.insert(into: context)
    #expect(try form.query(ids).fetch(context) == form.selects)
    #expect(try form.query(ids).swift(context) == form.selects)
    // Saved into an in-memory store, fetched by a new context.
    let container = PersistentContainer(model: KanbanBoard.model)
    let saved = KanbanBoard.insert(into: container.viewContext)
    try container.viewContext.save()
    #expect(try form.query(saved).fetch(container.newContext()) == form.selects)
  }

  @Test(arguments: forms)
  func fetchesFromAnSQLiteFileInSQL(_ form: ObjectIDForm) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, ids) = try Self.savedFile(folder)
    let store = try SQLiteStore(url: url, model: KanbanBoard.model)
    let query = form.query(ids)
    // The whole predicate runs in SQL.
    let predicate = try query.convert(KanbanBoard.model)
    let entity = try #require(KanbanBoard.model.entity(named: query.entityName))
    var sql = SQLQuery(store: store)
    let (translated, exact) = sql.translate(predicate, entity: entity, alias: "t")
    #expect(exact && translated != nil, "\(predicate)")
    #expect(try query.fetch(PersistentContainer(store: store).newContext()) == form.selects)
  }

  @Test(arguments: forms)
  func unsavedChangesOverlayTheSavedRows(_ form: ObjectIDForm) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, ids) = try Self.savedFile(folder)
    let context = PersistentContainer(store: try SQLiteStore(url: url, model: KanbanBoard.model))
      .newContext()
    func object<T: ManagedObject>(_ name: String, _ type: T.Type) throws -> T {
      try #require(try context.existingObject(with: ids[name]) as? T)
    }
    let (todo, doing) = (
      try object("Todo", KanbanColumn.self), try object("Doing", KanbanColumn.self)
    )
    let (urgent, later) = (
      try object("urgent", KanbanTag.self), try object("later", KanbanTag.self)
    )
    // Ship moves to Todo and becomes urgent, Write loses its tag, Idea gets a column, Test is
    // deleted, and a new card joins Doing with the tag nobody had.
    let ship = try object("Ship", KanbanCard.self)
    ship.column = todo
    ship.tags.insert(urgent)
    try object("Write", KanbanCard.self).tags = []
    try object("Idea", KanbanCard.self).column = doing
    try context.delete(try object("Test", KanbanCard.self))
    let new = context.insert(KanbanCard.self)
    new.name = "New"
    new.column = doing
    new.tags = [try object("unused", KanbanTag.self), later]
    let query = form.query(ids)
    let fetched = try query.fetch(context)
    #expect(fetched == (try query.swift(context)))
    #expect(fetched != form.selects, "the changes change the answer")
  }

  static let someIdentifier = ObjectID(storeIdentifier: UUID(), entityName: "KanbanCard", key: 1)
  static let someStore = UUID()

  static let refused: [RefusedObjectIDForm] = [
    RefusedObjectIDForm(
      "$0.objectID.key > 3", mentions: "\\ObjectID.key read on objectID",
      #Predicate { $0.objectID.key > 3 }),
    RefusedObjectIDForm(
      "$0.objectID.entityName == \"x\"", mentions: "\\ObjectID.entityName read on objectID",
      #Predicate { $0.objectID.entityName == "x" }),
    RefusedObjectIDForm(
      "$0.objectID.storeIdentifier == id", mentions: "\\ObjectID.storeIdentifier read on objectID",
      #Predicate { $0.objectID.storeIdentifier == someStore }),
    RefusedObjectIDForm(
      "$0.column?.objectID.key == 1", mentions: "\\ObjectID.key read on objectID",
      #Predicate { $0.column?.objectID.key == 1 }),
    RefusedObjectIDForm(
      "$0.tags.contains { $0.objectID.key > 3 }", mentions: "\\ObjectID.key read on objectID",
      #Predicate { $0.tags.contains { $0.objectID.key > 3 } }),
    RefusedObjectIDForm(
      "an alias of objectID", mentions: "reads no Attribute or Relationship property",
      #Predicate { $0.identifier == someIdentifier }),
  ]

  @Test(arguments: refused)
  func otherUsesOfObjectIDAreRefused(_ form: RefusedObjectIDForm) throws {
    let context = ObjectContext(model: KanbanBoard.model)
    KanbanBoard.insert(into: context)
    let error = #expect(throws: ObjectGraphError.self) {
      try context.fetch(FetchRequest<KanbanCard>(predicate: form.predicate))
    }
    #expect(error?.kind == .invalidPredicate)
    #expect(error?.entity == "KanbanCard")
    #expect(error?.description.contains(form.mentions) == true, "\(String(describing: error))")
  }

  @Test func anOrderOfIdentifiersIsRefused() throws {
    // `<` compiles on identifiers only with an order the app declares (`ObjectID` has none): the
    // conversion refuses the comparison it then meets.
    let entity = try #require(KanbanBoard.model.entity(for: KanbanCard.self))
    let converter = FoundationPredicateConverter(entity: entity)
    let error = #expect(throws: ObjectGraphError.self) {
      try converter.compare(
        .objectID("", entity: entity), .lessThan, .constant(Self.someIdentifier))
    }
    #expect(error?.kind == .invalidPredicate && error?.entity == "KanbanCard")
    #expect(
      error?.reason.contains("objectID compared with <") == true, "\(String(describing: error))")
  }

  @Test(arguments: KanbanStoreKind.allCases)
  func anIdentifierOfAnotherStoreThrowsAtFetch(_ kind: KanbanStoreKind) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (context, own) = try kind.board(in: folder, "home")
    let (_, foreign) = try kind.board(in: folder, "elsewhere")
    #expect(foreign["Test"].storeIdentifier != own["Test"].storeIdentifier)
    let (test, todo, urgent) = (foreign["Test"], foreign["Todo"], foreign["urgent"])
    let mixed = [own["Write"], foreign["Write"]]
    let requests: [(key: String, value: ObjectID, request: FetchRequest<KanbanCard>)] = [
      ("SELF", test, FetchRequest(predicate: #Predicate { $0.objectID == test })),
      ("SELF", test, FetchRequest(predicate: #Predicate { $0.objectID != test })),
      ("column", todo, FetchRequest(predicate: #Predicate { $0.column?.objectID == todo })),
      (
        "SELF", foreign["Write"],
        FetchRequest(predicate: #Predicate { mixed.contains($0.objectID) })
      ),
      (
        "tags", urgent,
        FetchRequest(predicate: #Predicate { $0.tags.contains { $0.objectID == urgent } })
      ),
      (
        "column", todo,
        FetchRequest(predicate: #Predicate { $0.column == nil || $0.column?.objectID != todo })
      ),
      ("SELF", test, FetchRequest(matching: try FetchPredicate(format: "SELF == %@", test))),
    ]
    for (key, value, request) in requests {
      let fetches = [
        { _ = try context.fetch(request) }, { _ = try context.count(for: request) },
        { _ = try FetchedResults(context: context, request: request) },
      ]
      for fetch in fetches {
        let error = #expect(throws: ObjectGraphError.self, "\(kind) \(key)") { try fetch() }
        #expect(error?.kind == .otherStore, "\(kind) \(String(describing: error))")
        #expect(error?.entity == "KanbanCard" && error?.key == key, "\(String(describing: error))")
        #expect(error?.value == value.description, "\(String(describing: error))")
      }
    }
    // The same predicates with the context's own identifiers fetch.
    let ownTest = own["Test"]
    #expect(
      KanbanBoard.names(
        try context.fetch(
          FetchRequest<KanbanCard>(predicate: #Predicate { $0.objectID == ownTest })))
        == ["Test"])
  }
}
