import Foundation
import Observation
import Testing
import UndoLog

@testable import ObservedGraph

/// The quiet relationship change (`ObjectContext.relateQuietly`): a to-one set whose inverse is
/// an unordered to-many, and an insert into such a to-many, skip the plan when nothing hears them
/// and leave the graph, the change tracking and the events exactly as the whole path does.
@Suite struct QuietRelationshipTests {
  /// One world (see ``PathWorld``), and what a user can see of its books and categories.
  private final class World: BookStoreWorld {
    var categories: [BookCategory] { [scenario.fiction, scenario.science] }

    /// What a user can see of the books and categories, by name.
    var state: [String] {
      func name(_ object: ManagedObject?) -> String {
        guard let object else { return "-" }
        if let book = object as? Book { return book.title }
        return (object as? BookCategory)?.name ?? "?"
      }
      func tracking(_ object: ManagedObject) -> String {
        let committed = (try? object.committedValues()) ?? [:]
        let books = (committed["books"] as? Set<Book>).map { $0.map(\.title).sorted() }
        return "\(object.isDeleted)|\(object.changedValues().keys.sorted())|"
          + "\(committed.keys.sorted())|\(books ?? [])|"
          + "\(name(committed["category"] as? ManagedObject))"
      }
      return scenario.books.map { "\($0.title): \(name($0.category)) \(tracking($0))" }
        + categories.map { "\($0.name): \($0.books.map(\.title).sorted()) \(tracking($0))" }
        + ["\(scenario.context.hasChanges)"]
    }
  }

  /// A seeded sequence of relationship sets and inserts (typed, by key and through the to-many
  /// proxy), events, saves, observers coming and going on either side, Swift Observation reads,
  /// undo logs with undo and redo, and deletes, on a context where changes may be quiet and on one
  /// where a tap sends every change down the whole path: the state, the events and what observers
  /// heard agree after every step.
  @Test(arguments: [false, true])
  func quietRelationshipChangesMatchTheWholePath(participates: Bool) throws {
    let worlds = [
      World(participates: participates, reference: false),
      World(participates: participates, reference: true),
    ]
    try WorldStep.run(4_000, seed: 0x2E1A7E, numbers: 3, in: worlds) { world, draw in
      let (step, choice, index, number) = (draw.step, draw.choice, draw.index, draw.number)
      let book = world.scenario.books[index]
      let context = world.scenario.context
      let category: BookCategory? = number == 2 ? nil : world.categories[number]
      switch choice {
      case 0..<20:
        guard !book.isDeleted, category?.isDeleted != true else { break }
        book.category = category
      case 20..<35:
        guard !book.isDeleted, let category, !category.isDeleted else { break }
        try category.mutableSet(forKey: "books").insert(book)
      case 35..<42:
        guard !book.isDeleted, category?.isDeleted != true else { break }
        try book.setValue(category, forKey: "category")
      case 42..<48:
        guard !book.isDeleted, let category, !category.isDeleted else { break }
        try category.mutableSet(forKey: "books").remove(book)
      case 48..<55: context.processPendingChanges()
      case 55..<59: try context.save()
      case 59..<66:
        if number == 2 {
          world.tokens.append(
            book.observe(\.category, options: [.old, .new]) { [unowned world] object, change in
              world.heard.append(
                "\(object.title) \(change.oldValue??.name ?? "-")→\(change.newValue??.name ?? "-")")
            })
        } else {
          world.tokens.append(
            world.categories[number].observe(\.books, options: [.new]) {
              [unowned world] object, change in
              world.heard.append("\(object.name) \(change.kind)")
            })
        }
      case 66..<74:
        if !world.tokens.isEmpty { world.tokens.removeFirst().invalidate() }
      case 74..<78:
        _ = book.category  // makes a registrar when the context takes part in Swift Observation
        _ = world.categories[number % 2].books
      case 78..<83:
        context.undoLog = context.undoLog == nil ? UndoLog() : nil
      case 83..<86:
        if step % 9 == 0 && !book.isDeleted { try context.delete(book) }
      case 86..<87:
        if step % 31 == 0, let category, !category.isDeleted { try context.delete(category) }
      default:
        guard let log = context.undoLog else { break }
        context.processPendingChanges()
        if step % 3 == 0 && log.canRedo {
          try log.redo()
        } else if log.canUndo {
          try log.undo()
        }
      }
    } check: { draw in
      #expect(worlds[0].events == worlds[1].events, "step \(draw.step)")
      #expect(worlds[0].heard == worlds[1].heard, "step \(draw.step)")
      #expect(worlds[0].state == worlds[1].state, "step \(draw.step)")
      return worlds[0].state == worlds[1].state
    }
  }

  @Test func aQuietSetKeepsTheCommittedMembersOfBothSides() throws {
    let store = BookStore.scenario(participatesInSwiftObservation: false)
    try store.context.save()
    let book = store.books[0]  // in Fiction with the second book
    book.category = store.science
    #expect(store.fiction.books == [store.books[1]])
    #expect(store.science.books == [store.books[0], store.books[2]])
    #expect(book.changedValues().keys.sorted() == ["category"])
    #expect(
      try book.committedValues(forKeys: ["category"])["category"] as? BookCategory
        === store.fiction)
    let committed = try store.fiction.committedValues(forKeys: ["books"])["books"] as? Set<Book>
    #expect(committed == [store.books[0], store.books[1]])
    #expect(store.science.changedValues().keys.sorted() == ["books"])

    var events: [ObjectsDidChange] = []
    let token = store.context.onObjectsDidChange { events.append($0) }
    store.context.processPendingChanges()
    #expect(events.count == 1)
    #expect(
      events.first?.updated == [
        book.objectID: ["category"], store.fiction.objectID: ["books"],
        store.science.objectID: ["books"],
      ])
    token.invalidate()

    book.category = store.science  // no change
    try store.science.mutableSet(forKey: "books").insert(book)  // a member already
    events = []
    let again = store.context.onObjectsDidChange { events.append($0) }
    store.context.processPendingChanges()
    #expect(events.isEmpty)
    again.invalidate()
  }

  @Test func swiftObservationHearsEverySideOfAQuietChange() throws {
    let store = BookStore.scenario()
    store.context.processPendingChanges()
    let book = store.books[0]  // in Fiction
    func flags(_ reads: [() -> Void]) -> [Flag] {
      reads.map { read in
        let flag = Flag()
        withObservationTracking(read) { flag.set() }
        return flag
      }
    }
    let reads: [() -> Void] = [
      { _ = book.category }, { _ = store.fiction.books }, { _ = store.science.books },
    ]
    var fired = flags(reads)
    book.category = store.science
    #expect(fired.map(\.isSet) == [true, true, true])

    fired = flags(reads)
    try store.fiction.mutableSet(forKey: "books").insert(book)
    #expect(fired.map(\.isSet) == [true, true, true])
  }
}
