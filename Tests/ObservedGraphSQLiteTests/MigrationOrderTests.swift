import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// A to-many that becomes ordered or unordered between versions, inferred: the order column is
/// added and filled in key order, or dropped; the members stay.
@Suite struct MigrationOrderTests {
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
}
