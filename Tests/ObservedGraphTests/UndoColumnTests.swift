import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Quiet typed sets recorded side by side (``AttributeColumn``): one step per run, 24 bytes per
/// Int or Double set, and undo, redo, removal, archiving and coalescing as for one step per set.
@Suite struct UndoColumnTests {
  /// The bytes a quiet set of a `Double` adds to its column: the packed entry and the value.
  private let entryBytes = MemoryLayout<AttributeColumn.Entry>.stride + MemoryLayout<Double>.stride

  /// A saved book store with an undo log, and the books' prices and titles as a user sees them.
  private struct Store {
    let scenario = BookStore.scenario(participatesInSwiftObservation: false)
    let log = UndoLog()
    var context: ObjectContext { scenario.context }
    var books: [Book] { scenario.books }

    init() throws {
      try scenario.context.save()
      scenario.context.undoLog = log
    }

    var state: [String] {
      books.map { book in
        let committed = (try? book.committedValues(forKeys: ["price", "title"])) ?? [:]
        return "\(book.title)|\(book.price)|\(book.changedValues().keys.sorted())|"
          + "\(committed["price"].map { "\($0)" } ?? "-")"
      }
    }

    /// The steps of the newest undo group.
    func newestSteps() throws -> [GraphUndoStep] {
      try log.history().undoGroups.last?.steps.compactMap { $0 as? GraphUndoStep } ?? []
    }
  }

  @Test func quietSetsOfOneEventShareOneStepAndCountTheirBytes() throws {
    let store = try Store()
    let book = store.books[0]
    let before = store.state
    book.price = 1  // the first set of the slot: tracked, pending, a step of its own
    book.price = 2  // quiet: a new column
    let oneEntry = store.log.byteSize
    book.price = 3
    book.price = 4
    #expect(store.log.byteSize - oneEntry == 2 * (entryBytes))
    book.price = 4  // an equal value records nothing
    #expect(store.log.byteSize - oneEntry == 2 * (entryBytes))
    store.context.processPendingChanges()
    let after = store.state

    let steps = try store.newestSteps()
    #expect(steps.count == 2)
    #expect(steps.last?.description.components(separatedBy: "; ").count == 3)
    #expect(steps.last?.changedKeys(in: BookStore.model).values.first == ["price"])

    try store.log.undo()
    #expect(store.state == before)
    #expect(!store.context.hasChanges)
    try store.log.redo()
    #expect(store.state == after)
    #expect(book.price == 4 && book.changedValues().keys.sorted() == ["price"])
    try store.log.undo()
    #expect(store.state == before)
  }

  @Test func columnsKeepTheOrderOfEverythingRecorded() throws {
    let store = try Store()
    let (a, b) = (store.books[0], store.books[1])
    let before = store.state
    a.price = 1
    a.title = "a1"
    b.price = 2
    for round in 0..<4 {
      a.price = Double(10 + round)  // Double column
      a.title = "a\(round)"  // String column: each switch of type starts a column
      b.price = Double(20 + round)
      if round == 2 { b.category = store.scenario.science }  // a relationship step in between
    }
    store.context.processPendingChanges()
    let after = store.state
    for _ in 0..<3 {
      try store.log.undo()
      #expect(store.state == before)
      #expect(b.category === store.scenario.fiction)
      try store.log.redo()
      #expect(store.state == after)
      #expect(b.category === store.scenario.science)
    }
  }

  @Test func anObserverAddedLaterHearsTheReplayedSetsInOrder() throws {
    let store = try Store()
    let book = store.books[0]
    book.price = 1
    book.price = 2
    book.price = 3
    store.context.processPendingChanges()
    var heard: [String] = []
    let token = book.observe(\.price, options: [.old, .new]) { _, change in
      heard.append("\(change.oldValue ?? -1)→\(change.newValue ?? -1)")
    }
    try store.log.undo()
    #expect(heard == ["3.0→2.0", "2.0→1.0", "1.0→10.0"])
    heard = []
    try store.log.redo()
    #expect(heard == ["10.0→1.0", "1.0→2.0", "2.0→3.0"])
    token.invalidate()
  }

  @Test func replayedSetsPostTheirNewsAndStayTrackedAsChanged() throws {
    let store = try Store()
    let book = store.books[0]
    book.price = 1
    book.price = 2
    store.context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = store.context.onObjectsDidChange { events.append($0) }
    try store.log.undo()
    store.context.processPendingChanges()
    #expect(events.count == 1)
    #expect(events.first?.updated == [book.objectID: ["price"]])
    #expect(book.price == 10 && !book.hasChanges)

    try store.log.redo()
    #expect(book.price == 2)
    #expect(try book.committedValues(forKeys: ["price"])["price"] as? Double == 10)
    // A quiet set after the redo is quiet again: it joins a column, not a step of its own.
    store.context.processPendingChanges()
    book.price = 3  // the first set of the new event: a step of its own
    book.price = 4  // a new column
    let size = store.log.byteSize
    book.price = 5
    #expect(store.log.byteSize - size == entryBytes)
    token.invalidate()
  }

  @Test func removingTheActionsOfOneObjectKeepsTheOthersInTheColumn() throws {
    let store = try Store()
    let (a, b) = (store.books[0], store.books[1])
    a.price = 1
    b.price = 2
    for round in 0..<3 {
      a.price = Double(10 + round)
      b.price = Double(20 + round)
    }
    store.context.processPendingChanges()
    let captured = try store.log.history()
    let size = store.log.byteSize

    store.log.removeAllActions(withTarget: a)
    let firstStep = captured.undoGroups[0].steps[0].byteSize  // a's first set
    #expect(store.log.byteSize == size - firstStep - 3 * entryBytes)
    try store.log.undo()
    #expect(a.price == 12 && b.price == 15)
    // The history captured before still holds every change.
    let steps = captured.undoGroups[0].steps.compactMap { $0 as? GraphUndoStep }
    #expect(steps.map { $0.description.components(separatedBy: "; ").count } == [1, 1, 6])
  }

  @Test func anArchivedColumnIsRestoredAndUndone() throws {
    let store = try Store()
    let book = store.books[0]
    let before = store.state
    book.price = 1
    book.price = 2
    book.title = "x"
    book.title = "y"
    store.context.processPendingChanges()
    let after = store.state
    let descriptions = try store.newestSteps().map(\.description)

    let json = try JSONEncoder().encode(try store.log.history())
    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
    let restored = UndoLog()
    try restored.restore(try decoder.decode(UndoLog.History.self, from: json))
    store.context.undoLog = restored
    let restoredSteps = try restored.history().undoGroups.last?.steps ?? []
    #expect(restoredSteps.compactMap { ($0 as? GraphUndoStep)?.description } == descriptions)
    try restored.undo()
    #expect(store.state == before)
    try restored.redo()
    #expect(store.state == after)
  }

  @Test func coalescingMergesQuietSetsAsBefore() throws {
    let store = try Store()
    var time = ContinuousClock.now
    store.log.now = { time }
    store.log.coalescingWindow = .seconds(1)
    let book = store.books[0]
    for price in 1...5 {
      book.price = Double(price)
      time += .milliseconds(100)
    }
    store.context.processPendingChanges()
    #expect(try store.newestSteps().count == 1)
    try store.log.undo()
    #expect(book.price == 10)
    try store.log.redo()
    #expect(book.price == 5)
  }

  @Test func setsWhileRegistrationIsDisabledAreNotRecorded() throws {
    let store = try Store()
    let book = store.books[0]
    book.price = 1
    book.price = 2
    store.log.disableRegistration()
    book.price = 3  // quiet, but not recorded: the column does not grow
    try store.log.enableRegistration()
    book.price = 4
    store.context.processPendingChanges()
    #expect(
      try store.newestSteps().map { $0.description.components(separatedBy: "; ").count }
        == [1, 1, 1])
    try store.log.undo()
    #expect(book.price == 10)
  }

  @Test func aSetWhoseKeyDoesNotFitAnEntryIsAStepOfItsOwn() throws {
    let store = try Store()
    store.context.registry.reserve(upTo: 1 << 40)
    let far = store.context.insert(Book.self)
    #expect(!AttributeColumn.fits(far, 1))
    try store.context.save()
    far.price = 1
    far.price = 2
    far.price = 3
    store.context.processPendingChanges()
    let steps = try store.newestSteps()
    #expect(steps.count == 3)
    #expect(steps.allSatisfy { $0.description.components(separatedBy: "; ").count == 1 })
    try store.log.undo()
    #expect(far.price == 0 && !far.hasChanges)
    try store.log.redo()
    #expect(far.price == 3)
  }

  @Test func aLongColumnUndoesAndRedoesEveryValueInOrder() throws {
    // 20,000 sets over the three books: past the column's doubling chunks (8,176 entries).
    let store = try Store()
    let before = store.state
    var heard: [Double] = []
    for step in 0..<20_000 {
      store.books[step % 3].price = Double(step)
    }
    store.context.processPendingChanges()
    let after = store.state
    #expect(try store.newestSteps().count == 4)  // three first sets, one column
    // An observer of one book, added now, hears each of its replayed sets in order.
    let token = store.books[1].observe(\.price, options: [.new]) { _, change in
      heard.append(change.newValue ?? -1)
    }
    try store.log.undo()
    #expect(store.state == before)
    let sets = stride(from: 1, to: 20_000, by: 3).map(Double.init)
    #expect(heard == Array(sets.dropLast().reversed()) + [15])
    heard = []
    try store.log.redo()
    #expect(store.state == after)
    #expect(heard == sets)
    token.invalidate()
  }
}
