import Foundation
import ObservedGraph
import ObservedGraphSQLite
import UndoLog

/// The demo's state: a container on an SQLite file in a temporary folder, the context the steps
/// change, and a step counter for the output.
///
/// Steps find their objects by name or title, the way a reader would, so a step can be added or
/// moved without threading objects from one step to the next.
final class BookStore {
  let container: PersistentContainer
  let context: ObjectContext
  /// The folder of the store's file, removed when the demo ends.
  let folder: URL
  private var stepNumber = 0

  /// Builds the model from the three classes and opens a store in a new SQLite file.
  init() throws {
    let model = try ObjectModel(types: [BookCategory.self, Book.self, Page.self])
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("bookstore-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("BookStore.sqlite")
    container = PersistentContainer(store: try SQLiteStore(url: url, model: model))
    context = container.viewContext
    context.undoLog = UndoLog()  // every step is recorded; one step = one undo group
  }

  /// The store's file.
  var storeURL: URL { folder.appendingPathComponent("BookStore.sqlite") }

  /// Closes the store and removes its folder.
  func finish() throws {
    print("\nDone.")  // also prints the last hook lines
    try container.store.close()
    try FileManager.default.removeItem(at: folder)
  }

  /// The categories that are not deleted, by name.
  var categories: [BookCategory] {
    live(BookCategory.self).sorted { $0.name < $1.name }
  }

  /// The books that are not deleted, by title.
  var books: [Book] {
    live(Book.self).sorted { $0.title < $1.title }
  }

  /// The category named `name`; the demo's steps only ask for ones that exist.
  func category(_ name: String) -> BookCategory {
    guard let category = categories.first(where: { $0.name == name }) else {
      preconditionFailure("no category named \(name)")
    }
    return category
  }

  /// The book titled `title`; the demo's steps only ask for ones that exist.
  func book(_ title: String) -> Book {
    guard let book = books.first(where: { $0.title == title }) else {
      preconditionFailure("no book titled \(title)")
    }
    return book
  }

  /// Prints the heading of the next step, numbered in the order the steps run.
  func beginStep(_ title: String) {
    // Each step is one user event: what the previous step did is posted (and, with undo, forms
    // one undo group) before the next begins.
    context.processPendingChanges()
    stepNumber += 1
    print("\n\(stepNumber). \(title)")
  }

  private func live<Object: ManagedObject>(_ type: Object.Type) -> [Object] {
    context.registeredObjects.compactMap { $0 as? Object }.filter { !$0.isDeleted }
  }
}
