import Foundation
import Observation
import Testing
import UndoLog

@testable import ObservedGraph

/// A store that logs what it loads: an in-memory store underneath.
final class TestStore: PersistentStore {
  let base: InMemoryStore
  private(set) var loads: [ObjectID] = []
  private(set) var memberLoads: [String] = []
  /// How many times objects were loaded (each call may load several).
  private(set) var loadCalls = 0
  /// Every change set saved, in order.
  private(set) var saves: [StoreChanges] = []
  /// How many times keys were reserved.
  private(set) var reservations = 0
  /// An error the next save throws before it changes anything.
  var failNextSave: (any Error)?

  init(model: ObjectModel) { base = InMemoryStore(model: model) }

  var identifier: UUID { base.identifier }
  var model: ObjectModel { base.model }
  var metadata: [String: String] { base.metadata }
  var isClosed: Bool { base.isClosed }
  func close() throws { try base.close() }
  func reserveKeys(_ count: Int) -> Range<Int64> {
    reservations += 1
    return base.reserveKeys(count)
  }
  func loadObjects(_ ids: [ObjectID]) throws -> [StoredObject] {
    loads += ids
    loadCalls += 1
    return try base.loadObjects(ids)
  }
  func loadMembers(of id: ObjectID, relationship: String) throws -> [StoredObject] {
    memberLoads.append("\(id).\(relationship)")
    return try base.loadMembers(of: id, relationship: relationship)
  }
  func save(_ changes: StoreChanges) throws {
    if let error = failNextSave {
      failNextSave = nil
      throw error
    }
    try base.save(changes)
    saves.append(changes)
  }
  func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool {
    try base.fetch(request, into: loader)
  }

  /// A stored object of an entity, with the named values and every other property omitted.
  func row(_ entity: String, _ key: Int64, _ values: [String: StoredProperty]) -> StoredObject {
    let names = model.entity(named: entity)!.propertyNames
    return StoredObject(
      id: ObjectID(storeIdentifier: identifier, entityName: entity, key: key),
      properties: names.map { values[$0] ?? .omitted })
  }
}

/// A context on the BookStore model whose store holds, by key: category 1 "Fiction" with book 2
/// "Dune" (12.5, pages 3 and 4) and book 5 "Emma" (9); no book 99.
struct StoredBookStore {
  let loader = TestStore(model: BookStore.model)
  let context: ObjectContext

  init() {
    context = ObjectContext(store: loader)
    let fiction = loader.row("BookCategory", 1, ["name": .attribute(.string("Fiction"))])
    let pages = [3, 4].map { loader.row("Page", $0, [:]) }
    let dune = loader.row(
      "Book", 2,
      [
        "title": .attribute(.string("Dune")), "price": .attribute(.double(12.5)),
        "category": .toOne(fiction.id), "pages": .toMany(pages.map(\.id)),
      ])
    let emma = loader.row(
      "Book", 5,
      [
        "title": .attribute(.string("Emma")), "price": .attribute(.double(9)),
        "category": .toOne(fiction.id),
      ])
    var rows = [fiction, dune, emma]
    rows[0].properties[
      BookStore.model.entity(named: "BookCategory")!.propertyNames.firstIndex(
        of: "books")!] = .toMany([dune.id, emma.id])
    for (index, page) in pages.enumerated() {
      rows.append(
        loader.row(
          "Page", page.id.key,
          [
            "text": .attribute(.string("page \(index)")),
            "number": .attribute(.integer(Int64(index))), "book": .toOne(dune.id),
          ]))
    }
    try! loader.save(StoreChanges(inserted: rows))
  }

  func id(_ entity: String, _ key: Int64) -> ObjectID {
    ObjectID(storeIdentifier: context.registry.storeIdentifier, entityName: entity, key: key)
  }

  func book(_ key: Int64) -> Book { context.object(with: id("Book", key)) as! Book }
}

@Suite("Faults and the read hook")
struct FaultTests {
  @Test func aFaultLoadsOnFirstReadAndNothingElseHappens() throws {
    let store = StoredBookStore()
    let context = store.context
    let log = UndoLog()
    context.undoLog = log
    let recorder = ChangeRecorder(context: context)
    var events: [ObjectsDidChange] = []
    let subscription = context.onObjectsDidChange { events.append($0) }

    let book = store.book(2)
    #expect(book.isFault && store.loader.loads.isEmpty)
    #expect(book.description == "Book#2 <fault>", "a description does not fire the fault")
    #expect(store.loader.loads.isEmpty)

    #expect(book.title == "Dune")
    #expect(!book.isFault && store.loader.loads == [store.id("Book", 2)])
    #expect(book.price == 12.5)
    #expect(store.loader.loads.count == 1, "one load for all values")
    let category = try #require(book.category)
    #expect(category.isFault && category.objectID == store.id("BookCategory", 1))
    // Observers of the fault, by key and through Swift Observation, hear nothing when it loads.
    var heard: [String] = []
    let observer = try category.observe(keyPath: "name", options: [.old, .new, .prior]) { _ in
      heard.append("name")
    }
    #expect(category.isFault, "registering an observer reads nothing")
    let tracked = Flag()
    withObservationTracking {
      #expect(category.name == "Fiction" && !category.isFault)
    } onChange: {
      tracked.set()
    }
    #expect(heard.isEmpty && !tracked.isSet)
    #expect(
      category.books.map(\.objectID).sorted { $0.key < $1.key } == [
        store.id("Book", 2), store.id("Book", 5),
      ])
    #expect(book.pages.map(\.objectID) == [store.id("Page", 3), store.id("Page", 4)])

    // Values arrived without being a change: nothing tracked, heard, posted or recorded.
    #expect(!book.hasChanges && !category.hasChanges && !context.hasChanges)
    #expect(book.changedValues().isEmpty)
    #expect(recorder.isEmpty)
    context.processPendingChanges()
    #expect(events.isEmpty)
    #expect(!log.canUndo)
    context._checkInvariants()
    // A real change afterwards is heard, as usual.
    category.name = "Novels"
    #expect(heard == ["name", "name"] && tracked.isSet)
    _ = (subscription, observer)
  }

  /// Every way of reading a value goes through the read hook, so every one of them fulfils.
  @Test(arguments: ["typed", "value(forKey:)", "value(forKeyPath:)", "primitive", "initial"])
  func everyReadFulfils(_ path: String) throws {
    let store = StoredBookStore()
    let book = store.book(5)
    #expect(book.isFault)
    var token: ObservationToken?
    switch path {
    case "typed": #expect(book.title == "Emma")
    case "value(forKey:)": #expect(try book.value(forKey: "title") as? String == "Emma")
    case "value(forKeyPath:)":
      #expect(try book.value(forKeyPath: "category.name") as? String == "Fiction")
    case "primitive": #expect(try book.primitiveValue(forKey: "price") as? Double == 9)
    default:
      var initial: String?
      token = try book.observe(keyPath: "title", options: [.initial, .new]) { change in
        initial = change.newValue as? String
      }
      #expect(initial == "Emma")
    }
    #expect(!book.isFault)
    _ = token
  }

  @Test func aFaultThatCannotBeFulfilledThrowsOnEveryThrowingPath() throws {
    let store = StoredBookStore()
    let missing = store.book(99)
    #expect(missing.isFault)
    expectGraphError(.objectNotFound, entity: "Book", value: "Book#99", in: store.context) {
      _ = try missing.value(forKey: "title")
    }
    expectGraphError(.objectNotFound, entity: "Book", value: "Book#99", in: store.context) {
      try missing.fulfilFault()
    }
    expectGraphError(.objectNotFound, entity: "Book", value: "Book#99", in: store.context) {
      _ = try store.context.existingObject(with: store.id("Book", 99))
    }
    // The existing one loads.
    let emma = try store.context.existingObject(with: store.id("Book", 5))
    #expect(!emma.isFault && (emma as? Book)?.title == "Emma")
  }

  /// Every throwing path loads a fault before it reads or writes, and throws when it cannot.
  @Test func throwingPathsLoadFirst() throws {
    let store = StoredBookStore()
    let missing = store.book(99)
    for attempt: () throws -> Void in [
      { _ = try missing.primitiveValue(forKey: "title") },
      { try missing.setValue("x", forKey: "title") },
      { try missing.setPrimitiveValue("x", forKey: "title") },
      { _ = try missing.value(forKeyPath: "category.name") },
    ] {
      let error = #expect(throws: ObjectGraphError.self) { try attempt() }
      #expect(error?.kind == .objectNotFound)
    }
    // A primitive set on a fault loads it first, so the load does not overwrite the value.
    let emma = store.book(5)
    try emma.setPrimitiveValue("Emma (annotated)", forKey: "title")
    #expect(emma.title == "Emma (annotated)" && emma.price == 9)
  }

  /// After a reset a fault stays a fault: it has no values to show and cannot load them.
  @Test func aFaultAfterAResetCannotLoad() throws {
    let store = StoredBookStore()
    let dune = store.book(2)
    store.context.reset()
    #expect(dune.isFault)
    let error = #expect(throws: ObjectGraphError.self) { _ = try dune.value(forKey: "title") }
    #expect(error?.kind == .invalidObject)
  }

  @Test func aTypedReadOfAMissingObjectStopsWithAMessage() async {
    await #expect(processExitsWith: .failure) {
      let store = StoredBookStore()
      _ = store.book(99).title
    }
  }

  @Test func changingAFaultLoadsItFirstAndTracksTheChange() throws {
    let store = StoredBookStore()
    let context = store.context
    context.undoLog = UndoLog()
    let book = store.book(2)
    book.price = 20
    #expect(!book.isFault && book.isUpdated)
    #expect(
      try book.committedValues(forKeys: ["price", "title"]) as NSDictionary == [
        "price": 12.5, "title": "Dune",
      ])
    context.processPendingChanges()
    try context.undoLog?.undo()
    #expect(book.price == 12.5 && !book.hasChanges)
  }

  /// Without a loader the context is the only place saved values live: it keeps every object.
  @Test func withoutALoaderEveryObjectIsKept() throws {
    let context = ObjectContext(model: BookStore.model)
    weak var kept: Book?
    do {
      let book = context.insert(Book.self)
      book.title = "kept"
      try context.save()
      kept = book
    }
    #expect(kept?.title == "kept" && kept?.context === context)
    #expect(context.registeredObjects.count == 1)
  }

  @Test func anUnreferencedCleanObjectLeavesMemoryAndComesBackAsAFault() throws {
    let store = StoredBookStore()
    let id = store.id("Book", 5)
    weak var weakEmma: Book?
    do {
      let emma = store.book(5)
      #expect(emma.title == "Emma")
      weakEmma = emma
    }
    // Emma's category is not loaded, so nothing but the app held Emma.
    #expect(weakEmma == nil)
    #expect(!store.context.registeredObjects.contains { $0.objectID == id })
    do {
      let back = store.book(5)
      #expect(back.isFault && back.title == "Emma")
    }

    weak var changed: Book?
    do {
      let emma = store.book(5)
      emma.price = 1
      changed = emma
    }
    #expect(changed != nil, "an object with unsaved changes is kept")
    try store.context.save()
    #expect(changed == nil, "saved, it is held weakly again")
  }

  @Test func theChangeTrackerListsWhatASaveWrites() throws {
    let store = StoredBookStore()
    let context = store.context
    let dune = store.book(2)
    let emma = store.book(5)
    dune.price = 14
    dune.title = "Dune Messiah"
    let page = context.insert(Page.self)
    page.text = "new"
    try context.delete(emma)
    let inserted = context.insert(Page.self)
    try context.delete(inserted)
    let set = context.pendingChangeSet
    #expect(set.inserted == [page.objectID])
    #expect(set.updated.map(\.object).contains(dune.objectID))
    #expect(set.updated.first { $0.object == dune.objectID }?.keys.sorted() == ["price", "title"])
    #expect(set.deleted == [emma.objectID])
    #expect(!set.inserted.contains(inserted.objectID) && !set.deleted.contains(inserted.objectID))
    try context.save()
    #expect(context.pendingChangeSet.isEmpty)
  }
}

@Suite("To-many faults")
struct ToManyFaultTests {
  /// A container whose store holds Fiction with Dune (pages 1 and 2) and Emma.
  static func saved() throws -> (PersistentContainer, TestStore, [ObjectID]) {
    let store = TestStore(model: BookStore.model)
    let container = PersistentContainer(store: store)
    let context = container.newContext()
    let fiction = context.insert(BookCategory.self)
    fiction.name = "Fiction"
    let dune = context.insert(Book.self)
    dune.title = "Dune"
    dune.category = fiction
    dune.pages = (1...2).map { number in
      let page = context.insert(Page.self)
      page.text = "page \(number)"
      return page
    }
    let emma = context.insert(Book.self)
    emma.title = "Emma"
    emma.category = fiction
    try context.save()
    return (container, store, [fiction, dune, emma].map(\.objectID))
  }

  @Test func aToManyLoadsOnFirstUseInOneLoad() throws {
    let (container, store, ids) = try Self.saved()
    let context = container.newContext()
    let dune = try #require(context.object(with: ids[1]) as? Book)
    #expect(dune.title == "Dune")
    #expect(store.memberLoads.isEmpty, "reading an attribute loads no relationship")
    let property = dune.entity.propertiesByName["pages"]!
    #expect(dune.isToManyFault(property))
    #expect(dune.pages.map(\.text) == ["page 1", "page 2"])
    #expect(store.memberLoads == ["\(ids[1]).pages"])
    _ = dune.pages.count
    #expect(store.memberLoads.count == 1, "loaded once")
    #expect(!context.hasChanges)
  }

  @Test func aToManyFaultCanBeCountedObservedAndChangedWithUndo() throws {
    let (container, _, ids) = try Self.saved()
    let context = container.newContext()
    context.undoLog = UndoLog()
    let fiction = try #require(context.object(with: ids[0]) as? BookCategory)
    _ = fiction.name
    var heard: [String] = []
    let observer = try fiction.observe(keyPath: "books", options: [.old, .new]) { change in
      let old = (change.oldValue as? Set<ManagedObject>)?.count ?? -1
      let new = (change.newValue as? Set<ManagedObject>)?.count ?? -1
      heard.append("\(change.kind) \(old) -> \(new)")
    }
    // Changed from the other side while the to-many is a fault: inverse upkeep loads it.
    let book = context.insert(Book.self)
    book.category = fiction
    #expect(fiction.books.count == 3)
    #expect(heard.count == 1 && heard[0].hasPrefix("insertion"), "\(heard)")
    context.processPendingChanges()
    try context.undoLog?.undo()
    #expect(fiction.books.count == 2 && book.context == nil)
    try context.undoLog?.redo()
    #expect(fiction.books.contains(book))
    _ = observer
  }

  @Test func aCascadeDeleteLoadsTheMembersItDeletes() throws {
    let (container, store, ids) = try Self.saved()
    let context = container.newContext()
    let dune = try #require(context.object(with: ids[1]) as? Book)
    _ = dune.title
    try context.delete(dune)
    #expect(store.memberLoads.contains("\(ids[1]).pages"))
    try context.save()
    #expect(store.base.count == 2, "the book and its two pages are gone; Fiction and Emma stay")
    #expect(try store.base.loadObjects([ids[1]]).isEmpty)
    let books = try store.base.loadMembers(of: ids[0], relationship: "books").map(\.id)
    #expect(books == [ids[2]])
  }
}

@Suite("Batch faulting")
struct BatchFaultingTests {
  /// A container whose store holds five books, and their identifiers.
  static func saved() throws -> (PersistentContainer, TestStore, [ObjectID]) {
    let store = TestStore(model: LifecycleHookTests.model)
    let container = PersistentContainer(store: store)
    let context = container.newContext()
    let novels = (1...5).map { number in
      let novel = context.insert(HookedNovel.self)
      novel.title = "Novel \(number)"
      return novel
    }
    try context.save()
    _ = HookLog.shared.take(store.identifier)
    return (container, store, novels.map(\.objectID))
  }

  @Test func readingOneFaultLoadsTheWaitingOnesInTheSameLoad() throws {
    let (container, store, ids) = try Self.saved()
    let context = container.newContext()
    let novels = ids.compactMap { context.object(with: $0) as? HookedNovel }
    let before = store.loadCalls
    #expect(novels[2].title == "Novel 3")
    #expect(store.loadCalls == before + 1)
    #expect(
      store.loads.suffix(5) == [ids[2], ids[0], ids[1], ids[3], ids[4]], "the read one first")
    #expect(novels.allSatisfy { $0 === novels[2] || $0.isFault }, "the others stay faults")
    #expect(HookLog.shared.take(store.identifier) == ["awakeFromFetch Novel 3"])
    #expect(novels.map(\.title) == (1...5).map { "Novel \($0)" })
    #expect(store.loadCalls == before + 1, "reading the others loads nothing more")
    #expect(HookLog.shared.take(store.identifier).count == 4, "each awakes when it is read")
  }

  @Test func theBatchSizeBoundsEachLoad() throws {
    let (container, store, ids) = try Self.saved()
    for (size, calls) in [(2, 3), (1, 5)] {
      let context = container.newContext()
      context.faultBatchSize = size
      let novels = ids.compactMap { context.object(with: $0) as? HookedNovel }
      let before = store.loadCalls
      _ = novels.map(\.title)
      #expect(store.loadCalls == before + calls, "batches of \(size)")
    }
  }
}

@Suite("Objects that relate to each other leave memory")
struct ReleasingTests {
  @Test func aLoadedToManyDoesNotKeepItsMembersAlive() throws {
    let (container, store, ids) = try ToManyFaultTests.saved()
    let context = container.newContext()
    weak var weakFiction: BookCategory?
    weak var weakDune: Book?
    do {
      let fiction = try #require(context.object(with: ids[0]) as? BookCategory)
      let books = fiction.books
      #expect(books.count == 2)
      weakFiction = fiction
      weakDune = books.first { $0.objectID == ids[1] }
      #expect(weakDune?.category === fiction, "each book holds its category")
    }
    // The context keeps the last loaded relationships' members alive; forget them.
    context.faulting.recentlyLoaded.removeAll()
    #expect(weakDune == nil && weakFiction == nil, "the category and its books are freed")
    #expect(!context.registeredObjects.contains { $0.objectID == ids[1] })
    _ = store
  }

  @Test func aMemberThatLeftMemoryComesBackWhenTheRelationshipIsRead() throws {
    let (container, store, ids) = try ToManyFaultTests.saved()
    let context = container.newContext()
    let fiction = try #require(context.object(with: ids[0]) as? BookCategory)
    weak var weakEmma: Book?
    do {
      let books = fiction.books
      weakEmma = books.first { $0.objectID == ids[2] }
    }
    context.faulting.recentlyLoaded.removeAll()
    #expect(weakEmma == nil, "Emma was held by nobody")
    let loads = store.memberLoads.count
    let again = fiction.books
    #expect(store.memberLoads.count == loads + 1, "the relationship loads again")
    #expect(Set(again.map(\.objectID)) == [ids[1], ids[2]])
    #expect(again.map(\.title).sorted() == ["Dune", "Emma"])
  }

  @Test func aRelationshipWithUnsavedChangesKeepsItsMembers() throws {
    let (container, store, ids) = try ToManyFaultTests.saved()
    let context = container.newContext()
    let fiction = try #require(context.object(with: ids[0]) as? BookCategory)
    weak var weakEmma: Book?
    do {
      weakEmma = fiction.books.first { $0.objectID == ids[2] }
      let added = context.insert(Book.self)
      added.title = "New"
      added.category = fiction  // fiction.books now has an unsaved change
    }
    context.faulting.recentlyLoaded.removeAll()
    #expect(weakEmma != nil, "kept: the store does not have the relationship as it is now")
    let loads = store.memberLoads.count
    #expect(fiction.books.count == 3)
    #expect(store.memberLoads.count == loads, "nothing to load again")
    try context.save()
    #expect(Set(try store.base.loadMembers(of: ids[0], relationship: "books").map(\.id)).count == 3)
  }
}

extension ReleasingTests {
  @Test func keyValueCodingReadsARelationshipWhoseMembersLeftMemory() throws {
    let (container, store, ids) = try ToManyFaultTests.saved()
    let context = container.newContext()
    let fiction = try #require(context.object(with: ids[0]) as? BookCategory)
    _ = fiction.books.count
    context.faulting.recentlyLoaded.removeAll()
    let loads = store.memberLoads.count
    let books = try #require(try fiction.value(forKey: "books") as? Set<ManagedObject>)
    #expect(Set(books.map(\.objectID)) == [ids[1], ids[2]])
    #expect(store.memberLoads.count == loads + 1, "loaded again, as the typed getter does")
    context.faulting.recentlyLoaded.removeAll()
    let path = try #require(try fiction.value(forKeyPath: "books.title") as? Set<String>)
    #expect(path == ["Dune", "Emma"])
  }
}
