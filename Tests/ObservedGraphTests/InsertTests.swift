import Foundation
import ObservedGraph
import Testing

/// A journal collects notes.
private final class Journal: ManagedObject {
  @Attribute var title: String = "Untitled"
  @Relationship(inverse: "journal") var notes: Set<Note>
}

/// A note counts its `awakeFromInsert` calls and files itself into a new journal there.
private final class Note: ManagedObject {
  @Attribute var text: String = "draft"
  @Attribute var words: Int32 = 3
  @Relationship(inverse: "notes") var journal: Journal?
  var awakeCalls = 0
  var textAtAwake: String?

  override func awakeFromInsert() {
    super.awakeFromInsert()
    awakeCalls += 1
    textAtAwake = text
    text = "awake"
    let journal = context!.insert(Journal.self)
    journal.title = "Inbox"
    self.journal = journal
  }
}

private let journalModel = try! ObjectModel(types: [Journal.self, Note.self])

@Suite struct Insert {
  @Test func typedInsertAppliesDefaults() throws {
    let context = ObjectContext(model: BookStore.model)
    let book = context.insert(Book.self)
    #expect(book.title == "")
    #expect(book.price == 0)
    #expect(book.isbn == nil)
    #expect(book.category == nil)
    #expect(book.pages == [])
    #expect(book.entity === BookStore.model.entity(named: "Book"))
    #expect(book.isInserted)
    #expect(book.context === context)
    #expect(context.registeredObjects == [book])
    #expect(context.insertedObjects == [book])
  }

  @Test func insertByName() throws {
    let context = ObjectContext(model: BookStore.model)
    let object = try context.insertObject(forEntityName: "Book")
    let book = try #require(object as? Book)
    #expect(book.title == "")
    let inventory = ObjectContext(model: Inventory.model)
    let generic = try inventory.insertObject(forEntityName: "Inventory")
    #expect(ObjectIdentifier(type(of: generic)) == ObjectIdentifier(ManagedObject.self))
    #expect(try generic.value(forKey: "count") as? Int16 == 0)
    #expect(try generic.value(forKey: "date") == nil)
    #expect(try generic.value(forKey: "asset") == nil)
  }

  @Test func unknownEntity() throws {
    let context = ObjectContext(model: BookStore.model)
    let error = #expect(throws: ObjectGraphError.self) {
      try context.insertObject(forEntityName: "Magazine")
    }
    #expect(error?.kind == .unknownEntity)
    #expect(error?.entity == "Magazine")
    #expect(error?.description.contains("Magazine") == true)
    #expect(context.registeredObjects.isEmpty)
  }

  @Test func awakeFromInsertRunsOnceAfterDefaults() throws {
    let context = ObjectContext(model: journalModel)
    let note = context.insert(Note.self)
    #expect(note.awakeCalls == 1)
    #expect(note.textAtAwake == "draft")
    #expect(note.text == "awake")
    #expect(note.words == 3)
    let journal = try #require(note.journal)
    #expect(journal.notes == [note])
    #expect(journal.title == "Inbox")
    #expect(journal.isInserted && note.isInserted)
    #expect(context.registeredObjects == [note, journal])
    note.text = "edited"
    try context.save()
    note.journal = nil
    try context.save()
    #expect(note.awakeCalls == 1)
    #expect(journal.notes.isEmpty)
  }

  @Test func awakeFromInsertByName() throws {
    let context = ObjectContext(model: journalModel)
    let note = try #require(try context.insertObject(forEntityName: "Note") as? Note)
    #expect(note.awakeCalls == 1)
    #expect(try note.value(forKeyPath: "journal.title") as? String == "Inbox")
    #expect(context.insertedObjects.count == 2)
    context._checkInvariants()
  }
}
