// A relationship with other arguments but no `inverse:`.
// expect: error: 'init(deleteRule:ordered:isOptional:minCount:maxCount:)' is unavailable: name the inverse relationship
import ObservedGraph

final class BookCategory: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(deleteRule: .cascade) var books: Set<Book>
}

final class Book: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "books") var category: BookCategory?
}
