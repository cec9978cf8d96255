import Foundation
import Observation
import ObservedGraph
import Testing
import UndoLog

// Swift Observation participation (on by default, off by a context option) and the quiet
// attribute set: a set nobody hears is one store, and everything that listens still hears.

@Suite("Swift Observation participation")
struct ParticipationTests {
  /// Whether a tracked read fires its `onChange` when `change` runs.
  private func fires(_ read: @escaping () -> Void, when change: () throws -> Void) rethrows -> Bool
  {
    let fired = Flag()
    withObservationTracking(read) { fired.set() }
    try change()
    return fired.isSet
  }

  @Test func withParticipationEveryPathTellsTheRegistrar() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    let book = s.books[0]
    // A typed set, then a second set of the same slot before the event (the quiet set: the slot
    // is already tracked and pending), then one after the event.
    #expect(fires({ _ = book.title }, when: { book.title = "one" }))
    s.context.undoLog = nil
    #expect(fires({ _ = book.title }, when: { book.title = "two" }))
    #expect(fires({ _ = book.title }, when: { book.title = "three" }))
    s.context.processPendingChanges()
    #expect(fires({ _ = book.title }, when: { book.title = "four" }))
    s.context.undoLog = log
    // Key-value coding, reading and writing.
    #expect(!fires({ _ = try? book.value(forKey: "title") }, when: { book.price = 1 }))
    #expect(
      try fires(
        { _ = try? book.value(forKey: "price") }, when: { try book.setValue(2.0, forKey: "price") })
    )
    #expect(
      fires(
        { _ = try? book.value(forKeyPath: "category.name") }, when: { s.fiction.name = "Novels" }))
    // A to-many proxy, an inverse kept up, a delete rule.
    let extra = s.context.insert(Book.self)
    #expect(
      try fires(
        { _ = s.science.books }, when: { try s.science.mutableSet(forKey: "books").insert(extra) }))
    #expect(fires({ _ = extra.category }, when: { s.fiction.books.insert(extra) }))
    #expect(try fires({ _ = s.fiction.books }, when: { try s.context.delete(book) }))
    s.context.processPendingChanges()
    // Undo and redo of the delete.
    #expect(try fires({ _ = s.fiction.books }, when: { try log.undo() }))
    #expect(try fires({ _ = book.category }, when: { try log.redo() }))
  }

  @Test func recordedQuietSetsAndTheirUndoTellTheRegistrar() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    let book = s.books[0]
    book.title = "a"  // the slot's first set in the event: a step of its own
    // The next sets are recorded in a column: the first asks the object, the next finds the
    // slot's quiet bit flagged for recording.
    #expect(fires({ _ = book.title }, when: { book.title = "b" }))
    #expect(fires({ _ = book.title }, when: { book.title = "c" }))
    s.context.processPendingChanges()
    // The undo replays the column first: the registrar hears it before the value changes.
    // @unchecked Sendable: the change handler runs on this thread, inside the undo.
    final class Seen: @unchecked Sendable {
      let book: Book
      var title: String?
      init(_ book: Book) { self.book = book }
    }
    let seen = Seen(book)
    withObservationTracking({ _ = book.title }, onChange: { seen.title = seen.book.title })
    try log.undo()
    #expect(seen.title == "c")
    #expect(book.title == "The first book")
  }

  /// Swift Observation hears `willSet` in the apply phase, just before the store: after the prior
  /// observers (which run while nothing has changed), so that a change a prior observer makes
  /// planned again is announced to the registrar once.
  @Test func theRegistrarHearsTheChangeAfterThePriorObservers() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    // @unchecked Sendable: the change handler runs on this thread, inside the set.
    final class Calls: @unchecked Sendable {
      let book: Book
      var names: [String] = []
      var priceSeen: Double?
      init(_ book: Book) { self.book = book }
    }
    let calls = Calls(book)
    let token = book.observe(\.price, options: [.prior]) { book, change in
      if change.isPrior { calls.names.append("prior") }
    }
    withObservationTracking(
      { _ = book.price },
      onChange: {
        calls.names.append("registrar")
        calls.priceSeen = calls.book.price
      })
    book.price = 3
    #expect(calls.names == ["prior", "registrar"])
    // The registrar's `willSet` comes before the store.
    #expect(calls.priceSeen != 3)
    token.invalidate()
  }

  @Test func readsThatAreNotTrackedDoNotFire() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    #expect(!fires({ _ = book.title }, when: { book.price = 99 }))
    #expect(
      try !fires({ _ = book.title }, when: { try book.setPrimitiveValue("p", forKey: "title") }))
  }

  /// Objects made one after another share a registrar, 16 to a registrar: each still hears only
  /// its own changes, by every path, across the registrars' boundaries.
  @Test func objectsSharingARegistrarHearOnlyTheirOwn() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    let books = (0..<40).map { index in
      let book = s.context.insert(Book.self)
      book.title = "b\(index)"
      return book
    }
    s.context.processPendingChanges()
    for (index, book) in books.enumerated() {
      for other in [index - 17, index - 16, index - 1, index + 1, index + 15, index + 16]
      where books.indices.contains(other) {
        let neighbour = books[other]
        #expect(!fires({ _ = book.title }, when: { neighbour.title += "!" }))
        #expect(
          try !fires(
            { _ = try? book.value(forKey: "price") },
            when: { try neighbour.setValue(Double(other), forKey: "price") }))
        #expect(!fires({ _ = book.category }, when: { neighbour.category = s.science }))
        s.context.processPendingChanges()
        #expect(try !fires({ _ = book.title }, when: { try log.undo() }))
      }
      #expect(fires({ _ = book.title }, when: { book.title += "?" }))
      #expect(fires({ _ = book.category }, when: { s.fiction.books.insert(book) }))
      s.context.processPendingChanges()
      #expect(try fires({ _ = book.category }, when: { try log.undo() }))
    }
  }
  @Test func withoutParticipationNothingReachesTheRegistrar() throws {
    let s = BookStore.scenario(participatesInSwiftObservation: false)
    #expect(!s.context.participatesInSwiftObservation)
    #expect(BookStore.scenario().context.participatesInSwiftObservation)
    let book = s.books[0]
    #expect(!fires({ _ = book.title }, when: { book.title = "one" }))
    #expect(!fires({ _ = book.title }, when: { book.title = "two" }))
    #expect(
      try !fires(
        { _ = try? book.value(forKey: "title") }, when: { try book.setValue("x", forKey: "title") })
    )
    #expect(!fires({ _ = s.fiction.books }, when: { book.category = s.science }))
    // The library's own observation works the same.
    var heard: [String] = []
    let token = book.observe(\.title, options: [.old, .new]) { _, change in
      heard.append("\(change.oldValue ?? "-")→\(change.newValue ?? "-")")
    }
    book.title = "y"
    book.title = "z"
    #expect(heard == ["x→y", "y→z"])
    token.invalidate()
  }

  @MainActor
  @Test func observationsSeeEveryChange() async throws {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    let book = s.books[0]
    s.context.processPendingChanges()
    let titles = Observations { book.title }
    var iterator = titles.makeAsyncIterator()
    #expect(await iterator.next() == "The first book")
    book.title = "typed"
    #expect(await iterator.next() == "typed")
    s.context.processPendingChanges()
    try book.setValue("by key", forKey: "title")
    #expect(await iterator.next() == "by key")
    s.context.processPendingChanges()
    try log.undo()
    #expect(await iterator.next() == "typed")
    try log.redo()
    #expect(await iterator.next() == "by key")
  }
}

@Suite("The quiet attribute set")
struct QuietSetTests {
  /// Sets the same slot several times in one event with nothing listening, then checks that
  /// everything that listens afterwards — observers, events, undo, recorders — sees the right
  /// values.
  @Test(arguments: [false, true])
  func aSetNobodyHearsLeavesTheSameStateAsTheFullPath(byKey: Bool) throws {
    for participates in [false, true] {
      let s = BookStore.scenario(participatesInSwiftObservation: participates)
      let context = s.context
      let book = s.books[0]
      // Typed sets, or the same sets by key: each kind decides quietness on its own.
      func setPrice(_ price: Double) throws {
        if byKey { try book.setValue(price, forKey: "price") } else { book.price = price }
      }
      try context.save()
      var events: [ObjectsDidChange] = []
      let subscription = context.onObjectsDidChange { events.append($0) }
      try setPrice(11)  // first change since the save: tracked and queued
      try setPrice(12)  // quiet
      try setPrice(13)  // quiet
      #expect(book.price == 13)
      #expect(try book.committedValues(forKeys: ["price"])["price"] as? Double == 10)
      #expect(book.changedValues()["price"] as? Double == 13)
      #expect(context.updatedObjects == [book])
      context.processPendingChanges()
      #expect(events.map(\.updated) == [[book.objectID: ["price"]]])
      // After the event the slot is no longer pending: the next set queues it again.
      try setPrice(14)
      try setPrice(15)
      context.processPendingChanges()
      #expect(events.map(\.updated) == [[book.objectID: ["price"]], [book.objectID: ["price"]]])
      // An observer added now hears every set with old and new values.
      var heard: [String] = []
      let token = book.observe(\.price, options: [.old, .new]) { _, change in
        heard.append("\(change.oldValue ?? -1)→\(change.newValue ?? -1)")
      }
      try setPrice(16)
      try setPrice(17)
      #expect(heard == ["15.0→16.0", "16.0→17.0"])
      token.invalidate()
      try setPrice(18)
      #expect(heard.count == 2)
      // A change recorder hears every set.
      let recorder = ChangeRecorder(context: context)
      try setPrice(19)
      try setPrice(20)
      #expect(
        recorder.take() == [
          "Book#3.price setting old=18.0 new=19.0", "Book#3.price setting old=19.0 new=20.0",
        ])
      recorder.stop()
      // Undo records every set once a log is attached, and takes them back one by one.
      let log = UndoLog()
      context.undoLog = log
      context.processPendingChanges()
      try setPrice(21)
      context.processPendingChanges()
      try setPrice(22)
      context.processPendingChanges()
      try log.undo()
      #expect(book.price == 21)
      try log.undo()
      #expect(book.price == 20)
      try log.redo()
      try log.redo()
      #expect(book.price == 22)
      try context.save()
      #expect(!context.hasChanges)
      #expect(book.changedValues().isEmpty)
      subscription.invalidate()
    }
  }

  /// Each change that can make the next set of a slot heard, or leave it something to track,
  /// comes right after the slot became quiet (two sets in one event); the set after it must take
  /// the whole path.
  @Test(arguments: [
    "observer", "undo log", "recorder", "event", "save", "registrar", "path observer",
  ])
  func whatEndsAQuietSlot(_ change: String) throws {
    let s = BookStore.scenario(participatesInSwiftObservation: change == "registrar")
    let context = s.context
    let book = s.books[0]
    try context.save()
    book.price = 1
    book.price = 2  // the slot is quiet from here on
    var heard: [String] = []
    var tokens: [ObservationToken] = []
    var events: [ObjectsDidChange] = []
    tokens.append(context.onObjectsDidChange { events.append($0) })
    let log = UndoLog()
    var recorder: ChangeRecorder?
    let fired = Flag()
    switch change {
    case "observer":
      tokens.append(
        book.observe(\.price, options: [.new]) { _, c in heard.append("\(c.newValue!)") })
    case "undo log": context.undoLog = log
    case "recorder": recorder = ChangeRecorder(context: context)
    case "event": context.processPendingChanges()
    case "save": try context.save()
    case "registrar": withObservationTracking({ _ = book.price }, onChange: { fired.set() })
    default:
      tokens.append(
        s.fiction.observe(\.books, options: [.new]) { _, _ in heard.append("books") })
      tokens.append(
        try s.fiction.observe(keyPath: "books.price", options: [.new]) { _ in
          heard.append("path")
        })
    }
    events.removeAll()
    book.price = 3
    switch change {
    case "observer": #expect(heard == ["3.0"])
    case "undo log":
      context.processPendingChanges()
      try log.undo()
      #expect(book.price == 2)
    case "recorder": #expect(recorder?.take() == ["Book#3.price setting old=2.0 new=3.0"])
    case "event":
      context.processPendingChanges()
      #expect(events.map(\.updated) == [[book.objectID: ["price"]]])
    case "save":
      #expect(context.updatedObjects == [book])
      #expect(try book.committedValues(forKeys: ["price"])["price"] as? Double == 2)
    case "registrar": #expect(fired.isSet)
    default: #expect(heard == ["path"])
    }
    _ = tokens
  }

  @Test func aQuietSetOfADeletedObjectStillStops() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      let book = s.books[0]
      book.price = 1
      book.price = 2
      try? s.context.delete(book)
      book.price = 3
    }
  }
}

@Suite("Quiet sets against the full path")
struct QuietSetRandomTests {
  /// One world (see ``PathWorld``), and what a user can see of its books.
  private final class World: BookStoreWorld {
    /// What a user can see of the books.
    var state: [String] {
      scenario.books.map { book in
        let committed = (try? book.committedValues(forKeys: ["title", "price", "isbn"])) ?? [:]
        return "\(book.title)|\(book.price)|\(book.isbn ?? "-")|\(book.isDeleted)|"
          + "\(book.changedValues().keys.sorted())|\(committed.keys.sorted())|"
          + "\(committed["price"].map { "\($0)" } ?? "-")"
      } + ["\(scenario.context.hasChanges)"]
    }
  }

  /// A seeded sequence of sets, events, saves, observers coming and going, Swift Observation
  /// reads, recorders, undo logs, undo, redo, removal of a book's actions and deletes, run on a context where sets may be quiet and on one
  /// where a tap makes every set take the whole path: the state, the events and what observers
  /// heard agree after every step.
  @Test(arguments: [false, true])
  func quietSetsChangeNothingButTheValue(participates: Bool) throws {
    let worlds = [
      World(participates: participates, reference: false),
      World(participates: participates, reference: true),
    ]
    try WorldStep.run(5_000, seed: 0x5EED_0F_0A1E7, numbers: 6, in: worlds) { world, draw in
      let (step, choice, index, number) = (draw.step, draw.choice, draw.index, draw.number)
      let book = world.scenario.books[index]
      let context = world.scenario.context
      switch choice {
      case 0..<50:
        guard !book.isDeleted else { break }
        switch number {
        case 0, 1, 2: book.price = Double(number * 10 + index + step % 3)
        case 3: book.title = "t\(step % 4)"
        case 4: book.isbn = index == 0 ? nil : "i\(step % 3)"
        default: try book.setValue(Double(index + step % 2), forKey: "price")
        }
      case 50..<55: context.processPendingChanges()
      case 55..<58: try context.save()
      case 58..<66:
        world.tokens.append(
          book.observe(\.price, options: [.old, .new]) { [unowned world] object, change in
            world.heard.append(
              "\(object.objectID) \(change.oldValue ?? -1)→\(change.newValue ?? -1)")
          })
      case 66..<76:
        if !world.tokens.isEmpty { world.tokens.removeFirst().invalidate() }
      case 76..<80:
        _ = book.title  // makes a registrar when the context takes part in Swift Observation
      case 80..<86:
        context.undoLog = context.undoLog == nil ? UndoLog() : nil
      case 86..<90:
        // The reference keeps its recorder; the other world takes one up and drops it.
        if worlds[0] === world {
          if world.recorder == nil {
            world.recorder = ChangeRecorder(context: context)
          } else {
            world.recorder?.stop()
            world.recorder = nil
          }
        }
      case 90..<92:
        if !book.isDeleted && step % 5 == 0 { try context.delete(book) }
      default:
        guard let log = context.undoLog else { break }
        context.processPendingChanges()
        if step % 3 == 0 && log.canRedo {
          try log.redo()
        } else if step % 7 == 0 {
          log.removeAllActions(withTarget: book)
        } else if log.canUndo {
          try log.undo()
        }
      }
    } check: { draw in
      // Each context has its own store identity: compare the events as they print.
      #expect(worlds[0].events == worlds[1].events)
      #expect(worlds[0].heard == worlds[1].heard, "step \(draw.step)")
      #expect(worlds[0].state == worlds[1].state, "step \(draw.step)")
      return worlds[0].state == worlds[1].state
    }
  }
}
