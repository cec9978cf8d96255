/// The identity of a changing property, used to merge consecutive steps that change it.
///
/// Two steps coalesce when they return equal keys from ``UndoStep/coalescingKey`` and are
/// registered one right after the other within ``UndoLog/coalescingWindow``. A key names an object
/// and a property of it, coded as an integer the caller chooses (a property index, a hash of its
/// name).
///
/// ```swift
/// let key = UndoCoalescingKey(object: ObjectIdentifier(textField), key: 0)
/// ```
public struct UndoCoalescingKey: Hashable, Sendable {
  /// The object whose property changes.
  public var object: ObjectIdentifier

  /// The property of ``object`` that changes, as an integer the caller chooses.
  public var key: Int

  /// Creates a key for a property of an object.
  ///
  /// ```swift
  /// let titleKey = UndoCoalescingKey(object: ObjectIdentifier(book), key: 1)
  /// ```
  ///
  /// - Parameters:
  ///   - object: The identity of the object whose property changes.
  ///   - key: The property, as an integer the caller chooses.
  public init(object: ObjectIdentifier, key: Int) {
    self.object = object
    self.key = key
  }
}
