// A renamed non-optional attribute without a default value.
// expect: error: 'init(transient:originalName:)' is unavailable: give the attribute a default value, as in '@Attribute(originalName: "name") var title: String = ""', or make its type optional
import ObservedGraph

final class Book: ManagedObject {
  @Attribute(originalName: "name") var title: String
}
