import Foundation
import ObservedGraph
import Testing
import UndoLog

@testable import ObservedGraphSQLite

/// Version 1 of a typed journal model: an entry, and a dated entry under it.
enum JournalV1 {
  class Entry: ManagedObject {
    override class var entityName: String { "Entry" }
    @Attribute var heading: String = ""
    @Attribute var body: String?
  }
  final class DatedEntry: Entry {
    override class var entityName: String { "DatedEntry" }
    @Attribute var day: Int = 0
    @Attribute var mood: String = "calm"
  }
}

/// Version 2: renames at both levels, declared on the wrappers; the renamed properties are not
/// the first of their classes.
enum JournalV2 {
  class Entry: ManagedObject {
    override class var entityName: String { "Entry" }
    @Attribute var pinned = false
    @Attribute(originalName: "heading") var title: String = ""
    @Attribute(originalName: "body") var text: String?
  }
  final class DatedEntry: Entry {
    override class var entityName: String { "DatedEntry" }
    @Attribute var day: Int = 0
    @Attribute(originalName: "mood") var feeling: String = "calm"
  }
}

/// A class whose entity and relationship were renamed.
final class RenamedShelf: ManagedObject {
  override class var originalEntityName: String? { "Shelf" }
  @Relationship(inverse: .noInverse, originalName: "following") var next: RenamedShelf?
}

/// Model versions and inferred migrations on real files: a file made by an earlier version opens
/// migrated through every later version in one transaction, its objects and identifiers kept; a
/// later version's file, an unlisted model and a change that cannot be inferred are refused with
/// the file left as it was.
@Suite struct MigrationTests {
  // MARK: Versions of a notes model

  /// Version 1: a note with a title, optional notes and a page count; a folder holding notes.
  static func v1() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note",
          attributes: [
            AttributeDescription(name: "title", type: .string, defaultValue: "", isIndexed: true),
            AttributeDescription(name: "notes", type: .string, isOptional: true, isIndexed: true),
            AttributeDescription(name: "pages", type: .int, isOptional: true),
          ],
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes")
          ]),
        EntityDescription(
          name: "Folder",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "folder", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: "1.0.0")
  }

  /// Version 2: `archived` added with a default, `notes` renamed `details`, `pages` no longer
  /// optional (objects without a value take 1), the folder's name removed.
  static func v2() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note",
          attributes: [
            AttributeDescription(name: "title", type: .string, defaultValue: "", isIndexed: true),
            AttributeDescription(
              name: "details", type: .string, isOptional: true, isIndexed: true,
              originalName: "notes"),
            AttributeDescription(name: "pages", type: .int, defaultValue: 1),
            AttributeDescription(name: "archived", type: .bool, defaultValue: false),
          ],
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes")
          ]),
        EntityDescription(
          name: "Folder",
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "folder", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: "2.0.0")
  }

  /// Version 3: `details` renamed `summary` (from version 2's name), a colour with a default on
  /// folders.
  static func v3() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note",
          attributes: [
            AttributeDescription(name: "title", type: .string, defaultValue: "", isIndexed: true),
            AttributeDescription(
              name: "summary", type: .string, isOptional: true, isIndexed: true,
              originalName: "details"),
            AttributeDescription(name: "pages", type: .int, defaultValue: 1),
            AttributeDescription(name: "archived", type: .bool, defaultValue: false),
          ],
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes")
          ]),
        EntityDescription(
          name: "Folder",
          attributes: [
            AttributeDescription(name: "colour", type: .string, defaultValue: "it's blue")
          ],
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "folder", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: "3.0.0")
  }

  /// A version 1 file with a folder and two notes (the second without notes or pages); returns
  /// the identifiers of the notes and the folder.
  static func version1File(at url: URL, model: ObjectModel? = nil) throws -> ([ObjectID], ObjectID)
  {
    let store = try SQLiteStore(url: url, model: model ?? v1())
    let context = PersistentContainer(store: store).viewContext
    let folder = try context.insertObject(forEntityName: "Folder")
    try folder.setValue("Inbox", forKey: "name")
    let first = try context.insertObject(forEntityName: "Note")
    try first.setValue("Dune", forKey: "title")
    try first.setValue("spice", forKey: "notes")
    try first.setValue(412, forKey: "pages")
    try first.setValue(folder, forKey: "folder")
    let second = try context.insertObject(forEntityName: "Note")
    try second.setValue("Emma", forKey: "title")
    try context.save()
    let ids = ([first, second].map(\.objectID), folder.objectID)
    try store.close()
    return ids
  }

  static func options(_ plan: MigrationPlan, failingAt step: Int? = nil) -> SQLiteStore.Options {
    var options = SQLiteStore.Options()
    options.migrationPlan = plan
    options.migrationFailingStep = step
    return options
  }

  /// The refusals `body` throws (`migrationNotInferred`), each as "Entity.property: change";
  /// nil when it throws something else or nothing.
  static func refusals(_ body: () throws -> Any) -> [String]? {
    do {
      _ = try body()
      return nil
    } catch SQLiteStoreOpenError.migrationNotInferred(_, let refusals) {
      return refusals.map { "\($0.entity).\($0.property ?? ""): \($0.change)" }
    } catch {
      return nil
    }
  }

  /// Every table's rows and the schema's SQL, to compare a file before and after.
  static func contents(_ url: URL) throws -> [String] {
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    var lines = try connection.statement("SELECT type, name, sql FROM sqlite_master ORDER BY name")
      .rows().map { "\($0)" }
    for case .text(let table) in try SQLiteStoreFile.tables(connection).map(SQLiteValue.text) {
      for row in try connection.statement("SELECT * FROM \(SQLiteSchema.quoted(table))").rows() {
        lines.append("\(table): \(row)")
      }
    }
    return lines
  }

  // MARK: Migrating

  @Test func aVersion1FileOpensAsVersion2WithItsObjectsAndIdentifiers() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, folderID) = try Self.version1File(at: url)
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    #expect(try plan.validate(against: url) == ["2.0.0"])

    let store = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    #expect(store.metadata["modelVersion"] == "2.0.0")
    #expect(store.metadata["versionHash"] == plan.currentModel.versionHash)
    let context = PersistentContainer(store: store).viewContext
    let dune = try context.existingObject(with: noteIDs[0])
    let emma = try context.existingObject(with: noteIDs[1])
    #expect(try dune.value(forKey: "title") as? String == "Dune")
    #expect(try dune.value(forKey: "details") as? String == "spice", "renamed, value kept")
    #expect(try dune.value(forKey: "pages") as? Int == 412)
    #expect(try dune.value(forKey: "archived") as? Bool == false, "added, default taken")
    #expect(try emma.value(forKey: "details") == nil)
    #expect(try emma.value(forKey: "pages") as? Int == 1, "made required: the default filled in")
    let inbox = try context.existingObject(with: folderID)
    #expect(try dune.value(forKey: "folder") as? ManagedObject === inbox)
    #expect(inbox.entity.propertyNames == ["notes"])
    // The renamed column's index came back under its new name; the fetch uses the new names.
    let found = try context.fetch(
      FetchRequest<ManagedObject>(
        entityName: "Note", predicate: try FetchPredicate(format: "details == 'spice'")))
    #expect(found.map(\.objectID) == [noteIDs[0]])
    try store.close()
    let connection = try SQLiteConnection(path: url.path, create: false)
    let indexes = try connection.statement(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Note' ORDER BY name"
    ).rows()
    connection.close()
    #expect(
      indexes.map { $0[0] }
        == ["og_index_Note_details", "og_index_Note_folder", "og_index_Note_title"].map(
          SQLiteValue.text))
    // Opened again, the file is of version 2: nothing left to migrate.
    #expect(try plan.validate(against: url) == [])
    let before = try Self.contents(url)
    try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan)).close()
    #expect(
      try Self.contents(url).filter { !$0.contains("nextKey") }
        == before.filter { !$0.contains("nextKey") })
  }

  @Test func aVersion1FileGoesThroughEveryStageInOneOpen() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, folderID) = try Self.version1File(at: url)
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2(), Self.v3()])
    #expect(try plan.validate(against: url) == ["2.0.0", "3.0.0"])
    let store = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let context = PersistentContainer(store: store).viewContext
    let dune = try context.existingObject(with: noteIDs[0])
    #expect(try dune.value(forKey: "summary") as? String == "spice", "renamed twice")
    #expect(
      try context.existingObject(with: folderID).value(forKey: "colour") as? String == "it's blue")
    #expect(store.metadata["modelVersion"] == "3.0.0")
  }

  /// Version 2 fills the notes' missing page counts (two notes) and drops the folders' names
  /// (one folder's row rewritten); version 3 renames and adds with a default, touching no row.
  @Test func eachStageReportsItsRowsFromStartToEnd() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    _ = try Self.version1File(at: url)
    final class Reports: @unchecked Sendable {
      var lines: [String] = []
    }
    let reports = Reports()
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2(), Self.v3()])
    var options = Self.options(plan)
    options.migrationProgress = { reports.lines.append($0.description) }
    _ = try plan.validate(against: url)
    #expect(reports.lines.isEmpty)
    try SQLiteStore(url: url, model: plan.currentModel, options: options).close()
    #expect(
      reports.lines == [
        "1/2 → 2.0.0: 0 of 3 rows", "1/2 → 2.0.0: 2 of 3 rows", "1/2 → 2.0.0: 3 of 3 rows",
        "2/2 → 3.0.0: 0 of 1 rows", "2/2 → 3.0.0: 1 of 1 rows",
      ])
    try SQLiteStore(url: url, model: plan.currentModel, options: options).close()
    #expect(reports.lines.count == 5, "nothing to migrate: no report")
  }

  @Test func aFileMadeBeforeVersionsIsTakenForTheEarliestVersionWithItsHash() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    // Version 1's entities without a version identifier: the file's metadata names none.
    let unversioned = try ObjectModel(entities: try Self.v1().entities, fetchRequestTemplates: [])
    let (noteIDs, _) = try Self.version1File(at: url, model: unversioned)
    let connection = try SQLiteConnection(path: url.path, create: false)
    #expect(try SQLiteStoreFile.metadata(connection)["modelVersion"] == nil)
    connection.close()
    // A version 1.1 with the same hash (only a default differs) comes after 1.0 in the plan.
    let v1Point1 = try ObjectModel(
      entities: try Self.v1().entities, fetchRequestTemplates: [], version: "1.1.0")
    #expect(v1Point1.versionHash == unversioned.versionHash)
    let plan = try MigrationPlan(versions: [Self.v1(), v1Point1, Self.v2()])
    #expect(try plan.validate(against: url) == ["1.1.0", "2.0.0"])
    let store = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let context = PersistentContainer(store: store).viewContext
    #expect(
      try context.existingObject(with: noteIDs[0]).value(forKey: "details") as? String == "spice")
  }

  @Test func aSwappedPairOfNamesMovesThroughTemporaryNames() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("pair.sqlite")
    func model(_ first: String, _ second: String, renamed: Bool, _ version: ModelVersion) throws
      -> ObjectModel
    {
      try ObjectModel(
        entities: [
          EntityDescription(
            name: "Pair",
            attributes: [
              AttributeDescription(
                name: first, type: .string, defaultValue: "", originalName: renamed ? second : nil),
              AttributeDescription(
                name: second, type: .string, defaultValue: "", originalName: renamed ? first : nil),
            ])
        ], fetchRequestTemplates: [], version: version)
    }
    let v1 = try model("left", "right", renamed: false, "1.0.0")
    let store = try SQLiteStore(url: url, model: v1)
    let context = PersistentContainer(store: store).viewContext
    let pair = try context.insertObject(forEntityName: "Pair")
    try pair.setValue("L", forKey: "left")
    try pair.setValue("R", forKey: "right")
    try context.save()
    try store.close()
    let plan = try MigrationPlan(versions: [v1, try model("right", "left", renamed: true, "2.0.0")])
    let migrated = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let read = try PersistentContainer(store: migrated).viewContext.existingObject(
      with: pair.objectID)
    // Version 2's `right` was `left`, and its `left` was `right`.
    #expect(try read.value(forKey: "right") as? String == "L")
    #expect(try read.value(forKey: "left") as? String == "R")
  }

  @Test func renamesDeclaredOnTheWrappersMigrateATypedModel() throws {
    let v1 = try ObjectModel(
      types: [JournalV1.Entry.self, JournalV1.DatedEntry.self], version: "1")
    let v2 = try ObjectModel(
      types: [JournalV2.Entry.self, JournalV2.DatedEntry.self], version: "2")
    let names = ["Entry", "DatedEntry"].map { name in
      v2.entity(named: name)!.attributes.map { "\($0.name)<-\($0.originalName ?? "-")" }
    }
    #expect(
      names == [["pinned<--", "title<-heading", "text<-body"], ["day<--", "feeling<-mood"]])
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("journal.sqlite")
    let store = try SQLiteStore(url: url, model: v1)
    let writer = PersistentContainer(store: store).viewContext
    let entry = writer.insert(JournalV1.DatedEntry.self)
    entry.heading = "Monday"
    entry.body = "rain"
    entry.day = 1
    entry.mood = "glum"
    try writer.save()
    try store.close()
    let plan = try MigrationPlan(versions: [v1, v2])
    let migrated = try SQLiteStore(url: url, model: v2, options: Self.options(plan))
    let reader = PersistentContainer(store: migrated).viewContext
    let read = try #require(
      try reader.existingObject(with: entry.objectID) as? JournalV2.DatedEntry)
    #expect(read.title == "Monday" && read.text == "rain" && read.day == 1)
    #expect(read.feeling == "glum" && read.pinned == false)
  }

  @Test func numbersWidenAndAnIndexNoLongerWantedIsDropped() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("sizes.sqlite")
    func model(
      _ count: AttributeType, _ weight: AttributeType, indexed: Bool, _ version: ModelVersion
    )
      throws -> ObjectModel
    {
      try ObjectModel(
        entities: [
          EntityDescription(
            name: "Box",
            attributes: [
              AttributeDescription(
                name: "count", type: count, isOptional: true, isIndexed: indexed),
              AttributeDescription(name: "weight", type: weight, isOptional: true),
            ])
        ], fetchRequestTemplates: [], version: version)
    }
    let v1 = try model(.int16, .float, indexed: true, "1.0.0")
    let store = try SQLiteStore(url: url, model: v1)
    let context = PersistentContainer(store: store).viewContext
    let box = try context.insertObject(forEntityName: "Box")
    try box.setValue(Int16.max, forKey: "count")
    try box.setValue(Float(0.1), forKey: "weight")
    try context.save()
    try store.close()
    func indexes() throws -> [[SQLiteValue]] {
      let connection = try SQLiteConnection(path: url.path, create: false)
      defer { connection.close() }
      return try connection.statement(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Box'"
      ).rows()
    }
    #expect(try indexes() == [[.text("og_index_Box_count")]])
    // int16 → int, float → double, and the index no longer wanted: inferred.
    let wide = try model(.int, .double, indexed: false, "2.0.0")
    let plan = try MigrationPlan(versions: [v1, wide])
    let migrated = try SQLiteStore(url: url, model: wide, options: Self.options(plan))
    let read = try PersistentContainer(store: migrated).viewContext.existingObject(
      with: box.objectID)
    #expect(try read.value(forKey: "count") as? Int == Int(Int16.max))
    #expect(try read.value(forKey: "weight") as? Double == Double(Float(0.1)))
    try migrated.close()
    #expect(try indexes() == [])
    // int → double loses integers above 2^53; int → int16 may not fit: both refused, each
    // needing a custom stage that converts the values.
    let converting =
      "a custom stage that converts the values (its migrate reads the previous ones under a name "
      + "of its previousNames)"
    for (count, needs) in [
      (AttributeType.double, converting + ": a double does not hold every integer above 2^53"),
      (.int16, converting),
    ] {
      let plan = try MigrationPlan(versions: [
        wide, try model(count, .double, indexed: false, "3.0.0"),
      ])
      let error = #expect(throws: SQLiteStoreOpenError.self) { _ = try plan.validate(against: url) }
      #expect(
        error?.description.hasSuffix("Box.count: type int → \(count): needs \(needs)") == true,
        "\(String(describing: error))")
    }
  }

  // MARK: Entities and relationships

  /// Version 1 with a sub-entity of Folder and a root entity Tag, many-to-many with notes, and a
  /// to-one from a folder to its pinned note (both relationships optional).
  static func withTags() throws -> ObjectModel {
    let v1 = try Self.v1()
    return try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note", attributes: v1.entity(named: "Note")!.attributes,
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription(
              name: "tags", destination: "Tag", inverse: "notes", toMany: true),
            RelationshipDescription(name: "pinnedIn", destination: "Folder", inverse: "pinned"),
          ]),
        EntityDescription(
          name: "Folder", attributes: v1.entity(named: "Folder")!.attributes,
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "folder", toMany: true),
            RelationshipDescription(name: "pinned", destination: "Note", inverse: "pinnedIn"),
          ]),
        EntityDescription(
          name: "SmartFolder", parent: "Folder",
          attributes: [AttributeDescription(name: "query", type: .string, defaultValue: "")]),
        EntityDescription(
          name: "Tag",
          attributes: [AttributeDescription(name: "label", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "tags", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: "1.5.0")
  }

  /// `withTags` without Tag (and the notes' tags), with a new root entity Label.
  static func withLabels() throws -> ObjectModel {
    let tagged = try Self.withTags()
    return try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note", attributes: tagged.entity(named: "Note")!.attributes,
          relationships: tagged.entity(named: "Note")!.relationships.filter { $0.name != "tags" }),
        EntityDescription(
          name: "Folder", attributes: tagged.entity(named: "Folder")!.attributes,
          relationships: tagged.entity(named: "Folder")!.relationships),
        EntityDescription(
          name: "SmartFolder", parent: "Folder",
          attributes: tagged.entity(named: "SmartFolder")!.attributes),
        EntityDescription(
          name: "Label",
          attributes: [AttributeDescription(name: "text", type: .string, isOptional: true)]),
      ], fetchRequestTemplates: [], version: "1.6.0")
  }

  static func entityRows(_ url: URL) throws -> [String: Int] {
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    return try SQLiteStoreFile.entityIDs(connection)
  }

  @Test func entitiesAndOptionalRelationshipsAreAddedAndRemovedKeepingEveryEntityID() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, folderID) = try Self.version1File(at: url)
    #expect(try Self.entityRows(url) == ["Folder": 1, "Note": 2])

    let first = try MigrationPlan(versions: [Self.v1(), Self.withTags()])
    #expect(try first.validate(against: url) == ["1.5.0"])
    var store = try SQLiteStore(url: url, model: first.currentModel, options: Self.options(first))
    #expect(try Self.entityRows(url) == ["Folder": 1, "Note": 2, "SmartFolder": 3, "Tag": 4])
    var context = PersistentContainer(store: store).viewContext
    let dune = try context.existingObject(with: noteIDs[0])
    let inbox = try context.existingObject(with: folderID)
    // Folder gained a sub-entity: the note's to-one to its folder now says the folder's entity.
    #expect(try dune.value(forKey: "folder") as? ManagedObject === inbox)
    #expect(try (dune.value(forKey: "tags") as? Set<ManagedObject>)?.isEmpty == true)
    #expect(try inbox.value(forKey: "pinned") == nil)
    let smart = try context.insertObject(forEntityName: "SmartFolder")
    try smart.setValue("tag:red", forKey: "query")
    try dune.setValue(smart, forKey: "folder")
    try inbox.setValue(dune, forKey: "pinned")
    let red = try context.insertObject(forEntityName: "Tag")
    try red.setValue("red", forKey: "label")
    try red.mutableSet(forKey: "notes").insert(dune)
    try context.save()
    try store.close()

    store = try SQLiteStore(url: url, model: first.currentModel, options: Self.options(first))
    context = PersistentContainer(store: store).viewContext
    let reread = try context.existingObject(with: noteIDs[0])
    #expect(try (reread.value(forKey: "folder") as? ManagedObject)?.objectID == smart.objectID)
    #expect(try (reread.value(forKey: "pinnedIn") as? ManagedObject)?.objectID == folderID)
    #expect(
      try (reread.value(forKey: "tags") as? Set<ManagedObject>)?.map(\.objectID) == [red.objectID])
    try store.close()

    let second = try MigrationPlan(versions: [Self.v1(), Self.withTags(), Self.withLabels()])
    store = try SQLiteStore(url: url, model: second.currentModel, options: Self.options(second))
    // Tag's id is not given again: Label takes the next.
    #expect(try Self.entityRows(url) == ["Folder": 1, "Note": 2, "SmartFolder": 3, "Label": 5])
    context = PersistentContainer(store: store).viewContext
    let last = try context.existingObject(with: noteIDs[0])
    #expect(try (last.value(forKey: "folder") as? ManagedObject)?.objectID == smart.objectID)
    #expect(try (last.value(forKey: "pinnedIn") as? ManagedObject)?.objectID == folderID)
    let label = try context.insertObject(forEntityName: "Label")
    try label.setValue("new", forKey: "text")
    try context.save()
    try store.close()
    let tables = try SQLiteStoreFile.tables(try SQLiteConnection(path: url.path, create: false))
    #expect(!tables.contains("Tag") && !tables.contains { $0.hasPrefix("og_join_") })
    #expect(tables.contains("Label"))
  }

  /// `withTags` with Folder renamed Notebook, Tag renamed Category, and the note's `folder` and
  /// `tags` renamed `notebook` and `categories`: the join table of notes and tags is now named
  /// after Category's side (`og_join_Category_notes`), its sides swapped.
  static func renamed() throws -> ObjectModel {
    let tagged = try Self.withTags()
    let note = tagged.entity(named: "Note")!
    return try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note", attributes: note.attributes,
          relationships: [
            RelationshipDescription(
              name: "notebook", destination: "Notebook", inverse: "notes", originalName: "folder"),
            RelationshipDescription(
              name: "categories", destination: "Category", inverse: "notes", toMany: true,
              originalName: "tags"),
            RelationshipDescription(name: "pinnedIn", destination: "Notebook", inverse: "pinned"),
          ]),
        EntityDescription(
          name: "Notebook", attributes: tagged.entity(named: "Folder")!.attributes,
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "notebook", toMany: true),
            RelationshipDescription(name: "pinned", destination: "Note", inverse: "pinnedIn"),
          ], originalName: "Folder"),
        EntityDescription(
          name: "SmartFolder", parent: "Notebook",
          attributes: tagged.entity(named: "SmartFolder")!.attributes),
        EntityDescription(
          name: "Category", attributes: tagged.entity(named: "Tag")!.attributes,
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "categories", toMany: true)
          ], originalName: "Tag"),
      ], fetchRequestTemplates: [], version: "2.0.0")
  }

  @Test func renamedEntitiesAndRelationshipsKeepTheirObjectsKeysAndIDs() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, folderID) = try Self.version1File(at: url)
    let first = try MigrationPlan(versions: [Self.v1(), Self.withTags()])
    var store = try SQLiteStore(url: url, model: first.currentModel, options: Self.options(first))
    var context = PersistentContainer(store: store).viewContext
    let dune = try context.existingObject(with: noteIDs[0])
    let smart = try context.insertObject(forEntityName: "SmartFolder")
    try dune.setValue(smart, forKey: "folder")
    let red = try context.insertObject(forEntityName: "Tag")
    try red.setValue("red", forKey: "label")
    try red.mutableSet(forKey: "notes").insert(dune)
    try context.existingObject(with: folderID).setValue(dune, forKey: "pinned")
    try context.save()
    try store.close()

    let plan = try MigrationPlan(versions: [Self.v1(), Self.withTags(), Self.renamed()])
    #expect(try plan.validate(against: url) == ["2.0.0"])
    store = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    #expect(
      try Self.entityRows(url) == ["Notebook": 1, "Note": 2, "SmartFolder": 3, "Category": 4])
    context = PersistentContainer(store: store).viewContext
    let note = try context.existingObject(with: noteIDs[0])
    let notebook = ObjectID(
      storeIdentifier: store.identifier, entityName: "Notebook", key: folderID.key)
    let category = ObjectID(
      storeIdentifier: store.identifier, entityName: "Category", key: red.objectID.key)
    #expect(try (note.value(forKey: "notebook") as? ManagedObject)?.objectID == smart.objectID)
    #expect(try (note.value(forKey: "pinnedIn") as? ManagedObject)?.objectID == notebook)
    #expect(
      try (note.value(forKey: "categories") as? Set<ManagedObject>)?.map(\.objectID) == [category])
    // Identifiers archived before the renames resolve to the renamed entities.
    #expect(context.objectID(forURIRepresentation: red.objectID.uriRepresentation) == category)
    #expect(context.objectID(forURIRepresentation: folderID.uriRepresentation) == notebook)
    #expect(context.objectID(forURIRepresentation: noteIDs[0].uriRepresentation) == noteIDs[0])
    #expect(plan.currentEntityName(for: "Tag") == "Category")
    #expect(plan.currentEntityName(for: "Unknown") == nil)
    let elsewhere = ObjectID(storeIdentifier: UUID(), entityName: "Tag", key: 1)
    #expect(context.objectID(forURIRepresentation: elsewhere.uriRepresentation) == nil)
    let read = try context.existingObject(with: category)
    #expect(try read.value(forKey: "label") as? String == "red")
    #expect(
      try (read.value(forKey: "notes") as? Set<ManagedObject>)?.map(\.objectID) == [noteIDs[0]])
    // A save under the new names, read back by another store.
    try note.setValue(nil, forKey: "notebook")
    try context.save()
    try store.close()
    let tables = try SQLiteStoreFile.tables(try SQLiteConnection(path: url.path, create: false))
    #expect(
      tables.contains("Notebook") && tables.contains("Category") && !tables.contains("Folder"))
    #expect(tables.contains("og_join_Category_notes") && !tables.contains("og_join_Note_tags"))
    let reader = PersistentContainer(
      store: try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    ).viewContext
    #expect(try reader.existingObject(with: noteIDs[0]).value(forKey: "notebook") == nil)
    #expect(
      try
        (reader.existingObject(with: noteIDs[0]).value(forKey: "categories") as? Set<ManagedObject>)?
        .map(\.objectID) == [category])
  }

  @Test func classesDeclareOriginalNamesOfEntitiesAndRelationships() throws {
    let model = try ObjectModel(types: [RenamedShelf.self], version: "2")
    let shelf = try #require(model.entity(named: "RenamedShelf"))
    #expect(shelf.originalName == "Shelf")
    #expect(
      shelf.relationships.map { "\($0.name)<-\($0.originalName ?? "-")" } == ["next<-following"])
    let json = try JSONEncoder().encode(shelf)
    let decoded = try JSONDecoder().decode(EntityDescription.self, from: json)
    #expect(decoded.originalName == "Shelf" && decoded.relationships[0].originalName == "following")
  }

  /// Version 1 with the note's folder a to-many (`folders`): notes and folders many-to-many.
  static func manyFolders(_ version: ModelVersion, toMany: Bool) throws -> ObjectModel {
    let v1 = try Self.v1()
    let name = toMany ? "folders" : "folder"
    return try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note", attributes: v1.entity(named: "Note")!.attributes,
          relationships: [
            RelationshipDescription(
              name: name, destination: "Folder", inverse: "notes", toMany: toMany,
              originalName: toMany ? "folder" : "folders")
          ]),
        EntityDescription(
          name: "Folder", attributes: v1.entity(named: "Folder")!.attributes,
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: .named(name), toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: version)
  }

  @Test func aToOneBecomesAToManyAndBackWhileEachObjectHasOne() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, folderID) = try Self.version1File(at: url)
    let many = try Self.manyFolders("2.0.0", toMany: true)
    let plan = try MigrationPlan(versions: [Self.v1(), many])
    var store = try SQLiteStore(url: url, model: many, options: Self.options(plan))
    var context = PersistentContainer(store: store).viewContext
    let dune = try context.existingObject(with: noteIDs[0])
    let inbox = try context.existingObject(with: folderID)
    #expect(try (dune.value(forKey: "folders") as? Set<ManagedObject>) == [inbox])
    #expect(try (inbox.value(forKey: "notes") as? Set<ManagedObject>) == [dune])
    #expect(
      try
        (context.existingObject(with: noteIDs[1]).value(forKey: "folders") as? Set<ManagedObject>)?
        .isEmpty == true)
    try store.close()
    // The to-one's column and its index are gone.
    let schema = try SQLiteConnection(path: url.path, create: false)
    let columns = try schema.statement(#"SELECT name FROM pragma_table_info('Note')"#).rows()
    let indexes = try schema.statement(
      "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name"
    ).rows()
    schema.close()
    #expect(!columns.contains([.text("folder")]), "\(columns)")
    #expect(!indexes.contains([.text("og_index_Note_folder")]), "\(indexes)")
    let back = try Self.manyFolders("3.0.0", toMany: false)
    let backPlan = try MigrationPlan(versions: [Self.v1(), many, back])
    #expect(try backPlan.validate(against: url) == ["3.0.0"])
    // A second folder for Dune: the way back is refused, before anything is written.
    store = try SQLiteStore(url: url, model: many, options: Self.options(plan))
    context = PersistentContainer(store: store).viewContext
    let archive = try context.insertObject(forEntityName: "Folder")
    try context.existingObject(with: noteIDs[0]).mutableSet(forKey: "folders").insert(archive)
    try context.save()
    try store.close()
    let before = try Self.contents(url)
    let refusal = MigrationRefusal(
      from: "2.0.0", to: "3.0.0", entity: "Note", property: "folder", change: "to-many → to-one",
      needs: "a custom stage: an object has more than one related object")
    let dryRun = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try backPlan.validate(against: url)
    }
    #expect(dryRun == .migrationNotInferred(path: url.path, refusals: [refusal]))
    let refused = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStore(url: url, model: back, options: Self.options(backPlan))
    }
    #expect(refused == .migrationNotInferred(path: url.path, refusals: [refusal]))
    #expect(
      try Self.contents(url).filter { !$0.contains("nextKey") }
        == before.filter { !$0.contains("nextKey") })
    // Without the second folder, the way back works.
    store = try SQLiteStore(url: url, model: many, options: Self.options(plan))
    context = PersistentContainer(store: store).viewContext
    try context.delete(try context.existingObject(with: archive.objectID))
    try context.save()
    try store.close()
    store = try SQLiteStore(url: url, model: back, options: Self.options(backPlan))
    context = PersistentContainer(store: store).viewContext
    #expect(
      try (context.existingObject(with: noteIDs[0]).value(forKey: "folder") as? ManagedObject)?
        .objectID == folderID)
    #expect(
      try (context.existingObject(with: folderID).value(forKey: "notes") as? Set<ManagedObject>)?
        .map(\.objectID) == [noteIDs[0]])
    let tables = try SQLiteStoreFile.tables(try SQLiteConnection(path: url.path, create: false))
    #expect(!tables.contains { $0.hasPrefix("og_join_") })
  }

  @Test func aRequiredRelationshipAddedIsRefused() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    _ = try Self.version1File(at: url)
    let v1 = try Self.v1()
    let required = try ObjectModel(
      entities: [
        EntityDescription(
          name: "Note", attributes: v1.entity(named: "Note")!.attributes,
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription(
              name: "owner", destination: "Owner", inverse: "notes", isOptional: false),
          ]),
        EntityDescription(
          name: "Folder", attributes: v1.entity(named: "Folder")!.attributes,
          relationships: v1.entity(named: "Folder")!.relationships),
        EntityDescription(
          name: "Owner",
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "owner", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: "2.0.0")
    let before = try Self.contents(url)
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try MigrationPlan(versions: [v1, required]).validate(against: url)
    }
    #expect(
      error?.description.hasSuffix(
        "1.0.0 → 2.0.0: Note.owner: required relationship added: needs a custom stage: existing "
          + "objects have no related object") == true)
    #expect(try Self.contents(url) == before)
  }

  /// SmartFolder goes away while Folder stays: its objects are deleted, the notes that were in
  /// one or pinned in one are no longer, the notes of a plain folder stay in it.
  @Test func anEntityRemovedFromUnderOneThatStaysTakesItsObjectsAndTheirLinks() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("tags.sqlite")
    let tagged = try Self.withTags()
    let store = try SQLiteStore(url: url, model: tagged)
    let context = PersistentContainer(store: store).viewContext
    let plain = try context.insertObject(forEntityName: "Folder")
    let smart = try context.insertObject(forEntityName: "SmartFolder")
    try smart.setValue("title BEGINSWITH 'D'", forKey: "query")
    let notes = try (0..<3).map { _ in try context.insertObject(forEntityName: "Note") }
    try notes[0].setValue(plain, forKey: "folder")
    try notes[1].setValue(smart, forKey: "folder")
    try notes[2].setValue(smart, forKey: "pinnedIn")
    try notes[0].setValue(plain, forKey: "pinnedIn")
    try context.save()
    let (plainID, smartID, noteIDs) = (plain.objectID, smart.objectID, notes.map(\.objectID))
    try store.close()

    let withoutSmart = try ObjectModel(
      entities: tagged.entities.filter { $0.name != "SmartFolder" }.map { $0.copyForTests() },
      fetchRequestTemplates: [], version: "2.0.0")
    let plan = try MigrationPlan(versions: [tagged, withoutSmart])
    #expect(try plan.validate(against: url) == ["2.0.0"])
    let migrated = try SQLiteStore(url: url, model: withoutSmart, options: Self.options(plan))
    let reader = PersistentContainer(store: migrated).viewContext
    func related(_ index: Int, _ key: String) throws -> ObjectID? {
      (try reader.existingObject(with: noteIDs[index]).value(forKey: key) as? ManagedObject)?
        .objectID
    }
    #expect(try related(0, "folder") == plainID)
    #expect(try related(0, "pinnedIn") == plainID)
    #expect(try related(1, "folder") == nil)
    #expect(try related(2, "pinnedIn") == nil)
    #expect(
      (try reader.existingObject(with: plainID).value(forKey: "notes") as? Set<ManagedObject>)?
        .map(\.objectID) == [noteIDs[0]])
    #expect(throws: ObjectGraphError.self) {
      try reader.existingObject(
        with: ObjectID(
          storeIdentifier: smartID.storeIdentifier, entityName: "Folder", key: smartID.key))
    }
    try migrated.close()
    #expect(try Self.entityRows(url)["SmartFolder"] == nil)
    #expect(try !CustomMigrationStageTests.columns(url, "Folder").contains("query"))
    #expect(try !CustomMigrationStageTests.columns(url, "Note").contains("folder_entity"))
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    #expect(try connection.statement(#"SELECT count(*) FROM "Folder""#).rows() == [[.integer(1)]])
  }

  // MARK: Refusing

  @Test func aFileOfALaterVersionIsRefusedSayingSo() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    _ = try Self.version1File(at: url)
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan)).close()
    let before = try Self.contents(url)
    // The app of version 1, with or without a plan, meets a file of version 2.
    for options in [SQLiteStore.Options(), Self.options(try MigrationPlan(versions: [Self.v1()]))] {
      let error = #expect(throws: SQLiteStoreOpenError.self) {
        _ = try SQLiteStore(url: url, model: try Self.v1(), options: options)
      }
      #expect(
        error == .newerModelVersion(path: url.path, fileVersion: "2.0.0", appVersion: "1.0.0"))
      #expect(
        error?.description.contains("version 2.0.0, which is newer than this app's 1.0.0") == true)
    }
    #expect(try Self.contents(url) == before)
  }

  @Test func aFileOfAVersionThePlanDoesNotListIsRefusedNamingWhatDiffers() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    _ = try Self.version1File(at: url)
    let before = try Self.contents(url)
    // Without a plan, the version 2 app refuses the file as another model's.
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStore(url: url, model: try Self.v2())
    }
    guard case .modelMismatch(_, let differences, _) = error else {
      Issue.record("expected a model mismatch, got \(String(describing: error))")
      return
    }
    #expect(differences.map(\.entity).contains("Note"))
    // A plan without version 1 says the same.
    let plan = try MigrationPlan(versions: [Self.v2(), Self.v3()])
    #expect(throws: SQLiteStoreOpenError.self) { _ = try plan.validate(against: url) }
    #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    }
    #expect(try Self.contents(url) == before)
  }

  @Test func changesThatCannotBeInferredAreRefusedBeforeAnythingIsWritten() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    _ = try Self.version1File(at: url)
    let before = try Self.contents(url)
    let v1 = try Self.v1()
    var entities = v1.entities.map { $0 }
    // Note.pages becomes text; Note gains a required attribute without a default.
    entities[0] = EntityDescription(
      name: "Note",
      attributes: [
        AttributeDescription(name: "title", type: .string, defaultValue: "", isIndexed: true),
        AttributeDescription(name: "notes", type: .string, isOptional: true),
        AttributeDescription(name: "pages", type: .string, isOptional: true),
        AttributeDescription(name: "isbn", type: .string, isOptional: false),
      ],
      relationships: [
        RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes")
      ])
    let changed = try ObjectModel(entities: entities, fetchRequestTemplates: [], version: "2.0.0")
    let plan = try MigrationPlan(versions: [v1, changed])
    let dryRun = #expect(throws: SQLiteStoreOpenError.self) { _ = try plan.validate(against: url) }
    let refused = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStore(url: url, model: changed, options: Self.options(plan))
    }
    #expect(dryRun == refused)
    guard case .migrationNotInferred(_, let refusals)? = refused else {
      Issue.record("expected a refused migration, got \(String(describing: refused))")
      return
    }
    #expect(
      refusals.map(\.description) == [
        "1.0.0 → 2.0.0: Note.pages: type int → string: needs a custom stage that converts the "
          + "values (its migrate reads the previous ones under a name of its previousNames)",
        "1.0.0 → 2.0.0: Note.isbn: added, not optional: needs a default value, which existing "
          + "objects take",
      ])
    #expect(try Self.contents(url) == before)
  }

  @Test func aStoreWhoseModelIsNotThePlansLastVersionIsRefused() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    _ = try Self.version1File(at: url)
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try SQLiteStore(url: url, model: try Self.v1(), options: Self.options(plan))
    }
    #expect(error?.kind == .invalidMigrationPlan)
  }

  // MARK: Failures

  @Test func aFailureAtAnyStatementOfAMigrationLeavesTheFileAsItWas() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2(), Self.v3()])
    var failed = 0
    for step in 1... {
      let url = folder.url.appendingPathComponent("notes-\(step).sqlite")
      let (noteIDs, _) = try Self.version1File(at: url)
      let before = try Self.contents(url)
      do {
        let store = try SQLiteStore(
          url: url, model: plan.currentModel, options: Self.options(plan, failingAt: step))
        // The injection came after the migration's last statement: it is done.
        let context = PersistentContainer(store: store).viewContext
        #expect(
          try context.existingObject(with: noteIDs[0]).value(forKey: "summary") as? String
            == "spice")
        break
      } catch let error as SQLiteError {
        #expect(error.kind == .injected)
        failed += 1
      }
      #expect(try Self.contents(url) == before, "statement \(step)")
      // The file opens and migrates afterwards.
      let store = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
      #expect(store.metadata["modelVersion"] == "3.0.0")
      try store.close()
    }
    // BEGIN, the stages' statements, the metadata, COMMIT.
    #expect(failed > 8)
  }

  /// Two opens that both read the file as version 1 while a third connection holds the write
  /// lock: the one that gets the lock second decides again and finds nothing to do.
  @Test func twoOpensThatBothSawTheOldVersionMigrateItOnce() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, _) = try Self.version1File(at: url)
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    final class Holder: @unchecked Sendable {
      // Used by one thread at a time: the test's, then the one that commits.
      let connection: SQLiteConnection
      let lock = NSLock()
      var errors: [String] = []
      init(_ connection: SQLiteConnection) { self.connection = connection }
    }
    let holder = Holder(try SQLiteConnection(path: url.path, create: false))
    try holder.connection.execute("BEGIN IMMEDIATE")
    let released = DispatchSemaphore(value: 0)
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
      try? holder.connection.execute("COMMIT")
      released.signal()
    }
    let options = Self.options(plan)
    let model = plan.currentModel
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
      do {
        try SQLiteStore(url: url, model: model, options: options).close()
      } catch {
        holder.lock.withLock { holder.errors.append("\(error)") }
      }
    }
    released.wait()
    holder.connection.close()
    #expect(holder.errors == [])
    let store = try SQLiteStore(url: url, model: model, options: options)
    let context = PersistentContainer(store: store).viewContext
    #expect(
      try context.existingObject(with: noteIDs[0]).value(forKey: "details") as? String == "spice")
  }

  @Test func aStoreOfTheOldModelIsRefusedAtItsNextSaveAfterAnotherMigratesTheFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, _) = try Self.version1File(at: url)
    let old = try SQLiteStore(url: url, model: try Self.v1())
    let context = PersistentContainer(store: old).viewContext
    let note = try context.existingObject(with: noteIDs[1])
    try note.setValue("first", forKey: "notes")
    try context.save()
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    let migrating = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let after = try Self.contents(url)
    try note.setValue("second", forKey: "notes")
    let error = #expect(throws: SQLiteStoreOpenError.self) { try context.save() }
    guard case .modelMismatch(_, let differences, let storedHash)? = error else {
      Issue.record("expected a model mismatch, got \(String(describing: error))")
      return
    }
    #expect(storedHash == plan.currentModel.versionHash)
    #expect(differences.contains { $0.property == "details" })
    #expect(context.hasChanges, "the change is still to be saved")
    #expect(try Self.contents(url) == after)
    try migrating.close()
  }

  // MARK: A process killed in the middle of a migration

  #if os(Linux) || os(macOS)
    /// Counts the statements a store runs, in one process.
    final class StatementCounter: @unchecked Sendable {
      // Written only by the store's one thread.
      var count = 0
      /// The number of the statement that committed.
      var commit = 0
    }

    /// The options of a migrating open from version 1 to 3 that call `each` after every
    /// statement the store runs from the migration's transaction on, with its SQL; with
    /// `upgrading`, the file's format is upgraded in the same open (``format2``).
    static func tracedOptions(
      upgrading: Bool = false, _ each: @escaping @Sendable (String) -> Void
    ) throws -> SQLiteStore.Options {
      var options = Self.options(try MigrationPlan(versions: [Self.v1(), Self.v2(), Self.v3()]))
      if upgrading { options.fileLayout = format2 }
      options.sqlTrace = { each($0.sql) }
      return options
    }

    /// Without and with an upgrade of the file's format in the same open.
    @Test(arguments: [false, true])
    func aProcessKilledAfterAnyStatementOfAMigrationLeavesTheOldFileOrTheNewOne(upgrading: Bool)
      async throws
    {
      let folder = try SQLiteConnectionTests.Folder()
      let base = folder.url.appendingPathComponent("base.sqlite")
      _ = try Self.version1File(at: base)
      let before = try Self.contents(base)
      // The same migration in this process, on a copy: how many statements, what it leaves.
      let counted = folder.url.appendingPathComponent("counted.sqlite")
      try FileManager.default.copyItem(at: base, to: counted)
      let counter = StatementCounter()
      let model = try Self.v3()
      try SQLiteStore(
        url: counted, model: model,
        options: Self.tracedOptions(upgrading: upgrading) { sql in
          counter.count += 1
          if sql == "COMMIT" { counter.commit = counter.count }
        }
      )
      .close()
      let after = try Self.contents(counted)
      #expect(after != before && counter.commit > 10 && counter.commit < counter.count)
      for statement in 1...counter.count {
        let url = folder.url.appendingPathComponent("killed-\(statement).sqlite")
        try FileManager.default.copyItem(at: base, to: url)
        let path = url.path
        await #expect(processExitsWith: .signal(SIGKILL), "statement \(statement)") {
          [path = path as String, statement = statement as Int, upgrading = upgrading as Bool] in
          let count = StatementCounter()
          _ = try SQLiteStore(
            url: URL(fileURLWithPath: path), model: try MigrationTests.v3(),
            options: MigrationTests.tracedOptions(upgrading: upgrading) { _ in
              count.count += 1
              if count.count == statement { kill(getpid(), SIGKILL) }
            })
        }
        // Killed before the commit ran: version 1 as it was; after it (the store then sets its
        // page cache again): version 3.
        let contents = try Self.contents(url).filter { !$0.contains("nextKey") }
        let expected = statement < counter.commit ? before : after
        #expect(
          contents == expected.filter { !$0.contains("nextKey") },
          "killed after statement \(statement)")
        let check = try SQLiteConnection(path: path, create: false)
        #expect(try check.statement("PRAGMA integrity_check").rows() == [[.text("ok")]])
        check.close()
        let reopened = try SQLiteStore(
          url: url, model: model, options: Self.tracedOptions(upgrading: upgrading) { _ in })
        #expect(reopened.metadata["modelVersion"] == "3.0.0")
        #expect(reopened.metadata["format"] == (upgrading ? "2" : "1"))
        try reopened.close()
      }
    }
  #endif

  // MARK: Undo histories

  @Test func anUndoHistoryOfTheOldModelIsRefusedAfterAMigration() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, _) = try Self.version1File(at: url)
    let old = try SQLiteStore(url: url, model: try Self.v1())
    let context = PersistentContainer(store: old).viewContext
    context.undoLog = UndoLog()
    try context.existingObject(with: noteIDs[0]).setValue("changed", forKey: "title")
    context.processPendingChanges()
    try context.save()
    let json = try JSONEncoder().encode(try context.undoHistory())
    try old.close()
    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
    let history = try decoder.decode(UndoLog.History.self, from: json)
    #expect(history.labels[ObjectContext.undoHistoryModelLabel] == (try Self.v1()).versionHash)
    #expect(history.labels["ObservedGraph.modelVersion"] == "1.0.0")

    // The same model takes it back, and its undo works.
    let same = try SQLiteStore(url: url, model: try Self.v1())
    let again = PersistentContainer(store: same).viewContext
    again.undoLog = UndoLog()
    try again.restoreUndoHistory(history)
    try again.undoLog?.undo()
    #expect(try again.existingObject(with: noteIDs[0]).value(forKey: "title") as? String == "Dune")
    try same.close()

    // After a migration, the new model refuses it, and the log stays empty.
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    let migrated = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let reader = PersistentContainer(store: migrated).viewContext
    reader.undoLog = UndoLog()
    let error = #expect(throws: ObjectGraphError.self) { try reader.restoreUndoHistory(history) }
    #expect(error?.kind == .otherModelVersion)
    #expect(error?.description.contains("another model (version 1.0.0)") == true)
    #expect(reader.undoLog?.canUndo == false)
    // A history taken without the label is refused too.
    var unlabelled = history
    unlabelled.labels = [:]
    let refused = #expect(throws: ObjectGraphError.self) {
      try reader.restoreUndoHistory(unlabelled)
    }
    #expect(refused?.kind == .otherModelVersion)
  }

  // MARK: The store's own layout

  /// A later library's layout: format 2 adds a table of its own, with a row.
  static let format2 = FileLayout(
    format: 2,
    upgrades: [
      FileLayout.Upgrade(
        from: 1,
        statements: [
          #"CREATE TABLE "og_test_log" ("entry" TEXT)"#,
          #"INSERT INTO "og_test_log" ("entry") VALUES ('upgraded')"#,
        ])
    ])

  static func layoutOptions(
    _ layout: FileLayout, plan: MigrationPlan? = nil, failingAt step: Int? = nil
  ) -> SQLiteStore.Options {
    var options = SQLiteStore.Options()
    options.fileLayout = layout
    options.migrationPlan = plan
    options.migrationFailingStep = step
    return options
  }

  @Test func aFileOfAnEarlierFormatIsUpgradedOnceInTheOpensTransaction() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, _) = try Self.version1File(at: url)
    let before = try Self.contents(url)
    // A failure at any statement of the open leaves format 1 as it was.
    var step = 1
    while true {
      do {
        try SQLiteStore(
          url: url, model: try Self.v1(), options: Self.layoutOptions(Self.format2, failingAt: step)
        ).close()
        break
      } catch let error as SQLiteError {
        #expect(error.kind == .injected)
        #expect(
          try Self.contents(url).filter { !$0.contains("nextKey") }
            == before.filter { !$0.contains("nextKey") }, "statement \(step)")
        step += 1
      }
    }
    #expect(step > 3)
    func log() throws -> [[SQLiteValue]] {
      let connection = try SQLiteConnection(path: url.path, create: false)
      defer { connection.close() }
      return try connection.statement(#"SELECT "entry" FROM "og_test_log""#).rows()
    }
    #expect(try log() == [[.text("upgraded")]])
    // Opened again by the later library: nothing to upgrade; its objects are as they were.
    let store = try SQLiteStore(
      url: url, model: try Self.v1(), options: Self.layoutOptions(Self.format2))
    #expect(store.metadata["format"] == "2")
    let context = PersistentContainer(store: store).viewContext
    #expect(
      try context.existingObject(with: noteIDs[0]).value(forKey: "notes") as? String == "spice")
    try store.close()
    #expect(try log() == [[.text("upgraded")]], "an upgrade runs once")
    // This library refuses the later format, saying it is newer.
    let after = try Self.contents(url)
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStore(url: url, model: try Self.v1())
    }
    #expect(error == .unknownFormat(path: url.path, format: "2"))
    #expect(
      error?.description.hasSuffix(
        "newer than this version's 1: a later version of ObservedGraph made it") == true)
    #expect(try Self.contents(url) == after)
  }

  @Test func anUpgradeAndAMigrationRunInTheSameOpen() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let (noteIDs, _) = try Self.version1File(at: url)
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()])
    let store = try SQLiteStore(
      url: url, model: plan.currentModel, options: Self.layoutOptions(Self.format2, plan: plan))
    #expect(store.metadata["format"] == "2" && store.metadata["modelVersion"] == "2.0.0")
    let context = PersistentContainer(store: store).viewContext
    #expect(
      try context.existingObject(with: noteIDs[0]).value(forKey: "details") as? String == "spice")
  }

  // MARK: Plans and versions

  @Test func aPlanNeedsIncreasingVersions() throws {
    let unversioned = try ObjectModel(entities: try Self.v1().entities, fetchRequestTemplates: [])
    for versions in [
      [], [unversioned], [try Self.v2(), try Self.v1()], [try Self.v1(), try Self.v1()],
    ] {
      let error = #expect(throws: ObjectGraphError.self) {
        _ = try MigrationPlan(versions: versions)
      }
      #expect(error?.kind == .invalidMigrationPlan)
    }
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try MigrationPlan(versions: [try Self.v2(), try Self.v1()])
    }
    #expect(
      error?.description
        == "the migration plan lists version 1.0.0 after 2.0.0: versions must increase along the plan"
    )
  }

  @Test func versionsReadWriteAndOrderAsSoftwareVersions() throws {
    #expect(ModelVersion("1.2.3") == ModelVersion(1, 2, 3))
    #expect(ModelVersion("2") == ModelVersion(2, 0, 0))
    #expect(ModelVersion(1, 2, 0) < ModelVersion(1, 10, 0))
    for bad in ["", "1.", "a", "1.2.3.4", "-1", "1..2", "１"] {
      #expect(ModelVersion(bad) == nil, "\(bad)")
    }
    let json = try JSONEncoder().encode(ModelVersion(3, 1, 4))
    #expect(String(decoding: json, as: UTF8.self) == "\"3.1.4\"")
    #expect(try JSONDecoder().decode(ModelVersion.self, from: json) == "3.1.4")
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ModelVersion.self, from: Data("\"x\"".utf8))
    }
  }

  @Test func literalsReadBackAsTheSameValues() throws {
    let connection = try SQLiteConnection(path: ":memory:", create: true)
    defer { connection.close() }
    let values: [SQLiteValue] = [
      .null, .integer(.min), .integer(.max), .real(0.1), .real(-0.0), .real(1e300),
      .real(.leastNonzeroMagnitude),
      .real(.infinity), .real(-.infinity), .real(3), .text("it's"), .text(""), .text("é\u{1F600}"),
      .blob([]), .blob([0, 255, 16]),
    ]
    for value in values {
      let literal = try #require(SQLiteMigrationStage.literal(value))
      let read = try connection.statement("SELECT \(literal)").rows()[0][0]
      if case .real(let expected) = value, case .real(let got) = read {
        #expect(expected.bitPattern == got.bitPattern || (expected == 0 && got == 0), "\(literal)")
      } else {
        #expect(read == value, "\(literal)")
      }
    }
    #expect(SQLiteMigrationStage.literal(.text("a\u{0}b")) == nil)
  }
}

extension EntityDescription {
  /// A description with the same declared parts, for another model.
  func copyForTests() -> EntityDescription {
    EntityDescription(
      name: name, parent: parentName, isAbstract: isAbstract, attributes: attributes,
      relationships: relationships)
  }
}
