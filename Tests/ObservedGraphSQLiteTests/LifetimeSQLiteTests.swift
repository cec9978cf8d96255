import Foundation
import Observation
import ObservedGraph
import ObservedGraphSQLite
import Testing

// MARK: The lifetime tracker

/// Weak references to everything a scenario made: after the scenario's references went out of
/// scope, ``alive`` names what is still in memory, which is a leak or a cycle.
final class StoreLifetimeTracker {
  private struct Entry {
    let label: String
    weak var object: AnyObject?
  }

  private var entries: [Entry] = []

  /// Follows `object` under `label`.
  func track(_ object: AnyObject, _ label: String) {
    entries.append(Entry(label: label, object: object))
  }

  /// Follows managed objects, each named by its identifier and whether it was a fault.
  func track(all objects: some Sequence<ManagedObject>, _ note: String) {
    for object in objects {
      let fault = object.isFault ? " (fault)" : ""
      track(object as AnyObject, "\(object.objectID)\(fault) \(note)")
    }
  }

  /// How many references are followed.
  var count: Int { entries.count }

  /// The labels of the followed objects still in memory.
  var alive: [String] { entries.filter { $0.object != nil }.map(\.label) }
}

/// Something a closure captures, so that the tracker sees whether the closure was freed.
final class Capture: Sendable {
  let name: String
  init(_ name: String) { self.name = name }
}

// MARK: The model

final class LeakShelf: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shelf") var books: Set<LeakBook>

  override class var fetchedProperties: [FetchedPropertyDescription] {
    [
      FetchedPropertyDescription(
        name: "cheapBooks", destination: "LeakBook",
        predicate: try! FetchPredicate(format: "SELF.price < 10 AND SELF.shelf == $FETCH_SOURCE"),
        sortDescriptors: [FetchSort("title")])
    ]
  }
}

final class LeakBook: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var price: Double = 0
  @Relationship(inverse: "books") var shelf: LeakShelf?
  @Relationship(inverse: "books") var tags: Set<LeakTag>
  @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [LeakPage]
}

final class LeakTag: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "tags") var books: Set<LeakBook>
}

final class LeakPage: ManagedObject {
  @Attribute var text: String = ""
  @Relationship(inverse: "pages") var book: LeakBook?
}

// MARK: The tests

/// On an SQLite store: releasing the contexts frees every object, fault and observer, the store
/// and its connection; fetched faults, their loaded relationships, live results and the undo log
/// hold no cycles.
@Suite struct LifetimeSQLiteTests {
  static let model = try! ObjectModel(types: [
    LeakShelf.self, LeakBook.self, LeakTag.self, LeakPage.self,
  ])

  /// Saves two shelves, four books with pages and tags; returns the books' identifiers.
  static func fill(_ context: ObjectContext) throws -> [ObjectID] {
    let shelves = ["Fiction", "Science"].map { name in
      let shelf = context.insert(LeakShelf.self)
      shelf.name = name
      return shelf
    }
    let tags = ["old", "new"].map { name in
      let tag = context.insert(LeakTag.self)
      tag.name = name
      return tag
    }
    let books = [("Dune", 8.0), ("Emma", 12.0), ("Ubik", 6.0), ("Solaris", 9.0)].enumerated().map {
      index, entry in
      let book = context.insert(LeakBook.self)
      book.title = entry.0
      book.price = entry.1
      book.shelf = shelves[index % 2]
      book.pages = (1...2).map { number in
        let page = context.insert(LeakPage.self)
        page.text = "\(entry.0) \(number)"
        return page
      }
      return book
    }
    tags[0].books = [books[0], books[1]]
    books[2].tags = [tags[0], tags[1]]
    try context.save()
    return books.map(\.objectID)
  }

  /// A writer saves the graph; a reader on the same store fetches faults, walks relationships
  /// both ways (to-many faults, many-to-many join rows), reads a fetched property, follows live
  /// results, observes with closures that capture objects, undoes and redoes a cascade delete,
  /// and saves. Every reference it makes ends when it returns.
  static func touchEverything(_ tracker: StoreLifetimeTracker, at url: URL) throws {
    let store = try SQLiteStore(url: url, model: model)
    let container = PersistentContainer(store: store)
    tracker.track(store, "store")
    tracker.track(container, "container")
    let writer = container.viewContext
    tracker.track(writer, "writer")
    let ids = try fill(writer)
    tracker.track(all: writer.registeredObjects, "written")

    let reader = container.newContext()
    let log = UndoLog()
    reader.undoLog = log
    tracker.track(reader, "reader")
    tracker.track(log, "undo log")
    let faults = ids.compactMap { reader.object(with: $0) as? LeakBook }
    tracker.track(all: faults, "looked up")
    let books = try reader.fetch(
      FetchRequest<LeakBook>(
        matching: try FetchPredicate(format: "price > 0"),
        sortedBy: [
          FetchSort("title")
        ]))
    tracker.track(all: books, "fetched")
    #expect(books.map(\.title) == ["Dune", "Emma", "Solaris", "Ubik"])

    // Relationships both ways: to-one, to-many faults, many-to-many, ordered.
    let fiction = try #require(books[0].shelf)
    let science = try #require(books[2].shelf)
    #expect(fiction.books.map(\.title).sorted() == ["Dune", "Ubik"])
    #expect(science.books.count == 2)
    let old = try #require(books[0].tags.first)
    #expect(old.books.count == 3)
    #expect(books[3].tags.count == 2)
    #expect(books[0].pages.map(\.text) == ["Dune 1", "Dune 2"])
    #expect(books[1].pages.first?.book === books[1])
    let cheap = try #require(try fiction.value(forKey: "cheapBooks") as? [ManagedObject])
    #expect(cheap.count == 2)

    // Observers capturing objects, the observed object among them.
    let captured = Capture("observer")
    tracker.track(captured, "capture of observers")
    var heard: [String] = []
    let emma = books[1]
    var tokens = [
      emma.observe(\.price, options: [.old, .new]) { _, _ in heard.append(emma.title) },
      books[0].observe(\.title) { book, _ in heard.append("\(book.title) \(fiction.name)") },
      fiction.observe(\.books, options: [.prior, .old]) { _, _ in heard.append(captured.name) },
      try books[2].observe(keyPath: "shelf.name") { _ in heard.append(science.name) },
      try old.observe(keyPath: "books") { _ in heard.append(old.name) },
      reader.onObjectsDidChange { _ in heard.append("\(books.count) \(captured.name)") },
      reader.onDidSave { saved in heard.append("\(saved.updated.count) \(cheap.count)") },
    ]
    let tracked = Capture("Swift Observation")
    tracker.track(tracked, "capture of Swift Observation")
    withObservationTracking {
      _ = books[2].price
    } onChange: { [tracked] in
      _ = tracked.name
    }

    // Live results through a relationship, with a callback capturing objects.
    let results = try FetchedResults(
      context: reader,
      request: FetchRequest<LeakBook>(matching: nil, sortedBy: [FetchSort("title")]),
      sectionKeyPath: "shelf.name")
    tracker.track(results, "live results")
    tokens.append(results.onChange { _ in heard.append(fiction.name) })
    let changes = results.changes

    // Undo groups referencing objects: edits, a cascade delete undone and redone.
    log.beginGroup()
    emma.price = 7
    books[0].title = "Dune Messiah"
    science.name = "Sciences"
    try log.endGroup()
    reader.processPendingChanges()
    try reader.delete(books[3])
    reader.processPendingChanges()
    try log.undo()
    try log.redo()
    reader.processPendingChanges()
    try reader.save()
    fiction.name = "Novels"
    reader.processPendingChanges()

    #expect(!heard.isEmpty)
    tracker.track(all: reader.registeredObjects, "registered")
    tracker.track(all: books[0].pages + books[1].pages, "pages")
    for (index, token) in tokens.enumerated() { tracker.track(token, "token \(index)") }
    _ = changes
  }

  @Test func releasingTheContextsFreesEverything() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("lifetime.sqlite")
    let tracker = StoreLifetimeTracker()
    try Self.touchEverything(tracker, at: url)
    #expect(tracker.count > 40)
    #expect(tracker.alive == [])
    // Nothing holds the file: a store opened on it again reads what the reader saved.
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).viewContext
    let titles = try context.fetch(
      FetchRequest<LeakBook>(matching: nil, sortedBy: [FetchSort("title")])
    )
    .map(\.title)
    #expect(titles == ["Dune Messiah", "Emma", "Solaris"])
    try store.close()
  }

  /// Objects kept after their context is released hold neither the context nor the store: a
  /// fault stays a fault, a loaded object keeps its attribute values.
  @Test func objectsAndFaultsOutlivingTheirContext() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("outliving.sqlite")
    let tracker = StoreLifetimeTracker()
    let (fault, book) = try {
      let store = try SQLiteStore(url: url, model: Self.model)
      tracker.track(store, "store")
      let container = PersistentContainer(store: store)
      let ids = try Self.fill(container.viewContext)
      let reader = container.newContext()
      tracker.track(reader, "reader")
      let fault = try #require(reader.object(with: ids[1]) as? LeakBook)
      let book = try #require(try reader.existingObject(with: ids[0]) as? LeakBook)
      _ = book.shelf?.books.count
      tracker.track(all: [book.shelf!], "shelf")
      return (fault, book)
    }()
    #expect(tracker.alive == [])
    #expect(fault.isFault)
    #expect(fault.context == nil)
    #expect(book.context == nil)
    #expect(book.title == "Dune")
    #expect(book.shelf == nil)
  }

  /// A context on a store holds its unchanged objects weakly: one the app lets go is freed while
  /// the context lives, and comes back as a fault; a changed one is kept while it has changes.
  @Test func aStoreContextLetsUnchangedObjectsGo() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let store = try SQLiteStore(
      url: folder.url.appendingPathComponent("weak.sqlite"), model: Self.model)
    defer { try? store.close() }
    let container = PersistentContainer(store: store)
    let ids = try Self.fill(container.viewContext)
    let tracker = StoreLifetimeTracker()
    try {
      let reader = container.newContext()
      tracker.track(reader, "reader")
      do {
        let books = try ids.map { try reader.existingObject(with: $0) }
        tracker.track(all: [books[0]], "unchanged")
        tracker.track(all: [books[1]], "changed")
        (books[1] as? LeakBook)?.price = 1
      }
      #expect(tracker.alive == ["reader", "\(ids[1]) changed"])
      let again = try #require(reader.object(with: ids[0]) as? LeakBook)
      #expect(again.isFault)
      #expect(again.title == "Dune")
      try reader.save()
      #expect(!reader.hasChanges)
    }()
    #expect(tracker.alive == [])
  }
}
