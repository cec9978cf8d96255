import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// Saves that meet a file another writer changed: an inserted object whose key another store on
/// the file reserved (and may have saved an object with) throws `duplicateObject`, and an update of a row deleted since it was
/// loaded (by another context, or by hand) throws `objectNotFound`; either way the save writes
/// nothing and the context keeps its changes.
@Suite struct SaveConflictTests {
  static let model = StoreFaultTests.model

  /// What the context holds (its objects' states and values, its change sets) and every row of
  /// the file, to compare before and after a failed save.
  static func state(_ context: ObjectContext, _ url: URL, _ held: [ManagedObject]? = nil) throws
    -> [String]
  {
    try StoreFaultTests.snapshot(of: context, held ?? Array(context.registeredObjects))
      + SQLiteStoreTests.dump(url.path)
  }

  /// Two stores on the library file at `url` (two processes), each reserving one key at a time,
  /// and a context on each. The first context inserts two tags, running past its block of one:
  /// its second key is the second store's first.
  static func pastTheBlock(_ url: URL) throws -> (
    SQLiteStore, SQLiteStore, ObjectContext, ObjectContext, [ManagedObject]
  ) {
    var options = SQLiteStore.Options()
    options.keyBlockSize = 1
    let first = try SQLiteStore(url: url, model: model, options: options)
    let second = try SQLiteStore(url: url, model: model, options: options)
    let writer = PersistentContainer(store: first).newContext()
    let other = PersistentContainer(store: second).newContext()
    let tags = try (0..<2).map { index in
      let tag = try writer.insertObject(forEntityName: "Tag")
      try tag.setValue("w\(index)", forKey: "name")
      return tag
    }
    return (first, second, writer, other, tags)
  }

  /// Checks that the writer's save is refused for its second tag, writing nothing and changing
  /// nothing in the context.
  static func checkRefused(
    _ writer: ObjectContext, _ tags: [ManagedObject], _ url: URL,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let before = try state(writer, url)
    let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) {
      try writer.save()
    }
    #expect(error?.kind == .duplicateObject, "\(String(describing: error))")
    #expect(error?.entity == "Tag")
    #expect(error?.value == tags[1].objectID.description)
    #expect(error?.reason.contains("key \(tags[1].objectID.key)") == true)
    #expect(error?.reason.contains(url.path) == true)
    #expect(try state(writer, url) == before, "the file and the context are as they were")
    #expect(tags.allSatisfy(\.isInserted) && writer.hasChanges)
  }

  /// A key the first store gave out past its block, which the second store reserved: refused at
  /// the first store's save whatever the second did with it — saved an object of the same entity
  /// or of another one with it (whose table the primary key would not check), or nothing yet —
  /// so the file never holds two objects under one key. The keys of the first store's block save
  /// as before.
  @Test(arguments: [("Tag", true), ("Shelf", true), ("Shelf", false)])
  func aKeyAnotherStoreReservedIsRefusedForAnyEntity(otherEntity: String, otherSavesFirst: Bool)
    throws
  {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    try StoreFaultTests.makeLibrary(at: url)
    let (first, second, writer, other, tags) = try Self.pastTheBlock(url)
    let taken = try other.insertObject(forEntityName: otherEntity)
    #expect(taken.objectID.key == tags[1].objectID.key)
    if otherSavesFirst { try other.save() }
    try Self.checkRefused(writer, tags, url)
    // Without the object past the block, the save goes through; the second store's object
    // saves with its key.
    try writer.delete(tags[1])
    try writer.save()
    #expect(!tags[0].isInserted)
    if !otherSavesFirst { try other.save() }
    #expect(!taken.isInserted)
    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    #expect(try reader.existingObject(with: taken.objectID).entity.name == otherEntity)
    #expect(try reader.existingObject(with: tags[0].objectID).entity.name == "Tag")
    try first.close()
    try second.close()
  }

  /// How a saved row goes away behind a context's back.
  enum Removal: String, CaseIterable {
    case anotherContext, anotherStore, sql
  }

  @Test(arguments: Removal.allCases)
  func anUpdateOfARowDeletedSinceItWasLoadedThrowsObjectNotFound(_ removal: Removal) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let ids = try StoreFaultTests.makeLibrary(at: url)
    let store = try SQLiteStore(url: url, model: Self.model)
    let container = PersistentContainer(store: store)
    let context = container.newContext()
    let objects = StoreFaultTests.Objects(context: context, ids: ids)
    let book = objects["b3"]
    try book.fulfilFault()
    switch removal {
    case .anotherContext:
      let other = container.newContext()
      try other.delete(try other.existingObject(with: ids["b3"]!))
      try other.save()
    case .anotherStore:
      let second = try SQLiteStore(url: url, model: Self.model)
      let other = PersistentContainer(store: second).newContext()
      try other.delete(try other.existingObject(with: ids["b3"]!))
      try other.save()
      try second.close()
    case .sql:
      let connection = try SQLiteConnection(path: url.path, create: false)
      try connection.statement(#"DELETE FROM "Item" WHERE "og_pk" = ?"#)
        .run([.integer(ids["b3"]!.key)])
      connection.close()
    }
    // The save also inserts an object and updates another before the missing row.
    _ = try objects.insert("Tag", ["name": "blue"])
    try objects["b0"].setValue("Dune Messiah", forKey: "title")
    try book.setValue("Beloved, again", forKey: "title")
    // The objects compared: those held now (a save may register more, as faults).
    let held = Array(context.registeredObjects)
    let before = try Self.state(context, url, held)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .objectNotFound, "\(removal): \(String(describing: error))")
    #expect(error?.entity == "Book")
    #expect(error?.value == ids["b3"]!.description)
    #expect(error?.reason.contains("no row for \(ids["b3"]!)") == true)
    let after = try Self.state(context, url, held)
    #expect(
      after == before,
      "\(removal): \(after.filter { !before.contains($0) }) \(before.filter { !after.contains($0) })"
    )
    #expect(book.isUpdated && context.hasChanges)
    // Without the missing object, the rest saves.
    try context.refresh(book, mergeChanges: false)
    try context.save()
    #expect(!context.hasChanges)
    try store.close()
  }

  /// A save that changes only many-to-many relationships writes join rows, not the objects' own
  /// rows: it still checks that each object's row is there, whichever side is gone.
  @Test(arguments: ["b3", "t1"])
  func aManyToManyChangeOfAnObjectWhoseRowIsGoneThrowsObjectNotFound(_ gone: String) throws {
    let library = try StoreFaultTests.Library()
    let (url, ids, store, context) = (library.url, library.ids, library.store, library.context)
    let objects = library.objects
    let (book, tag) = (objects["b3"], objects["t1"])
    try book.fulfilFault()
    try tag.fulfilFault()
    let connection = try SQLiteConnection(path: url.path, create: false)
    let table = gone == "b3" ? "Item" : "Tag"
    try connection.statement(#"DELETE FROM "\#(table)" WHERE "og_pk" = ?"#)
      .run([.integer(ids[gone]!.key)])
    connection.close()
    try tag.mutableOrderedSet(forKey: "items").append(book)
    let held = Array(context.registeredObjects)
    let before = try Self.state(context, url, held)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .objectNotFound, "\(gone): \(String(describing: error))")
    #expect(error?.entity == (gone == "b3" ? "Book" : "Tag"))
    #expect(error?.value == ids[gone]!.description)
    #expect(
      try Self.state(context, url, held) == before, "the file and the context are as they were")
    #expect(book.isUpdated && tag.isUpdated)
    try store.close()
  }

  @Test func aReorderThatMovesAMemberWhoseRowIsGoneThrowsObjectNotFound() throws {
    let library = try StoreFaultTests.Library()
    let (url, ids, store, context) = (library.url, library.ids, library.store, library.context)
    let objects = library.objects
    let items = try objects["A"].mutableOrderedSet(forKey: "items")
    #expect(items.count == 3)
    let connection = try SQLiteConnection(path: url.path, create: false)
    try connection.statement(#"DELETE FROM "Item" WHERE "og_pk" = ?"#)
      .run([.integer(ids["b1"]!.key)])
    connection.close()
    try items.move(from: 2, to: 0)
    // b1's row is gone, so the state compared is the file's and the shelf's.
    func state() throws -> [String] {
      try SQLiteStoreTests.dump(url.path) + [
        "\(context.hasChanges) \(objects["A"].isUpdated)",
        (try objects["A"].value(forKey: "items") as! [ManagedObject]).map(\.objectID.description)
          .joined(separator: " "),
      ]
    }
    let before = try state()
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .objectNotFound && error?.value == ids["b1"]!.description)
    #expect(try state() == before)
    #expect(
      before.last == [ids["b1"]!, ids["b0"]!, ids["d0"]!].map(\.description).joined(separator: " "))
    try store.close()
  }
}
