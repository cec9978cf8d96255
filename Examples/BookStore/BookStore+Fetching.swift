import Foundation
import ObservedGraph

// Fetching: the books cheaper than 12, asked three ways, from the file and with unsaved changes.

extension BookStore {
  /// Fetches the books cheaper than 12 in a new context (from the file: each book found is
  /// loaded with the query, and says "Book fetched" when first read), then in the main context
  /// with an unsaved book that matches.
  func fetchCheapBooks() throws {
    beginStep("Fetch the books cheaper than 12")
    let reader = container.newContext()
    let byString = try FetchPredicate(format: "price < %@", 12)
    print("   predicate \(byString), sorted by title, in a new context:")
    let cheap = try reader.fetch(
      FetchRequest<Book>(matching: byString, sortedBy: [FetchSort("title")]))
    for book in cheap { print("   - \(book.title) costs \(book.price)") }
    // The same with Foundation's #Predicate and SortDescriptor.
    let typed = try reader.fetch(
      FetchRequest<Book>(predicate: #Predicate { $0.price < 12 }, sortBy: [SortDescriptor(\.title)])
    )
    print("   #Predicate { $0.price < 12 }: \(typed.map(\.title).joined(separator: ", "))")
    // The same kind of predicate built from parts, as a filter-building screen would.
    let byParts = FetchPredicate.comparison(
      FetchComparison(.keyPath("title"), .equal, .constant(.string("The first book"))))
    let count = try reader.count(for: FetchRequest<Book>(matching: byParts))
    print("   \(byParts): \(count) book")
    // Unsaved changes count: a new cheap book is in the results before it is saved.
    let draft = context.insert(Book.self)
    draft.title = "A draft"
    draft.price = 5
    let withDraft = try context.fetch(
      FetchRequest<Book>(matching: byString, sortedBy: [FetchSort("title")]))
    print("   with an unsaved book: \(withDraft.map(\.title).joined(separator: ", "))")
    try context.delete(draft)
    context.processPendingChanges()
  }

  /// Keeps the books by price in live results, then moves one by its price, undoes and redoes
  /// the change: each time the results report the index changes.
  func followLiveResults() throws {
    beginStep("Live results: the books by price, through an edit, its undo and its redo")
    guard let log = context.undoLog else { return }
    let results = try FetchedResults(
      context: context,
      request: FetchRequest<Book>(matching: nil, sortedBy: [FetchSort("price")]))
    print("   \(results.objects.map { "\($0.title) $\($0.price)" }.joined(separator: ", "))")
    let token = results.onChange { change in
      let moves = change.difference.insertions.compactMap { insertion -> String? in
        guard case .insert(let offset, let book, let from) = insertion else { return nil }
        return from.map { "\(book.title) moved from \($0) to \(offset)" }
          ?? "\(book.title) inserted at \(offset)"
      }
      print("   change: \(moves.joined(separator: "; "))")
    }
    let book = book("The third book")
    book.price = 20
    log.setActionName("Change Price")
    context.processPendingChanges()
    try log.undo()
    context.processPendingChanges()
    try log.redo()
    context.processPendingChanges()
    print("   now: \(results.objects.map(\.title).joined(separator: ", "))")
    token.invalidate()
  }
}
