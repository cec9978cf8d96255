// A non-optional attribute without a default value.
// expect: error: 'init(transient:)' is unavailable: give the attribute a default value, as in '@Attribute var title: String = ""', or make its type optional, as in '@Attribute var subtitle: String?'
import ObservedGraph

final class Book: ManagedObject {
  @Attribute var title: String
}
