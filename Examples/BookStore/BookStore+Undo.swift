import ObservedGraph
import UndoLog

// Undo and redo of a delete whose delete rule cascades.

extension BookStore {
  /// Deletes a book (its pages cascade with it), undoes the delete, then redoes it.
  func undoAndRedoDelete() throws {
    beginStep("Delete The first book (its pages cascade), then undo and redo")
    guard let log = context.undoLog else { return }
    let book = book("The first book")
    let pages = book.pages
    // One user action: one undo group named "Delete Book", one objects-did-change event. Had
    // the closure thrown, the delete and its cascade would have been taken back.
    try context.performAction("Delete Book") {
      try context.delete(book)
    }
    let cascaded = pages.filter(\.isDeleted).count
    print(
      "   deleted: book.isDeleted \(book.isDeleted); \(cascaded) of its \(pages.count) pages "
        + "cascaded (deleted objects stay in the context until the next save)")
    print("   undo action: \"\(log.undoActionName)\", can undo: \(log.canUndo)")
    try log.undo()
    print(
      "   after undo: the book is back with \(book.pages.count) pages (same objects: \(book.pages == pages))"
    )
    print("   pages belong to it again: \(pages.allSatisfy { $0.book === book })")
    printGraph()
    try log.redo()
    print("   after redo: book.isDeleted \(book.isDeleted), \(book.title) is gone from the shelf")
    printGraph()
  }
}
