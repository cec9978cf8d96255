import Foundation
import ObservedGraph

extension BookStore {
  /// Prints every category with its books, every book with its category and page count, then the
  /// changes waiting for the next save.
  func printGraph() {
    for category in categories {
      let titles = category.books.map(\.title).sorted()
      print("   [\(category.name)] \(titles.isEmpty ? "no books" : titles.joined(separator: ", "))")
    }
    for book in books {
      let price = String(format: "$%.2f", book.price)
      let pages = book.pages.count == 1 ? "1 page" : "\(book.pages.count) pages"
      print("   \(book.title), \(price), in \(book.category?.name ?? "no category"), \(pages)")
    }
    printPendingChanges()
  }

  /// Prints how many objects are inserted, updated and deleted since the last save.
  func printPendingChanges() {
    print(
      "   pending: \(context.insertedObjects.count) inserted, "
        + "\(context.updatedObjects.count) updated, \(context.deletedObjects.count) deleted")
  }
}

/// What the books' lifecycle hooks (`awakeFromFetch`, `willTurnIntoFault`) report, held until the
/// demo prints its next line. A store loads a batch of rows, and a save turns its objects into
/// faults, in no defined order; sorted, each batch prints the same on every run.
let hookLines = TraceLines()

/// Prints one line of the demo, after the hook lines that came before it, sorted.
func print(_ line: String) {
  for hookLine in hookLines.takeSorted() { Swift.print("   \(hookLine)") }
  Swift.print(line)
}
