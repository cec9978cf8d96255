// A relationship declared without `inverse:`.
// expect: error: 'init(deleteRule:ordered:isOptional:minCount:maxCount:)' is unavailable: name the inverse relationship on the other entity, as in '@Relationship(inverse: "category")', or say there is none: '@Relationship(inverse: .noInverse)'
import ObservedGraph

final class BookCategory: ManagedObject {
  @Attribute var name: String = ""
  @Relationship var books: Set<Book>
}

final class Book: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "books") var category: BookCategory?
}
