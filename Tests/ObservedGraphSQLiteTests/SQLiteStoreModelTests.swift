import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// Every shape of the schema through a store: sub-entities sharing their root's table, a to-one
/// to an entity with sub-entities, an ordered to-many held by its inverse's column, an ordered
/// many-to-many, a to-many without an inverse, and attributes of every stored type.
@Suite struct SQLiteStoreModelTests {
  static let model = try! ObjectModel(entities: [
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
        AttributeDescription(name: "signed", type: .bool, defaultValue: false),
        AttributeDescription(name: "cover", type: .data, isOptional: true),
        AttributeDescription(name: "site", type: .url, isOptional: true),
        AttributeDescription(
          name: "authors", type: .transformable([String].self), isOptional: true),
      ]),
    EntityDescription(
      name: "Disc", parent: "Item",
      attributes: [
        AttributeDescription(name: "pages", type: .int32, defaultValue: Int32(0)),
        AttributeDescription(name: "notes", type: .string, isOptional: true, isTransient: true),
        AttributeDescription(name: "id", type: .uuid, isOptional: true),
        AttributeDescription(name: "length", type: .float, defaultValue: Float(0)),
      ]),
    EntityDescription(
      name: "Shelf",
      attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
      relationships: [
        RelationshipDescription(
          name: "items", destination: "Item", inverse: "shelf", toMany: true, ordered: true),
        RelationshipDescription(
          name: "keywords", destination: "Tag", inverse: .noInverse, toMany: true),
        RelationshipDescription(name: "featured", destination: "Item", inverse: .noInverse),
      ]),
    EntityDescription(
      name: "Tag",
      attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
      relationships: [
        RelationshipDescription(
          name: "items", destination: "Item", inverse: "tags", toMany: true, ordered: true)
      ]),
  ])

  @Test func everyShapeAndTypeComesBackFromTheFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).viewContext
    let shelf = try context.insertObject(forEntityName: "Shelf")
    let book = try context.insertObject(forEntityName: "Book")
    let disc = try context.insertObject(forEntityName: "Disc")
    let tags = try ["new", "old", "red"].map { name in
      let tag = try context.insertObject(forEntityName: "Tag")
      try tag.setValue(name, forKey: "name")
      return tag
    }
    let published = Date(timeIntervalSinceReferenceDate: 123_456.5)
    let id = UUID()
    try book.setValue("Dune", forKey: "title")
    try book.setValue(412, forKey: "pages")
    try book.setValue(Decimal(string: "12.35")!, forKey: "price")
    try book.setValue(published, forKey: "published")
    try book.setValue(true, forKey: "signed")
    try book.setValue(Data([0, 1, 255]), forKey: "cover")
    try book.setValue(URL(string: "https://example.com/dune?x=1")!, forKey: "site")
    try book.setValue(["Frank Herbert", "Ö"], forKey: "authors")
    try disc.setValue("Blue", forKey: "title")
    try disc.setValue(Int32(-7), forKey: "pages")
    try disc.setValue("not kept", forKey: "notes")
    try disc.setValue(id, forKey: "id")
    try disc.setValue(Float(3.25), forKey: "length")
    try shelf.mutableOrderedSet(forKey: "items").append(disc)
    try shelf.mutableOrderedSet(forKey: "items").append(book)
    try shelf.setValue(disc, forKey: "featured")
    try shelf.mutableSet(forKey: "keywords").formUnion([tags[2], tags[0]])
    try tags[0].mutableOrderedSet(forKey: "items").append(book)
    try tags[0].mutableOrderedSet(forKey: "items").append(disc)
    try tags[1].mutableOrderedSet(forKey: "items").append(disc)
    try tags[1].mutableOrderedSet(forKey: "items").append(book)
    try context.save()
    try store.close()

    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .viewContext
    let shelf2 = try reader.existingObject(with: shelf.objectID)
    let items = try #require(try shelf2.value(forKey: "items") as? [ManagedObject])
    #expect(items.map(\.objectID) == [disc.objectID, book.objectID])
    #expect(items.map(\.entity.name) == ["Disc", "Book"], "each member has its own entity")
    let featured = try #require(try shelf2.value(forKey: "featured") as? ManagedObject)
    #expect(featured.objectID == disc.objectID && featured === items[0])
    let keywords = try #require(try shelf2.value(forKey: "keywords") as? Set<ManagedObject>)
    #expect(Set(keywords.map(\.objectID)) == [tags[0].objectID, tags[2].objectID])

    let book2 = items[1]
    #expect(try book2.value(forKey: "title") as? String == "Dune")
    #expect(try book2.value(forKey: "pages") as? Int == 412)
    #expect(try book2.value(forKey: "price") as? Decimal == Decimal(string: "12.35"))
    #expect(try book2.value(forKey: "published") as? Date == published)
    #expect(try book2.value(forKey: "signed") as? Bool == true)
    #expect(try book2.value(forKey: "cover") as? Data == Data([0, 1, 255]))
    #expect(try book2.value(forKey: "site") as? URL == URL(string: "https://example.com/dune?x=1"))
    #expect(try book2.value(forKey: "authors") as? [String] == ["Frank Herbert", "Ö"])
    let disc2 = items[0]
    #expect(try disc2.value(forKey: "pages") as? Int32 == -7)
    #expect(try disc2.value(forKey: "notes") == nil, "a transient attribute is not stored")
    #expect(try disc2.value(forKey: "id") as? UUID == id)
    #expect(try disc2.value(forKey: "length") as? Float == 3.25)
    #expect(try disc2.value(forKey: "shelf") as? ManagedObject === shelf2)

    // The ordered many-to-many keeps each tag's order; the other side is a set.
    let tag0 = try reader.existingObject(with: tags[0].objectID)
    let tag1 = try reader.existingObject(with: tags[1].objectID)
    #expect(
      (try tag0.value(forKey: "items") as? [ManagedObject])?.map(\.objectID)
        == [book.objectID, disc.objectID])
    #expect(
      (try tag1.value(forKey: "items") as? [ManagedObject])?.map(\.objectID)
        == [disc.objectID, book.objectID])
    #expect(
      Set((try book2.value(forKey: "tags") as? Set<ManagedObject>)?.map(\.objectID) ?? [])
        == [tags[0].objectID, tags[1].objectID])
  }

  @Test func changedManyToManyAndDeletedMembersLeaveNoRows() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).viewContext
    let tag = try context.insertObject(forEntityName: "Tag")
    let shelf = try context.insertObject(forEntityName: "Shelf")
    let books = try (0..<3).map { _ in try context.insertObject(forEntityName: "Book") }
    for book in books { try tag.mutableOrderedSet(forKey: "items").append(book) }
    try shelf.mutableSet(forKey: "keywords").insert(tag)
    try context.save()
    // Reorder, drop one, delete another: the join table follows.
    try tag.mutableOrderedSet(forKey: "items").move(from: 2, to: 0)
    try tag.mutableOrderedSet(forKey: "items").remove(books[1])
    try context.delete(books[0])
    try context.save()
    let rows = try store.connection.statement(
      #"SELECT "source", "target", "target_order" FROM "og_join_Item_tags" ORDER BY "target_order""#
    ).rows()
    #expect(rows == [[.integer(books[2].objectID.key), .integer(tag.objectID.key), .integer(0)]])
    // Deleting the tag takes its rows in the inverse-less join table too.
    try context.delete(tag)
    try context.save()
    #expect(try store.connection.statement(#"SELECT * FROM "og_join_Shelf_keywords""#).rows() == [])
    #expect(try store.connection.statement(#"SELECT * FROM "og_join_Item_tags""#).rows() == [])
  }

  @Test func anIndexedAttributeGetsAnIndexAlsoInAnExistingFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("notes.sqlite")
    func model(indexed: Bool) throws -> ObjectModel {
      try ObjectModel(entities: [
        EntityDescription(
          name: "Note",
          attributes: [
            AttributeDescription(name: "title", type: .string, defaultValue: "", isIndexed: indexed)
          ])
      ])
    }
    func indexes(_ store: SQLiteStore) throws -> [SQLiteValue] {
      try store.connection.statement(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Note'"
      ).rows().map { $0[0] }
    }
    let plain = try SQLiteStore(url: url, model: try model(indexed: false))
    #expect(try indexes(plain).isEmpty)
    try plain.close()
    // The same model with the attribute indexed: the same version hash, and the index appears.
    let indexed = try SQLiteStore(url: url, model: try model(indexed: true))
    #expect(try indexes(indexed) == [.text("og_index_Note_title")])
  }

  @Test func aValueTheColumnsTypeCannotHoldIsAnErrorNamingIt() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).viewContext
    let disc = try context.insertObject(forEntityName: "Disc")
    try context.save()
    // Another program wrote text where a UUID belongs.
    try store.connection.execute(#"UPDATE "Item" SET "id" = 'oops'"#)
    let reader = PersistentContainer(store: store).newContext()
    let fault = try #require(reader.object(with: disc.objectID))
    let error = #expect(throws: ObjectGraphError.self) { try fault.fulfilFault() }
    #expect(error?.kind == .wrongType && error?.entity == "Disc" && error?.key == "id")
    #expect(error?.value == "text(\"oops\")")
    #expect(fault.isFault, "the fault stays a fault")
  }
}
