import ObservedGraph
import UndoLog

/// The demo's state: one context holding the BookStore graph, and a step counter for the output.
///
/// Steps find their objects by name or title, the way a reader would, so a step can be added or
/// moved without threading objects from one step to the next.
final class BookStore {
  let context: ObjectContext
  private var stepNumber = 0

  /// Builds the model from the three classes and opens an empty in-memory context on it.
  init() throws {
    let model = try ObjectModel(types: [BookCategory.self, Book.self, Page.self])
    context = ObjectContext(model: model)
    context.undoLog = UndoLog()  // every step is recorded; one step = one undo group
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
