import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// The schema made from a model: a table per hierarchy with a column per stored attribute and
/// to-one, indexes on to-one columns, order columns for ordered to-many, join tables for
/// many-to-many and inverse-less to-many, and the places each property lives; created in a real
/// file, whose tables SQLite then reports.
@Suite struct SQLiteSchemaTests {
  /// Items (books and discs) on shelves, with tags.
  static func library() throws -> ObjectModel {
    try ObjectModel(entities: [
      EntityDescription(
        name: "Item", isAbstract: true,
        attributes: [AttributeDescription(name: "title", type: .string, defaultValue: "")],
        relationships: [
          RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items"),
          RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
        ]),
      EntityDescription(
        name: "Book", parent: "Item",
        attributes: [
          AttributeDescription(name: "pages", type: .int, defaultValue: 0),
          AttributeDescription(name: "price", type: .decimal, defaultValue: Decimal(0)),
          AttributeDescription(name: "published", type: .date, isOptional: true),
        ]),
      EntityDescription(
        name: "Disc", parent: "Item",
        attributes: [
          AttributeDescription(name: "pages", type: .int32, defaultValue: Int32(0)),
          AttributeDescription(name: "notes", type: .string, isOptional: true, isTransient: true),
          AttributeDescription(name: "id", type: .uuid, isOptional: true),
        ]),
      EntityDescription(
        name: "Shelf",
        attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
        relationships: [
          RelationshipDescription(
            name: "items", destination: "Item", inverse: "shelf", toMany: true, ordered: true),
          RelationshipDescription(
            name: "keywords", destination: "Tag", inverse: .noInverse, toMany: true),
        ]),
      EntityDescription(
        name: "Tag",
        attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
        relationships: [
          RelationshipDescription(
            name: "items", destination: "Item", inverse: "tags", toMany: true, ordered: true)
        ]),
    ])
  }

  @Test func theStatementsOfALibrary() throws {
    let schema = SQLiteSchema(model: try Self.library())
    #expect(
      schema.statements == [
        #"CREATE TABLE "og_metadata" ("key" TEXT NOT NULL, "value", PRIMARY KEY ("key"))"#,
        #"CREATE TABLE "og_entities" ("id" INTEGER NOT NULL, "name" TEXT, PRIMARY KEY ("id"))"#,
        #"CREATE TABLE "Item" ("og_pk" INTEGER PRIMARY KEY, "og_entity" INTEGER NOT NULL, "#
          + #""title" TEXT, "shelf" INTEGER, "shelf_order" INTEGER, "pages" INTEGER, "#
          + #""price" TEXT, "published" REAL, "pages_2" INTEGER, "id" BLOB)"#,
        #"CREATE INDEX "og_index_Item_shelf" ON "Item" ("shelf")"#,
        #"CREATE TABLE "Shelf" ("og_pk" INTEGER PRIMARY KEY, "og_entity" INTEGER NOT NULL, "#
          + #""name" TEXT)"#,
        #"CREATE TABLE "Tag" ("og_pk" INTEGER PRIMARY KEY, "og_entity" INTEGER NOT NULL, "#
          + #""name" TEXT)"#,
        #"CREATE TABLE "og_join_Item_tags" ("source" INTEGER NOT NULL, "target" INTEGER NOT NULL, "#
          + #""target_order" INTEGER, PRIMARY KEY ("source", "target"))"#,
        #"CREATE INDEX "og_index_og_join_Item_tags_target" ON "og_join_Item_tags" ("target")"#,
        #"CREATE TABLE "og_join_Shelf_keywords" ("source" INTEGER NOT NULL, "#
          + #""target" INTEGER NOT NULL, PRIMARY KEY ("source", "target"))"#,
        #"CREATE INDEX "og_index_og_join_Shelf_keywords_target" ON "og_join_Shelf_keywords" ("target")"#,
      ])
  }

  @Test func eachPropertyHasItsPlace() throws {
    let schema = SQLiteSchema(model: try Self.library())
    #expect(schema.entityIDs == ["Book": 1, "Disc": 2, "Item": 3, "Shelf": 4, "Tag": 5])
    #expect(schema.tableOfEntity["Disc"] == "Item")
    let book = schema.places["Book"] ?? [:]
    #expect(book["title"] == .column(table: "Item", column: "title"))
    #expect(book["pages"] == .column(table: "Item", column: "pages"))
    #expect(schema.places["Disc"]?["pages"] == .column(table: "Item", column: "pages_2"))
    #expect(schema.places["Disc"]?["notes"] == .notStored)
    #expect(book["shelf"] == .column(table: "Item", column: "shelf"))
    #expect(
      schema.places["Shelf"]?["items"]
        == .inverseColumn(table: "Item", column: "shelf", order: "shelf_order"))
    #expect(
      book["tags"]
        == .join(table: "og_join_Item_tags", owner: "source", member: "target", order: nil))
    #expect(
      schema.places["Tag"]?["items"]
        == .join(
          table: "og_join_Item_tags", owner: "target", member: "source", order: "target_order"))
    #expect(
      schema.places["Shelf"]?["keywords"]
        == .join(table: "og_join_Shelf_keywords", owner: "source", member: "target", order: nil))
  }

  @Test func theSchemaIsCreatedInAFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let connection = try SQLiteConnection(path: folder.path("library.sqlite"), create: true)
    let schema = SQLiteSchema(model: try Self.library())
    try connection.transaction {
      for statement in schema.statements { try connection.execute(statement) }
    }
    let tables = try connection.statement(
      "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ).rows().map { $0[0] }
    #expect(
      tables
        == [
          "Item", "Shelf", "Tag", "og_entities", "og_join_Item_tags", "og_join_Shelf_keywords",
          "og_metadata",
        ].map { SQLiteValue.text($0) })
    let columns = try connection.statement("SELECT name, type FROM pragma_table_info('Item')")
      .rows()
    #expect(columns.count == 10)
    #expect(columns[6] == [.text("price"), .text("TEXT")])
    let indexes = try connection.statement(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
    ).rows().map { $0[0] }
    #expect(indexes.count == 3)
    // The same model, the same schema.
    #expect(SQLiteSchema(model: try Self.library()).statements == schema.statements)
  }

  @Test func namesAreQuotedAsIdentifiers() {
    #expect(SQLiteSchema.quoted("Book") == #""Book""#)
    #expect(SQLiteSchema.quoted(#"my "odd" name"#) == #""my ""odd"" name""#)
  }
}
