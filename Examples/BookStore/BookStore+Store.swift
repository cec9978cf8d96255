import Foundation
import ObservedGraph
import ObservedGraphSQLite

// The SQLite store: what the first context saved, a second context reads back as faults.

extension BookStore {
  /// Opens a second context on the store and reaches the books through their category: each book
  /// is loaded (and says "Book fetched") once, however often it is reached.
  func readInSecondContext() throws {
    beginStep("Open a second context on the file; reach the books through their category")
    let reader = container.newContext()
    let id = category("Biography").objectID
    guard let biography = reader.object(with: id) as? BookCategory else { return }
    print("   the category is a fault: \(biography.isFault)")
    for book in biography.books.sorted(by: { $0.title < $1.title }) {
      print("   \(book.title): \(book.pages.count) pages")  // the first read loads the book
    }
    print("   reaching the same book again loads nothing and prints no second line:")
    let first = biography.books.sorted { $0.title < $1.title }[0]
    let again = reader.object(with: first.objectID) as? Book
    print("   same object: \(again === first), title \(again?.title ?? "?")")
    try refresh(first, in: reader)
  }

  /// Refreshes a book into a fault, then reads it again: it is loaded and awakened again.
  private func refresh(_ book: Book, in reader: ObjectContext) throws {
    beginStep("Refresh \(book.title) into a fault, then read it again")
    try reader.refresh(book, mergeChanges: false)
    print("   book.isFault: \(book.isFault)")
    print("   price: \(book.price)")  // loaded again
  }

  /// Opens the file with the SQL trace on and reads one book: the trace shows what the fault
  /// cost (its statements; their times vary from run to run and are left out). `OBSERVEDGRAPH_SQL_DEBUG=1 swift run bookstore` traces every statement of the demo.
  func traceOneFault() throws {
    beginStep("The SQL of one fault, with the store's trace on")
    let lines = TraceLines()
    var options = SQLiteStore.Options()
    options.sqlTrace = { lines.append("SQL: \($0.statement)") }
    let traced = PersistentContainer(
      store: try SQLiteStore(url: storeURL, model: context.model, options: options))
    lines.removeAll()  // opening the store ran statements of its own
    let reader = traced.newContext()
    let id = book("The third book").objectID
    guard let book = reader.object(with: id) as? Book else { return }
    print("   reading \(book.objectID) runs:")
    _ = book.title
    for line in lines.all { print("   \(line)") }
    try traced.store.close()
  }
}

/// Trace lines collected for printing (the trace's output may be called from any thread).
final class TraceLines: @unchecked Sendable {
  // @unchecked Sendable: the demo runs on one thread; the lock keeps it correct anyway.
  private let lock = NSLock()
  private var lines: [String] = []

  func append(_ line: String) { lock.withLock { lines.append(line) } }
  func removeAll() { lock.withLock { lines.removeAll() } }
  var all: [String] { lock.withLock { lines } }

  /// Returns the lines collected so far, sorted, and forgets them.
  func takeSorted() -> [String] {
    lock.withLock {
      defer { lines.removeAll() }
      return lines.sorted()
    }
  }
}
