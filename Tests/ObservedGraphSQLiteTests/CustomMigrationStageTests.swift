import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// Custom migration stages on real files: the app's code runs on a context of the earlier
/// model, of both models' properties, and of the new model, inside the migration's one
/// transaction; its saves are savepoints; a body that throws, or that leaves an object without
/// a value the new version requires, leaves the file exactly as it was.
@Suite struct CustomMigrationStageTests {
  /// What the stages' bodies saw, written from their `@Sendable` closures (which run on the
  /// opening thread, one after the other).
  final class Log: @unchecked Sendable {
    var lines: [String] = []
  }

  struct Stop: Error, Equatable {}

  /// Version 1: a person with a first and last name and a comma-separated list of book titles.
  static func v1() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Person",
          attributes: [
            AttributeDescription(name: "firstName", type: .string, defaultValue: ""),
            AttributeDescription(name: "lastName", type: .string, defaultValue: ""),
            AttributeDescription(name: "bookTitles", type: .string, isOptional: true),
          ])
      ], fetchRequestTemplates: [], version: "1.0.0")
  }

  /// Version 2: one required `fullName` without a default instead of the two names, and the
  /// titles split into `Book` objects, each with a required owner.
  static func v2() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Person",
          attributes: [AttributeDescription(name: "fullName", type: .string, isOptional: false)],
          relationships: [
            RelationshipDescription(
              name: "books", destination: "Book", inverse: "owner", toMany: true,
              deleteRule: .cascade)
          ]),
        EntityDescription(
          name: "Book",
          attributes: [AttributeDescription(name: "title", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "owner", destination: "Person", inverse: "books", isOptional: false)
          ]),
      ], fetchRequestTemplates: [], version: "2.0.0")
  }

  /// A version 1 file with `count` people; every third has no titles. Returns their identifiers.
  static func version1File(at url: URL, count: Int = 3) throws -> [ObjectID] {
    let store = try SQLiteStore(url: url, model: v1())
    let context = PersistentContainer(store: store).viewContext
    var people: [ManagedObject] = []
    for index in 0..<count {
      let person = try context.insertObject(forEntityName: "Person")
      try person.setValue("Ada\(index)", forKey: "firstName")
      try person.setValue("Byron", forKey: "lastName")
      if index % 3 != 2 { try person.setValue("Notes \(index), Sketches", forKey: "bookTitles") }
      people.append(person)
    }
    try context.save()
    try store.close()
    return people.map(\.objectID)
  }

  /// Fills `fullName` from the removed names and makes a book of each title, `batch` people at
  /// a time: each batch saved, then the context reset.
  static func splitting(batch: Int = 100, log: Log? = nil) -> MigrationStage.Body {
    { context in
      let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        .map(\.objectID)
      for start in stride(from: 0, to: people.count, by: batch) {
        for id in people[start..<min(start + batch, people.count)] {
          let person = try context.existingObject(with: id)
          let first = try person.value(forKey: "firstName") as? String ?? ""
          let last = try person.value(forKey: "lastName") as? String ?? ""
          try person.setValue("\(first) \(last)", forKey: "fullName")
          let titles = try person.value(forKey: "bookTitles") as? String ?? ""
          for title in titles.split(separator: ",") {
            let book = try context.insertObject(forEntityName: "Book")
            try book.setValue(title.trimmingCharacters(in: .whitespaces), forKey: "title")
            try book.setValue(person, forKey: "owner")
          }
        }
        try context.save()
        context.reset()
        log?.lines.append("batch: \(context.registeredObjects.count) registered after reset")
      }
    }
  }

  static func options(_ plan: MigrationPlan, failingAt step: Int? = nil) -> SQLiteStore.Options {
    MigrationTests.options(plan, failingAt: step)
  }

  static func columns(_ url: URL, _ table: String) throws -> [String] {
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    return try connection.statement("SELECT name FROM pragma_table_info('\(table)')").rows()
      .compactMap { if case .text(let name) = $0[0] { name } else { nil } }
  }

  // MARK: Stages

  @Test func aStageFillsARequiredAttributeFromRemovedOnesAndSplitsAnEntity() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("people.sqlite")
    let ids = try Self.version1File(at: url)
    let log = Log()
    let stage = MigrationStage(
      to: "2.0.0",
      willMigrate: { context in
        log.lines.append("will: \(context.model.entities.map(\.name)) \(context.model.version!)")
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        log.lines.append("will: \(people.count) people, \(people[0].entity.propertyNames)")
      },
      migrate: Self.splitting(log: log),
      didMigrate: { context in
        let books = try context.fetch(
          FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [FetchSort("title")]))
        log.lines.append(
          "did: \(context.model.version!) \(books.count) books, "
            + "\(try books.map { try $0.value(forKey: "title") as? String ?? "?" })")
      })
    let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()], stages: [stage])
    #expect(try plan.validate(against: url) == ["2.0.0"])
    #expect(log.lines.isEmpty, "a dry run runs no stage code")

    var options = Self.options(plan)
    options.migrationProgress = { log.lines.append("progress: \($0)") }
    let store = try SQLiteStore(url: url, model: plan.currentModel, options: options)
    #expect(
      log.lines == [
        // Three people: the two removed names and the titles are dropped, each rewriting
        // the table; a report after each body too.
        "progress: 1/1 → 2.0.0: 0 of 9 rows",
        "will: [\"Person\"] 1.0.0",
        "will: 3 people, [\"firstName\", \"lastName\", \"bookTitles\"]",
        "progress: 1/1 → 2.0.0: 0 of 9 rows",
        "batch: 0 registered after reset",
        "progress: 1/1 → 2.0.0: 0 of 9 rows",
        "progress: 1/1 → 2.0.0: 3 of 9 rows",
        "progress: 1/1 → 2.0.0: 6 of 9 rows",
        "progress: 1/1 → 2.0.0: 9 of 9 rows",
        "did: 2.0.0 4 books, [\"Notes 0\", \"Notes 1\", \"Sketches\", \"Sketches\"]",
        "progress: 1/1 → 2.0.0: 9 of 9 rows",
      ])
    let context = PersistentContainer(store: store).viewContext
    let people = try ids.map { try context.existingObject(with: $0) }
    #expect(
      try people.map { try $0.value(forKey: "fullName") as? String }
        == ["Ada0 Byron", "Ada1 Byron", "Ada2 Byron"], "kept keys, filled from the removed names")
    let books = try people.map { person in
      try (person.value(forKey: "books") as? Set<ManagedObject> ?? [])
        .map { try $0.value(forKey: "title") as? String ?? "" }.sorted()
    }
    #expect(books == [["Notes 0", "Sketches"], ["Notes 1", "Sketches"], []])
    let bookKeys = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
      .map(\.objectID.key)
    #expect(Set(bookKeys).isDisjoint(with: ids.map(\.key)), "new objects take fresh keys")
    #expect(try Self.columns(url, "Person") == ["og_pk", "og_entity", "fullName"])
    #expect(try Self.columns(url, "Book") == ["og_pk", "og_entity", "title", "owner"])
    // A new book and person save through the store as usual.
    let book = try context.insertObject(forEntityName: "Book")
    try book.setValue("Letters", forKey: "title")
    try book.setValue(people[2], forKey: "owner")
    try context.save()
    try store.close()
    let again = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let reread = PersistentContainer(store: again).viewContext
    #expect(
      try (reread.existingObject(with: ids[2]).value(forKey: "books") as? Set<ManagedObject>)?
        .count == 1)
    #expect(log.lines.count == 11, "opened again: nothing to migrate, no stage runs")
  }

  /// A stage removes duplicates (people of the same first name, the later keys go) before it
  /// fills the names: the deleted objects' rows are gone, the others kept.
  @Test func aStageDeletesDuplicatesBeforeFillingTheRest() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("people.sqlite")
    let store = try SQLiteStore(url: url, model: Self.v1())
    let context = PersistentContainer(store: store).viewContext
    let people = try ["Ada", "Grace", "Ada", "Alan", "Grace"].map { name in
      let person = try context.insertObject(forEntityName: "Person")
      try person.setValue(name, forKey: "firstName")
      return person
    }
    try context.save()
    let ids = people.map(\.objectID)
    try store.close()
    let plan = try MigrationPlan(
      versions: [Self.v1(), Self.v2()],
      stages: [
        MigrationStage(
          to: "2.0.0",
          migrate: { context in
            var seen: Set<String> = []
            let everyone = try context.fetch(
              FetchRequest<ManagedObject>(entityName: "Person")
            ).sorted { $0.objectID.key < $1.objectID.key }
            for person in everyone {
              let name = try person.value(forKey: "firstName") as? String ?? ""
              if seen.insert(name).inserted {
                try person.setValue(name, forKey: "fullName")
              } else {
                try context.delete(person)
              }
            }
            try context.save()
          })
      ])
    let migrated = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let reader = PersistentContainer(store: migrated).viewContext
    let left = try reader.fetch(
      FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [FetchSort("fullName")]))
    #expect(left.map(\.objectID) == [ids[0], ids[3], ids[1]])
    #expect(
      try left.map { try $0.value(forKey: "fullName") as? String } == ["Ada", "Alan", "Grace"])
  }

  @Test func batchesSaveThroughSavepointsAndResetLeavesNothingRegistered() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("people.sqlite")
    let ids = try Self.version1File(at: url, count: 1_000)
    let log = Log()
    let plan = try MigrationPlan(
      versions: [Self.v1(), Self.v2()],
      stages: [MigrationStage(to: "2.0.0", migrate: Self.splitting(batch: 250, log: log))])
    let store = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    #expect(log.lines == Array(repeating: "batch: 0 registered after reset", count: 4))
    let context = PersistentContainer(store: store).viewContext
    #expect(
      try context.existingObject(with: ids[999]).value(forKey: "fullName") as? String
        == "Ada999 Byron")
    #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).count == 1_334)
    let unnamed = try context.fetch(
      FetchRequest<ManagedObject>(
        entityName: "Person", predicate: try FetchPredicate(format: "fullName == nil")))
    #expect(unnamed.isEmpty)
  }

  @Test func aStageThatLeavesARequiredValueEmptyIsRefusedAndTheFileKept() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("people.sqlite")
    _ = try Self.version1File(at: url)
    let before = try MigrationTests.contents(url)
    // Names everyone but makes no book: the books' owners are no problem (there are no books),
    // the names are filled; then one person's name is taken away again.
    let plan = try MigrationPlan(
      versions: [Self.v1(), Self.v2()],
      stages: [
        MigrationStage(
          to: "2.0.0",
          migrate: { context in
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            for person in people.dropFirst() { try person.setValue("x", forKey: "fullName") }
            try context.save()
          })
      ])
    #expect {
      try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    } throws: { error in
      guard case .migrationNotInferred(_, let refusals)? = error as? SQLiteStoreOpenError else {
        return false
      }
      return refusals.map { "\($0.entity).\($0.property ?? "")" } == ["Person.fullName"]
        && refusals[0].needs.contains("left an object without")
    }
    #expect(try MigrationTests.contents(url) == before)
  }

  @Test func aStageThatThrowsAfterSavingLeavesTheFileExactlyAsItWas() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("people.sqlite")
    _ = try Self.version1File(at: url)
    let before = try MigrationTests.contents(url)
    for (index, step) in ["will", "migrate", "did"].enumerated() {
      let fail: MigrationStage.Body = { context in
        // Saves first: a savepoint released inside the open's transaction, rolled back with it.
        let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        try context.delete(objects[0])
        try context.save()
        throw Stop()
      }
      let stage =
        switch index {
        case 0: MigrationStage(to: "2.0.0", willMigrate: fail, migrate: Self.splitting())
        case 1: MigrationStage(to: "2.0.0", migrate: fail)
        default: MigrationStage(to: "2.0.0", migrate: Self.splitting(), didMigrate: fail)
        }
      let plan = try MigrationPlan(versions: [Self.v1(), Self.v2()], stages: [stage])
      #expect(throws: Stop(), "\(step)") {
        try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
      }
      #expect(try MigrationTests.contents(url) == before, "\(step)")
    }
  }

  /// Each statement fails in turn, the stage's and its contexts' (fetches, the loads of each
  /// person's books for the inverse of a book's owner, savepoints): a failure throws out of the
  /// open, and the file is as it was.
  @Test func aFailureAtAnyStatementOfACustomStageLeavesTheFileAsItWas() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let plan = try MigrationPlan(
      versions: [Self.v1(), Self.v2()],
      stages: [MigrationStage(to: "2.0.0", migrate: Self.splitting(batch: 2))])
    var failed = 0
    for step in 1... {
      let url = folder.url.appendingPathComponent("people-\(step).sqlite")
      let ids = try Self.version1File(at: url)
      let before = try MigrationTests.contents(url)
      do {
        let store = try SQLiteStore(
          url: url, model: plan.currentModel, options: Self.options(plan, failingAt: step))
        let context = PersistentContainer(store: store).viewContext
        #expect(
          try context.existingObject(with: ids[0]).value(forKey: "fullName") as? String
            == "Ada0 Byron")
        break
      } catch let error as SQLiteError {
        #expect(error.kind == .injected)
        failed += 1
      }
      #expect(try MigrationTests.contents(url) == before, "statement \(step)")
    }
    // The stage's statements, the context's fetch, two savepoints with their writes.
    #expect(failed > 20, "\(failed)")
  }

  #if os(Linux) || os(macOS)
    /// The options of a migrating open with the splitting stage that call `each` after every
    /// statement the store runs, with its SQL.
    static func tracedOptions(_ each: @escaping @Sendable (String) -> Void) throws
      -> SQLiteStore.Options
    {
      var options = Self.options(
        try MigrationPlan(
          versions: [Self.v1(), Self.v2()],
          stages: [MigrationStage(to: "2.0.0", migrate: Self.splitting(batch: 2))]))
      options.sqlTrace = { each($0.sql) }
      return options
    }

    /// A process killed after any statement of a custom stage — its own, or its context's
    /// fetches, loads and savepoints — leaves version 1 as it was, or version 2 once committed.
    @Test func aProcessKilledAfterAnyStatementOfACustomStageLeavesTheOldFileOrTheNewOne()
      async throws
    {
      let folder = try SQLiteConnectionTests.Folder()
      let base = folder.url.appendingPathComponent("base.sqlite")
      _ = try Self.version1File(at: base)
      let before = try MigrationTests.contents(base)
      let counted = folder.url.appendingPathComponent("counted.sqlite")
      try FileManager.default.copyItem(at: base, to: counted)
      let counter = MigrationTests.StatementCounter()
      try SQLiteStore(
        url: counted, model: Self.v2(),
        options: Self.tracedOptions { sql in
          counter.count += 1
          if sql == "COMMIT" { counter.commit = counter.count }
        }
      ).close()
      let after = try MigrationTests.contents(counted)
      #expect(counter.commit > 20 && counter.commit < counter.count)
      for statement in 1...counter.count {
        let url = folder.url.appendingPathComponent("killed-\(statement).sqlite")
        try FileManager.default.copyItem(at: base, to: url)
        await #expect(processExitsWith: .signal(SIGKILL), "statement \(statement)") {
          [path = url.path as String, statement = statement as Int] in
          let count = MigrationTests.StatementCounter()
          _ = try SQLiteStore(
            url: URL(fileURLWithPath: path), model: try CustomMigrationStageTests.v2(),
            options: CustomMigrationStageTests.tracedOptions { _ in
              count.count += 1
              if count.count == statement { kill(getpid(), SIGKILL) }
            })
        }
        let contents = try MigrationTests.contents(url).filter { !$0.contains("nextKey") }
        let expected = statement < counter.commit ? before : after
        #expect(
          contents == expected.filter { !$0.contains("nextKey") },
          "killed after statement \(statement)")
      }
    }
  #endif

  @Test func withoutMigrateANewRequiredValueIsStillRefused() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("people.sqlite")
    _ = try Self.version1File(at: url)
    let plan = try MigrationPlan(
      versions: [Self.v1(), Self.v2()],
      stages: [MigrationStage(to: "2.0.0", didMigrate: { _ in })])
    #expect(
      MigrationTests.refusals { try plan.validate(against: url) }
        == ["Person.fullName: added, not optional"])
  }

  // MARK: The union of both versions

  /// Version 1 of a tagging model: a person's tag is an object.
  static func taggedV1() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Person",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(name: "tag", destination: "Tag", inverse: "people")
          ]),
        EntityDescription(
          name: "Tag",
          attributes: [AttributeDescription(name: "label", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "people", destination: "Person", inverse: "tag", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: "1.0.0")
  }

  /// Version 2: the tag is a string attribute of the same name, and the `Tag` entity is gone.
  static func taggedV2() throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Person",
          attributes: [
            AttributeDescription(name: "name", type: .string, defaultValue: ""),
            AttributeDescription(name: "tag", type: .string, isOptional: true),
          ])
      ], fetchRequestTemplates: [], version: "2.0.0")
  }

  /// The new `tag` attribute takes the name of the removed relationship, whose column moves
  /// aside while the stage runs: the union hides the relationship, and the removed `Tag` entity
  /// reaches its people through its to-many, which reads the column under its temporary name.
  @Test func aRemovedEntityIsReadableAndANameTheNewVersionReusesHidesTheOldProperty() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("tags.sqlite")
    let store = try SQLiteStore(url: url, model: Self.taggedV1())
    let context = PersistentContainer(store: store).viewContext
    var people: [ManagedObject] = []
    for (name, tag) in [("Ada", "math"), ("Mary", "poetry"), ("Charles", "math"), ("Eve", nil)] {
      let person = try context.insertObject(forEntityName: "Person")
      try person.setValue(name, forKey: "name")
      if let tag {
        let existing = try context.fetch(
          FetchRequest<ManagedObject>(
            entityName: "Tag", predicate: try FetchPredicate(format: "label == %@", tag))
        ).first
        let object = try existing ?? context.insertObject(forEntityName: "Tag")
        try object.setValue(tag, forKey: "label")
        try person.setValue(object, forKey: "tag")
      }
      people.append(person)
    }
    try context.save()
    let ids = people.map(\.objectID)
    try store.close()

    let log = Log()
    let plan = try MigrationPlan(
      versions: [Self.taggedV1(), Self.taggedV2()],
      stages: [
        MigrationStage(
          to: "2.0.0",
          migrate: { context in
            let person = try #require(context.model.entity(named: "Person"))
            log.lines.append("Person: \(person.propertyNames)")
            log.lines.append(
              "Tag: \(context.model.entity(named: "Tag")?.propertyNames ?? [])")
            for tag in try context.fetch(
              FetchRequest<ManagedObject>(entityName: "Tag", sortDescriptors: [FetchSort("label")]))
            {
              let label = try tag.value(forKey: "label") as? String
              for person in try tag.value(forKey: "people") as? Set<ManagedObject> ?? [] {
                try person.setValue(label, forKey: "tag")
              }
            }
            try context.save()
          })
      ])
    let migrated = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    #expect(log.lines == ["Person: [\"name\", \"tag\"]", "Tag: [\"label\", \"people\"]"])
    let reader = PersistentContainer(store: migrated).viewContext
    #expect(
      try ids.map { try reader.existingObject(with: $0).value(forKey: "tag") as? String }
        == ["math", "poetry", "math", nil])
    try migrated.close()
    #expect(try Self.columns(url, "Person") == ["og_pk", "og_entity", "name", "tag"])
    #expect(try MigrationTests.contents(url).allSatisfy { !$0.contains("\"Tag\"") })
  }

  /// Without a stage, the same change is inferred: the new attribute starts empty, and the
  /// removed relationship's keys never become its values (the column of that name is another
  /// property's, found by the properties' match, not by its name).
  @Test func anAttributeTakingARemovedRelationshipsNameStartsEmptyWhenInferred() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("tags.sqlite")
    let store = try SQLiteStore(url: url, model: Self.taggedV1())
    let context = PersistentContainer(store: store).viewContext
    let person = try context.insertObject(forEntityName: "Person")
    let tag = try context.insertObject(forEntityName: "Tag")
    try person.setValue(tag, forKey: "tag")
    try context.save()
    let id = person.objectID
    try store.close()
    let plan = try MigrationPlan(versions: [Self.taggedV1(), Self.taggedV2()])
    let migrated = try SQLiteStore(url: url, model: plan.currentModel, options: Self.options(plan))
    let reader = PersistentContainer(store: migrated).viewContext
    #expect(try reader.existingObject(with: id).value(forKey: "tag") == nil)
    try migrated.close()
    #expect(try Self.columns(url, "Person") == ["og_pk", "og_entity", "name", "tag"])
  }

  /// A stage whose version renames the entity and an attribute: `migrate` sees the new names,
  /// with the values the file held under the old ones, and fills a new required attribute.
  @Test func aStageSeesRenamedEntitiesAndAttributesUnderTheirNewNames() throws {
    let v1 = try ObjectModel(
      entities: [
        EntityDescription(
          name: "Folder",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")])
      ], fetchRequestTemplates: [], version: "1.0.0")
    let v2 = try ObjectModel(
      entities: [
        EntityDescription(
          name: "Notebook",
          attributes: [
            AttributeDescription(
              name: "title", type: .string, defaultValue: "", originalName: "name"),
            AttributeDescription(name: "slug", type: .string, isOptional: false),
          ], originalName: "Folder")
      ], fetchRequestTemplates: [], version: "2.0.0")
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notebooks.sqlite")
    let store = try SQLiteStore(url: url, model: v1)
    let context = PersistentContainer(store: store).viewContext
    let inbox = try context.insertObject(forEntityName: "Folder")
    try inbox.setValue("My Inbox", forKey: "name")
    try context.save()
    let key = inbox.objectID.key
    try store.close()
    let plan = try MigrationPlan(
      versions: [v1, v2],
      stages: [
        MigrationStage(
          to: "2.0.0",
          migrate: { context in
            for notebook in try context.fetch(FetchRequest<ManagedObject>(entityName: "Notebook")) {
              let title = try notebook.value(forKey: "title") as? String ?? ""
              try notebook.setValue(
                title.lowercased().replacingOccurrences(of: " ", with: "-"), forKey: "slug")
            }
            try context.save()
          })
      ])
    let migrated = try SQLiteStore(url: url, model: v2, options: Self.options(plan))
    let reader = PersistentContainer(store: migrated).viewContext
    let notebook = try reader.existingObject(
      with: ObjectID(storeIdentifier: migrated.identifier, entityName: "Notebook", key: key))
    #expect(try notebook.value(forKey: "title") as? String == "My Inbox")
    #expect(try notebook.value(forKey: "slug") as? String == "my-inbox")
  }

  /// An attribute whose type changes under the same name (an integer of cents becoming a
  /// double price): `migrate` reads the previous values under the name the stage gives them,
  /// and writes the new ones. Without a stage, the change is refused.
  @Test func aStageConvertsAnAttributeWhoseTypeChangesUnderItsName() throws {
    func model(_ version: ModelVersion, price: AttributeType) throws -> ObjectModel {
      try ObjectModel(
        entities: [
          EntityDescription(
            name: "Item",
            attributes: [
              AttributeDescription(name: "title", type: .string, defaultValue: ""),
              AttributeDescription(name: "price", type: price, isOptional: false, isIndexed: true),
            ])
        ], fetchRequestTemplates: [], version: version)
    }
    let v1 = try model("1.0.0", price: .int)
    let v2 = try model("2.0.0", price: .double)
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("items.sqlite")
    let store = try SQLiteStore(url: url, model: v1)
    let context = PersistentContainer(store: store).viewContext
    let items = try [1999, 250].map { cents in
      let item = try context.insertObject(forEntityName: "Item")
      try item.setValue(cents, forKey: "price")
      return item
    }
    try context.save()
    let ids = items.map(\.objectID)
    try store.close()
    #expect(
      MigrationTests.refusals { try MigrationPlan(versions: [v1, v2]).validate(against: url) }
        == ["Item.price: type int → double"])
    let log = Log()
    let plan = try MigrationPlan(
      versions: [v1, v2],
      stages: [
        MigrationStage(
          to: "2.0.0", previousNames: ["Item.price": "cents"],
          migrate: { context in
            log.lines = context.model.entity(named: "Item")!.propertyNames
            for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
              let cents = try item.value(forKey: "cents") as? Int ?? 0
              try item.setValue(Double(cents) / 100, forKey: "price")
            }
            try context.save()
          })
      ])
    let migrated = try SQLiteStore(url: url, model: v2, options: Self.options(plan))
    #expect(log.lines == ["title", "price", "cents"])
    let reader = PersistentContainer(store: migrated).viewContext
    #expect(
      try ids.map { try reader.existingObject(with: $0).value(forKey: "price") as? Double }
        == [19.99, 2.5])
    let cheap = try reader.fetch(
      FetchRequest<ManagedObject>(
        entityName: "Item", predicate: try FetchPredicate(format: "price < 3")))
    #expect(cheap.map(\.objectID) == [ids[1]], "the new column is indexed and compared as a number")
    try migrated.close()
    #expect(try Self.columns(url, "Item") == ["og_pk", "og_entity", "title", "price"])
  }

  // MARK: Plans

  @Test func aPlanRefusesAStageToTheFirstVersionAnUnlistedOneOrTwoToOne() throws {
    let versions = [try Self.v1(), try Self.v2()]
    for (stages, reason) in [
      ([MigrationStage(to: "1.0.0")], "the plan's first version"),
      ([MigrationStage(to: "3.0.0")], "not a version of the plan"),
      ([MigrationStage(to: "2.0.0"), MigrationStage(to: "2.0.0")], "two custom stages"),
    ] {
      #expect {
        try MigrationPlan(versions: versions, stages: stages)
      } throws: { error in
        guard let error = error as? ObjectGraphError else { return false }
        return error.kind == .invalidMigrationPlan && error.reason.contains(reason)
      }
    }
    let plan = try MigrationPlan(versions: versions, stages: [MigrationStage(to: "2.0.0")])
    #expect(plan.stage(to: "2.0.0")?.version == "2.0.0")
    #expect(plan.stage(to: "1.0.0") == nil)
  }
}
