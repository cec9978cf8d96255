import ObservedGraph

// The outline's model: one entity. A note has a title and its children in order; deleting a note
// deletes its children with it.

/// One note of the outline.
///
/// `children` is an ordered to-many (an `Array`) whose inverse is `parent`, so putting a note in
/// another note's children takes it out of its previous parent's at once. Every note the user
/// sees has a parent: the notes at the top level are the children of one hidden root note, which
/// keeps their order in the file too.
final class Note: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "parent", deleteRule: .cascade, ordered: true) var children: [Note]
  @Relationship(inverse: "children") var parent: Note?
}
