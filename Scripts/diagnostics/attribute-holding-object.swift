// An object declared as an attribute instead of a relationship. The compiler's own message.
// expect: error: generic struct 'Attribute' requires that 'BookCategory' conform to 'AttributeValue'
import ObservedGraph

final class BookCategory: ManagedObject {
  @Attribute var name: String = ""
}

final class Book: ManagedObject {
  @Attribute var category: BookCategory?
}
