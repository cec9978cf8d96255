import Foundation

/// A description of the objects to fetch, as Core Data's `NSFetchRequest`: an entity, a
/// predicate, an order, and how many.
///
/// With a model class, the predicate and the order are Foundation's `#Predicate` and
/// `SortDescriptor`:
///
/// ```swift
/// var cheap = FetchRequest<Book>(
///   predicate: #Predicate { $0.price < 12 }, sortBy: [SortDescriptor(\.title)])
/// cheap.fetchLimit = 10
/// let books = try context.fetch(cheap)          // [Book]
/// ```
///
/// For generic objects (and for predicates built or parsed at run time), name the entity and
/// give a ``FetchPredicate`` and ``FetchSort`` keys:
///
/// ```swift
/// let request = try FetchRequest<ManagedObject>(
///   entityName: "Book", predicate: FetchPredicate(format: "price < %@", 12),
///   sortDescriptors: [FetchSort("title")])
/// ```
///
/// A fetch returns the objects of the entity (and its sub-entities, unless
/// ``includesSubentities`` is false) that match, in order. By default it includes the context's
/// unsaved changes (``includesPendingChanges``); ``fetchOffset`` and ``fetchLimit`` apply after
/// that. See ``ObjectContext/fetch(_:)``.
public struct FetchRequest<Result: ManagedObject> {
  /// The entity's name; nil for the entity of `Result`.
  public var entityName: String?
  /// The condition objects must meet; nil for every object.
  public var predicate: FetchPredicate?
  /// The order, first key first; empty for the order of the objects' identifiers.
  public var sortDescriptors: [FetchSort]
  /// The most objects to return; 0 for no limit.
  public var fetchLimit = 0
  /// How many of the matching objects, in order, to skip.
  public var fetchOffset = 0
  /// When above 0, the objects come back as faults without values, loaded in batches as they
  /// are read (Core Data's batched fetch): a fetch of many objects costs their identifiers until
  /// they are used: reading one loads it with the next `fetchBatchSize − 1` of them that still
  /// wait, in one load.
  public var fetchBatchSize = 0
  /// Whether the context's unsaved changes count: inserted objects that match are returned,
  /// deleted ones are not, and changed values are taken into account (Core Data's default).
  /// When false, inserted objects are left out and deleted ones are not; objects the store
  /// selects keep their place whatever their unsaved values, except where the predicate or
  /// the order is evaluated in memory (by a store that cannot apply it, or in a context without a
  /// store), which reads the objects' current values.
  public var includesPendingChanges = true
  /// Whether objects come back as faults (whose values the fetch brought, so reading them costs
  /// no more loads). When false, each is fulfilled before the fetch returns.
  public var returnsObjectsAsFaults = true
  /// Whether objects of sub-entities are fetched too.
  public var includesSubentities = true
  /// Relationship key paths (such as `"category"` or `"category.shelf"`) whose objects are
  /// loaded with the results, one load per relationship and batch instead of one per object.
  public var relationshipKeyPathsForPrefetching: [String] = []

  /// `#Predicate` and `SortDescriptor`s of a typed request, converted when it is fetched.
  var typedPredicate: Predicate<Result>?
  var typedSortDescriptors: [SortDescriptor<Result>] = []

  /// A request for objects of `Result`'s entity, with a `#Predicate` and `SortDescriptor`s.
  ///
  /// ```swift
  /// FetchRequest<Book>(predicate: #Predicate { $0.price < 12 }, sortBy: [SortDescriptor(\.title)])
  /// ```
  /// - Parameters:
  ///   - predicate: The condition; nil for every object.
  ///   - sortBy: The order, first key first.
  public init(predicate: Predicate<Result>? = nil, sortBy: [SortDescriptor<Result>] = []) {
    entityName = nil
    self.predicate = nil
    sortDescriptors = []
    typedPredicate = predicate
    typedSortDescriptors = sortBy
  }

  /// A request for objects of an entity, by name, with a ``FetchPredicate`` and ``FetchSort``
  /// keys.
  ///
  /// ```swift
  /// FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [FetchSort("title")])
  /// ```
  /// - Parameters:
  ///   - entityName: The entity's name.
  ///   - predicate: The condition; nil for every object.
  ///   - sortDescriptors: The order, first key first.
  public init(
    entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSort] = []
  ) {
    self.entityName = entityName
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
  }

  /// A request for objects of `Result`'s entity with a ``FetchPredicate`` and ``FetchSort`` keys.
  ///
  /// ```swift
  /// FetchRequest<Book>(matching: try FetchPredicate(format: "price < 12"), sortedBy: [FetchSort("title")])
  /// ```
  /// - Parameters:
  ///   - predicate: The condition; nil for every object.
  ///   - sortDescriptors: The order, first key first.
  public init(matching predicate: FetchPredicate?, sortedBy sortDescriptors: [FetchSort] = []) {
    entityName = nil
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
  }
}
