/// What an observer wants to hear about a change.
///
/// ```swift
/// let token = book.observe(\.title, options: [.old, .new]) { book, change in
///   print("title: \(change.oldValue!) -> \(change.newValue!)")
/// }
/// ```
public struct ObservationOptions: OptionSet, Sendable, Hashable {
  /// The bits of the set.
  public let rawValue: Int
  /// Creates options from raw bits.
  ///
  /// - Parameter rawValue: The bits.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Deliver the value after the change in ``ObservedChange/newValue``.
  public static let new = ObservationOptions(rawValue: 1 << 0)
  /// Deliver the value before the change in ``ObservedChange/oldValue``.
  public static let old = ObservationOptions(rawValue: 1 << 1)
  /// Call the handler once at registration with the current value (as `newValue` if `.new`).
  public static let initial = ObservationOptions(rawValue: 1 << 2)
  /// Also call the handler before each change, with ``ObservedChange/isPrior`` set and the old value
  /// only.
  public static let prior = ObservationOptions(rawValue: 1 << 3)
}

/// The kind of a change, as key-value observing reports it.
public enum ChangeKind: String, Sendable, Hashable {
  /// The value was set (attributes, to-one relationships, a whole to-many relationship, key paths).
  case setting
  /// Objects joined a to-many relationship.
  case insertion
  /// Objects left a to-many relationship.
  case removal
  /// Objects of a to-many relationship were replaced by others.
  case replacement
}
