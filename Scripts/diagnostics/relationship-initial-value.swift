// A relationship given an initial value.
// expect: error: 'init(wrappedValue:inverse:deleteRule:ordered:isOptional:minCount:maxCount:)' is unavailable: a relationship starts empty and takes no initial value: remove '= ...' (set it after 'context.insert(_:)')
import ObservedGraph

final class BookCategory: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "category") var books: Set<Book> = []
}

final class Book: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "books") var category: BookCategory?
}
