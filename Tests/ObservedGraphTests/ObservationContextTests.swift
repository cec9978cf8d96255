import Foundation
import Observation
import ObservedGraph
import Testing
import UndoLog

@Suite("Objects-did-change events")
struct ObjectsDidChangeTests {
  @Test func postsInsertedUpdatedDeletedOncePerEvent() throws {
    let s = BookStore.scenario()
    var events: [ObjectsDidChange] = []
    let token = s.context.onObjectsDidChange { events.append($0) }
    s.context.processPendingChanges()
    #expect(events.count == 1)
    #expect(events[0].inserted == Set((s.books + [s.fiction, s.science]).map(\.objectID)))
    #expect(events[0].updated.isEmpty && events[0].deleted.isEmpty)

    s.books[0].price = 99
    s.books[0].title = "Changed"
    s.context.processPendingChanges()
    #expect(events.count == 2)
    #expect(events[1].inserted.isEmpty)
    #expect(events[1].updated == [s.books[0].objectID: ["price", "title"]])

    s.context.processPendingChanges()
    #expect(events.count == 2)  // nothing pending: nothing posted
    _ = token
  }

  /// An event nobody subscribes to is dropped whole: a subscriber that arrives after it hears
  /// only what changes next.
  @Test func anEventNobodyHearsIsDropped() throws {
    let s = BookStore.scenario()
    s.books[0].title = "Unheard"
    try s.context.delete(s.books[1])
    s.context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = s.context.onObjectsDidChange { events.append($0) }
    s.context.processPendingChanges()
    #expect(events.isEmpty)
    s.books[2].price = 1
    s.context.processPendingChanges()
    #expect(events.count == 1)
    #expect(events.first?.updated == [s.books[2].objectID: ["price"]])
    #expect(events.first?.inserted.isEmpty == true && events.first?.deleted.isEmpty == true)
    _ = token
  }

  @Test func coalescing() throws {
    let s = BookStore.scenario()
    s.context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = s.context.onObjectsDidChange { events.append($0) }

    let inserted = s.context.insert(Book.self)
    inserted.title = "New"  // insert then update = inserted
    let ephemeral = s.context.insert(Book.self)
    try s.context.delete(ephemeral)  // insert then delete = nothing
    s.books[1].price = 1
    try s.context.delete(s.books[1])  // update then delete = deleted
    s.context.processPendingChanges()
    #expect(events.count == 1)
    let event = try #require(events.first)
    #expect(event.inserted == [inserted.objectID])
    #expect(event.deleted == [s.books[1].objectID])
    // The fiction category lost a book through the delete's nullify rule.
    #expect(event.updated == [s.fiction.objectID: ["books"]])
    #expect(
      !event.inserted.contains(ephemeral.objectID) && !event.deleted.contains(ephemeral.objectID))
    _ = token
  }

  @Test func equalValuesAndPrimitiveSetsPostNothing() throws {
    let s = BookStore.scenario()
    s.context.processPendingChanges()
    var events: [ObjectsDidChange] = []
    let token = s.context.onObjectsDidChange { events.append($0) }
    s.books[0].title = s.books[0].title
    try s.books[0].setPrimitiveValue("raw", forKey: "title")
    s.context.processPendingChanges()
    #expect(events.isEmpty)
    _ = token
  }

  @Test func saveFirstPostsWhatIsPending() throws {
    let s = BookStore.scenario()
    var events: [ObjectsDidChange] = []
    let token = s.context.onObjectsDidChange { events.append($0) }
    try s.context.save()
    #expect(events.count == 1 && events[0].inserted.count == 5)
    try s.context.save()
    #expect(events.count == 1)
    _ = token
  }

  @Test func invalidatedSubscriptionHearsNothing() {
    let s = BookStore.scenario()
    var count = 0
    let token = s.context.onObjectsDidChange { _ in count += 1 }
    token.invalidate()
    s.context.processPendingChanges()
    #expect(count == 0)
  }

  @Test func asyncSequence() async throws {
    let s = BookStore.scenario()
    let stream = s.context.objectsDidChange
    s.context.processPendingChanges()
    s.books[0].price = 5
    s.context.processPendingChanges()
    var iterator = stream.makeAsyncIterator()
    let first = await iterator.next()
    let second = await iterator.next()
    #expect(first?.inserted.count == 5)
    #expect(second?.updated == [s.books[0].objectID: ["price"]])
  }
}

/// A flag the @Sendable onChange closure can raise.
final class Flag: @unchecked Sendable {
  // @unchecked Sendable: guarded by `lock`.
  private let lock = NSLock()
  private var raised = false
  func set() { lock.withLock { raised = true } }
  var isSet: Bool { lock.withLock { raised } }
}

@Suite("Swift Observation")
struct SwiftObservationTests {
  private func tracks(_ read: @escaping () -> Void, after change: () throws -> Void) rethrows
    -> Bool
  {
    let fired = Flag()
    withObservationTracking(read) { fired.set() }
    try change()
    return fired.isSet
  }

  @Test func setterFiresOnChange() {
    let s = BookStore.scenario()
    let book = s.books[0]
    #expect(tracks({ _ = book.title }, after: { book.title = "x" }))
    #expect(!tracks({ _ = book.title }, after: { book.price = 3 }))
  }

  @Test func keyValueCodingAndBracketsFire() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    #expect(try tracks({ _ = book.title }, after: { try book.setValue("y", forKey: "title") }))
    #expect(
      try tracks(
        { _ = book.title },
        after: {
          book.willChangeValue(forKey: "title")
          try book.setPrimitiveValue("z", forKey: "title")
          book.didChangeValue(forKey: "title")
        }))
  }

  @Test func inverseUpkeepFires() {
    let s = BookStore.scenario()
    #expect(tracks({ _ = s.fiction.books }, after: { s.books[0].category = s.science }))
  }

  @Test func primitiveSetDoesNotFire() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    #expect(
      try !tracks({ _ = book.title }, after: { try book.setPrimitiveValue("p", forKey: "title") }))
  }
}

@Suite("ChangeRecorder")
struct ChangeRecorderTests {
  @Test func wholeContextRecordsEveryEditInOrder() throws {
    let s = BookStore.scenario()
    let recorder = ChangeRecorder(context: s.context)
    s.books[0].category = s.science
    #expect(
      recorder.take() == [
        "Book#3.category setting old=BookCategory#1 new=BookCategory#2",
        "BookCategory#1.books removal old={Book#3}",
        "BookCategory#2.books insertion new={Book#3}",
      ])
    let page = s.context.insert(Page.self)
    try s.context.delete(page)
    #expect(
      recorder.take() == [
        "Page#6.@lifecycle setting new=insert", "Page#6.@lifecycle setting new=delete",
      ])
    recorder.stop()
    s.books[0].price = 3
    #expect(recorder.isEmpty)
  }

  @Test func deleteRulesAreRecorded() throws {
    let s = BookStore.scenario()
    let page = s.context.insert(Page.self)
    page.book = s.books[0]
    let recorder = ChangeRecorder(context: s.context)
    try s.context.delete(s.books[0])
    #expect(
      recorder.take() == [
        "BookCategory#1.books removal old={Book#3}",
        "Book#3.category setting old=BookCategory#1 new=nil",
        "Page#6.book setting old=Book#3 new=nil",
        "Book#3.pages setting old=[Page#6] new=[]",
        "Book#3.@lifecycle setting new=delete",
        "Page#6.@lifecycle setting new=delete",
      ])
  }

  @Test func mismatchExplainsTheDifference() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.books[0]], keys: ["price"])
    s.books[0].price = 2
    let text = try #require(recorder.mismatch(["Book#3.price setting old=10.0 new=3.0"]))
    #expect(text.contains("expected: Book#3.price setting old=10.0 new=3.0"))
    #expect(text.contains("recorded: Book#3.price setting old=10.0 new=2.0"))
    s.books[0].price = 4
    #expect(recorder.mismatch(["Book#3.price setting old=2.0 new=4.0"]) == nil)
  }

  @Test func render() {
    #expect(ChangeRecorder.render(nil) == "nil")
    #expect(ChangeRecorder.render("a") == "\"a\"")
    #expect(ChangeRecorder.render(3) == "3")
    #expect(ChangeRecorder.render(Set<AnyHashable>([2, 1])) == "{1, 2}")
  }
}

@Suite("Swift Observation and undo")
struct SwiftObservationUndoTests {
  @Test func undoAndRedoFireOnChange() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    let book = s.books[0]
    book.title = "Edited"
    s.context.processPendingChanges()
    let undone = Flag()
    withObservationTracking({ _ = book.title }, onChange: { undone.set() })
    try log.undo()
    #expect(undone.isSet && book.title == "The first book")
    let redone = Flag()
    withObservationTracking({ _ = book.title }, onChange: { redone.set() })
    try log.redo()
    #expect(redone.isSet && book.title == "Edited")
  }
}
