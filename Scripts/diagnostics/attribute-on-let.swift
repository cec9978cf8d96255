// A wrapped `let`. The compiler's own message; the library cannot change it.
// expect: error: property wrapper can only be applied to a 'var'
import ObservedGraph

final class Book: ManagedObject {
  @Attribute let title: String = ""
}
