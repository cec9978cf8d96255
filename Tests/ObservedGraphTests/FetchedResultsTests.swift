import Foundation
import Observation
import ObservedGraph
import Testing
import UndoLog

/// Live results over the BookStore scenario, with every change they deliver recorded and checked:
/// the difference turns the previous objects into the new ones, and the new ones are what a fetch
/// gives.
private final class LiveBooks<Object: ManagedObject> {
  let scenario: BookStore.Scenario
  let request: FetchRequest<Object>
  let results: FetchedResults<Object>
  private(set) var changes: [FetchedResults<Object>.Change] = []
  private var previous: [Object]
  private var token: ObservationToken?

  init(
    _ scenario: BookStore.Scenario, _ format: String?, _ sorts: [FetchSort],
    section: String? = nil
  ) throws {
    self.scenario = scenario
    scenario.context.processPendingChanges()
    request = FetchRequest<Object>(
      matching: try format.map { try FetchPredicate(format: $0) }, sortedBy: sorts)
    results = try FetchedResults(
      context: scenario.context, request: request, sectionKeyPath: section)
    previous = results.objects
    token = results.onChange { [unowned self] change in
      changes.append(change)
      let applied = previous.applying(change.difference)
      #expect(
        applied.map { $0.map(ObjectIdentifier.init) } == results.objects.map(ObjectIdentifier.init))
      for (object, offset) in zip(change.updated, change.updatedOffsets) {
        #expect(results.objects[offset] === object)
      }
      previous = results.objects
    }
  }

  /// Ends the user event and returns the change it delivered, described: `-1 Title` for a
  /// removal at old offset 1, `+0 Title` for an insertion at new offset 0, `~2 Title` for an
  /// update in place at offset 2; nil when nothing was delivered.
  func event() throws -> [String]? {
    let count = changes.count
    scenario.context.processPendingChanges()
    #expect(
      try scenario.context.fetch(request).map(ObjectIdentifier.init)
        == results.objects.map(ObjectIdentifier.init))
    guard changes.count > count else { return nil }
    #expect(changes.count == count + 1)
    return Self.describe(changes[changes.count - 1])
  }

  static func describe(_ change: FetchedResults<Object>.Change) -> [String] {
    var removals: [(Int, String)] = []
    var insertions: [(Int, String)] = []
    for step in change.difference {
      switch step {
      case .remove(let offset, let object, _):
        removals.append((offset, "-\(offset) \(name(object))"))
      case .insert(let offset, let object, _):
        insertions.append((offset, "+\(offset) \(name(object))"))
      }
    }
    var lines = removals.sorted { $0.0 < $1.0 }.map(\.1)
    lines += insertions.sorted { $0.0 < $1.0 }.map(\.1)
    for (object, offset) in zip(change.updated, change.updatedOffsets) {
      lines.append("~\(offset) \(name(object))")
    }
    return lines
  }

  static func name(_ object: ManagedObject) -> String {
    guard object.context != nil else { return "(gone)" }  // an undone insert has no values
    if let book = object as? Book { return book.title }
    if let category = object as? BookCategory { return category.name }
    return object.objectID.description
  }

  var names: [String] { results.objects.map(Self.name) }
}

@Suite("Fetched results")
struct FetchedResultsTests {
  // Prices: first 10 (Fiction), second 15 (Fiction), third 12 (Science).

  @Test func initialObjectsAreTheFetch() throws {
    let live = try LiveBooks<Book>(BookStore.scenario(), nil, [FetchSort("price")])
    #expect(live.names == ["The first book", "The third book", "The second book"])
    let cheap = try LiveBooks<Book>(BookStore.scenario(), "price < 14", [FetchSort("title")])
    #expect(cheap.names == ["The first book", "The third book"])
  }

  @Test func insertMatching() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, "price < 14", [FetchSort("price")])
    let book = s.context.insert(Book.self)
    book.title = "New"
    book.price = 11
    #expect(try live.event() == ["+1 New"])
  }

  @Test func insertNotMatchingDeliversNothing() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, "price < 14", [FetchSort("price")])
    let book = s.context.insert(Book.self)
    book.price = 20
    #expect(try live.event() == nil)
  }

  @Test func delete() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price")])
    try s.context.delete(s.books[2])
    #expect(try live.event() == ["-1 The third book"])
  }

  @Test func editIntoAndOutOfThePredicate() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, "price < 14", [FetchSort("price")])
    s.books[1].price = 13
    #expect(try live.event() == ["+2 The second book"])
    s.books[0].price = 20
    #expect(try live.event() == ["-0 The first book"])
  }

  @Test func editMovingInTheOrderIsAMove() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price")])
    s.books[0].price = 13
    #expect(try live.event() == ["-0 The first book", "+1 The first book"])
    let steps = Array(try #require(live.changes.last).difference)
    #expect(
      steps.allSatisfy { step in
        switch step {
        case .insert(_, _, let other), .remove(_, _, let other): other != nil
        }
      })
    #expect(live.names == ["The third book", "The first book", "The second book"])
    let change = try #require(live.changes.last)
    #expect(change.inserted == [s.books[0]] && change.removed == [s.books[0]])
  }

  @Test func editInPlaceIsAnUpdate() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price")])
    s.books[1].title = "Renamed"
    #expect(try live.event() == ["~2 Renamed"])
    s.books[0].price = 11  // still before 12
    #expect(try live.event() == ["~0 The first book"])
  }

  @Test func severalEditsInOneEvent() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price", ascending: false)])
    #expect(live.names == ["The second book", "The third book", "The first book"])
    s.books[0].price = 100
    s.books[1].price = 1
    s.books[2].title = "Third"
    #expect(
      try live.event() == [
        "-0 The second book", "-2 The first book", "+0 The first book", "+2 The second book",
        "~1 Third",
      ])
  }

  @Test func relatedRenameChangesMembership() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, "category.name == 'Fiction'", [FetchSort("price")])
    #expect(live.names == ["The first book", "The second book"])
    s.science.name = "Fiction"
    #expect(try live.event() == ["+1 The third book"])
    s.fiction.name = "Novels"
    #expect(try live.event() == ["-0 The first book", "-2 The second book"])
  }

  @Test func relatedRenameMovesInTheOrder() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("category.name"), FetchSort("price")])
    #expect(live.names == ["The first book", "The second book", "The third book"])
    s.science.name = "Art"
    #expect(try live.event() == ["-2 The third book", "+0 The third book"])
    s.fiction.name = "Drama"  // still before Art? no: Art < Drama, nothing moves
    #expect(try live.event() == ["~1 The first book", "~2 The second book"])
  }

  @Test func changingTheRelationshipItself() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, "category.name == 'Science'", [FetchSort("title")])
    s.books[0].category = s.science
    #expect(try live.event() == ["+0 The first book"])
    try s.context.delete(s.science)  // nullifies both books' category
    #expect(try live.event() == ["-0 The first book", "-1 The third book"])
  }

  @Test func toManyPathFromCategories() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<BookCategory>(s, "ANY books.price > 14", [FetchSort("name")])
    #expect(live.names == ["Fiction"])
    s.books[2].price = 20
    #expect(try live.event() == ["+1 Science"])
    s.books[1].category = s.science  // Fiction loses its only expensive book
    #expect(try live.event() == ["-0 Fiction", "~0 Science"])
  }

  @Test func undoRedoAndRollback() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    try s.context.save()
    let live = try LiveBooks<Book>(s, "price < 14", [FetchSort("price")])
    s.books[0].price = 13
    #expect(try live.event() == ["-0 The first book", "+1 The first book"])
    try log.undo()
    #expect(try live.event() == ["-1 The first book", "+0 The first book"])
    try log.redo()
    #expect(try live.event() == ["-0 The first book", "+1 The first book"])
    let book = s.context.insert(Book.self)
    book.title = "New"
    book.price = 1
    #expect(try live.event() == ["+0 New"])
    try log.undo()
    #expect(try live.event() == ["-0 (gone)"])
    try log.redo()
    #expect(try live.event() == ["+0 New"])
    try s.context.delete(s.books[2])
    #expect(try live.event() == ["-1 The third book"])
    try log.undo()
    #expect(try live.event() == ["+1 The third book"])
    try s.context.delete(s.books[2])
    s.context.processPendingChanges()
    let count = live.changes.count
    s.context.rollback()  // posts its own event
    #expect(live.changes.count == count + 1)
    #expect(live.names == ["The first book", "The third book"])
    #expect(
      LiveBooks<Book>.describe(live.changes[count]) == [
        "-0 (gone)", "+1 The third book", "~0 The first book",
      ])
  }

  @Test func irrelevantEditsDeliverNothing() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, "price < 14", [FetchSort("price")])
    s.books[1].title = "Not a result"  // does not match before or after
    #expect(try live.event() == nil)
    s.fiction.name = "Novels"  // nothing reads category names
    #expect(try live.event() == nil)
    let page = s.context.insert(Page.self)
    page.text = "Another entity"
    #expect(try live.event() == nil)
    s.books[0].price = 10  // the value it has
    #expect(try live.event() == nil)
    #expect(live.changes.isEmpty)
  }

  @Test func sections() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(
      s, nil, [FetchSort("category.name"), FetchSort("price")], section: "category.name")
    func sections() -> [String] {
      live.results.sections.map { "\($0.name) \($0.range) \($0.objects.map(\.title))" }
    }
    #expect(
      sections() == [
        #"Fiction 0..<2 ["The first book", "The second book"]"#,
        #"Science 2..<3 ["The third book"]"#,
      ])
    s.books[0].category = s.science
    _ = try live.event()
    #expect(
      sections() == [
        #"Fiction 0..<1 ["The second book"]"#,
        #"Science 1..<3 ["The first book", "The third book"]"#,
      ])
    s.books[0].category = nil
    _ = try live.event()
    #expect(sections().first == #" 0..<1 ["The first book"]"#)
    let plain = try LiveBooks<Book>(s, nil, [FetchSort("price")])
    #expect(plain.results.sections.map(\.range) == [0..<3])
  }

  @Test func sectionsByAKeyPathNotSortedOn() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price")], section: "category.name")
    // first (Fiction) 10, third (Science) 12, second (Fiction) 15: runs, not groups.
    #expect(live.results.sections.map(\.name) == ["Fiction", "Science", "Fiction"])
    s.science.name = "Fiction"  // the section value changes, the order does not
    #expect(try live.event() == ["~1 The third book"])
    #expect(live.results.sections.map(\.name) == ["Fiction"])
  }

  @Test func invalidSectionKeyPaths() throws {
    let s = BookStore.scenario()
    let request = FetchRequest<Book>(matching: nil)
    #expect(throws: ObjectGraphError.self) {
      try FetchedResults(context: s.context, request: request, sectionKeyPath: "colour")
    }
    let error = try #require(
      throws: ObjectGraphError.self,
      performing: {
        try FetchedResults(context: s.context, request: request, sectionKeyPath: "pages.text")
      })
    #expect(error.kind == .notToMany)
  }

  @Test func observationSeesMovesNotInPlaceEdits() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price")])
    let fired = Flag()
    withObservationTracking({ _ = live.results.objects }, onChange: { fired.set() })
    s.books[0].title = "In place"
    _ = try live.event()
    #expect(!fired.isSet)
    s.books[0].price = 100
    _ = try live.event()
    #expect(fired.isSet)
    let sections = Flag()
    withObservationTracking({ _ = live.results.sections }, onChange: { sections.set() })
    try s.context.delete(s.books[1])
    _ = try live.event()
    #expect(sections.isSet)
  }

  @Test func callbackEndsWithItsToken() throws {
    let s = BookStore.scenario()
    let results = try FetchedResults(
      context: s.context, request: FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("price")])
    )
    var calls = 0
    var token: ObservationToken? = results.onChange { _ in calls += 1 }
    s.books[0].price = 100
    s.context.processPendingChanges()
    #expect(calls == 1)
    token?.invalidate()
    token = nil
    s.books[0].price = 1
    s.context.processPendingChanges()
    #expect(calls == 1)
  }

  @Test func handlerMayChangeTheContext() throws {
    let s = BookStore.scenario()
    s.context.processPendingChanges()
    let results = try FetchedResults(
      context: s.context, request: FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("price")])
    )
    var seen: [[String]] = []
    let token = results.onChange { change in
      seen.append(LiveBooks<Book>.describe(change))
      if seen.count == 1 {
        s.books[1].price = 1
        s.context.processPendingChanges()  // delivered after this change reached everyone
      }
    }
    var second: [[String]] = []
    let other = results.onChange { second.append(LiveBooks<Book>.describe($0)) }
    s.books[0].price = 100
    s.context.processPendingChanges()
    #expect(
      seen == [
        ["-0 The first book", "+2 The first book"], ["-1 The second book", "+0 The second book"],
      ])
    #expect(second == seen)
    #expect(
      results.objects.map(\.title) == ["The second book", "The third book", "The first book"])
    _ = (token, other)
  }

  @Test func streamYieldsIdentifiedChanges() async throws {
    let s = BookStore.scenario()
    let results = try FetchedResults(
      context: s.context, request: FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("price")])
    )
    let stream = results.changes
    let before = results.objects.map(\.objectID)
    s.books[0].price = 100
    s.context.processPendingChanges()
    s.books[1].title = "Renamed"
    s.context.processPendingChanges()
    var iterator = stream.makeAsyncIterator()
    let first = try #require(await iterator.next())
    #expect(before.applying(first.difference) == results.objects.map(\.objectID))
    let second = try #require(await iterator.next())
    #expect(second.difference.isEmpty && second.updated == [s.books[1].objectID])
    #expect(second.updatedOffsets == [1])
  }

  @Test func streamFinishesWithTheResults() async throws {
    let s = BookStore.scenario()
    var results: FetchedResults<Book>? = try FetchedResults(
      context: s.context, request: FetchRequest<Book>(matching: nil))
    let stream = try #require(results).changes
    results = nil
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == nil)
  }

  @Test func refetchAfterReset() throws {
    let s = BookStore.scenario()
    let live = try LiveBooks<Book>(s, nil, [FetchSort("price")])
    s.context.reset()  // posts nothing: the context forgets its unsaved objects
    #expect(live.names.count == 3 && live.changes.isEmpty)
    try live.results.refetch()
    #expect(live.names.isEmpty)
    #expect(live.changes.count == 1 && live.changes[0].difference.removals.count == 3)
    try live.results.refetch()  // nothing changed: nothing delivered
    #expect(live.changes.count == 1)
  }

  @Test func releasedResultsStopListening() throws {
    let s = BookStore.scenario()
    weak var weakResults: FetchedResults<Book>?
    do {
      let results = try FetchedResults(
        context: s.context, request: FetchRequest<Book>(matching: nil))
      weakResults = results
    }
    #expect(weakResults == nil)
    s.books[0].price = 3
    s.context.processPendingChanges()  // nobody to call
  }
}

@Suite("Fetched results: models")
struct FetchedResultsModelTests {
  /// Notes point at tags with no inverse: no way back from a renamed tag.
  static let tagged = try! ObjectModel(entities: [
    EntityDescription(
      name: "Note", attributes: [.nameString],
      relationships: [RelationshipDescription(name: "tag", destination: "Tag", inverse: .noInverse)]
    ),
    EntityDescription(name: "Tag", attributes: [.nameString]),
  ])

  @Test func pathWithoutInverseFetchesAgain() throws {
    let context = ObjectContext(model: Self.tagged)
    let tag = try context.insertObject(forEntityName: "Tag")
    try tag.setValue("red", forKey: "name")
    var notes: [ManagedObject] = []
    for name in ["a", "b", "c"] {
      let note = try context.insertObject(forEntityName: "Note")
      try note.setValue(name, forKey: "name")
      try note.setValue(name == "b" ? nil : tag, forKey: "tag")
      notes.append(note)
    }
    context.processPendingChanges()
    let results = try FetchedResults(
      context: context,
      request: FetchRequest<ManagedObject>(
        entityName: "Note", predicate: try FetchPredicate(format: "tag.name == 'blue'"),
        sortDescriptors: [FetchSort("name")]))
    var changes: [FetchedResults<ManagedObject>.Change] = []
    let token = results.onChange { changes.append($0) }
    try tag.setValue("blue", forKey: "name")
    context.processPendingChanges()
    #expect(
      results.objects.map(ObjectIdentifier.init) == [notes[0], notes[2]].map(ObjectIdentifier.init))
    #expect(changes.count == 1 && changes[0].difference.insertions.count == 2)
    _ = token
  }

  @Test func subentitiesFollowTheRequest() throws {
    let context = ObjectContext(model: League.model)
    let player = context.insert(Player.self)
    player.lastName = "B"
    context.processPendingChanges()
    let people = try FetchedResults(
      context: context,
      request: FetchRequest<Person>(matching: nil, sortedBy: [FetchSort("lastName")]))
    var only = FetchRequest<ManagedObject>(
      entityName: "Person", sortDescriptors: [FetchSort("lastName")])
    only.includesSubentities = false
    let exact = try FetchedResults(context: context, request: only)
    #expect(people.objects == [player] && exact.objects.isEmpty)
    let other = context.insert(Player.self)
    other.lastName = "A"
    context.processPendingChanges()
    #expect(people.objects == [other, player] && exact.objects.isEmpty)
  }

  @Test func offsetAndLimitAreNotApplied() throws {
    let s = BookStore.scenario()
    var request = FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("price")])
    request.fetchLimit = 1
    request.fetchOffset = 1
    let results = try FetchedResults(context: s.context, request: request)
    #expect(results.objects.count == 3)
  }
}

/// A book whose sort key `sortTitle` is not in the model: `value(forUndefinedKey:)` derives it
/// from `title`.
final class ShelvedBook: ManagedObject {
  @Attribute var title: String = ""

  override func value(forUndefinedKey key: String) throws -> Any? {
    key == "sortTitle" ? String(title.reversed()) : try super.value(forUndefinedKey: key)
  }
}

@Suite("Fetched results: keys outside the model")
struct FetchedResultsUnmodelledKeyTests {
  @Test func derivedSortKeyFollowsItsSource() throws {
    let context = ObjectContext(model: try ObjectModel(types: [ShelvedBook.self]))
    let a = context.insert(ShelvedBook.self)
    a.title = "xa"  // sortTitle "ax"
    let b = context.insert(ShelvedBook.self)
    b.title = "yb"  // sortTitle "by"
    context.processPendingChanges()
    let results = try FetchedResults(
      context: context,
      request: FetchRequest<ShelvedBook>(matching: nil, sortedBy: [FetchSort("sortTitle")]))
    #expect(results.objects == [a, b])
    a.title = "xc"  // sortTitle "cx": after "by"
    context.processPendingChanges()
    #expect(results.objects == [b, a])
  }
}
