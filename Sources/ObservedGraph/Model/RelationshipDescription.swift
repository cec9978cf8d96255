/// What happens to the destination objects of a relationship when its source object is deleted.
///
/// Rules run inside ``ObjectContext/delete(_:)``: ``deny`` refuses the whole delete before anything
/// changes; ``cascade`` deletes the destinations too; ``nullify`` removes the deleted object from
/// each destination's inverse; ``noAction`` leaves the destinations pointing at the deleted object.
///
/// ```swift
/// @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [Page]
/// ```
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
  /// Remove the deleted object from each destination's inverse relationship.
  case nullify
  /// Delete every destination as well, recursively.
  case cascade
  /// Refuse to delete while the relationship is not empty; the delete throws and changes nothing.
  case deny
  /// Do nothing to the destinations; they keep pointing at the deleted object. Keeping the graph
  /// consistent is then the caller's responsibility.
  case noAction
}

/// The description of one relationship of an entity.
///
/// Every relationship names its inverse on the destination entity, or says explicitly that it has
/// none with ``Inverse/noInverse``. The model checks when it is built that the two sides point at
/// each other.
///
/// ```swift
/// let books = RelationshipDescription(
///   name: "books", destination: "Book", inverse: "category", toMany: true)
/// let category = RelationshipDescription(name: "category", destination: "BookCategory", inverse: "books")
/// ```
public struct RelationshipDescription: Sendable {
  /// How a relationship names its inverse.
  public enum Inverse: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The inverse is the relationship with this name on the destination entity.
    case named(String)
    /// The relationship deliberately has no inverse; nothing is kept on the other side.
    case noInverse

    /// Creates a named inverse from a string literal.
    ///
    /// - Parameter value: The name of the inverse relationship on the destination entity.
    public init(stringLiteral value: String) { self = .named(value) }

    var name: String? {
      if case .named(let name) = self { return name }
      return nil
    }
  }

  /// The key of the relationship.
  public var name: String
  /// The name of the destination entity; sub-entities of it are accepted too.
  public var destination: String
  /// The inverse relationship on the destination; nil means none was declared, which the model
  /// rejects (say ``Inverse/noInverse`` to have none on purpose).
  public var inverse: Inverse?
  /// Whether the relationship holds many objects.
  public var isToMany: Bool
  /// Whether a to-many relationship keeps its objects in order.
  public var isOrdered: Bool
  /// What deleting the source does to the destinations.
  public var deleteRule: DeleteRule
  /// Whether a to-one relationship may be empty. To-many relationships use ``minCount``.
  public var isOptional: Bool
  /// The fewest objects a non-empty (or non-optional) to-many relationship may hold; 0 for no limit.
  public var minCount: Int
  /// The most objects a to-many relationship may hold; 0 for no limit.
  public var maxCount: Int
  /// The relationship's name in the previous model version, when it was renamed: a migration
  /// from that version keeps its related objects under the new name. Nil when the name did not
  /// change. Not part of the ``ObjectModel/versionHash``.
  public var originalName: String?

  /// Creates a relationship description.
  ///
  /// - Parameters:
  ///   - name: The relationship's key.
  ///   - destination: The destination entity's name.
  ///   - inverse: The inverse's name on the destination, or ``Inverse/noInverse``. Leaving it nil
  ///     makes the model throw ``ObjectGraphError/Kind/missingInverse`` when built.
  ///   - toMany: Whether it holds many objects.
  ///   - ordered: Whether a to-many relationship is ordered.
  ///   - deleteRule: The delete rule, ``DeleteRule/nullify`` by default.
  ///   - isOptional: Whether it may be empty; for to-many, an empty optional relationship passes the
  ///     count checks.
  ///   - minCount: Minimum number of objects (to-many), 0 for none.
  ///   - maxCount: Maximum number of objects (to-many), 0 for none.
  ///   - originalName: Its name in the previous model version, when it was renamed.
  public init(
    name: String, destination: String, inverse: Inverse?, toMany: Bool = false,
    ordered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
    minCount: Int = 0, maxCount: Int = 0, originalName: String? = nil
  ) {
    self.name = name
    self.destination = destination
    self.inverse = inverse
    self.isToMany = toMany
    self.isOrdered = ordered && toMany
    self.deleteRule = deleteRule
    self.isOptional = isOptional
    self.minCount = minCount
    self.maxCount = maxCount
    self.originalName = originalName
  }
}
