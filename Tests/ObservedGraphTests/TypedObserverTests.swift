import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Typed observers of an `@Attribute` get typed old and new values; a set whose only listeners are
/// such observers calls them directly, and they hear exactly what the whole mutation path would
/// tell them.
@Suite("Typed observers")
struct TypedObserverTests {
  private static func slot(_ book: Book, _ key: String) -> Int {
    book.entity.propertiesByName[key]!.slot
  }

  /// After the first set of an event, further sets of a slot whose only observers are typed take
  /// the direct path, and the observers still get every change with its old and new value.
  @Test func aTypedObserverOfAQuietSlotGetsEveryChange() throws {
    let s = BookStore.scenario(participatesInSwiftObservation: false)
    let book = s.books[0]
    try s.context.save()
    var heard: [String] = []
    let token = book.observe(\.price, options: [.old, .new]) { object, change in
      #expect(object === book)
      heard.append("\(change.oldValue!)→\(change.newValue!)")
    }
    book.price = 1  // the first change since the save takes the whole path
    book.price = 2  // quiet from here on: the direct path
    #expect(book.isQuietInline(Self.slot(book, "price")))
    book.price = 3
    book.price = 3  // an equal value is heard too, as on the whole path
    #expect(heard == ["10.0→1.0", "1.0→2.0", "2.0→3.0", "3.0→3.0"])
    #expect(book.changedValues()["price"] as? Double == 3)
    #expect(try book.committedValues(forKeys: ["price"])["price"] as? Double == 10)
    token.invalidate()
    book.price = 4
    #expect(heard.count == 4)
  }

  /// A prior observer, an observer by key, or a dependent key's link on the same slot: the set
  /// takes the whole path again, and every observer hears it in registration order.
  @Test(arguments: ["prior", "by key", "recorder"])
  func anotherKindOfListenerTurnsTheDirectPathOff(_ listener: String) throws {
    let s = BookStore.scenario(participatesInSwiftObservation: false)
    let book = s.books[0]
    var heard: [String] = []
    var tokens = [
      book.observe(\.price, options: [.new]) { _, change in
        heard.append("typed \(change.newValue!)")
      }
    ]
    book.price = 1
    book.price = 2
    #expect(book.isQuietInline(Self.slot(book, "price")))
    var recorder: ChangeRecorder?
    switch listener {
    case "prior":
      tokens.append(
        book.observe(\.price, options: [.new, .prior]) { _, change in
          heard.append(change.isPrior ? "prior" : "after \(change.newValue!)")
        })
    case "by key":
      tokens.append(
        try book.observe(keyPath: "price", options: [.new]) { change in
          heard.append("key \(change.newValue as? Double ?? -1)")
        })
    default: recorder = ChangeRecorder(context: s.context)
    }
    #expect(!book.isQuietInline(Self.slot(book, "price")))
    heard.removeAll()
    book.price = 3
    switch listener {
    case "prior": #expect(heard == ["prior", "typed 3.0", "after 3.0"])
    case "by key": #expect(heard == ["typed 3.0", "key 3.0"])
    default:
      #expect(heard == ["typed 3.0"])
      #expect(recorder?.take() == ["Book#3.price setting old=2.0 new=3.0"])
    }
    _ = tokens
  }

  /// Optional attributes deliver nil as `.some(nil)`, typed.
  @Test func optionalValuesArriveTyped() {
    let s = BookStore.scenario(participatesInSwiftObservation: false)
    let book = s.books[0]
    var heard: [ObservedChange<String?>] = []
    let token = book.observe(\.isbn, options: [.old, .new]) { _, change in heard.append(change) }
    book.isbn = "a"
    book.isbn = nil
    book.isbn = "b"
    #expect(book.isQuietInline(Self.slot(book, "isbn")))
    #expect(
      heard == [
        ObservedChange(kind: .setting, oldValue: .some(nil), newValue: "a"),
        ObservedChange(kind: .setting, oldValue: "a", newValue: .some(nil)),
        ObservedChange(kind: .setting, oldValue: .some(nil), newValue: "b"),
      ])
    _ = token
  }

  /// One world: a scenario, its observers and what they heard. The reference world also has a
  /// change recorder, whose tap makes every set take the whole path.
  private final class World {
    let scenario: BookStore.Scenario
    var tokens: [ObservationToken?] = []
    var heard: [String] = []
    var events: [ObjectsDidChange] = []
    var recorder: ChangeRecorder?
    var subscription: ObservationToken?

    init(reference: Bool) {
      scenario = BookStore.scenario(participatesInSwiftObservation: false)
      subscription = scenario.context.onObjectsDidChange { [unowned self] in events.append($0) }
      if reference { recorder = ChangeRecorder(context: scenario.context) }
    }

    /// The updated keys of each event, by object description (identifiers differ between
    /// contexts).
    var updates: [[String]] {
      events.map { $0.updated.map { "\($0.key)=\($0.value.sorted())" }.sorted() }
    }

    var state: [String] {
      scenario.books.map {
        "\($0.title)|\($0.price)|\($0.isbn ?? "-")|\($0.changedValues().keys.sorted())"
      } + ["\(scenario.context.hasChanges)"]
    }
  }

  /// A seeded sequence of typed sets (equal values and nil included), events, saves, typed
  /// observers with every option and with handlers that set again or end another observer while
  /// they are called, prior observers and observers by key coming and going: the world whose
  /// sets may take the direct path hears exactly what the reference hears, in the same order.
  @Test func typedObserversHearWhatTheWholePathSays() throws {
    let worlds = [World(reference: false), World(reference: true)]
    var heardCount = 0
    try WorldStep.run(4_000, seed: 0x7E_D0B5, numbers: 4, in: worlds) { world, draw in
      let (step, choice, index, number) = (draw.step, draw.choice, draw.index, draw.number)
      let book = world.scenario.books[index]
      let id = world.tokens.count
      switch choice {
      case 0..<55:
        switch number {
        case 0, 1: book.price = Double(step % 5)
        case 2: book.title = "t\(step % 3)"
        default: book.isbn = step % 2 == 0 ? nil : "i\(step % 3)"
        }
      case 55..<60: world.scenario.context.processPendingChanges()
      case 60..<62: try world.scenario.context.save()
      case 62..<72:
        let options: ObservationOptions = [[.new], [.old, .new], [.old], []][number]
        world.tokens.append(
          book.observe(\.price, options: options) { [unowned world] object, change in
            world.heard.append(
              "\(id) \(object.objectID) \(String(describing: change.oldValue))"
                + "→\(String(describing: change.newValue))")
            // Some handlers set again (once: the new value is out of the range that does),
            // some end the observer registered before them.
            if id % 5 == 1, let new = change.newValue, new < 100 { object.price = new + 100 }
            if id % 7 == 3, id > 0 { world.tokens[id - 1]?.invalidate() }
          })
      case 72..<78:
        world.tokens.append(
          book.observe(\.isbn, options: [.old, .new]) { [unowned world] object, change in
            world.heard.append(
              "\(id) \(object.objectID) isbn \(String(describing: change.oldValue))"
                + "→\(String(describing: change.newValue))")
          })
      case 78..<81:
        world.tokens.append(
          book.observe(\.price, options: [.new, .prior]) { [unowned world] _, change in
            world.heard.append("\(id) prior=\(change.isPrior)")
          })
      case 81..<84:
        world.tokens.append(
          try book.observe(keyPath: "title", options: [.new]) { [unowned world] change in
            world.heard.append("\(id) title \(change.newValue as? String ?? "-")")
          })
      default:
        let live = world.tokens.indices.filter { world.tokens[$0] != nil }
        if !live.isEmpty {
          let victim = live[(step * 7) % live.count]
          world.tokens[victim]?.invalidate()
          world.tokens[victim] = nil
        }
      }
    } check: { draw in
      let step = draw.step
      #expect(worlds[0].heard == worlds[1].heard, "step \(step)")
      #expect(worlds[0].state == worlds[1].state, "step \(step)")
      #expect(worlds[0].updates == worlds[1].updates, "step \(step)")
      if worlds[0].heard != worlds[1].heard { return false }
      heardCount += worlds[0].heard.count
      for world in worlds {
        world.heard.removeAll()
        world.events.removeAll()
        _ = world.recorder?.take()
        // At most a dozen live observers: the oldest goes.
        if world.tokens.compactMap({ $0 }).count > 12,
          let oldest = world.tokens.firstIndex(where: { $0 != nil })
        {
          world.tokens[oldest]?.invalidate()
          world.tokens[oldest] = nil
        }
      }
      return true
    }
    #expect(heardCount > 1_000)
  }

  /// A typed set that nothing hears takes the store-only route (`.quiet`) in this debug build too,
  /// as in a release build: the debug checks run after it and do not choose another route.
  @Test func aSetNothingHearsTakesTheQuietRouteInDebugBuilds() throws {
    let s = BookStore.scenario(participatesInSwiftObservation: false)
    let book = s.books[0]
    try s.context.save()
    book.price = 1  // the first change since the save takes the whole path and tracks the slot
    let slot = Self.slot(book, "price")
    #expect(book.beginTypedSet(slot) == .quiet)
    Attribute<Double>.set(book, slot: slot, 2)
    #expect(book.price == 2 && book.changedValues()["price"] as? Double == 2)
    #expect(try book.committedValues(forKeys: ["price"])["price"] as? Double == 10)
  }
}
