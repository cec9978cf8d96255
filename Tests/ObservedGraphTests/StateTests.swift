import Foundation
import ObservedGraph
import Testing

private func requireSendable<T: Sendable>(_: T.Type) {}

@Suite struct State {
  @Test func flagsThroughALife() throws {
    let context = ObjectContext(model: BookStore.model)
    let book = context.insert(Book.self)
    #expect(book.isInserted && !book.isUpdated && !book.isDeleted && book.hasChanges)
    #expect(context.hasChanges)
    book.title = "Draft"
    #expect(book.isInserted && !book.isUpdated)
    try context.save()
    #expect(!book.isInserted && !book.isUpdated && !book.isDeleted && !book.hasChanges)
    #expect(context.hasChanges == false)
    book.title = "Final"
    #expect(!book.isInserted && book.isUpdated && !book.isDeleted && book.hasChanges)
    #expect(context.updatedObjects == [book] && context.insertedObjects.isEmpty)
    try context.save()
    #expect(!book.isUpdated && !book.hasChanges)
    try context.delete(book)
    #expect(!book.isInserted && !book.isUpdated && book.isDeleted && book.hasChanges)
    #expect(context.deletedObjects == [book])
    #expect(context.registeredObjects.contains(book))
    try context.save()
    #expect(context.hasChanges == false)
    #expect(context.registeredObjects.isEmpty)
    #expect(context.object(with: book.objectID) == nil)
  }

  @Test func insertedThenDeletedIsDeletedUntilTheSave() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let book = s.context.insert(Book.self)
    book.category = s.fiction
    try s.context.delete(book)
    // Deleted like any object: still in the context until the save, but nothing to write.
    #expect(!book.isInserted && book.isDeleted && !book.isUpdated && !book.hasChanges)
    #expect(book.context === s.context && s.context.registeredObjects.contains(book))
    #expect(s.context.object(with: book.objectID) === book)
    #expect(s.context.insertedObjects.isEmpty && s.context.deletedObjects.isEmpty)
    #expect(s.fiction.books == [s.books[0], s.books[1]])
    try s.context.save()
    #expect(s.context.hasChanges == false)
    // The save takes it out: its context says it is gone, and it stays deleted.
    #expect(book.context == nil && book.isDeleted)
    #expect(!s.context.registeredObjects.contains(book))
    #expect(s.context.object(with: book.objectID) == nil)
  }

  @Test func changedValues() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let book = s.books[0]
    book.price = 20
    book.category = s.science
    let changed = book.changedValues()
    #expect(Set(changed.keys) == ["price", "category"])
    #expect(changed["price"] as? Double == 20)
    #expect(changed["category"] as? BookCategory === s.science)
    #expect(s.fiction.changedValues()["books"] as? Set<ManagedObject> == [s.books[1]])
    #expect(s.science.changedValues()["books"] as? Set<ManagedObject> == [book, s.books[2]])
    #expect(s.context.updatedObjects == [book, s.fiction, s.science])
    book.isbn = "1"
    book.isbn = nil
    #expect(book.changedValues().keys.contains("isbn"))
    try s.context.save()
    #expect(book.changedValues().isEmpty && s.fiction.changedValues().isEmpty)
  }

  @Test func committedValues() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    #expect(try book.committedValues().isEmpty)
    try s.context.save()
    book.price = 30
    book.title = "Renamed"
    book.category = s.science
    let committed = try book.committedValues(forKeys: ["price", "title", "category"])
    #expect(committed["price"] as? Double == 10)
    #expect(committed["title"] as? String == "The first book")
    #expect(committed["category"] as? BookCategory === s.fiction)
    let all = try book.committedValues()
    #expect(Set(all.keys) == ["title", "price", "category", "pages"])
    #expect(all["pages"] as? [ManagedObject] == [])
    let books = try s.fiction.committedValues(forKeys: ["books"])["books"]
    #expect(books as? Set<ManagedObject> == [book, s.books[1]])
    #expect(try s.science.committedValues(forKeys: ["name"])["name"] as? String == "Science")
    try s.context.save()
    #expect(try book.committedValues(forKeys: ["price"])["price"] as? Double == 30)
  }

  @Test func transientKeysAreNotPersistentValues() throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    try context.save()
    specimen.scratch = 8
    specimen.text = "changed"
    #expect(Set(specimen.changedValues().keys) == ["text"])
    #expect(try specimen.committedValues().keys.contains("scratch") == false)
    #expect(try specimen.committedValues().keys.contains("text"))
  }

  @Test func objectIDs() throws {
    let first = BookStore.scenario()
    let second = BookStore.scenario()
    let book = first.books[0]
    let id = book.objectID
    #expect(id.entityName == "Book")
    book.title = "Changed"
    try first.context.save()
    book.category = nil
    #expect(book.objectID == id)
    let ids = Set(first.context.registeredObjects.map(\.objectID))
    #expect(ids.count == 5)
    let otherIDs = Set(second.context.registeredObjects.map(\.objectID))
    #expect(ids.isDisjoint(with: otherIDs))
    #expect(first.fiction.objectID != second.fiction.objectID)
    #expect(first.context.object(with: id) === book)
    #expect(second.context.object(with: id) == nil)
    var table: [ObjectID: String] = [:]
    for object in first.context.registeredObjects { table[object.objectID] = object.entity.name }
    #expect(table[id] == "Book")
    #expect(id.hashValue == book.objectID.hashValue)
    #expect(Set([book, book, first.books[1]] as [ManagedObject]).count == 2)
    #expect((book as ManagedObject) != (first.books[1] as ManagedObject))
  }

  @Test func sendableValueTypes() {
    requireSendable(ObjectID.self)
    requireSendable(ObjectModel.self)
    requireSendable(EntityDescription.self)
    requireSendable(AttributeDescription.self)
    requireSendable(RelationshipDescription.self)
    requireSendable(AttributeType.self)
    requireSendable(DeleteRule.self)
    requireSendable(ObjectGraphError.self)
    requireSendable(ObjectGraphError.Kind.self)
  }

  @Test func objectIDCrossesIsolation() async throws {
    let s = BookStore.scenario()
    let id = s.books[0].objectID
    let echoed = await Task.detached { id }.value
    #expect(s.context.object(with: echoed) === s.books[0])
  }
}
