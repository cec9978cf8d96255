import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

// Every misuse that stops the program on purpose, reached through public API, each checked by an
// exit test that the process fails and that its standard error names the mistake. These are the
// mistakes the compiler cannot see in code that cannot throw (typed setters and getters, manual
// change brackets, `insert(_:)`), or mistakes in the app's own classes, steps and stores; a
// user's data cannot reach them, since every API that takes data throws instead (see
// BadInputSweepTests.swift and Docs/Reliability.md, "Misuse that traps on purpose").
//
// A few are also checked, without their message, where their feature is tested:
// MisuseTests (typed set and bracket after the context is gone, bracket index past the end),
// SemanticsTests (typed set and bracket on a deleted object), ObservationTests (didChange without
// willChange), FaultTests (typed read of a missing object), ModelValidationTests (insert of a
// class shared by entities).

/// A class whose initializer reads a property: the model's prototype of it cannot be used.
final class EagerReader: ManagedObject {
  @Attribute var name: String = ""

  required init(_ bootstrap: ObjectBootstrap) {
    super.init(bootstrap)
    _ = name.count
  }
}

/// A class whose dependent key names a key its entity does not have.
final class MisdeclaredDependency: ManagedObject {
  @Attribute var title: String = ""

  override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
    key == "title" ? ["subtitle"] : []
  }
}

/// A transformable value whose encoding fails when it is `broken`.
struct Fragile: TransformableValue {
  var broken = false

  init(broken: Bool = false) { self.broken = broken }

  init(from decoder: any Decoder) throws {
    broken = try decoder.singleValueContainer().decode(Bool.self)
  }

  func encode(to encoder: any Encoder) throws {
    if broken {
      throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "broken"))
    }
    var container = encoder.singleValueContainer()
    try container.encode(broken)
  }
}

final class FragileHolder: ManagedObject {
  @Attribute var value: Fragile = Fragile()
}

/// An undo step that implements neither `apply()` nor `apply(in:)`.
struct InertStep: UndoStep {}

/// A store that gives the loader a value at a property index its entity does not have.
final class OutOfRangeStore: RowStore {
  override func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool {
    if loader.beginObject(request.entity, key: 1) {
      loader.setAttribute(.string("x"), at: 99)
    }
    return true
  }
}

/// One misuse that stops the program: its name, and what its message must contain.
struct Trap: Sendable, CustomTestStringConvertible {
  let name: String
  let message: String

  var testDescription: String { name }

  static let all: [Trap] = [
    Trap(name: "insert a class outside the model", message: "is not the class of exactly one"),
    Trap(name: "insert an abstract class", message: "Person is abstract"),
    Trap(name: "typed set after the context is gone", message: "cannot set Book.title"),
    Trap(
      name: "typed set of a deleted object",
      message: "cannot set Book.title: Book#3 was deleted; a deleted object cannot be changed"),
    Trap(name: "typed to-one set to an object of another context", message: "another context"),
    Trap(name: "typed to-one set to a deleted object", message: "cannot join 'category'"),
    Trap(name: "typed to-many set with an object of another context", message: "another context"),
    Trap(name: "typed to-many set with a deleted object", message: "cannot join 'books'"),
    Trap(name: "typed read of a missing object", message: "cannot be read"),
    Trap(name: "typed read of a to-many that cannot load", message: "cannot be read"),
    Trap(name: "a property read in a model class's init", message: "model prototype"),
    Trap(name: "a dependent key the entity does not have", message: "subtitle"),
    Trap(name: "a transformable value whose encoding fails", message: "cannot be stored"),
    Trap(name: "a prior observer that always changes the graph", message: "every time"),
    Trap(name: "bracket of an unknown key", message: "has no such property"),
    Trap(name: "indexed bracket of an unordered to-many", message: "not an ordered to-many"),
    Trap(name: "objects bracket of an ordered to-many", message: "not an unordered to-many"),
    Trap(name: "removal bracket outside the relationship", message: "outside pages"),
    Trap(name: "insertion bracket past the end", message: "holds 1 objects after the change"),
    Trap(name: "didChange without willChange", message: "without a matching willChange"),
    Trap(
      name: "bracket of a deleted object",
      message: #"(forKey: "title") on Book#3: Book#3 was deleted"#),
    Trap(name: "bracket after the context is gone", message: "no longer belongs to a context"),
    Trap(name: "reserve no keys", message: "reserveKeys needs a count of at least 1"),
    Trap(name: "a store's value at an index past the entity's", message: "index 99"),
    Trap(
      name: "a store's value for a name the entity does not have",
      message: "a store gave a value for 'subtitle', which entity Book does not have"),
    Trap(name: "an undo step without apply", message: "implements neither apply()"),
    Trap(name: "grow an undo step by negative bytes", message: "-8 bytes"),
    Trap(
      name: "reset from an observer while undo replays",
      message: #"reset() during undo of "Rename"; call it after undo() returns"#),
    Trap(
      name: "rollback in a transaction's body",
      message: "rollback() in a transaction's body; throw from the body"),
    Trap(
      name: "a transaction of a reserved origin",
      message: #"transaction(origin: "undo"): the origin "undo" is reserved for the library"#),
    Trap(
      name: "a nested transaction of another origin",
      message: #"in the body of a transaction of origin "import""#),
    Trap(
      name: "reset in a transaction's body",
      message: "reset() in a transaction's body; throw from the body"),
  ]

  /// Commits the misuse `name`; returns only if it did not stop the program.
  static func commit(_ name: String) {
    switch name {
    case "insert a class outside the model":
      _ = ObjectContext(model: BookStore.model).insert(Team.self)
    case "insert an abstract class":
      _ = ObjectContext(model: League.model).insert(Person.self)
    case "typed set after the context is gone":
      var context: ObjectContext? = ObjectContext(model: BookStore.model)
      let book = context!.insert(Book.self)
      context = nil
      book.title = "x"
    case "typed set of a deleted object":
      let s = BookStore.scenario()
      try? s.context.delete(s.books[0])
      s.books[0].title = "x"
    case "typed to-one set to an object of another context":
      let (s, other) = (BookStore.scenario(), BookStore.scenario())
      withExtendedLifetime((s, other)) { s.books[0].category = other.fiction }
    case "typed to-one set to a deleted object":
      let s = BookStore.scenario()
      try? s.context.delete(s.science)
      s.books[0].category = s.science
    case "typed to-many set with an object of another context":
      let (s, other) = (BookStore.scenario(), BookStore.scenario())
      withExtendedLifetime((s, other)) { s.fiction.books = [other.books[0]] }
    case "typed to-many set with a deleted object":
      let s = BookStore.scenario()
      try? s.context.delete(s.books[2])
      s.fiction.books = [s.books[2]]
    case "typed read of a missing object":
      _ = StoredBookStore().book(99).title
    case "typed read of a to-many that cannot load":
      let store = StoredBookStore()
      let dune = store.book(2)
      _ = dune.title
      try? store.loader.close()
      _ = dune.pages
    case "a property read in a model class's init":
      _ = try? ObjectModel(types: [EagerReader.self])
    case "a dependent key the entity does not have":
      let model = try! ObjectModel(types: [MisdeclaredDependency.self])
      let context = ObjectContext(model: model)
      let object = context.insert(MisdeclaredDependency.self)
      _ = object.observe(\.title) { _, _ in }
    case "a transformable value whose encoding fails":
      let model = try! ObjectModel(types: [FragileHolder.self])
      let context = ObjectContext(model: model)
      context.undoLog = UndoLog()
      let holder = context.insert(FragileHolder.self)
      holder.value = Fragile(broken: true)
      context.processPendingChanges()
      holder.value = Fragile()  // the undo step keeps the old value in stored form
      context.processPendingChanges()
      _ = try? context.undoLog?.history()
    case "a prior observer that always changes the graph":
      let s = BookStore.scenario()
      let token = s.books[0].observe(\.title, options: [.prior]) { book, change in
        if change.isPrior { book.price += 1 }
      }
      s.books[0].title = "x"
      _ = token
    case "bracket of an unknown key":
      let s = BookStore.scenario()
      s.books[0].willChangeValue(forKey: "author")
    case "indexed bracket of an unordered to-many":
      let s = BookStore.scenario()
      s.fiction.willChange(.insertion, valuesAt: [0], forKey: "books")
    case "objects bracket of an ordered to-many":
      let s = BookStore.scenario()
      s.books[0].willChange(.insertion, objects: [], forKey: "pages")
    case "removal bracket outside the relationship":
      let s = BookStore.scenario()
      s.books[0].willChange(.removal, valuesAt: [3], forKey: "pages")
    case "insertion bracket past the end":
      let s = BookStore.scenario()
      let book = s.books[0]
      book.willChange(.insertion, valuesAt: [5], forKey: "pages")
      try? book.setPrimitiveValue([s.context.insert(Page.self)], forKey: "pages")
      book.didChange(.insertion, valuesAt: [5], forKey: "pages")
    case "didChange without willChange":
      let s = BookStore.scenario()
      s.books[0].didChangeValue(forKey: "title")
    case "bracket of a deleted object":
      let s = BookStore.scenario()
      try? s.context.delete(s.books[0])
      s.books[0].willChangeValue(forKey: "title")
    case "bracket after the context is gone":
      var context: ObjectContext? = ObjectContext(model: BookStore.model)
      let book = context!.insert(Book.self)
      context = nil
      book.willChangeValue(forKey: "title")
    case "reserve no keys":
      _ = InMemoryStore(model: BookStore.model).reserveKeys(0)
    case "a store's value at an index past the entity's":
      let context = ObjectContext(store: OutOfRangeStore(model: BookStore.model))
      _ = try? context.fetch(FetchRequest<Book>(matching: nil))
    case "a store's value for a name the entity does not have":
      let store = NamedRowStore(model: BookStore.model, rows: [.init(key: 1, title: "Dune")])
      store.attributeName = "subtitle"
      let context = ObjectContext(store: store)
      _ = try? context.fetch(FetchRequest<Book>(matching: nil))
    case "an undo step without apply":
      let log = UndoLog()
      log.register(InertStep())
      log.markEventBoundary()
      try? log.undo()
    case "grow an undo step by negative bytes":
      let log = UndoLog()
      log.beginGroup()
      if let mark = log.registerGrowable(EmptyUndoStep()) {
        _ = log.growNewestStep(by: -8, at: mark)
      }
    case "rollback in a transaction's body":
      let s = BookStore.scenario()
      s.context.transaction {
        s.books[0].title = "Renamed"
        s.context.rollback()
      }
    case "a transaction of a reserved origin":
      let s = BookStore.scenario()
      s.context.transaction(origin: .undo) { s.books[0].title = "Renamed" }
    case "a nested transaction of another origin":
      let s = BookStore.scenario()
      s.context.transaction(origin: "import") {
        s.context.transaction(origin: "sync") { s.books[0].title = "Renamed" }
      }
    case "reset in a transaction's body":
      let s = BookStore.scenario()
      s.context.transaction { s.context.reset() }
    case "reset from an observer while undo replays":
      let s = BookStore.scenario()
      s.context.undoLog = UndoLog()
      s.context.processPendingChanges()
      s.context.performAction("Rename") { s.books[0].title = "Renamed" }
      let token = s.books[0].observe(\.title) { book, _ in book.context?.reset() }
      try? s.context.undoLog?.undo()
      _ = token
    default:
      Issue.record("no misuse named \(name)")
    }
  }
}

@Suite("Misuse that traps on purpose")
struct TrapTests {
  /// The process stops, and its standard error says what was misused.
  @Test(arguments: Trap.all)
  func stops(_ trap: Trap) async throws {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { [name = trap.name as String] in
      Trap.commit(name)
    }
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(text.contains(trap.message), "standard error: \(text)")
  }

  /// Every misuse named in the table is one `commit` knows (a misspelt name would record an
  /// issue inside the exit test, which the exit test would report as a failure to stop).
  @Test func theTableNamesEveryMisuseOnce() {
    #expect(Set(Trap.all.map(\.name)).count == Trap.all.count)
  }
}
