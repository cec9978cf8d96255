import ObservedGraph

// The seeds' key-value observing example, and the context-wide event.

extension BookStore {
  /// Observes a book's title with old and new values, changes it, and prints what was heard; then
  /// prints the one objects-did-change event the context posts for it.
  func observeTitle() throws {
    beginStep("Observe a book's title, then change it")
    let book = book("The first book")
    let token = book.observe(\.title, options: [.old, .new]) { _, change in
      print("   title: \(change.oldValue ?? "?") -> \(change.newValue ?? "?")")
    }
    let events = context.onObjectsDidChange { event in
      for (id, keys) in event.updated {
        print(
          "   objects-did-change: \(id.entityName) updated (\(keys.sorted().joined(separator: ", ")))"
        )
      }
    }
    book.title = "The new title"
    context.processPendingChanges()
    token.invalidate()
    events.invalidate()
    book.title = "The first book"  // nobody listens any more: nothing is printed
    context.processPendingChanges()
  }
}
