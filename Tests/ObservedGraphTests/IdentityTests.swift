import Foundation
import ObservedGraph
import Testing
import UndoLog

// Object identity (ObjectID, its URI and archived forms, looking objects up), the one spelling of
// an object in every message, and what error messages and recorder mismatches say.

private let store = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
private let storeText = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

/// How many times `part` occurs in `text`.
private func occurrences(of part: String, in text: String) -> Int {
  text.components(separatedBy: part).count - 1
}

@Suite struct Identity {
  // MARK: ObjectID

  @Test func fixedAtInsertThroughUndoAndRedo() throws {
    let context = ObjectContext(model: BookStore.model)
    let log = UndoLog()
    context.undoLog = log
    let book = context.insert(Book.self)
    let id = book.objectID
    #expect(id.entityName == "Book" && id.key == 1)
    #expect(id.storeIdentifier == context.insert(Page.self).objectID.storeIdentifier)
    #expect(context.object(with: id) === book)
    context.processPendingChanges()

    try log.undo()
    #expect(book.objectID == id)
    #expect(book.context == nil)
    #expect(context.object(with: id) == nil)
    try log.redo()
    #expect(book.objectID == id)
    #expect(context.object(with: id) === book)
    #expect(book.context === context && book.isInserted)

    try log.undo()
    let next = context.insert(Book.self)
    #expect(next.objectID.key == 3)  // the undone key is not handed out again
    #expect(context.object(with: id) == nil)
    #expect(context.object(with: next.objectID) === next)
  }

  @Test func fixedAtInsertThroughSaveUndoAndRedo() throws {
    let context = ObjectContext(model: BookStore.model)
    let log = UndoLog()
    context.undoLog = log
    let book = context.insert(Book.self)
    let id = book.objectID
    context.processPendingChanges()
    try context.save()
    #expect(book.objectID == id && context.object(with: id) === book)

    // Undoing the insert of a saved object deletes it; the next save takes it out.
    try log.undo()
    #expect(book.objectID == id && book.isDeleted)
    #expect(context.object(with: id) === book)
    try context.save()
    #expect(book.objectID == id && book.context == nil)
    #expect(context.object(with: id) == nil)
    try log.redo()
    #expect(book.objectID == id)
    #expect(context.object(with: id) === book)
    #expect(book.context === context && !book.isDeleted)
    try context.save()
    #expect(book.objectID == id && context.object(with: id) === book)
  }

  @Test func keysArePositiveUniqueAndInInsertionOrder() throws {
    let context = ObjectContext(model: BookStore.model)
    var objects: [ManagedObject] = []
    for index in 0..<30 {
      switch index % 3 {
      case 0: objects.append(context.insert(Book.self))
      case 1: objects.append(context.insert(Page.self))
      default: objects.append(try context.insertObject(forEntityName: "BookCategory"))
      }
    }
    try context.delete(objects[4])
    objects.append(context.insert(Page.self))
    #expect(objects.map(\.objectID.key) == Array(1...31))
    #expect(Set(objects.map(\.objectID)).count == 31)
    #expect(Set(objects.map(\.objectID.storeIdentifier)).count == 1)
    #expect(objects.map(\.objectID.entityName).prefix(3) == ["Book", "Page", "BookCategory"])
    let other = ObjectContext(model: BookStore.model)
    let first = other.insert(Book.self)
    #expect(first.objectID.key == 1)
    #expect(first.objectID.storeIdentifier != objects[0].objectID.storeIdentifier)
    #expect(first.objectID != objects[0].objectID)
  }

  @Test func uriRepresentation() throws {
    let s = BookStore.scenario()
    let id = s.books[0].objectID
    let uri = id.uriRepresentation
    #expect(uri.absoluteString == "og://\(id.storeIdentifier.uuidString)/Book/3")
    #expect(ObjectID(uriRepresentation: uri) == id)
    let made = ObjectID(storeIdentifier: store, entityName: "Page", key: Int64.max)
    #expect(
      made.uriRepresentation.absoluteString == "og://\(storeText)/Page/9223372036854775807")
    #expect(ObjectID(uriRepresentation: made.uriRepresentation) == made)
    #expect(
      ObjectID(uriRepresentation: URL(string: "og://\(storeText.lowercased())/Page/12")!)
        == ObjectID(storeIdentifier: store, entityName: "Page", key: 12))
  }

  @Test(arguments: [
    ("A B", "A%20B"), ("Bücher", "B%C3%BCcher"), ("50%", "50%25"), ("a?b", "a%3Fb"),
    ("x#y", "x%23y"),
  ])
  func uriOfAnEntityNameThatNeedsEncoding(_ name: String, _ encoded: String) throws {
    let id = ObjectID(storeIdentifier: store, entityName: name, key: 4)
    #expect(id.uriRepresentation.absoluteString == "og://\(storeText)/\(encoded)/4")
    let back = try #require(ObjectID(uriRepresentation: id.uriRepresentation))
    #expect(back == id && back.entityName == name)
  }

  @Test(arguments: [
    "http://\(storeText)/Book/3", "og://not-a-uuid/Book/3", "og://\(storeText)/Book",
    "og://\(storeText)/Book/", "og://\(storeText)/Book/0", "og://\(storeText)/Book/-3",
    "og://\(storeText)/Book/3/pages", "og://\(storeText)//3", "og://\(storeText)/Book/three",
    "og:///Book/3", "og://\(storeText)/Book/9223372036854775808", "og://\(storeText)",
    "og:\(storeText)/Book/3", "og://\(storeText)/3",
  ])
  func malformedURI(_ text: String) throws {
    let url = try #require(URL(string: text))
    #expect(ObjectID(uriRepresentation: url) == nil)
    let json = Data("\"\(text)\"".utf8)
    #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(ObjectID.self, from: json) }
  }

  @Test func uriWithExtraPartsIsNotAnIdentifier() throws {
    for text in [
      "og://\(storeText)/Book/3?x=1", "og://\(storeText)/Book/3#top",
      "og://me@\(storeText)/Book/3", "og://\(storeText):80/Book/3", "og://\(storeText)/Book/+3",
      "og://\(storeText)/Book/03",
    ] {
      let url = try #require(URL(string: text))
      #expect(ObjectID(uriRepresentation: url) == nil, "\(text)")
    }
  }

  @Test func codableAsTheURIString() throws {
    let s = BookStore.scenario()
    let id = s.books[1].objectID
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let data = try encoder.encode(id)
    #expect(
      String(decoding: data, as: UTF8.self) == "\"og://\(id.storeIdentifier.uuidString)/Book/4\"")
    #expect(try JSONDecoder().decode(ObjectID.self, from: data) == id)
    let ids = s.context.registeredObjects.map(\.objectID).sorted { $0.key < $1.key }
    let back = try JSONDecoder().decode([ObjectID].self, from: JSONEncoder().encode(ids))
    #expect(back == ids)
    #expect(
      back.map(\.description) == ["BookCategory#1", "BookCategory#2", "Book#3", "Book#4", "Book#5"])
    #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(ObjectID.self, from: Data("3".utf8))
    }
  }

  // MARK: Looking objects up

  @Test func objectWithAnotherContextsIdentifier() throws {
    let s = BookStore.scenario()
    let other = BookStore.scenario()
    let id = s.books[0].objectID
    let foreign = other.books[0].objectID
    #expect(foreign.key == id.key && foreign.entityName == id.entityName)
    #expect(foreign != id)
    #expect(s.context.object(with: foreign) == nil)
    #expect(other.context.object(with: id) == nil)
    #expect(s.context.object(with: id) === s.books[0])
    let store = id.storeIdentifier
    #expect(
      s.context.object(with: ObjectID(storeIdentifier: store, entityName: "Page", key: 3)) == nil)
    #expect(
      s.context.object(with: ObjectID(storeIdentifier: store, entityName: "Book", key: 99)) == nil)
  }

  @Test func existingObject() throws {
    let s = BookStore.scenario()
    let c = s.context
    let book = s.books[0]
    #expect(try c.existingObject(with: book.objectID) === book)
    let foreign = BookStore.scenario()
    expectGraphError(.otherStore, entity: "Book", value: "Book#3", in: c) {
      _ = try c.existingObject(with: foreign.books[0].objectID)
    }
    let store = book.objectID.storeIdentifier
    expectGraphError(.objectNotFound, entity: "Book", value: "Book#99", in: c) {
      _ = try c.existingObject(with: ObjectID(storeIdentifier: store, entityName: "Book", key: 99))
    }
    expectGraphError(.objectNotFound, entity: "Page", value: "Page#3", in: c) {
      _ = try c.existingObject(with: ObjectID(storeIdentifier: store, entityName: "Page", key: 3))
    }
    try c.delete(book)
    #expect(try c.existingObject(with: book.objectID) === book)  // deleted, not saved: still here
    try c.save()
    let error = expectGraphError(
      .deletedObject, entity: "Book", value: "Book#3", in: c, extra: [book]
    ) {
      _ = try c.existingObject(with: book.objectID)
    }
    #expect(error?.description.contains("Book#3 is not in the context any more") == true)
    #expect(try c.existingObject(with: s.books[1].objectID) === s.books[1])
  }

  @Test func existingObjectAfterUndoOfItsInsert() throws {
    let context = ObjectContext(model: BookStore.model)
    let log = UndoLog()
    context.undoLog = log
    let page = context.insert(Page.self)
    context.processPendingChanges()
    try log.undo()
    expectGraphError(.deletedObject, entity: "Page", value: "Page#1", in: context, extra: [page]) {
      _ = try context.existingObject(with: page.objectID)
    }
    try log.redo()
    #expect(try context.existingObject(with: page.objectID) === page)
  }

  // MARK: One spelling

  @Test func oneSpellingEverywhere() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    #expect(book.objectID.description == "Book#3")
    #expect("\(book.objectID)" == "Book#3")
    #expect(
      book.description
        == #"Book#3 { title: "The first book" (String), price: 10.0 (Double), isbn: nil }"#)

    let asValue = expectGraphError(
      .wrongType, entity: "Book", key: "title", value: "Book#3", in: s.context
    ) {
      try s.books[1].setValue(book, forKey: "title")
    }
    #expect(asValue?.value == "Book#3")
    #expect(asValue?.description == "Book.title: Book#3 is not a value of type string")
    let asMember = expectGraphError(
      .wrongEntity, entity: "Book", key: "pages", value: "Book#3", in: s.context
    ) {
      try s.books[1].mutableOrderedSet(forKey: "pages").append(book)
    }
    #expect(asMember?.description == "Book.pages: Book#3 is a Book, not a Page")

    s.context.processPendingChanges()
    var events: [String] = []
    let token = s.context.onObjectsDidChange { events.append($0.description) }
    let recorder = ChangeRecorder(context: s.context)
    let typed = try ChangeRecorder(observing: [book], keys: ["title"])
    book.title = "Dune"
    #expect(recorder.take() == [#"Book#3.title setting old="The first book" new="Dune""#])
    #expect(typed.take() == [#"Book#3.title setting old="The first book" new="Dune""#])
    s.context.processPendingChanges()
    #expect(events == ["inserted [] updated [Book#3: title] deleted [] refreshed []"])
    #expect(book.description.hasPrefix("Book#3 { title: \"Dune\" (String)"))

    try s.context.delete(book)
    s.context.processPendingChanges()
    #expect(
      events.last == "inserted [] updated [BookCategory#1: books] deleted [Book#3] refreshed []")
    #expect(recorder.take().last == "Book#3.@lifecycle setting new=delete")
    token.invalidate()
  }

  // MARK: Error messages

  @Test func reasonThatStartsWithThePrefixIsNotPrefixedTwice() {
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(entities: [
        EntityDescription(
          name: "Folder",
          relationships: [
            RelationshipDescription(
              name: "files", destination: "File", inverse: "folder", toMany: true)
          ]),
        EntityDescription(
          name: "File",
          relationships: [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "parent")
          ]),
      ])
    }
    #expect(error?.kind == .inverseMismatch)
    #expect(error?.entity == "Folder" && error?.key == "files")
    let text = error?.description ?? ""
    #expect(occurrences(of: "Folder.files", in: text) == 1, "\(text)")
    #expect(
      text
        == "Folder.files names inverse File.folder, but File.folder names 'parent' as its inverse, "
        + "not 'files'")
  }

  @Test func prefixIsSaidOnce() {
    let cases: [(ObjectGraphError, String)] = [
      (
        ObjectGraphError(.missingValue, entity: "Book", key: "isbn", reason: "an ISBN is required"),
        "Book.isbn: an ISBN is required"
      ),
      (
        ObjectGraphError(
          .missingValue, entity: "Book", key: "isbn", reason: "Book.isbn is required"),
        "Book.isbn is required"
      ),
      (
        ObjectGraphError(.missingValue, entity: "Book", reason: "Book is incomplete"),
        "Book is incomplete"
      ),
      (
        ObjectGraphError(.missingValue, entity: "Book", reason: "Book.isbn is required"),
        "Book.isbn is required"
      ),
      (ObjectGraphError(.missingValue, entity: "Book", reason: "a book"), "Book: a book"),
      (ObjectGraphError(.missingValue, entity: "", reason: "no entity"), "no entity"),
      (
        ObjectGraphError(.missingValue, entity: "Book", reason: "Bookmarks are missing"),
        "Book: Bookmarks are missing"
      ),
      (
        ObjectGraphError(
          .missingValue, entity: "Book", key: "isbn", reason: "Book.isbnPrefix is required"),
        "Book.isbn: Book.isbnPrefix is required"
      ),
    ]
    for (error, description) in cases {
      #expect(error.description == description)
    }
  }

  @Test func hugeKeysAndValuesAreShortened() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let key = String(repeating: "k", count: 1_000_000)
    let bodies: [(String, () throws -> Void)] = [
      ("value(forKey:)", { _ = try book.value(forKey: key) }),
      ("setValue(_:forKey:)", { try book.setValue(1, forKey: key) }),
      ("value(forKeyPath:)", { _ = try book.value(forKeyPath: "category." + key) }),
      ("setValue(_:forKeyPath:)", { try book.setValue(1, forKeyPath: key) }),
      ("primitiveValue(forKey:)", { _ = try book.primitiveValue(forKey: key) }),
      ("mutableSet(forKey:)", { _ = try s.fiction.mutableSet(forKey: key) }),
    ]
    for (name, body) in bodies {
      let before = GraphSnapshot(s.context)
      let error = #expect(throws: ObjectGraphError.self, "\(name)", performing: body)
      #expect(error?.kind == .unknownKey, "\(name)")
      let text = error?.description ?? ""
      #expect(text.count < 3_000, "\(name): \(text.count) characters")
      #expect(text.contains("(1000000 characters)"), "\(name)")
      #expect((error?.key?.count ?? .max) < 200, "\(name)")
      #expect(GraphSnapshot(s.context) == before)
    }
    let name = String(repeating: "E", count: 1_000_000)
    let foreign = ObjectID(storeIdentifier: UUID(), entityName: name, key: 1)
    let entityBodies: [(String, () throws -> Void)] = [
      ("insertObject(forEntityName:)", { _ = try s.context.insertObject(forEntityName: name) }),
      ("existingObject(with:)", { _ = try s.context.existingObject(with: foreign) }),
    ]
    for (label, body) in entityBodies {
      let error = #expect(throws: ObjectGraphError.self, "\(label)", performing: body)
      let text = error?.description ?? ""
      #expect(text.count < 3_000, "\(label): \(text.count) characters")
      #expect(text.hasPrefix(String(repeating: "E", count: 120) + "… (1000000 characters): "))
      #expect((error?.entity.count ?? .max) < 200, "\(label)")
    }
    let value = String(repeating: "v", count: 1_000_000)
    let error = expectGraphError(.wrongType, entity: "Book", key: "price", in: s.context) {
      try book.setValue(value, forKey: "price")
    }
    #expect((error?.description.count ?? .max) < 3_000)
    #expect(error?.value?.contains("(1000000 characters)") == true)
  }

  // MARK: ChangeRecorder.mismatch

  @Test func mismatchNamesTheFirstDifferentLineFromOne() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let recorder = try ChangeRecorder(observing: [book], keys: ["title", "price"])
    book.title = "A"
    book.price = 1
    #expect(
      recorder.mismatch([
        #"Book#3.title setting old="The first book" new="A""#,
        "Book#3.price setting old=10.0 new=1.0",
      ]) == nil)
    #expect(recorder.isEmpty)

    book.title = "B"
    book.price = 2
    #expect(
      recorder.mismatch([
        #"Book#3.title setting old="A" new="X""#, "Book#3.price setting old=1.0 new=2.0",
      ]) == """
        recorded 2 lines, expected 2; first difference at line 1:
          recorded: Book#3.title setting old="A" new="B"
          expected: Book#3.title setting old="A" new="X"
        all recorded:
          Book#3.title setting old="A" new="B"
          Book#3.price setting old=1.0 new=2.0
        """)
    #expect(recorder.isEmpty)

    book.title = "C"
    book.price = 3
    let second = recorder.mismatch([
      #"Book#3.title setting old="B" new="C""#, "Book#3.price setting old=2.0 new=4.0",
    ])
    #expect(second?.contains("first difference at line 2:\n") == true)
    #expect(second?.contains("  recorded: Book#3.price setting old=2.0 new=3.0\n") == true)

    book.title = "D"
    let missing = recorder.mismatch([
      #"Book#3.title setting old="C" new="D""#, "Book#3.price setting old=3.0 new=4.0",
    ])
    #expect(missing?.contains("first difference at line 2:\n  recorded: <none>\n") == true)

    book.title = "E"
    let unexpected = recorder.mismatch([])
    #expect(
      unexpected?.contains(
        #"first difference at line 1:"# + "\n"
          + #"  recorded: Book#3.title setting old="D" new="E""# + "\n  expected: <none>") == true)
  }
}
