import Foundation
import ObservedGraph
import Testing
import UndoLog

/// Live results of one request, checked after every event against the change it delivered and a
/// fresh fetch.
private final class Checked<Object: ManagedObject> {
  let name: String
  let request: FetchRequest<Object>
  let results: FetchedResults<Object>
  private var previous: [Object]
  private var delivered: [FetchedResults<Object>.Change] = []
  private var token: ObservationToken?

  init(_ name: String, _ context: ObjectContext, _ request: FetchRequest<Object>, section: String?)
    throws
  {
    self.name = name
    self.request = request
    results = try FetchedResults(context: context, request: request, sectionKeyPath: section)
    previous = results.objects
    token = results.onChange { [unowned self] in delivered.append($0) }
  }

  /// The first thing wrong after an event, or nil.
  func mismatch(in context: ObjectContext) throws -> String? {
    defer {
      previous = results.objects
      delivered.removeAll()
    }
    let now = results.objects.map(ObjectIdentifier.init)
    let fetched = try context.fetch(request)
    guard fetched.map(ObjectIdentifier.init) == now else {
      return "\(name): \(results.objects.map(\.objectID)) but a fetch gives "
        + "\(fetched.map(\.objectID))"
    }
    guard delivered.count <= 1 else { return "\(name): \(delivered.count) changes for one event" }
    guard let change = delivered.first else {
      return previous.map(ObjectIdentifier.init) == now
        ? nil : "\(name): the objects changed and nothing was delivered"
    }
    guard !change.isEmpty else { return "\(name): an empty change was delivered" }
    guard let applied = previous.applying(change.difference),
      applied.map(ObjectIdentifier.init) == now
    else { return "\(name): the difference does not give the new objects" }
    for (object, offset) in zip(change.updated, change.updatedOffsets)
    where results.objects[offset] !== object {
      return "\(name): updated offset \(offset) is not \(object.objectID)"
    }
    if let section = results.sectionKeyPath {
      var runs: [String] = []
      for object in results.objects {
        let value = try object.value(forKeyPath: section)
        let text = value.map { "\($0)" } ?? ""
        if runs.last != text { runs.append(text) }
      }
      let sections = results.sections
      guard sections.map(\.name) == runs,
        sections.map(\.objects.count).reduce(0, +) == results.objects.count
      else { return "\(name): sections \(sections.map(\.name)), runs \(runs)" }
    }
    return nil
  }
}

@Suite("Fetched results, random edits")
struct FetchedResultsRandomTests {
  static let names = ["Art", "Fiction", "Fantasy", "History", "Science"]

  /// Thousands of random edits, undos, redos, saves and rollbacks on a BookStore; after every
  /// event each live request's delivered difference turns its previous objects into its new
  /// ones, and those are what a fetch gives.
  @Test(arguments: [UInt64(1), 2, 3])
  func randomEdits(run: UInt64) throws {
    let seed = SplitMix64.seed(fallback: 0xF37C_4ED0 &+ run)
    var random = SplitMix64(seed: seed)
    let context = ObjectContext(model: BookStore.model)
    let log = UndoLog()
    context.undoLog = log
    var categories: [BookCategory] = []
    for name in Self.names.prefix(3) {
      let category = context.insert(BookCategory.self)
      category.name = name
      categories.append(category)
    }
    var books: [Book] = []
    for index in 0..<30 {
      let book = context.insert(Book.self)
      book.title = "Book \(index)"
      book.price = Double(Int.random(in: 0..<100, using: &random))
      book.category = categories.randomElement(using: &random)
      books.append(book)
    }
    context.processPendingChanges()
    try context.save()

    let live: [(String, () throws -> String?)] = try {
      let fiction = try Checked(
        "cheap F", context,
        FetchRequest<Book>(
          matching: try FetchPredicate(format: "price < 60 AND category.name BEGINSWITH 'F'"),
          sortedBy: [
            FetchSort("category.name"), FetchSort("price", ascending: false), FetchSort("title"),
          ]),
        section: "category.name")
      let all = try Checked(
        "all", context,
        FetchRequest<Book>(
          matching: nil, sortedBy: [FetchSort("title", comparison: .localizedStandard)]),
        section: nil)
      let byPrice = try Checked(
        "by price", context,
        FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("price")]),
        section: "category.name")
      let rich = try Checked(
        "rich", context,
        FetchRequest<BookCategory>(
          matching: try FetchPredicate(format: "ANY books.price > 80"),
          sortedBy: [FetchSort("books.@count", ascending: false), FetchSort("name")]),
        section: nil)
      return [
        (fiction.name, { try fiction.mismatch(in: context) }),
        (all.name, { try all.mismatch(in: context) }),
        (byPrice.name, { try byPrice.mismatch(in: context) }),
        (rich.name, { try rich.mismatch(in: context) }),
      ]
    }()

    func alive<T: ManagedObject>(_ objects: [T]) -> [T] {
      objects.filter { $0.context === context && !$0.isDeleted }
    }
    for step in 0..<1_500 {
      let operation = Int.random(in: 0..<100, using: &random)
      let liveBooks = alive(books)
      let liveCategories = alive(categories)
      switch operation {
      case 0..<25:
        if let book = liveBooks.randomElement(using: &random) {
          book.price = Double(Int.random(in: 0..<100, using: &random))
        }
      case 25..<33:
        if let book = liveBooks.randomElement(using: &random) {
          book.title = "Book \(Int.random(in: 0..<60, using: &random))"
        }
      case 33..<43:
        if let book = liveBooks.randomElement(using: &random) {
          book.category =
            Bool.random(using: &random) ? liveCategories.randomElement(using: &random) : nil
        }
      case 43..<51:
        if let category = liveCategories.randomElement(using: &random) {
          category.name = Self.names.randomElement(using: &random)!
        }
      case 51..<59:
        let book = context.insert(Book.self)
        book.title = "Book \(Int.random(in: 0..<60, using: &random))"
        book.price = Double(Int.random(in: 0..<100, using: &random))
        book.category = liveCategories.randomElement(using: &random)
        books.append(book)
      case 59..<65:
        if let book = liveBooks.randomElement(using: &random) { try context.delete(book) }
      case 65..<67:
        let category = context.insert(BookCategory.self)
        category.name = Self.names.randomElement(using: &random)!
        categories.append(category)
      case 67..<69:
        if liveCategories.count > 1, let category = liveCategories.randomElement(using: &random) {
          try context.delete(category)
        }
      case 69..<71:
        // Several edits in one event.
        for book in liveBooks.shuffled(using: &random).prefix(5) {
          book.price = Double(Int.random(in: 0..<100, using: &random))
        }
      case 71..<86:
        context.processPendingChanges()
        if log.canUndo { try log.undo() }
      case 86..<96:
        context.processPendingChanges()
        if log.canRedo { try log.redo() }
      case 96..<98:
        try context.save()
      default:
        context.rollback()
      }
      context.processPendingChanges()
      for (name, check) in live {
        let problem = try check()
        #expect(
          problem == nil,
          "seed \(seed) (OBSERVEDGRAPH_SEED=\(seed)) step \(step) operation \(operation): \(name)")
        if problem != nil {
          print("FetchedResultsRandomTests: seed \(seed) step \(step): \(problem!)")
          return
        }
      }
    }
  }
}
