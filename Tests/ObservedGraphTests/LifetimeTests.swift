import Foundation
import Observation
import ObservedGraph
import Testing

// MARK: The lifetime tracker

/// Weak references to everything a scenario made: after the scenario's references went out of
/// scope, ``alive`` names what is still in memory, which is a leak or a cycle.
final class LifetimeLedger {
  private struct Entry {
    let label: String
    weak var object: AnyObject?
  }

  private var entries: [Entry] = []

  /// Follows `object` under `label`.
  func track(_ object: AnyObject, _ label: String) {
    entries.append(Entry(label: label, object: object))
  }

  /// Follows a managed object, named by its identifier and its state when tracked.
  func track(_ object: ManagedObject, _ note: String = "") {
    let fault = object.isFault ? " (fault)" : ""
    track(object as AnyObject, "\(object.objectID)\(fault)\(note.isEmpty ? "" : " \(note)")")
  }

  /// Follows each of `objects`.
  func track(all objects: some Sequence<ManagedObject>, _ note: String = "") {
    for object in objects { track(object, note) }
  }

  /// How many references are followed.
  var count: Int { entries.count }

  /// The labels of the followed objects still in memory.
  var alive: [String] { entries.filter { $0.object != nil }.map(\.label) }

  /// Whether the object tracked under `label` is still in memory.
  func isAlive(_ label: String) -> Bool {
    entries.contains { $0.label == label && $0.object != nil }
  }
}

/// Something a closure captures, so that the tracker sees whether the closure was freed.
final class Sentinel: Sendable {
  let name: String
  init(_ name: String) { self.name = name }
}

// MARK: The model

/// A shelf of books with a fetched property: the books on it cheaper than 10.
final class LifeShelf: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shelf") var books: Set<LifeBook>

  override class var fetchedProperties: [FetchedPropertyDescription] {
    [
      FetchedPropertyDescription(
        name: "cheapBooks", destination: "LifeBook",
        predicate: try! FetchPredicate(format: "SELF.price < 10 AND SELF.shelf == $FETCH_SOURCE"),
        sortDescriptors: [FetchSort("title")])
    ]
  }
}

final class LifeBook: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var price: Double = 0
  @Relationship(inverse: "books") var shelf: LifeShelf?
  @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [LifePage]
}

final class LifePage: ManagedObject {
  @Attribute var text: String = ""
  @Relationship(inverse: "pages") var book: LifeBook?
}

enum Life {
  static let model = try! ObjectModel(types: [LifeShelf.self, LifeBook.self, LifePage.self])
}

// MARK: The tests

/// Releasing a context frees every object, fault and observer; tokens, the undo log, live results
/// and fetched faults hold no cycles; and what outlives its context holds what the guides say.
@Suite struct LifetimeTests {
  /// A context that touches everything: objects linked both ways, observers of every kind whose
  /// closures capture objects, Swift Observation, undo groups (graph steps, a closure step, a
  /// cascade delete's column), live results, a fetched property, a save, and with a store, faults
  /// fetched by a second context. Every reference it makes ends when it returns.
  static func touchEverything(_ tracker: LifetimeLedger, withStore: Bool) throws {
    let container = withStore ? PersistentContainer(model: Life.model) : nil
    let context = container?.viewContext ?? ObjectContext(model: Life.model)
    let log = UndoLog()
    context.undoLog = log
    if let container {
      tracker.track(container, "container")
      tracker.track(container.store, "store")
    }
    tracker.track(context, "context")
    tracker.track(log, "undo log")

    // Objects, with relationships set from both sides.
    let fiction = context.insert(LifeShelf.self)
    fiction.name = "Fiction"
    let science = context.insert(LifeShelf.self)
    science.name = "Science"
    let books = [("Dune", 8.0), ("Emma", 12.0), ("Ubik", 6.0), ("Solaris", 9.0)].map { entry in
      let book = context.insert(LifeBook.self)
      book.title = entry.0
      book.price = entry.1
      return book
    }
    fiction.books = [books[0], books[1]]
    books[2].shelf = science
    books[3].shelf = science
    let pages = (1...4).map { number in
      let page = context.insert(LifePage.self)
      page.text = "page \(number)"
      return page
    }
    books[0].pages = [pages[0], pages[1]]
    pages[2].book = books[1]
    pages[3].book = books[3]

    // Observers whose closures capture objects, the object itself among them.
    let captured = Sentinel("observer")
    tracker.track(captured, "sentinel captured by observers")
    var heard: [String] = []
    let second = books[1]
    var tokens = [
      books[0].observe(\.title, options: [.old, .new]) { book, change in
        heard.append("\(book.title) \(fiction.name) \(captured.name) \(change.newValue ?? "")")
      },
      second.observe(\.price, options: [.prior, .old, .new]) { _, _ in
        heard.append("\(second.title) \(captured.name)")
      },
      fiction.observe(\.books, options: [.old, .new]) { shelf, _ in
        heard.append("\(shelf.name) \(books.count)")
      },
      try science.observe(keyPath: "name", options: [.prior, .old]) { _ in
        heard.append("\(science.name) \(pages.count)")
      },
      try books[2].observe(keyPath: "shelf.name", options: [.old, .new]) { _ in
        heard.append("\(books[2].title) \(captured.name)")
      },
      try pages[0].observe(keyPath: "book.shelf.name") { _ in heard.append(pages[0].text) },
      context.onObjectsDidChange { event in heard.append("\(event.updated.count) \(fiction.name)")
      },
      context.onWillSave { saved in heard.append("will \(saved.inserted.count) \(books.count)") },
      context.onDidSave { saved in heard.append("did \(saved.inserted.count) \(science.name)") },
    ]
    let stream = context.objectsDidChange
    let recorder = ChangeRecorder(context: context)
    tracker.track(recorder, "change recorder")
    let tracked = Sentinel("Swift Observation")
    tracker.track(tracked, "sentinel captured by Swift Observation")
    withObservationTracking {
      _ = books[3].title
    } onChange: { [tracked] in
      _ = tracked.name
    }

    // Live results, sectioned through a relationship, with a callback capturing objects.
    let results = try FetchedResults(
      context: context,
      request: FetchRequest<LifeBook>(
        matching: try FetchPredicate(format: "price < 20"), sortedBy: [FetchSort("title")]),
      sectionKeyPath: "shelf.name")
    tracker.track(results, "live results")
    tokens.append(
      results.onChange { change in heard.append("\(change.updated.count) \(books[0])") })
    let changes = results.changes
    _ = results.sections

    // Undo groups referencing objects: graph steps, a closure step, a cascade delete's column.
    log.beginGroup()
    books[0].title = "Dune Messiah"
    books[1].price = 13
    science.name = "Sciences"
    try log.endGroup()
    log.registerUndo(withTarget: books[2]) { book in book.price = science.books.isEmpty ? 0 : 6 }
    context.processPendingChanges()
    try context.delete(books[3])
    context.processPendingChanges()
    try log.undo()
    try log.redo()
    context.processPendingChanges()

    // A fetched property.
    let cheap = try fiction.value(forKey: "cheapBooks") as? [ManagedObject]
    #expect(cheap?.count == 1)

    try context.save()
    fiction.name = "Novels"
    context.processPendingChanges()

    // Faults fetched by a second context on the same store, their relationships walked.
    if let container {
      let reader = container.newContext()
      reader.undoLog = UndoLog()
      tracker.track(reader, "second context")
      let fetched = try reader.fetch(
        FetchRequest<LifeBook>(matching: nil, sortedBy: [FetchSort("title")]))
      tracker.track(all: fetched, "fetched")
      let shelf = try #require(fetched.first { $0.title == "Emma" }?.shelf)
      #expect(shelf.books.count == 2)
      #expect(try (shelf.value(forKey: "cheapBooks") as? [ManagedObject])?.count == 1)
      tokens.append(shelf.observe(\.name) { shelf, _ in heard.append(shelf.name) })
      shelf.name = "Read"
      reader.processPendingChanges()
      try reader.delete(fetched[0])
      reader.processPendingChanges()
      try reader.undoLog?.undo()
      tracker.track(all: reader.registeredObjects, "in the second context")
    }

    #expect(!heard.isEmpty)
    #expect(recorder.isEmpty == false)
    tracker.track(all: context.registeredObjects, "registered")
    tracker.track(all: books + pages + [fiction, science], "made")
    for (index, token) in tokens.enumerated() { tracker.track(token, "token \(index)") }
    _ = (stream, changes)
  }

  @Test(arguments: [false, true])
  func releasingAContextFreesEverything(withStore: Bool) throws {
    let tracker = LifetimeLedger()
    try Self.touchEverything(tracker, withStore: withStore)
    #expect(tracker.count > 30)
    #expect(tracker.alive == [])
  }

  /// Tokens hold neither the object nor the context: what they observed goes away while they are
  /// kept. An object's observation token keeps its handler (and what the handler captures) until
  /// it ends; the handlers of the context's events go with the context. Invalidating or releasing
  /// the tokens afterwards does nothing else.
  @Test func tokensOutlivingTheirContextHoldOnlyTheirHandlers() throws {
    let tracker = LifetimeLedger()
    var heard = 0
    let tokens: [ObservationToken] = try {
      let context = ObjectContext(model: Life.model)
      tracker.track(context, "context")
      let shelf = context.insert(LifeShelf.self)
      let book = context.insert(LifeBook.self)
      book.shelf = shelf
      tracker.track(all: [shelf, book])
      // One sentinel per handler, each captured by that handler alone.
      let typed = Sentinel("typed")
      let byName = Sentinel("by name")
      let path = Sentinel("path")
      let event = Sentinel("objects-did-change")
      let save = Sentinel("did-save")
      for sentinel in [typed, byName, path, event, save] {
        tracker.track(sentinel, "\(sentinel.name) handler")
      }
      return [
        book.observe(\.title) { book, _ in heard += book.title.count + typed.name.count },
        try shelf.observe(keyPath: "books") { _ in heard += byName.name.count },
        try book.observe(keyPath: "shelf.name") { _ in heard += path.name.count },
        context.onObjectsDidChange { _ in heard += shelf.books.count + event.name.count },
        context.onDidSave { _ in heard += book.title.count + save.name.count },
      ]
    }()
    #expect(tracker.alive == ["typed handler", "by name handler", "path handler"])
    #expect(tokens.allSatisfy { $0.isValid })
    tokens[0].invalidate()
    tokens[1].invalidate()
    tokens[1].invalidate()
    #expect(tokens.map(\.isValid) == [false, false, true, true, true])
    #expect(tracker.alive == ["path handler"])
    for token in tokens { token.invalidate() }
    #expect(tracker.alive == [])
    #expect(heard == 0)
  }

  /// A token ends its observation when released, and holds no reference back to it: the
  /// observer's closure goes when the token does, while the object and the context stay.
  @Test func releasingATokenFreesItsObserver() throws {
    let context = ObjectContext(model: Life.model)
    let book = context.insert(LifeBook.self)
    let tracker = LifetimeLedger()
    var heard: [String] = []
    do {
      let captured = Sentinel("observer")
      tracker.track(captured, "sentinel")
      let tokens = [
        book.observe(\.title) { _, change in heard.append("\(captured.name) \(change.newValue!)") },
        try book.observe(keyPath: "shelf.name") { _ in heard.append(captured.name) },
        context.onObjectsDidChange { _ in heard.append(captured.name) },
      ]
      tracker.track(all: [book])
      for (index, token) in tokens.enumerated() { tracker.track(token, "token \(index)") }
      book.title = "Dune"
      #expect(heard == ["observer Dune"])
    }
    #expect(tracker.alive == ["\(book.objectID)"])
    book.title = "Emma"
    context.processPendingChanges()
    #expect(heard == ["observer Dune"])
  }

  /// An object kept after its context is released reads its last attribute values; its
  /// relationships are dropped, changing it throws, and observing it returns an ended token.
  @Test func anObjectOutlivingItsContext() throws {
    let tracker = LifetimeLedger()
    let book: LifeBook = {
      let context = ObjectContext(model: Life.model)
      tracker.track(context, "context")
      let shelf = context.insert(LifeShelf.self)
      tracker.track(shelf)
      let book = context.insert(LifeBook.self)
      book.title = "Dune"
      book.shelf = shelf
      return book
    }()
    #expect(tracker.alive == [])
    #expect(book.context == nil)
    #expect(book.title == "Dune")
    #expect(book.shelf == nil)
    let error = #expect(throws: ObjectGraphError.self) {
      try book.setValue("Emma", forKey: "title")
    }
    #expect(error?.kind == .invalidObject)
    #expect(!book.observe(\.title) { _, _ in }.isValid)
  }

  /// Live results hold their context: it lives while they do, and goes with them. Their change
  /// stream finishes when they are released, and the context's objects-did-change stream when it
  /// is.
  @Test(.timeLimit(.minutes(1))) func liveResultsHoldTheirContextAndEndTheirStreams() async throws {
    let tracker = LifetimeLedger()
    var results: FetchedResults<LifeBook>? = try {
      let context = ObjectContext(model: Life.model)
      tracker.track(context, "context")
      for title in ["Dune", "Emma"] { context.insert(LifeBook.self).title = title }
      return try FetchedResults(
        context: context,
        request: FetchRequest<LifeBook>(matching: nil, sortedBy: [FetchSort("title")]))
    }()
    #expect(tracker.alive == ["context"])
    #expect(results?.objects.map(\.title) == ["Dune", "Emma"])
    let resultChanges = try #require(results?.changes)
    let contextEvents = try #require(results?.context.objectsDidChange)
    tracker.track(try #require(results), "live results")
    results?.context.insert(LifeBook.self).title = "Ubik"
    results?.context.processPendingChanges()
    results = nil
    #expect(tracker.alive == [])
    var changeCount = 0
    for await _ in resultChanges { changeCount += 1 }
    var eventCount = 0
    for await _ in contextEvents { eventCount += 1 }
    #expect(changeCount == 1)
    #expect(eventCount == 1)
  }

  /// The undo log kept after its context is released keeps only what its steps need: a quiet
  /// cascade delete's step holds the objects it deleted and those whose relationships it emptied
  /// (see Docs/Architecture.md, "Deletion columns"). Undo and redo then act on nothing, and the
  /// steps they take go with what they held; the rest goes with the log.
  @Test func anUndoLogOutlivingItsContext() throws {
    let tracker = LifetimeLedger()
    let (log, keptByTheLog): (UndoLog, [String]) = try {
      let context = ObjectContext(model: Life.model, participatesInSwiftObservation: false)
      let log = UndoLog()
      context.undoLog = log
      tracker.track(context, "context")
      let shelf = context.insert(LifeShelf.self)
      let book = context.insert(LifeBook.self)
      book.shelf = shelf
      let page = context.insert(LifePage.self)
      context.processPendingChanges()
      book.title = "Dune"
      context.processPendingChanges()
      tracker.track(shelf, "emptied by the delete")
      tracker.track(page, "kept by no step")
      tracker.track(book, "deleted")
      try context.delete(book)
      context.processPendingChanges()
      return (log, ["\(shelf.objectID) emptied by the delete", "\(book.objectID) deleted"])
    }()
    #expect(tracker.alive == keptByTheLog)
    #expect(log.canUndo)
    try log.undo()
    #expect(tracker.alive == [])
    try log.undo()
    try log.redo()
    #expect(!log.canRedo)
    weak let weakLog = log
    _ = consume log
    #expect(weakLog == nil)
  }

}
