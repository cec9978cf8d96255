import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// Relationship shapes that change between versions, inferred: a to-many that becomes ordered
/// (its order column added and filled in key order) or unordered (dropped); a one-to-one that
/// becomes a one-to-many and back (refused before any write while an object has two). The
/// related objects stay.
@Suite struct MigrationShapeTests {
  /// A folder's notes (their inverse a to-one) and a note's tags (many-to-many), ordered or not.
  static func model(_ version: ModelVersion, ordered: Bool) throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Folder",
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "folder", toMany: true,
              ordered: ordered)
          ]),
        EntityDescription(
          name: "Note",
          attributes: [AttributeDescription(name: "title", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription(
              name: "tags", destination: "Tag", inverse: "notes", toMany: true, ordered: ordered),
          ]),
        EntityDescription(
          name: "Tag",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "notes", destination: "Note", inverse: "tags", toMany: true)
          ]),
      ], fetchRequestTemplates: [], version: version)
  }

  static func titles(_ value: Any?, _ key: String) throws -> [String] {
    try (value as? [ManagedObject] ?? []).map { try $0.value(forKey: key) as? String ?? "?" }
  }

  @Test func aToManyBecomesOrderedInKeyOrderAndUnorderedAgain() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model("1.0.0", ordered: false))
    let context = PersistentContainer(store: store).viewContext
    let inbox = try context.insertObject(forEntityName: "Folder")
    let other = try context.insertObject(forEntityName: "Folder")
    let tags = try ["red", "green", "blue"].map { name in
      let tag = try context.insertObject(forEntityName: "Tag")
      try tag.setValue(name, forKey: "name")
      return tag
    }
    let notes = try ["a", "b", "c", "d"].map { title in
      let note = try context.insertObject(forEntityName: "Note")
      try note.setValue(title, forKey: "title")
      return note
    }
    // Related in an order other than the keys'.
    for note in [notes[2], notes[0], notes[3]] { try note.setValue(inbox, forKey: "folder") }
    try notes[1].setValue(other, forKey: "folder")
    try notes[0].setValue(Set([tags[2], tags[0]]), forKey: "tags")
    try notes[1].setValue(Set(tags), forKey: "tags")
    try context.save()
    let (inboxID, otherID) = (inbox.objectID, other.objectID)
    let noteIDs = notes.map(\.objectID)
    try store.close()

    let plan = try MigrationPlan(versions: [
      Self.model("1.0.0", ordered: false), Self.model("2.0.0", ordered: true),
    ])
    let ordered = try SQLiteStore(
      url: url, model: plan.currentModel, options: MigrationTests.options(plan))
    var reader = PersistentContainer(store: ordered).viewContext
    #expect(
      try Self.titles(reader.existingObject(with: inboxID).value(forKey: "notes"), "title")
        == ["a", "c", "d"], "in key order")
    #expect(
      try Self.titles(reader.existingObject(with: otherID).value(forKey: "notes"), "title")
        == ["b"])
    #expect(
      try Self.titles(reader.existingObject(with: noteIDs[0]).value(forKey: "tags"), "name")
        == ["red", "blue"])
    #expect(
      try Self.titles(reader.existingObject(with: noteIDs[1]).value(forKey: "tags"), "name")
        == ["red", "green", "blue"])
    #expect(
      try Self.titles(reader.existingObject(with: noteIDs[2]).value(forKey: "tags"), "name")
        == [])
    // The new order is the store's like any other: a change to it is saved and read back.
    let inboxNotes = try reader.existingObject(with: inboxID).value(forKey: "notes")
    try reader.existingObject(with: inboxID).setValue(
      (inboxNotes as? [ManagedObject] ?? []).reversed() as [ManagedObject], forKey: "notes")
    try reader.save()
    try ordered.close()
    let reopened = try SQLiteStore(
      url: url, model: plan.currentModel, options: MigrationTests.options(plan))
    reader = PersistentContainer(store: reopened).viewContext
    #expect(
      try Self.titles(reader.existingObject(with: inboxID).value(forKey: "notes"), "title")
        == ["d", "c", "a"])
    try reopened.close()
    #expect(try CustomMigrationStageTests.columns(url, "Note").contains("folder_order"))
    #expect(
      try CustomMigrationStageTests.columns(url, "og_join_Note_tags").contains("source_order"))

    // And back: the order columns go, the members stay.
    let back = try MigrationPlan(versions: [
      Self.model("1.0.0", ordered: false), Self.model("2.0.0", ordered: true),
      Self.model("3.0.0", ordered: false),
    ])
    let unordered = try SQLiteStore(
      url: url, model: back.currentModel, options: MigrationTests.options(back))
    reader = PersistentContainer(store: unordered).viewContext
    let members = try reader.existingObject(with: inboxID).value(forKey: "notes")
    #expect(
      (members as? Set<ManagedObject>).map { Set($0.map(\.objectID)) }
        == [noteIDs[0], noteIDs[2], noteIDs[3]])
    #expect(
      (try reader.existingObject(with: noteIDs[1]).value(forKey: "tags") as? Set<ManagedObject>)?
        .count == 3)
    try unordered.close()
    #expect(try !CustomMigrationStageTests.columns(url, "Note").contains("folder_order"))
    #expect(
      try CustomMigrationStageTests.columns(url, "og_join_Note_tags") == ["source", "target"])
  }

  /// A desk and its occupant, one-to-one in version 1 and 3 (`occupant`), one-to-many in
  /// version 2 (`occupants`, renamed).
  static func desks(_ version: ModelVersion, toMany: Bool) throws -> ObjectModel {
    try ObjectModel(
      entities: [
        EntityDescription(
          name: "Desk",
          attributes: [AttributeDescription(name: "number", type: .int, defaultValue: 0)],
          relationships: [
            RelationshipDescription(
              name: toMany ? "occupants" : "occupant", destination: "Person", inverse: "desk",
              toMany: toMany, originalName: toMany ? "occupant" : "occupants")
          ]),
        EntityDescription(
          name: "Person",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "desk", destination: "Desk", inverse: toMany ? "occupants" : "occupant")
          ]),
      ], fetchRequestTemplates: [], version: version)
  }

  @Test func aOneToOneBecomesAOneToManyAndBackWhileEachObjectHasOne() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("desks.sqlite")
    let store = try SQLiteStore(url: url, model: Self.desks("1.0.0", toMany: false))
    let context = PersistentContainer(store: store).viewContext
    let desks = try (1...3).map { number in
      let desk = try context.insertObject(forEntityName: "Desk")
      try desk.setValue(number, forKey: "number")
      return desk
    }
    let people = try ["Ada", "Grace"].map { name in
      let person = try context.insertObject(forEntityName: "Person")
      try person.setValue(name, forKey: "name")
      return person
    }
    try desks[0].setValue(people[1], forKey: "occupant")
    try people[0].setValue(desks[2], forKey: "desk")
    try context.save()
    let deskIDs = desks.map(\.objectID)
    let personIDs = people.map(\.objectID)
    try store.close()

    let v1 = try Self.desks("1.0.0", toMany: false)
    let v2 = try Self.desks("2.0.0", toMany: true)
    let v3 = try Self.desks("3.0.0", toMany: false)
    let toMany = try MigrationPlan(versions: [v1, v2])
    let migrated = try SQLiteStore(
      url: url, model: toMany.currentModel, options: MigrationTests.options(toMany))
    var reader = PersistentContainer(store: migrated).viewContext
    func occupants(_ id: ObjectID) throws -> Set<ObjectID>? {
      (try reader.existingObject(with: id).value(forKey: "occupants") as? Set<ManagedObject>)
        .map { Set($0.map(\.objectID)) }
    }
    #expect(try occupants(deskIDs[0]) == [personIDs[1]])
    #expect(try occupants(deskIDs[1]) == [])
    #expect(try occupants(deskIDs[2]) == [personIDs[0]])
    #expect(try !CustomMigrationStageTests.columns(url, "Desk").contains("occupant"))
    // Two people at one desk: the way back is refused before anything is written.
    try reader.existingObject(with: personIDs[1]).setValue(
      reader.existingObject(with: deskIDs[2]), forKey: "desk")
    try reader.save()
    try migrated.close()
    let back = try MigrationPlan(versions: [v1, v2, v3])
    let before = try MigrationTests.contents(url)
    #expect(
      MigrationTests.refusals { try back.validate(against: url) }
        == ["Desk.occupant: to-many → to-one"])
    #expect(throws: SQLiteStoreOpenError.self) {
      try SQLiteStore(url: url, model: back.currentModel, options: MigrationTests.options(back))
    }
    #expect(try MigrationTests.contents(url) == before)

    // One each again: the column comes back, filled from the people's desks.
    let fixing = try SQLiteStore(
      url: url, model: toMany.currentModel, options: MigrationTests.options(toMany))
    reader = PersistentContainer(store: fixing).viewContext
    try reader.existingObject(with: personIDs[1]).setValue(
      reader.existingObject(with: deskIDs[1]), forKey: "desk")
    try reader.save()
    try fixing.close()
    let oneToOne = try SQLiteStore(
      url: url, model: back.currentModel, options: MigrationTests.options(back))
    reader = PersistentContainer(store: oneToOne).viewContext
    let occupant = { (index: Int) in
      (try reader.existingObject(with: deskIDs[index]).value(forKey: "occupant")
        as? ManagedObject)?.objectID
    }
    #expect(try occupant(0) == nil)
    #expect(try occupant(1) == personIDs[1])
    #expect(try occupant(2) == personIDs[0])
    try oneToOne.close()
    #expect(try CustomMigrationStageTests.columns(url, "Desk").contains("occupant"))
  }

  /// An entry's `next` entry (no inverse) becomes an ordered to-many `links` and back: the join
  /// table of its own is made and filled (each entry's one link at position 0), and the way
  /// back is refused while an entry has two.
  @Test func aToOneWithoutInverseBecomesAnOrderedToManyAndBack() throws {
    func model(_ version: ModelVersion, toMany: Bool) throws -> ObjectModel {
      try ObjectModel(
        entities: [
          EntityDescription(
            name: "Entry",
            relationships: [
              RelationshipDescription(
                name: toMany ? "links" : "next", destination: "Entry", inverse: .noInverse,
                toMany: toMany, ordered: toMany, originalName: toMany ? "next" : "links")
            ])
        ], fetchRequestTemplates: [], version: version)
    }
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("entries.sqlite")
    let store = try SQLiteStore(url: url, model: model("1.0.0", toMany: false))
    let context = PersistentContainer(store: store).viewContext
    let entries = try (0..<3).map { _ in try context.insertObject(forEntityName: "Entry") }
    try entries[0].setValue(entries[1], forKey: "next")
    try context.save()
    let ids = entries.map(\.objectID)
    try store.close()
    let v1 = try model("1.0.0", toMany: false)
    let v2 = try model("2.0.0", toMany: true)
    let toMany = try MigrationPlan(versions: [v1, v2])
    let migrated = try SQLiteStore(
      url: url, model: v2, options: MigrationTests.options(toMany))
    var reader = PersistentContainer(store: migrated).viewContext
    func links(_ index: Int) throws -> [ObjectID]? {
      (try reader.existingObject(with: ids[index]).value(forKey: "links") as? [ManagedObject])?
        .map(\.objectID)
    }
    #expect(try links(0) == [ids[1]])
    #expect(try links(1) == [])
    let filled = try SQLiteConnection(path: url.path, create: false)
    #expect(
      try filled.statement(#"SELECT * FROM "og_join_Entry_links""#).rows()
        == [[.integer(ids[0].key), .integer(ids[1].key), .integer(0)]])
    filled.close()
    // A second link, put first: the order is the store's from now on.
    try reader.existingObject(with: ids[0]).setValue(
      [reader.existingObject(with: ids[2]), reader.existingObject(with: ids[1])], forKey: "links")
    try reader.save()
    try migrated.close()
    let back = try MigrationPlan(versions: [v1, v2, try model("3.0.0", toMany: false)])
    let before = try MigrationTests.contents(url)
    #expect(
      MigrationTests.refusals { try back.validate(against: url) }
        == ["Entry.next: to-many → to-one"])
    #expect(try MigrationTests.contents(url) == before)
    let again = try SQLiteStore(url: url, model: v2, options: MigrationTests.options(toMany))
    reader = PersistentContainer(store: again).viewContext
    #expect(try links(0) == [ids[2], ids[1]])
    try reader.existingObject(with: ids[0]).setValue(
      [reader.existingObject(with: ids[2])], forKey: "links")
    try reader.save()
    try again.close()
    let toOne = try SQLiteStore(
      url: url, model: back.currentModel, options: MigrationTests.options(back))
    reader = PersistentContainer(store: toOne).viewContext
    #expect(
      (try reader.existingObject(with: ids[0]).value(forKey: "next") as? ManagedObject)?.objectID
        == ids[2])
  }

  /// One-to-one → an ordered one-to-many: each desk's occupant is at position 0.
  @Test func aOneToOneBecomesAnOrderedOneToMany() throws {
    func model(_ version: ModelVersion, toMany: Bool) throws -> ObjectModel {
      try ObjectModel(
        entities: [
          EntityDescription(
            name: "Desk",
            relationships: [
              RelationshipDescription(
                name: "occupants", destination: "Person", inverse: "desk", toMany: toMany,
                ordered: toMany)
            ]),
          EntityDescription(
            name: "Person",
            relationships: [
              RelationshipDescription(name: "desk", destination: "Desk", inverse: "occupants")
            ]),
        ], fetchRequestTemplates: [], version: version)
    }
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("desks.sqlite")
    let store = try SQLiteStore(url: url, model: model("1.0.0", toMany: false))
    let context = PersistentContainer(store: store).viewContext
    let desk = try context.insertObject(forEntityName: "Desk")
    let person = try context.insertObject(forEntityName: "Person")
    try desk.setValue(person, forKey: "occupants")
    try context.save()
    let (deskID, personID) = (desk.objectID, person.objectID)
    try store.close()
    let plan = try MigrationPlan(versions: [
      model("1.0.0", toMany: false), model("2.0.0", toMany: true),
    ])
    let migrated = try SQLiteStore(
      url: url, model: plan.currentModel, options: MigrationTests.options(plan))
    let filled = try SQLiteConnection(path: url.path, create: false)
    #expect(
      try filled.statement(#"SELECT "og_pk", "desk_order" FROM "Person""#).rows()
        == [[.integer(personID.key), .integer(0)]], "the one occupant at position 0")
    filled.close()
    let reader = PersistentContainer(store: migrated).viewContext
    let newcomer = try reader.insertObject(forEntityName: "Person")
    let occupants = try reader.existingObject(with: deskID).value(forKey: "occupants")
    #expect((occupants as? [ManagedObject])?.map(\.objectID) == [personID])
    try reader.existingObject(with: deskID).setValue(
      [newcomer] + (occupants as? [ManagedObject] ?? []), forKey: "occupants")
    try reader.save()
    try migrated.close()
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    #expect(
      try connection.statement(
        #"SELECT "og_pk", "desk_order" FROM "Person" ORDER BY "desk_order""#
      ).rows() == [
        [.integer(newcomer.objectID.key), .integer(0)], [.integer(personID.key), .integer(1)],
      ])
  }

  /// A list's items are ordered; an item's list (to-one) becomes its lists (to-many) and back:
  /// each list keeps its items' order, from beside the item's column into the join table and
  /// back.
  @Test func anOrderedInverseKeepsItsOrderWhenItsToOneBecomesAToManyAndBack() throws {
    func model(_ version: ModelVersion, toMany: Bool) throws -> ObjectModel {
      let name = toMany ? "lists" : "list"
      return try ObjectModel(
        entities: [
          EntityDescription(
            name: "List",
            relationships: [
              RelationshipDescription(
                name: "items", destination: "Item", inverse: .named(name), toMany: true,
                ordered: true)
            ]),
          EntityDescription(
            name: "Item",
            attributes: [AttributeDescription(name: "title", type: .string, defaultValue: "")],
            relationships: [
              RelationshipDescription(
                name: name, destination: "List", inverse: "items", toMany: toMany,
                originalName: toMany ? "list" : "lists")
            ]),
        ], fetchRequestTemplates: [], version: version)
    }
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("lists.sqlite")
    let store = try SQLiteStore(url: url, model: model("1.0.0", toMany: false))
    let context = PersistentContainer(store: store).viewContext
    let list = try context.insertObject(forEntityName: "List")
    let items = try ["c", "a", "b"].map { title in
      let item = try context.insertObject(forEntityName: "Item")
      try item.setValue(title, forKey: "title")
      return item
    }
    // Not in key order: the positions are what must survive.
    try list.setValue([items[1], items[2], items[0]], forKey: "items")
    try context.save()
    let listID = list.objectID
    try store.close()
    func titles(_ reader: ObjectContext) throws -> [String] {
      try (reader.existingObject(with: listID).value(forKey: "items") as? [ManagedObject] ?? [])
        .map { try $0.value(forKey: "title") as? String ?? "?" }
    }
    let v1 = try model("1.0.0", toMany: false)
    let v2 = try model("2.0.0", toMany: true)
    let toMany = try MigrationPlan(versions: [v1, v2])
    let migrated = try SQLiteStore(url: url, model: v2, options: MigrationTests.options(toMany))
    #expect(try titles(PersistentContainer(store: migrated).viewContext) == ["a", "b", "c"])
    try migrated.close()
    let back = try MigrationPlan(versions: [v1, v2, try model("3.0.0", toMany: false)])
    let toOne = try SQLiteStore(
      url: url, model: back.currentModel, options: MigrationTests.options(back))
    #expect(try titles(PersistentContainer(store: toOne).viewContext) == ["a", "b", "c"])
    try toOne.close()
    #expect(try CustomMigrationStageTests.columns(url, "Item").contains("list_order"))
  }

  // MARK: Within a hierarchy

  /// An entry and a dated entry under it: version 2 moves `mood` up into `Entry` (plain entries
  /// take its default), version 3 moves `body` down into `DatedEntry` (plain entries lose it).
  static func journal(_ version: Int) throws -> ObjectModel {
    let heading = AttributeDescription(name: "heading", type: .string, defaultValue: "")
    let body = AttributeDescription(name: "body", type: .string, isOptional: true)
    let mood = AttributeDescription(name: "mood", type: .string, defaultValue: "calm")
    let day = AttributeDescription(name: "day", type: .int, defaultValue: 0)
    let entry: [AttributeDescription] =
      switch version {
      case 1: [heading, body]
      case 2: [heading, body, mood]
      default: [heading, mood]
      }
    let dated: [AttributeDescription] =
      switch version {
      case 1: [day, mood]
      case 2: [day]
      default: [day, body]
      }
    return try ObjectModel(
      entities: [
        EntityDescription(name: "Entry", attributes: entry),
        EntityDescription(name: "DatedEntry", parent: "Entry", attributes: dated),
      ], fetchRequestTemplates: [], version: ModelVersion("\(version).0.0")!)
  }

  @Test func attributesMoveUpAndDownTheirHierarchyWithTheirValues() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("journal.sqlite")
    let store = try SQLiteStore(url: url, model: Self.journal(1))
    let context = PersistentContainer(store: store).viewContext
    let plain = try context.insertObject(forEntityName: "Entry")
    try plain.setValue("plain", forKey: "body")
    let dated = try context.insertObject(forEntityName: "DatedEntry")
    try dated.setValue("dated", forKey: "body")
    try dated.setValue("glad", forKey: "mood")
    try dated.setValue(7, forKey: "day")
    try context.save()
    let (plainID, datedID) = (plain.objectID, dated.objectID)
    try store.close()

    let up = try MigrationPlan(versions: [Self.journal(1), Self.journal(2)])
    let moved = try SQLiteStore(
      url: url, model: up.currentModel, options: MigrationTests.options(up))
    var reader = PersistentContainer(store: moved).viewContext
    #expect(try reader.existingObject(with: datedID).value(forKey: "mood") as? String == "glad")
    #expect(try reader.existingObject(with: plainID).value(forKey: "mood") as? String == "calm")
    #expect(try reader.existingObject(with: datedID).value(forKey: "day") as? Int == 7)
    try moved.close()

    let down = try MigrationPlan(versions: [Self.journal(1), Self.journal(2), Self.journal(3)])
    let movedDown = try SQLiteStore(
      url: url, model: down.currentModel, options: MigrationTests.options(down))
    reader = PersistentContainer(store: movedDown).viewContext
    #expect(try reader.existingObject(with: datedID).value(forKey: "body") as? String == "dated")
    #expect(try reader.existingObject(with: datedID).value(forKey: "mood") as? String == "glad")
    #expect(try reader.existingObject(with: plainID).entity.propertyNames == ["heading", "mood"])
    try movedDown.close()
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    let bodies = try connection.statement(
      #"SELECT "og_pk", "body" FROM "Entry" ORDER BY "og_pk""#
    ).rows()
    #expect(
      bodies == [[.integer(plainID.key), .null], [.integer(datedID.key), .text("dated")]],
      "a plain entry's value is gone from the file")
  }

  /// Relationships of a dated entry: a tag (to-one, its inverse a to-many of the tag's), labels
  /// (to-many, its inverse a to-one of the label's) and `next` (no inverse). Version 2 moves them
  /// up into `Entry`, version 3 back down.
  static func tagged(_ version: Int) throws -> ObjectModel {
    let onEntry = version == 2
    let owner = onEntry ? "Entry" : "DatedEntry"
    let relationships = [
      RelationshipDescription(name: "tag", destination: "Tag", inverse: "entries"),
      RelationshipDescription(name: "labels", destination: "Label", inverse: "owner", toMany: true),
      RelationshipDescription(name: "next", destination: "Entry", inverse: .noInverse),
    ]
    return try ObjectModel(
      entities: [
        EntityDescription(name: "Entry", relationships: onEntry ? relationships : []),
        EntityDescription(
          name: "DatedEntry", parent: "Entry", relationships: onEntry ? [] : relationships),
        EntityDescription(
          name: "Tag",
          relationships: [
            RelationshipDescription(
              name: "entries", destination: owner, inverse: "tag", toMany: true)
          ]),
        EntityDescription(
          name: "Label",
          relationships: [
            RelationshipDescription(name: "owner", destination: owner, inverse: "labels")
          ]),
      ], fetchRequestTemplates: [], version: ModelVersion("\(version).0.0")!)
  }

  @Test func relationshipsMoveUpAndDownTheirHierarchyWithTheirObjects() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("journal.sqlite")
    let store = try SQLiteStore(url: url, model: Self.tagged(1))
    let context = PersistentContainer(store: store).viewContext
    let plain = try context.insertObject(forEntityName: "Entry")
    let dated = try context.insertObject(forEntityName: "DatedEntry")
    let tag = try context.insertObject(forEntityName: "Tag")
    let label = try context.insertObject(forEntityName: "Label")
    try dated.setValue(tag, forKey: "tag")
    try dated.setValue(Set([label]), forKey: "labels")
    try dated.setValue(plain, forKey: "next")
    try context.save()
    let (plainID, datedID, tagID, labelID) = (
      plain.objectID, dated.objectID, tag.objectID, label.objectID
    )
    try store.close()

    let up = try MigrationPlan(versions: [Self.tagged(1), Self.tagged(2)])
    #expect(try up.validate(against: url) == ["2.0.0"])
    let movedUp = try SQLiteStore(
      url: url, model: up.currentModel, options: MigrationTests.options(up))
    var reader = PersistentContainer(store: movedUp).viewContext
    func object(_ id: ObjectID, _ key: String) throws -> ManagedObject? {
      try reader.existingObject(with: id).value(forKey: key) as? ManagedObject
    }
    func members(_ id: ObjectID, _ key: String) throws -> Set<ObjectID>? {
      (try reader.existingObject(with: id).value(forKey: key) as? Set<ManagedObject>)
        .map { Set($0.map(\.objectID)) }
    }
    #expect(try object(datedID, "tag")?.objectID == tagID)
    #expect(try object(datedID, "next")?.objectID == plainID)
    #expect(try members(tagID, "entries") == [datedID])
    #expect(try members(datedID, "labels") == [labelID])
    // The label's owner now names an entry of any entity: it knows this one is a dated entry.
    #expect(try object(labelID, "owner").map { $0.entity.name } == "DatedEntry")
    // A plain entry takes a tag, a label and a next entry too.
    let other = try reader.existingObject(with: labelID)
    try reader.existingObject(with: plainID).setValue(
      reader.existingObject(with: tagID), forKey: "tag")
    let second = try reader.insertObject(forEntityName: "Label")
    try second.setValue(reader.existingObject(with: plainID), forKey: "owner")
    try reader.existingObject(with: plainID).setValue(
      reader.existingObject(with: datedID), forKey: "next")
    try reader.save()
    _ = other
    let secondID = second.objectID
    try movedUp.close()

    let down = try MigrationPlan(versions: [Self.tagged(1), Self.tagged(2), Self.tagged(3)])
    let movedDown = try SQLiteStore(
      url: url, model: down.currentModel, options: MigrationTests.options(down))
    reader = PersistentContainer(store: movedDown).viewContext
    #expect(try object(datedID, "tag")?.objectID == tagID)
    #expect(try members(tagID, "entries") == [datedID], "the plain entry's tag is gone")
    #expect(try members(datedID, "labels") == [labelID])
    #expect(try object(secondID, "owner") == nil, "a label of a plain entry has no owner")
    #expect(try object(datedID, "next")?.objectID == plainID)
    #expect(try reader.existingObject(with: plainID).entity.propertyNames.isEmpty)
    try movedDown.close()
    let connection = try SQLiteConnection(path: url.path, create: false)
    defer { connection.close() }
    #expect(
      try connection.statement(#"SELECT "og_pk" FROM "Entry" WHERE "next" IS NOT NULL"#).rows()
        == [[.integer(datedID.key)]], "the plain entry's next is gone from the file")
  }

  /// A required to-one that names an object of an entity removed from under one that stays
  /// refuses the migration; the file is left as it was.
  @Test func aRequiredRelationshipToARemovedSubEntitysObjectIsRefused() throws {
    func model(_ version: ModelVersion, smart: Bool) throws -> ObjectModel {
      try ObjectModel(
        entities: [
          EntityDescription(
            name: "Folder",
            relationships: [
              RelationshipDescription(
                name: "notes", destination: "Note", inverse: "home", toMany: true)
            ]),
          EntityDescription(
            name: "Note",
            relationships: [
              RelationshipDescription(
                name: "home", destination: "Folder", inverse: "notes", isOptional: false)
            ]),
        ] + (smart ? [EntityDescription(name: "SmartFolder", parent: "Folder")] : []),
        fetchRequestTemplates: [], version: version)
    }
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    let store = try SQLiteStore(url: url, model: model("1.0.0", smart: true))
    let context = PersistentContainer(store: store).viewContext
    let note = try context.insertObject(forEntityName: "Note")
    try note.setValue(try context.insertObject(forEntityName: "SmartFolder"), forKey: "home")
    try context.save()
    try store.close()
    let before = try MigrationTests.contents(url)
    let plan = try MigrationPlan(versions: [
      model("1.0.0", smart: true), model("2.0.0", smart: false),
    ])
    #expect(
      MigrationTests.refusals {
        try SQLiteStore(url: url, model: plan.currentModel, options: MigrationTests.options(plan))
      }
        == ["Note.home: relates objects of SmartFolder, which is removed"])
    #expect(
      MigrationTests.refusals { try plan.validate(against: url) }
        == ["Note.home: relates objects of SmartFolder, which is removed"], "the dry run sees it")
    #expect(try MigrationTests.contents(url) == before)
  }
}
