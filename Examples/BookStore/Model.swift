import ObservedGraph

// The seeds' BookStore model: a category holds books, a book holds its pages in order.
//
// Each class is an entity; each `@Attribute` and `@Relationship` property is one of its
// properties. Both sides of a relationship name each other with `inverse:`, and the context keeps
// them in agreement after every change.

/// A shelf of the store. Deleting a category keeps its books; they just lose their category.
final class BookCategory: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "category", deleteRule: .nullify) var books: Set<Book>
}

/// A book. Its pages are ordered (an `Array`) and go away with it (`.cascade`).
final class Book: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var price: Double = 0
  @Relationship(inverse: "books") var category: BookCategory?
  @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [Page]

  /// Called each time the book's values are loaded from the store (seed 000's "Book fetched").
  /// The store loads several rows at once in no defined order, so the line waits in `hookLines`
  /// and is printed, sorted with the others of its batch, before the demo's next line.
  override func awakeFromFetch() {
    super.awakeFromFetch()
    hookLines.append("Book fetched: \(title)")
  }

  /// Called before a refresh drops the book's values; they are still readable here.
  override func willTurnIntoFault() {
    super.willTurnIntoFault()
    hookLines.append("Book will turn into a fault: \(title)")
  }
}

/// One page of a book.
final class Page: ManagedObject {
  @Attribute var text: String = ""
  @Relationship(inverse: "pages") var book: Book?
}
