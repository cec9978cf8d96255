// A wrapper in a class that is not a ManagedObject. The compiler's own message, with no line
// (`<unknown>:0`): it reports the requirement of the wrappers' enclosing-instance subscript, not
// the message of their unavailable `wrappedValue`.
// expect: error: static subscript 'subscript(_enclosingInstance:wrapped:storage:)' requires that 'Note' inherit from 'ManagedObject'
import ObservedGraph

final class Note {
  @Attribute var text: String = ""
}
