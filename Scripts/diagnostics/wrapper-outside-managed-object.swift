// A wrapper in a class that is not a ManagedObject. The compiler's own message, with no line:
// the wrappers' `wrappedValue` is unavailable with a message of its own, but the compiler
// reports the enclosing-instance subscript's requirement instead.
// expect: error: static subscript 'subscript(_enclosingInstance:wrapped:storage:)' requires that 'Note' inherit from 'ManagedObject'
import ObservedGraph

final class Note {
  @Attribute var text: String = ""
}

func read(_ note: Note) -> String { note.text }
