import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// The one audience decision (ObjectContext+Audience.swift): who hears or records a change of an
/// object's slot, and its cache, the quiet bits, voided whenever the answer may widen.
@Suite("Who hears a change")
struct AudienceTests {
  private static func slot(_ book: Book, _ key: String) -> Int {
    book.entity.propertiesByName[key]!.slot
  }

  /// A saved book whose price was set twice since the save and the last event: the next typed set
  /// of its price is quiet, and the slot's quiet bit says so.
  private static func quietBook(participates: Bool = false) throws -> (
    BookStore.Scenario, Book, Int
  ) {
    let s = BookStore.scenario(participatesInSwiftObservation: participates)
    let book = s.books[0]
    try s.context.save()
    book.price = 1
    book.price = 2
    return (s, book, slot(book, "price"))
  }

  @Test func eachListenerIsNamedByTheDecision() throws {
    let (s, book, price) = try Self.quietBook()
    let context = s.context
    #expect(context.audience(of: book, slot: price) == [])

    let typed = book.observe(\.price) { _, _ in }
    #expect(context.audience(of: book, slot: price) == .typedObservers)
    // A change of the object as a whole is heard by its observers, whatever their kind.
    #expect(context.audience(of: book) == .observers)
    let byKey = try book.observe(keyPath: "price") { _ in }
    #expect(context.audience(of: book, slot: price) == .observers)
    typed.invalidate()
    byKey.invalidate()
    #expect(context.audience(of: book, slot: price) == [])

    let log = UndoLog()
    context.undoLog = log
    #expect(context.audience(of: book, slot: price) == .undoRecorder)
    log.disableRegistration()
    #expect(context.audience(of: book, slot: price) == [])
    try log.enableRegistration()
    context.undoLog = nil

    var recorder: ChangeRecorder? = ChangeRecorder(context: context)
    #expect(context.audience(of: book, slot: price) == .taps)
    _ = recorder
    recorder = nil
    #expect(context.audience(of: book, slot: price) == [])

    let other = s.books[1]
    other.willChangeValue(forKey: "title")
    #expect(context.audience(of: book, slot: price) == .brackets)
    other.didChangeValue(forKey: "title")
    #expect(context.audience(of: book, slot: price) == [])
  }

  @Test func swiftObservationIsNamedForObjectsThatTakePart() throws {
    let (s, book, price) = try Self.quietBook(participates: true)
    #expect(s.context.audience(of: book, slot: price) == .registrar)
    #expect(book.isQuietInline(price))
  }

  /// The cache holds an answer only while it stands: anything that widens the audience of a set
  /// voids it, and the next set asks the decision again.
  @Test(arguments: ["typed observer", "observer by key", "undo log", "tap", "bracket"])
  func whatWidensTheAudienceVoidsTheQuietBits(_ listener: String) throws {
    let (s, book, price) = try Self.quietBook()
    #expect(book.isQuietInline(price))
    var keep: [Any] = []
    switch listener {
    case "typed observer": keep.append(book.observe(\.price) { _, _ in })
    case "observer by key": keep.append(try book.observe(keyPath: "price") { _ in })
    case "undo log":
      let log = UndoLog()
      s.context.undoLog = log
      keep.append(log)
    case "tap": keep.append(ChangeRecorder(context: s.context))
    default: s.books[1].willChangeValue(forKey: "title")
    }
    #expect(!book.isQuietInline(price))
    book.price = 3
    switch listener {
    case "typed observer":
      // Typed observers alone: quiet again, the observers called by the setter.
      #expect(book.isQuietInline(price))
    case "undo log":
      // Recorded in the undo column: cached as a recorded set, which the inline test leaves out.
      #expect(!book.isQuietInline(price))
      #expect(book.isRecordedQuietInline(price))
    default:
      #expect(!book.isQuietInline(price))
      #expect(!book.isRecordedQuietInline(price))
    }
    if listener == "bracket" { s.books[1].didChangeValue(forKey: "title") }
    _ = keep
  }

  /// What an answer rests on for one object — its tracking, its pending news, its lifecycle —
  /// voids its bits when it changes.
  @Test func theObjectsOwnStateVoidsItsQuietBits() throws {
    let (s, book, price) = try Self.quietBook()
    #expect(book.isQuietInline(price))
    s.context.processPendingChanges()  // the news went out: the next set queues its own
    #expect(!book.isQuietInline(price))
    book.price = 3
    book.price = 4
    #expect(book.isQuietInline(price))
    try s.context.save()  // no longer tracked as changed
    #expect(!book.isQuietInline(price))
    book.price = 5
    book.price = 6
    #expect(book.isQuietInline(price))
    try s.context.delete(book)
    #expect(!book.isQuietInline(price))
  }

  /// With a manual bracket open, a typed set takes the whole path (the decision names the
  /// bracket) and still ends as the set asked; undo takes it back with the bracket's change.
  @Test func aTypedSetInsideAnOpenBracketTakesTheWholePath() throws {
    let (s, book, price) = try Self.quietBook()
    let other = s.books[1]
    let log = UndoLog()
    s.context.undoLog = log
    log.beginGroup()
    other.willChangeValue(forKey: "title")
    try other.setPrimitiveValue("Bracketed", forKey: "title")
    book.price = 7
    #expect(!book.isQuietInline(price) && !book.isRecordedQuietInline(price))
    other.didChangeValue(forKey: "title")
    try log.endGroup()
    #expect(book.price == 7 && other.title == "Bracketed")
    try log.undo()
    #expect(book.price == 2)
    #expect(other.title != "Bracketed")
  }
}
