// A to-one relationship whose type is not optional. The compiler's own message: the library
// cannot change it without making every object a relationship value at run time.
// expect: error: generic struct 'Relationship' requires that 'BookCategory' conform to 'RelationshipValue'
import ObservedGraph

final class BookCategory: ManagedObject {
  @Relationship(inverse: "category") var books: Set<Book>
}

final class Book: ManagedObject {
  @Relationship(inverse: "books") var category: BookCategory
}
