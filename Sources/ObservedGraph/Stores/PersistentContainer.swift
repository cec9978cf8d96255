/// A model and the store its objects are saved in, and the contexts that work on them: the
/// counterpart of Core Data's `NSPersistentContainer`.
///
/// The container opens nothing itself: a store is open from the moment it is made. Its
/// ``viewContext`` is the context an app's interface uses; ``newContext(participatesInSwiftObservation:)``
/// makes more, each with its own objects, all saving to and loading from the one store. What one
/// context saves, a context made later (or an object another context has not loaded yet) reads;
/// live contexts do not merge each other's saves yet.
///
/// ```swift
/// let container = PersistentContainer(model: model)        // an in-memory store
/// let context = container.viewContext
/// let book = context.insert(Book.self)
/// book.title = "Dune"
/// try context.save()
///
/// let reader = container.newContext()
/// let fault = reader.object(with: book.objectID) as! Book  // a fault
/// print(fault.title)                                       // loaded from the store: "Dune"
/// ```
public final class PersistentContainer {
  /// The model of every context's objects: the store's model.
  public var model: ObjectModel { store.model }
  /// The store every context of the container saves to and loads from.
  public let store: any PersistentStore
  /// The context an app's interface uses, made on first use.
  public private(set) lazy var viewContext = newContext()

  /// Creates a container for a store.
  ///
  /// ```swift
  /// let container = PersistentContainer(store: try SQLiteStore(url: url, model: model))
  /// ```
  /// - Parameter store: An open store.
  public init(store: any PersistentStore) {
    self.store = store
  }

  /// Creates a container with a new, empty ``InMemoryStore`` for a model.
  /// - Parameter model: The model.
  public convenience init(model: ObjectModel) {
    self.init(store: InMemoryStore(model: model))
  }

  /// A new context on the container's store, with no objects loaded yet.
  ///
  /// - Parameter participatesInSwiftObservation: Whether the context's objects take part in
  ///   Swift Observation (see ``ObjectContext/participatesInSwiftObservation``). On by default.
  /// - Returns: The new context.
  public func newContext(participatesInSwiftObservation: Bool = true) -> ObjectContext {
    ObjectContext(store: store, participatesInSwiftObservation: participatesInSwiftObservation)
  }
}
