import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Every change takes one mutation path, whoever listens: observers on every key and a change
/// recorder attached must not change what happens to the graph, to the objects-did-change events,
/// or to undo and redo.
@Suite("One mutation path")
struct OnePathTests {
  /// A run of the random undo operations, and what it saw.
  private struct Run {
    var operations: UndoRandomOperations
    var subscription: ObservationToken?
    var observers: [ObservationToken] = []
    var observed: Set<ObjectIdentifier> = []
    var calls = 0
    var recorder: ChangeRecorder?

    init(seed: UInt64) {
      operations = UndoRandomOperations(seed: seed, tracksEveryOrigin: true)
    }

    var context: ObjectContext { operations.context }

    /// Observes every key of every object not observed yet, asking for everything.
    mutating func observeEverything(_ count: Counter) {
      for object in context.registeredObjects
      where observed.insert(ObjectIdentifier(object)).inserted {
        for key in object.entity.propertyNames {
          observers.append(
            try! object.observe(keyPath: key, options: [.old, .new, .prior]) { _ in
              count.value += 1
            })
        }
      }
    }
  }

  private final class Counter {
    var value = 0
  }

  @Test func listenersDoNotChangeWhatHappens() throws {
    let seed = SplitMix64.seed(fallback: 0x0E_9A7B)
    var bare = Run(seed: seed)
    var heard = Run(seed: seed)
    let calls = Counter()
    heard.recorder = ChangeRecorder(context: heard.context)
    var bareEvents: [String] = []
    var heardEvents: [String] = []
    bare.subscription = bare.context.onObjectsDidChange { bareEvents.append($0.description) }
    heard.subscription = heard.context.onObjectsDidChange { heardEvents.append($0.description) }

    for step in 0..<1_000 {
      heard.observeEverything(calls)
      try bare.operations.step(step)
      try heard.operations.step(step)
      let (left, right) = (GraphSnapshot(bare.context), GraphSnapshot(heard.context))
      guard left.description == right.description else {
        Issue.record("seed \(seed) step \(step): \(left.description) vs \(right.description)")
        return
      }
      guard bareEvents == heardEvents else {
        Issue.record("seed \(seed) step \(step): events \(bareEvents) vs \(heardEvents)")
        return
      }
    }
    #expect(calls.value > 1_000, "the observers heard the changes")
    #expect(heard.recorder?.lines.count ?? 0 > 1_000, "the recorder heard the changes")

    // Undo everything and redo everything, step by step, in both.
    for log in [bare.operations.log, heard.operations.log] {
      while log.groupingLevel > 1 { try log.endGroup() }
    }
    bare.context.processPendingChanges()
    heard.context.processPendingChanges()
    var undone = 0
    while bare.operations.log.canUndo {
      try bare.operations.log.undo()
      try heard.operations.log.undo()
      undone += 1
      let (left, right) = (GraphSnapshot(bare.context), GraphSnapshot(heard.context))
      #expect(left.description == right.description, "seed \(seed) undo \(undone)")
      if left.description != right.description { return }
    }
    #expect(!heard.operations.log.canUndo && undone > 10)
    while bare.operations.log.canRedo {
      try bare.operations.log.redo()
      try heard.operations.log.redo()
    }
    #expect(!heard.operations.log.canRedo)
    #expect(GraphSnapshot(bare.context).description == GraphSnapshot(heard.context).description)
    #expect(bareEvents == heardEvents)
    _ = (heard.observers, bare.observers)
  }

  /// A prior observer that changes the graph makes the change be planned again from the graph as
  /// it is: both sides of every relationship still agree afterwards.
  @Test(arguments: ["delete the new owner", "delete the object", "steal it first", "reset", "undo"])
  func priorObserversThatChangeTheGraph(_ action: String) throws {
    let s = BookStore.scenario()
    let context = s.context
    context.undoLog = UndoLog()
    context.processPendingChanges()
    s.books[2].title = "made before"
    context.processPendingChanges()
    let book = s.books[0]
    var fired = false
    let token = book.observe(\.category, options: [.prior]) { _, change in
      guard change.isPrior, !fired else { return }
      fired = true
      switch action {
      case "delete the new owner": try! context.delete(s.science)
      case "delete the object": try! context.delete(book)
      case "steal it first": s.science.books.insert(s.books[1])
      case "reset": context.reset()
      default: try! context.undoLog?.undo()
      }
    }
    book.category = s.science
    #expect(fired)
    context._checkInvariants()
    #expect(checkUndoInverses(context) == nil)
    switch action {
    case "delete the new owner":
      // Planned again, the change cannot happen: a deleted object cannot be related.
      #expect(s.science.isDeleted && book.category === s.fiction)
    case "delete the object":
      #expect(book.isDeleted && book.category == nil && !s.science.books.contains(book))
    case "steal it first":
      #expect(book.category === s.science && s.science.books == [s.books[1], book, s.books[2]])
    case "reset":
      #expect(context.registeredObjects.isEmpty && book.context == nil)
    default:
      #expect(s.books[2].title == "The third book")
      #expect(book.category === s.science && s.science.books.contains(book))
    }
    _ = token
  }
}
