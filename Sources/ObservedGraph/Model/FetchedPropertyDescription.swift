/// A fetched property: a named fetch that an entity's objects answer by key, as Core Data's
/// fetched properties — the seeds' `bargainBooks` of a category, `wPlayers` of a team.
///
/// The predicate may name the object asked as `$FETCH_SOURCE`. The results (an array, in the
/// order of the sort keys) are fetched on first use, then kept until the object is refreshed
/// (``ObjectContext/refresh(_:mergeChanges:)``) or its context is reset: like Core Data's, a
/// fetched property does not follow later changes by itself.
///
/// ```swift
/// let bargains = FetchedPropertyDescription(
///   name: "bargainBooks", destination: "Book",
///   predicate: try FetchPredicate(format: "SELF.price < 12 AND SELF.category == $FETCH_SOURCE"),
///   sortDescriptors: [FetchSort("title")])
/// // in a model class: override class var fetchedProperties: [FetchedPropertyDescription] { [bargains] }
/// let books = try category.value(forKey: "bargainBooks") as! [ManagedObject]
/// ```
public struct FetchedPropertyDescription: Hashable, Sendable, CustomStringConvertible {
  /// The key the objects answer.
  public var name: String
  /// The name of the entity whose objects are fetched.
  public var destination: String
  /// The condition, which may name the object asked as `$FETCH_SOURCE`.
  public var predicate: FetchPredicate
  /// The order of the results.
  public var sortDescriptors: [FetchSort]

  /// Creates a fetched property.
  ///
  /// - Parameters:
  ///   - name: The key the objects answer.
  ///   - destination: The name of the entity whose objects are fetched.
  ///   - predicate: The condition; `$FETCH_SOURCE` is the object asked.
  ///   - sortDescriptors: The order of the results.
  public init(
    name: String, destination: String, predicate: FetchPredicate, sortDescriptors: [FetchSort] = []
  ) {
    self.name = name
    self.destination = destination
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
  }

  /// The name, the destination and the predicate, such as
  /// `bargainBooks: Book where price < 12 AND category == $FETCH_SOURCE`.
  public var description: String { "\(name): \(destination) where \(predicate)" }
}
