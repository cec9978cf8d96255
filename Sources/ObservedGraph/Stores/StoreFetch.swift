/// What a fetch asks of a store: the objects of some entities that match a predicate, in order,
/// some of them.
///
/// A context hands one to ``PersistentStore/fetch(_:into:)`` for each ``FetchRequest`` it runs.
/// A store applies as much of it as it can; the context does the rest in memory (and always
/// merges its unsaved changes itself).
///
/// ```swift
/// let request = StoreFetch(
///   entity: bookEntity, predicate: try FetchPredicate(format: "price < 12"),
///   sortDescriptors: [FetchSort("title")])
/// let complete = try store.fetch(request, into: loader)
/// ```
public struct StoreFetch: Sendable {
  /// The entity whose objects are wanted.
  public var entity: EntityDescription
  /// Whether objects of the entity's sub-entities are wanted too.
  public var includesSubentities: Bool
  /// The condition; nil for every object.
  public var predicate: FetchPredicate?
  /// The order, first key first; objects whose keys are all equal come in key order.
  public var sortDescriptors: [FetchSort]
  /// The most objects to give; 0 for no limit.
  public var fetchLimit: Int
  /// How many matching objects, in order, to skip.
  public var fetchOffset: Int
  /// Whether the objects' values are wanted; when false, the store names the objects only
  /// (``ObjectLoader/appendObject(_:key:)``) and they load when read.
  public var loadsValues: Bool

  /// Creates a fetch.
  ///
  /// - Parameters:
  ///   - entity: The entity whose objects are wanted.
  ///   - includesSubentities: Whether objects of sub-entities are wanted too.
  ///   - predicate: The condition; nil for every object.
  ///   - sortDescriptors: The order.
  ///   - fetchLimit: The most objects to give; 0 for no limit.
  ///   - fetchOffset: How many matching objects to skip.
  ///   - loadsValues: Whether the objects' values are wanted.
  public init(
    entity: EntityDescription, includesSubentities: Bool = true, predicate: FetchPredicate? = nil,
    sortDescriptors: [FetchSort] = [], fetchLimit: Int = 0, fetchOffset: Int = 0,
    loadsValues: Bool = true
  ) {
    self.entity = entity
    self.includesSubentities = includesSubentities
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
    self.fetchLimit = fetchLimit
    self.fetchOffset = fetchOffset
    self.loadsValues = loadsValues
  }

  /// The entities whose objects are wanted: the entity and, when included, its sub-entities
  /// (abstract ones included, which have no objects).
  public var entities: [EntityDescription] {
    guard includesSubentities else { return [entity] }
    var all: [EntityDescription] = []
    var next = [entity]
    while let entity = next.popLast() {
      all.append(entity)
      next += entity.subentities
    }
    return all
  }
}
