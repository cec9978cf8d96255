import Testing

@testable import UndoLog

@Suite("Coalescing")
struct CoalescingTests {
  /// A log with a one-second window and a clock the test moves by hand.
  final class Fixture {
    let log = UndoLog()
    let field = Counter()
    var time = ContinuousClock.now

    init() {
      log.coalescingWindow = .seconds(1)
      log.now = { [unowned self] in self.time }
    }

    /// Types one character as one user event: the field's value counts characters.
    func type(after delay: Duration = .milliseconds(100)) {
      time += delay
      field.set(field.value + 1, in: log, key: 0)
      log.markEventBoundary()
    }
  }

  @Test func typingAWordIsOneUndoGroup() throws {
    let fixture = Fixture()
    for _ in 0..<5 {
      fixture.type()
    }
    #expect(fixture.field.value == 5)
    #expect(fixture.log.undoCount == 1)
    try fixture.log.undo()
    #expect(fixture.field.value == 0)
    try fixture.log.redo()
    #expect(fixture.field.value == 5)
  }

  @Test func aPauseLongerThanTheWindowStartsANewGroup() throws {
    let fixture = Fixture()
    fixture.type()
    fixture.type()
    fixture.type(after: .seconds(2))
    fixture.type()
    #expect(fixture.log.undoCount == 2)
    try fixture.log.undo()
    #expect(fixture.field.value == 2)
  }

  @Test func closeCoalescingStartsANewGroup() throws {
    let fixture = Fixture()
    fixture.type()
    fixture.log.closeCoalescing()
    fixture.type()
    fixture.type()
    #expect(fixture.log.undoCount == 2)
  }

  @Test func anotherKeyOrAnUndoBreaksTheRun() throws {
    let fixture = Fixture()
    let other = Counter()
    fixture.type()
    other.set(9, in: fixture.log, key: 0)
    fixture.log.markEventBoundary()
    fixture.type()
    #expect(fixture.log.undoCount == 3)
    try fixture.log.undo()
    fixture.type()
    #expect(fixture.log.undoCount == 3)
  }

  @Test func withoutAWindowNothingCoalesces() {
    let fixture = Fixture()
    fixture.log.coalescingWindow = nil
    fixture.type()
    fixture.type()
    #expect(fixture.log.undoCount == 2)
  }

  @Test func stepsWithoutAKeyNeverCoalesce() {
    let fixture = Fixture()
    fixture.field.set(1, in: fixture.log)
    fixture.field.set(2, in: fixture.log)
    #expect(fixture.log.openValues.first?.count == 2)
  }

  @Test func aMergedRegistrationOpensNoGroup() {
    let fixture = Fixture()
    var opened = 0
    let subscription = fixture.log.onEvent { if $0 == .didOpenGroup { opened += 1 } }
    fixture.type()
    fixture.type()
    #expect(opened == 1)
    subscription.cancel()
  }

  /// Names a property by the value of an identifier, as a step that holds no object does.
  struct NamedStep: UndoStep {
    let identity: any Hashable & Sendable
    var coalescingKey: UndoCoalescingKey? { UndoCoalescingKey(identity: identity, key: 0) }
    mutating func apply() -> any UndoStep { EmptyUndoStep() }
  }

  struct FieldID: Hashable, Sendable {
    let rawValue: Int
  }

  @Test func keysNamingAValueCoalesce() {
    let fixture = Fixture()
    for identity in [FieldID(rawValue: 1), FieldID(rawValue: 1), FieldID(rawValue: 2)] {
      fixture.time += .milliseconds(100)
      fixture.log.register(NamedStep(identity: identity))
      fixture.log.markEventBoundary()
    }
    #expect(fixture.log.undoCount == 2)
  }

  @Test func valueKeysAreEqualForEqualValuesOfTheSameType() {
    let counter = Counter()
    let byObject = UndoCoalescingKey(object: ObjectIdentifier(counter), key: 3)
    let byIdentifier = UndoCoalescingKey(identity: ObjectIdentifier(counter), key: 3)
    #expect(byObject == byIdentifier)
    #expect(byObject.object == ObjectIdentifier(counter))
    #expect(byObject.key == 3)

    let first = UndoCoalescingKey(identity: FieldID(rawValue: 7), key: 0)
    #expect(first == UndoCoalescingKey(identity: FieldID(rawValue: 7), key: 0))
    #expect(first != UndoCoalescingKey(identity: FieldID(rawValue: 7), key: 1))
    #expect(first != UndoCoalescingKey(identity: FieldID(rawValue: 8), key: 0))
    #expect(first != UndoCoalescingKey(identity: 7, key: 0))
    #expect(UndoCoalescingKey(identity: "7", key: 0) != UndoCoalescingKey(identity: 7, key: 0))
    #expect(first.object == nil)

    let keys: Set = [
      first, UndoCoalescingKey(identity: FieldID(rawValue: 7), key: 0), byObject, byIdentifier,
      UndoCoalescingKey(identity: 7, key: 0),
    ]
    #expect(keys.count == 3)
  }
}
