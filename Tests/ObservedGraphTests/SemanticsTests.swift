import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

@Suite("Typed to-many edits report what changed")
struct TypedToManyTests {
  /// A book with three pages, p0 p1 p2, a loose page p3, a recorder on the book's pages, and an undo
  /// log.
  private struct Setup {
    let s = BookStore.scenario()
    let book: Book
    let pages: [Page]
    let recorder: ChangeRecorder

    init() {
      book = s.books[0]
      let context = s.context
      pages = (0..<4).map { index in
        let page = context.insert(Page.self)
        page.text = "p\(index)"
        return page
      }
      book.pages = Array(pages[0..<3])
      s.context.undoLog = UndoLog()
      s.context.processPendingChanges()
      recorder = try! ChangeRecorder(observing: [book], keys: ["pages"])
    }

    /// One user event, then its undo and redo: the lines of each.
    func check(
      _ change: () -> Void, does: [String], undo: [String],
      sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let before = book.pages
      change()
      s.context.processPendingChanges()
      let after = book.pages
      #expect(recorder.mismatch(does) == nil, sourceLocation: sourceLocation)
      try s.context.undoLog?.undo()
      #expect(book.pages == before, sourceLocation: sourceLocation)
      #expect(recorder.mismatch(undo) == nil, sourceLocation: sourceLocation)
      try s.context.undoLog?.redo()
      #expect(book.pages == after, sourceLocation: sourceLocation)
      #expect(
        recorder.mismatch(does) == nil, "redo reports the change again",
        sourceLocation: sourceLocation)
      s.context._checkInvariants()
      #expect(pagesAgree(book), sourceLocation: sourceLocation)
    }

    func pagesAgree(_ book: Book) -> Bool { book.pages.allSatisfy { $0.book === book } }
  }

  @Test func appendIsAnInsertionAtTheEnd() throws {
    let t = Setup()
    try t.check(
      { t.book.pages.append(t.pages[3]) },
      does: ["Book#3.pages insertion new=[Page#9] indexes=[3]"],
      undo: ["Book#3.pages removal old=[Page#9] indexes=[3]"])
    #expect(t.pages[3].book === t.book)
  }

  @Test func removeAtIsARemovalAtTheIndex() throws {
    let t = Setup()
    try t.check(
      { t.book.pages.remove(at: 1) },
      does: ["Book#3.pages removal old=[Page#7] indexes=[1]"],
      undo: ["Book#3.pages insertion new=[Page#7] indexes=[1]"])
  }

  @Test func insertAtIsAnInsertionAtTheIndex() throws {
    let t = Setup()
    try t.check(
      { t.book.pages.insert(t.pages[3], at: 0) },
      does: ["Book#3.pages insertion new=[Page#9] indexes=[0]"],
      undo: ["Book#3.pages removal old=[Page#9] indexes=[0]"])
  }

  @Test func aMoveSaysWhereItWent() throws {
    let t = Setup()
    try t.check(
      {
        var pages = t.book.pages
        pages.append(pages.removeFirst())
        t.book.pages = pages
      },
      does: [
        "Book#3.pages removal old=[Page#6] indexes=[0]",
        "Book#3.pages insertion new=[Page#6] indexes=[2]",
      ],
      undo: [
        "Book#3.pages removal old=[Page#6] indexes=[2]",
        "Book#3.pages insertion new=[Page#6] indexes=[0]",
      ])
  }

  @Test func swapAtIsTheDifference() throws {
    let t = Setup()
    t.book.pages.swapAt(0, 2)
    #expect(t.book.pages == [t.pages[2], t.pages[1], t.pages[0]])
    let lines = t.recorder.take()
    #expect(lines.count == 2)
    #expect(
      lines[0].hasPrefix("Book#3.pages removal") && lines[1].hasPrefix("Book#3.pages insertion"))
    #expect(t.pagesAgree(t.book))
  }

  /// A move names the object that moved, even where a difference could name its neighbour.
  @Test func aMoveOfNeighboursNamesTheMovedObject() throws {
    let t = Setup()
    try t.check(
      { try! t.book.mutableOrderedSet(forKey: "pages").move(from: 0, to: 1) },
      does: [
        "Book#3.pages removal old=[Page#6] indexes=[0]",
        "Book#3.pages insertion new=[Page#6] indexes=[1]",
      ],
      undo: [
        "Book#3.pages removal old=[Page#6] indexes=[1]",
        "Book#3.pages insertion new=[Page#6] indexes=[0]",
      ])
    try t.book.mutableOrderedSet(forKey: "pages").insert(t.pages[2], at: 0)
    #expect(
      t.recorder.mismatch([
        "Book#3.pages removal old=[Page#8] indexes=[2]",
        "Book#3.pages insertion new=[Page#8] indexes=[0]",
      ]) == nil)
    try t.book.mutableOrderedSet(forKey: "pages").insert(t.pages[2], at: 0)
    #expect(
      t.recorder.mismatch([
        "Book#3.pages setting old=[Page#8, Page#7, Page#6] new=[Page#8, Page#7, Page#6]"
      ]) == nil, "placing an object where it is changes nothing")
  }

  @Test func theProxyMoveIsReportedTheSameWay() throws {
    let t = Setup()
    try t.book.mutableOrderedSet(forKey: "pages").move(from: 2, to: 0)
    #expect(
      t.recorder.mismatch([
        "Book#3.pages removal old=[Page#8] indexes=[2]",
        "Book#3.pages insertion new=[Page#8] indexes=[0]",
      ]) == nil)
  }

  /// A whole-array assignment is reported as its difference: the objects that left (old indexes),
  /// then the objects that joined (new indexes). An equal assignment is a setting, old == new.
  @Test func aWholeAssignmentIsItsDifference() throws {
    let t = Setup()
    try t.check(
      { t.book.pages = [t.pages[3], t.pages[1]] },
      does: [
        "Book#3.pages removal old=[Page#6, Page#8] indexes=[0, 2]",
        "Book#3.pages insertion new=[Page#9] indexes=[0]",
      ],
      undo: [
        "Book#3.pages removal old=[Page#9] indexes=[0]",
        "Book#3.pages insertion new=[Page#6, Page#8] indexes=[0, 2]",
      ])
    t.book.pages = t.book.pages
    #expect(
      t.recorder.mismatch([
        "Book#3.pages setting old=[Page#9, Page#7] new=[Page#9, Page#7]"
      ]) == nil)
    #expect(!t.book.hasChanges || t.book.isInserted)
  }

  @Test func unorderedSetsReportTheMembersThatChanged() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.fiction], keys: ["books"])
    let extra = s.context.insert(Book.self)
    s.fiction.books.insert(extra)
    s.fiction.books.remove(s.books[0])
    s.fiction.books = [extra, s.books[2]]
    #expect(
      recorder.mismatch([
        "BookCategory#1.books insertion new={Book#6}",
        "BookCategory#1.books removal old={Book#3}",
        "BookCategory#1.books removal old={Book#4}",
        "BookCategory#1.books insertion new={Book#5}",
      ]) == nil)
    #expect(s.books[2].category === s.fiction && s.science.books.isEmpty)
  }

  /// Key-value coding's whole-value set stays one setting (as before, and as KVO's setter says).
  @Test func keyValueCodingSetsTheWholeValue() throws {
    let t = Setup()
    try t.book.setValue([t.pages[2]], forKey: "pages")
    #expect(
      t.recorder.mismatch([
        "Book#3.pages setting old=[Page#6, Page#7, Page#8] new=[Page#8]"
      ]) == nil)
  }
}

@Suite("Deleted objects behave one way on every path")
struct DeletedObjectTests {
  @Test func readingWorksEverywhereAndChangingFailsEverywhere() throws {
    let s = BookStore.scenario()
    let context = s.context
    let book = s.books[0]
    let page = context.insert(Page.self)
    book.pages = [page]
    try context.delete(book)
    // Reading: attribute values stay, relationships are empty, on every path.
    #expect(book.title == "The first book")
    #expect(try book.value(forKey: "title") as? String == "The first book")
    #expect(try book.primitiveValue(forKey: "title") as? String == "The first book")
    #expect(book.category == nil && book.pages.isEmpty)
    #expect(try book.value(forKey: "category") == nil)
    #expect(try book.primitiveValue(forKey: "pages") as? [Page] == [])
    #expect(try book.value(forKeyPath: "category.name") == nil)
    #expect(book.isDeleted && page.isDeleted, "the cascade deleted the page")
    // Changing: every path throws, naming the object.
    for attempt: () throws -> Void in [
      { try book.setValue("x", forKey: "title") },
      { try book.setValue(s.fiction, forKey: "category") },
      { try book.setPrimitiveValue("x", forKey: "title") },
      { try book.setPrimitiveValue(s.fiction, forKey: "category") },
      { try book.mutableOrderedSet(forKey: "pages").append(page) },
      { try book.setValue("x", forKeyPath: "title") },
      { try s.fiction.mutableSet(forKey: "books").insert(book) },
      { try page.setValue(book, forKey: "book") },
    ] {
      let error = #expect(throws: ObjectGraphError.self) { try attempt() }
      if error?.kind != .deletedObject && error?.kind != .wrongType {
        Issue.record("unexpected \(String(describing: error))")
      }
    }
    expectGraphError(.deletedObject, entity: "Book", key: "title", value: "Book#3", in: context) {
      try book.setValue("x", forKey: "title")
    }
    // The delete stays until the save: the object is registered, then it leaves.
    #expect(context.registeredObjects.contains(book) && book.context === context)
    try context.save()
    #expect(!context.registeredObjects.contains(book) && book.context == nil && book.isDeleted)
    #expect(book.title == "The first book")
    expectGraphError(.deletedObject, entity: "Book", key: "title", value: "Book#3", in: context) {
      try book.setValue("x", forKey: "title")
    }
    expectGraphError(.deletedObject, entity: "Book", value: "Book#3", in: context) {
      try context.delete(book)
    }
  }

  /// Observing is reading: a deleted object still in its context can be observed, by name and by
  /// type; one out of its context cannot.
  @Test func aDeletedObjectCanBeObservedUntilItLeaves() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    try s.context.delete(book)
    var initial: String?
    let byName = try book.observe(keyPath: "title", options: [.initial, .new]) { change in
      initial = change.newValue as? String
    }
    #expect(initial == "The first book" && byName.isValid)
    #expect(book.observe(\.title) { _, _ in }.isValid)
    try s.context.save()
    expectGraphError(.deletedObject, entity: "Book", key: "title", in: s.context) {
      _ = try book.observe(keyPath: "title") { _ in }
    }
    #expect(!book.observe(\.title) { _, _ in }.isValid)
  }

  @Test func aTypedSetOfADeletedObjectStops() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      try? s.context.delete(s.books[0])
      s.books[0].title = "x"
    }
  }

  @Test func aBracketOnADeletedObjectStops() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      try? s.context.delete(s.books[0])
      s.books[0].willChangeValue(forKey: "title")
    }
  }

  @Test func anInsertedThenDeletedObjectIsDeletedUntilTheSave() throws {
    let s = BookStore.scenario()
    let page = s.context.insert(Page.self)
    try s.context.delete(page)
    #expect(page.isDeleted && page.context === s.context && !page.hasChanges)
    #expect(s.context.registeredObjects.contains(page) && !s.context.deletedObjects.contains(page))
    try s.context.save()
    #expect(page.isDeleted && page.context == nil)
  }
}

@Suite("Events and observation details")
struct EventSemanticsTests {
  /// Undo of an insert, and a delete a save commits, name the object under `deleted`; the
  /// identifier no longer finds it.
  @Test func eventsNameObjectsThatWentAway() throws {
    let s = BookStore.scenario()
    let context = s.context
    context.undoLog = UndoLog()
    context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = context.onObjectsDidChange { events.append($0) }
    let page = context.insert(Page.self)
    context.processPendingChanges()
    #expect(events.last?.inserted == [page.objectID])
    try context.undoLog?.undo()
    context.processPendingChanges()
    #expect(events.last?.deleted == [page.objectID])
    #expect(context.object(with: page.objectID) == nil)

    try context.delete(s.books[2])
    try context.save()
    #expect(events.last?.deleted == [s.books[2].objectID])
    #expect(context.object(with: s.books[2].objectID) == nil)
    _ = token
  }

  @Test func mismatchCountsLinesFromOne() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.books[0]], keys: ["price"])
    s.books[0].price = 2
    let text = try #require(recorder.mismatch(["Book#3.price setting old=10.0 new=3.0"]))
    #expect(text.contains("first difference at line 1:"))
  }

  /// Dependent keys declared for a stored attribute notify its observers when a dependency changes
  /// (as KVO does), whether it is observed by name or by a typed key path.
  @Test func dependentKeysOfAStoredAttribute() throws {
    let context = ObjectContext(model: Gadget.model)
    let gadget = context.insert(Gadget.self)
    var byName: [String] = []
    let named = try gadget.observe(keyPath: "label", options: [.old, .new]) { change in
      byName.append(
        "\(change.oldValue.map { "\($0 ?? "nil")" } ?? "-") -> \(change.newValue.map { "\($0 ?? "nil")" } ?? "-")"
      )
    }
    var typed: [String] = []
    let token = gadget.observe(\.label, options: [.new]) { _, change in
      typed.append(change.newValue ?? "-")
    }
    gadget.serial = 7  // label depends on serial
    gadget.label = "b"
    #expect(byName == ["a -> a", "a -> b"])
    #expect(typed == ["a", "b"])
    _ = (named, token)
  }

  @Test func aDependentKeyNamingAnUnknownKeyThrowsAtRegistration() throws {
    let context = ObjectContext(model: Gadget.model)
    let gadget = context.insert(Gadget.self)
    expectGraphError(.unknownKey, entity: "Gadget", key: "broken", in: context) {
      _ = try gadget.observe(keyPath: "broken") { _ in }
    }
  }

  /// A typed key path through a relationship observes the whole path.
  @Test func typedKeyPathsThroughRelationshipsFireOnEveryLink() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    var names: [String?] = []
    let token = book.observe(\.category?.name, options: [.new]) { _, change in
      names.append(change.newValue ?? nil)
    }
    s.fiction.name = "Novels"
    book.category = s.science
    s.science.name = "Physics"
    s.fiction.name = "ignored now"
    book.category = nil
    #expect(names == ["Novels", "Science", "Physics", nil])
    _ = token
  }

  /// A stream whose consumer stopped ends its subscription.
  @Test func endedStreamsAreRemoved() async throws {
    let s = BookStore.scenario()
    let context = s.context
    context.processPendingChanges()
    let before = context.center.subscriberCount
    do {
      let stream = context.objectsDidChange
      var iterator = stream.makeAsyncIterator()
      s.books[0].price = 1
      context.processPendingChanges()
      let first = await iterator.next()
      #expect(first?.updated.keys.contains(s.books[0].objectID) == true)
      #expect(context.center.subscriberCount == before + 1)
    }
    // The stream and its iterator are gone: the next event finds it terminated and drops it.
    s.books[0].price = 2
    context.processPendingChanges()
    #expect(context.center.subscriberCount == before)
  }
}

/// `label` is stored, and depends on `serial`; `broken` depends on a key that does not exist.
final class Gadget: ManagedObject {
  @Attribute var label: String = "a"
  @Attribute var serial: Int = 0

  override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
    switch key {
    case "label": ["serial"]
    case "broken": ["noSuchKey"]
    default: super.keyPathsForValuesAffectingValue(forKey: key)
    }
  }

  static let model = try! ObjectModel(types: [Gadget.self])
}
