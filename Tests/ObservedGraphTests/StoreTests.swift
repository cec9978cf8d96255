import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

@Suite("Stores and containers")
struct StoreTests {
  /// What the store holds for an object, by property name (omitted properties left out).
  private func stored(_ store: some PersistentStore, _ id: ObjectID) throws -> [String:
    StoredProperty]?
  {
    guard let object = try store.loadObject(id) else { return nil }
    let names = store.model.entity(named: id.entityName)!.propertyNames
    var byName: [String: StoredProperty] = [:]
    for (name, value) in zip(names, object.properties) where value != .omitted {
      byName[name] = value
    }
    for relationship in store.model.entity(named: id.entityName)!.allRelationships
    where relationship.isToMany {
      byName[relationship.name] = .toMany(
        try store.loadMembers(of: id, relationship: relationship.name).map(\.id))
    }
    return byName
  }

  @Test func aSaveReachesTheStoreAndAnotherContextReadsIt() throws {
    let container = PersistentContainer(model: BookStore.model)
    let context = container.viewContext
    #expect(container.viewContext === context && context.store === container.store)
    let fiction = context.insert(BookCategory.self)
    fiction.name = "Fiction"
    let book = context.insert(Book.self)
    book.title = "Dune"
    book.price = 12.5
    book.category = fiction
    let page = context.insert(Page.self)
    page.text = "one"
    book.pages = [page]
    #expect(book.objectID.storeIdentifier == container.store.identifier)
    try context.save()

    #expect(
      try stored(container.store, book.objectID) == [
        "title": .attribute(.string("Dune")), "price": .attribute(.double(12.5)),
        "isbn": .attribute(nil), "category": .toOne(fiction.objectID),
        "pages": .toMany([page.objectID]),
      ])

    let reader = container.newContext()
    let again = try #require(reader.object(with: book.objectID) as? Book)
    #expect(again !== book && again.isFault && again.objectID == book.objectID)
    #expect(again.title == "Dune" && again.price == 12.5 && again.isbn == nil)
    #expect(again.category?.objectID == fiction.objectID && again.category?.name == "Fiction")
    #expect(again.pages.map(\.objectID) == [page.objectID] && again.pages[0].text == "one")
    #expect(again.category?.books == [again], "one object per identifier in a context")
    #expect(!reader.hasChanges, "loading changes nothing")
  }

  @Test func updatesAndDeletesReachTheStoreAsChangeSets() throws {
    let store = TestStore(model: BookStore.model)
    let context = PersistentContainer(store: store).viewContext
    let fiction = context.insert(BookCategory.self)
    let dune = context.insert(Book.self)
    let emma = context.insert(Book.self)
    dune.category = fiction
    emma.category = fiction
    try context.save()
    #expect(store.saves.count == 1)
    #expect(store.saves[0].inserted.map(\.id) == [fiction, dune, emma].map(\.objectID))

    dune.price = 14
    try context.delete(emma)
    try context.save()
    let names = BookStore.model.entity(named: "Book")!.propertyNames
    let changes = store.saves[1]
    #expect(changes.inserted.isEmpty && changes.deleted == [emma.objectID])
    // The book's price, and the category's books (emma left them): the rest omitted.
    #expect(changes.updated.map(\.id) == [fiction.objectID, dune.objectID])
    #expect(
      changes.updated[1].properties
        == names.map { $0 == "price" ? .attribute(.double(14)) : .omitted })
    #expect(try store.loadObject(emma.objectID) == nil)
    #expect(try stored(store, fiction.objectID)?["books"] == .toMany([dune.objectID]))

    // Nothing to save: the store is not called.
    try context.save()
    #expect(store.saves.count == 2)
  }

  @Test func aFailedStoreSaveLeavesTheContextAndTheStoreAsTheyWere() throws {
    struct DiskFull: Error {}
    let store = TestStore(model: BookStore.model)
    let context = PersistentContainer(store: store).viewContext
    let book = context.insert(Book.self)
    book.title = "Dune"
    try context.save()
    book.title = "Dune Messiah"
    let page = context.insert(Page.self)
    store.failNextSave = DiskFull()
    #expect(throws: DiskFull.self) { try context.save() }
    #expect(context.hasChanges && page.isInserted && book.isUpdated)
    #expect(try book.committedValues(forKeys: ["title"])["title"] as? String == "Dune")
    #expect(try stored(store, book.objectID)?["title"] == .attribute(.string("Dune")))
    #expect(try store.loadObject(page.objectID) == nil)
    // The same save succeeds once the store can.
    try context.save()
    #expect(!context.hasChanges && !page.isInserted)
    #expect(try stored(store, book.objectID)?["title"] == .attribute(.string("Dune Messiah")))
  }

  @Test func keysComeFromTheStoreInBlocksAndNeverRepeat() throws {
    let store = TestStore(model: BookStore.model)
    let container = PersistentContainer(store: store)
    let first = container.newContext()
    let second = container.newContext()
    #expect(store.reservations == 0, "a context takes keys when it first inserts")
    var keys: Set<Int64> = []
    for _ in 0..<ObjectRegistry.keyBlockSize + 1 {
      keys.insert(first.insert(Page.self).objectKey)
      keys.insert(second.insert(Page.self).objectKey)
    }
    #expect(keys.count == 2 * (ObjectRegistry.keyBlockSize + 1), "no key given twice")
    #expect(store.reservations == 4, "a block of keys per context, then one more each")
    let page = first.insert(Page.self)
    let id = page.objectID
    try first.save()
    #expect(page.objectID == id, "an object's identifier does not change when it is saved")
    #expect(second.object(with: id)?.objectID == id)
  }

  @Test func aContextOnAStoreHoldsUnchangedObjectsWeakly() throws {
    let container = PersistentContainer(model: BookStore.model)
    let context = container.viewContext
    weak var weakBook: Book?
    var id: ObjectID?
    do {
      let book = context.insert(Book.self)
      book.title = "Dune"
      id = book.objectID
      weakBook = book
    }
    #expect(weakBook != nil, "an unsaved object is kept")
    try context.save()
    #expect(weakBook == nil, "a saved object nobody references is freed")
    let back = try #require(context.object(with: id!) as? Book)
    #expect(back.isFault && back.title == "Dune")
  }

  @Test func aClosedStoreThrowsAndTheContextKeepsItsChanges() throws {
    let store = InMemoryStore(model: BookStore.model)
    let writer = PersistentContainer(store: store).viewContext
    let book = writer.insert(Book.self)
    try writer.save()
    let reader = PersistentContainer(store: store).newContext()
    let fault = try #require(reader.object(with: book.objectID))
    book.title = "changed"
    try store.close()
    #expect(store.isClosed)
    let error = #expect(throws: ObjectGraphError.self) { try writer.save() }
    #expect(error?.kind == .storeClosed)
    #expect(book.isUpdated)
    #expect(throws: ObjectGraphError.self) { try fault.fulfilFault() }
    #expect(fault.isFault)
    try store.close()  // closing again does nothing
  }

  @Test func theInMemoryStoreRefusesBadChangesWithoutChangingAnything() throws {
    let store = InMemoryStore(model: BookStore.model)
    let names = BookStore.model.entity(named: "Page")!.propertyNames
    func page(_ key: Int64, _ text: String, store identifier: UUID? = nil) -> StoredObject {
      StoredObject(
        id: ObjectID(
          storeIdentifier: identifier ?? store.identifier, entityName: "Page", key: key),
        properties: names.map { $0 == "text" ? .attribute(.string(text)) : .omitted })
    }
    try store.save(StoreChanges(inserted: [page(1, "one")]))
    let cases: [(StoreChanges, ObjectGraphError.Kind)] = [
      (StoreChanges(inserted: [page(2, "two"), page(1, "again")]), .duplicateObject),
      (StoreChanges(inserted: [page(3, "other", store: UUID())]), .otherStore),
      (StoreChanges(updated: [page(9, "missing")]), .objectNotFound),
    ]
    for (changes, kind) in cases {
      let error = #expect(throws: ObjectGraphError.self) { try store.save(changes) }
      #expect(error?.kind == kind)
      #expect(store.count == 1)
      #expect(try store.loadObject(page(1, "").id) == page(1, "one"))
    }
    #expect(store.reserveKeys(3) == 2..<5, "keys start past every saved key")
    #expect(store.metadata["storeIdentifier"] == store.identifier.uuidString)
    #expect(store.metadata["versionHash"] == BookStore.model.versionHash)
  }

  @Test func undoOfASavedDeleteBringsTheObjectBackAndTheNextSaveStoresIt() throws {
    let store = TestStore(model: BookStore.model)
    let context = PersistentContainer(store: store).viewContext
    context.undoLog = UndoLog()
    let book = context.insert(Book.self)
    book.title = "Dune"
    let page = context.insert(Page.self)
    book.pages = [page]
    try context.save()
    context.undoLog?.removeAllActions()
    try context.delete(book)
    try context.save()
    #expect(try store.loadObjects([book.objectID, page.objectID]).isEmpty)
    try context.undoLog?.undo()
    #expect(book.context === context && book.title == "Dune" && book.pages == [page])
    try context.save()
    #expect(try stored(store, book.objectID)?["pages"] == .toMany([page.objectID]))
    #expect(try stored(store, page.objectID)?["book"] == .toOne(book.objectID))
  }
}
