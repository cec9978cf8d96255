import ObservedGraph

// The benchmark's entities. `Item` mirrors the peers' fields; `Parent`/`Child` carry a to-many
// relationship with its inverse; `Node` is a tree whose children go away with their parent.

/// One object with a scalar and a string attribute.
final class Item: ManagedObject {
  @Attribute var value: Int = 0
  @Attribute var title: String = ""
}

/// The owner side of an unordered to-many relationship.
final class Parent: ManagedObject {
  @Relationship(inverse: "parent") var children: Set<Child>
}

/// The member side: its `parent` is kept by inverse upkeep.
final class Child: ManagedObject {
  @Attribute var value: Int = 0
  @Relationship(inverse: "children") var parent: Parent?
}

/// A tree node; deleting one deletes its subtree.
final class Node: ManagedObject {
  @Attribute var value: Int = 0
  @Relationship(inverse: "parent", deleteRule: .cascade) var children: Set<Node>
  @Relationship(inverse: "children") var parent: Node?
}

/// The model of all benchmark entities, built once.
enum BenchModel {
  static let model: ObjectModel = {
    do {
      return try ObjectModel(types: [Item.self, Parent.self, Child.self, Node.self])
    } catch {
      fatalError("graph-bench: the benchmark model is invalid: \(error)")
    }
  }()

  /// A context whose objects take no part in Swift Observation: no registrar, reads report
  /// nothing. The rows kept from before the option measure in one ("participation off").
  static func quietContext() -> ObjectContext {
    ObjectContext(model: model, participatesInSwiftObservation: false)
  }

  /// A context as apps make it (the default, participation on): an object's first typed read makes
  /// its registrar, each read reports to it and each set tells it.
  static func participatingContext() -> ObjectContext { ObjectContext(model: model) }
}
