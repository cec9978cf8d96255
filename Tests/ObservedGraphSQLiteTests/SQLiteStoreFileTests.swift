import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// A store file: created with its schema and metadata, reopened with the same identifier,
/// refused untouched when it is no store or a different model made it (naming what differs).
@Suite struct SQLiteStoreFileTests {
  static func bytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
  }

  @Test func aNewFileGetsItsSchemaAndMetadataAndKeepsThem() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let path = folder.path("library.sqlite")
    let model = try SQLiteSchemaTests.library()
    let created = try SQLiteStoreFile(path: path, model: model)
    let metadata = try created.connection.statement(
      #"SELECT "key", "value" FROM "og_metadata" ORDER BY "key""#
    ).rows()
    #expect(
      metadata.map { $0[0] }
        == ["format", "model", "storeIdentifier", "versionHash"].map(SQLiteValue.text))
    #expect(metadata[2][1] == .text(created.storeIdentifier.uuidString))
    #expect(metadata[3][1] == .text(model.versionHash))
    #expect(
      try created.connection.statement(#"SELECT "name" FROM "og_entities" ORDER BY "id""#).rows()
        == ["Book", "Disc", "Item", "Shelf", "Tag"].map { [SQLiteValue.text($0)] })
    created.connection.close()
    let before = try Self.bytes(path)
    let reopened = try SQLiteStoreFile(
      path: path, model: try SQLiteSchemaTests.library(), create: false)
    #expect(reopened.storeIdentifier == created.storeIdentifier)
    reopened.connection.close()
    #expect(try Self.bytes(path) == before)
  }

  @Test func aDatabaseThatIsNoStoreIsRefusedUntouched() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let path = folder.path("notes.sqlite")
    let other = try SQLiteConnection(path: path, create: true)
    try other.execute("CREATE TABLE notes (body TEXT); CREATE TABLE tags (name TEXT)")
    other.close()
    let before = try Self.bytes(path)
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStoreFile(path: path, model: try SQLiteSchemaTests.library())
    }
    #expect(error == .notAStore(path: path, tables: ["notes", "tags"]))
    #expect(error?.description.contains("notes, tags") == true)
    #expect(try Self.bytes(path) == before)
  }

  @Test func aFileOfAnotherModelIsRefusedNamingWhatDiffers() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let path = folder.path("library.sqlite")
    try SQLiteStoreFile(path: path, model: try SQLiteSchemaTests.library()).connection.close()
    let before = try Self.bytes(path)
    // The same model with Book.price a double and a new Author entity.
    var entities = try SQLiteSchemaTests.library().entities.map { entity in
      EntityDescription(
        name: entity.name, parent: entity.parentName, isAbstract: entity.isAbstract,
        attributes: entity.attributes.map { attribute in
          attribute.name == "price"
            ? AttributeDescription(name: "price", type: .double, defaultValue: 0.0) : attribute
        },
        relationships: entity.relationships)
    }
    entities.append(EntityDescription(name: "Author"))
    let changed = try ObjectModel(entities: entities)
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStoreFile(path: path, model: changed)
    }
    guard case .modelMismatch(_, let differences, _) = error else {
      Issue.record("expected a model mismatch, got \(String(describing: error))")
      return
    }
    #expect(
      differences.map(\.description) == [
        "Author: only here",
        "Book.price: attribute double optional:false transient:false here, "
          + "attribute decimal optional:false transient:false there",
      ])
    #expect(error?.description.contains("Book.price") == true)
    #expect(try Self.bytes(path) == before)
  }

  @Test func aStoreOfAnotherFormatIsRefused() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let path = folder.path("library.sqlite")
    let file = try SQLiteStoreFile(path: path, model: try SQLiteSchemaTests.library())
    try file.connection.execute(#"UPDATE "og_metadata" SET "value" = '99' WHERE "key" = 'format'"#)
    file.connection.close()
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStoreFile(path: path, model: try SQLiteSchemaTests.library())
    }
    #expect(error == .unknownFormat(path: path, format: "99"))
  }
}
