/// What restored an object's state, as passed to ``ManagedObject/awake(fromSnapshotEvents:)``.
///
/// Undo and redo describe what the step they applied did to the object: an object that comes back
/// into the context (undo of a delete, redo of an insert) gets ``undoDeletion``; an object that
/// leaves it (undo of an insert, redo of a delete) gets ``undoInsertion``; an object whose values or
/// relationships were restored gets ``undoUpdate``. One undo can do several of these to an object;
/// it then gets them together in one call.
///
/// ```swift
/// override func awake(fromSnapshotEvents events: SnapshotEvents) {
///   super.awake(fromSnapshotEvents: events)
///   if !events.isDisjoint(with: [.undoInsertion, .undoDeletion, .undoUpdate]) {
///     thumbnail = nil  // rebuild lazily from the restored values
///   }
/// }
/// ```
public struct SnapshotEvents: OptionSet, Sendable, Hashable {
  /// The raw bits; the values follow Core Data's `NSSnapshotEventType`.
  public let rawValue: UInt

  /// Creates a set of events from its raw bits.
  ///
  /// ```swift
  /// let events = SnapshotEvents(rawValue: 1 << 3)  // .undoUpdate
  /// ```
  ///
  /// - Parameter rawValue: The bits, as in Core Data's `NSSnapshotEventType`.
  public init(rawValue: UInt) {
    self.rawValue = rawValue
  }

  /// The object's insertion was taken back: undo of an insert, or redo of a delete.
  ///
  /// ```swift
  /// if events.contains(.undoInsertion) { /* the object left the context */ }
  /// ```
  public static let undoInsertion = SnapshotEvents(rawValue: 1 << 1)

  /// The object's deletion was taken back: undo of a delete, or redo of an insert.
  ///
  /// ```swift
  /// if events.contains(.undoDeletion) { /* the object is back, with its relationships */ }
  /// ```
  public static let undoDeletion = SnapshotEvents(rawValue: 1 << 2)

  /// Values or relationships of the object were restored by undo or redo.
  ///
  /// ```swift
  /// if events.contains(.undoUpdate) { recomputeTotals() }
  /// ```
  public static let undoUpdate = SnapshotEvents(rawValue: 1 << 3)

  /// The object's values were restored by a rollback of the context.
  ///
  /// ```swift
  /// if events.contains(.rollback) { recomputeTotals() }
  /// ```
  public static let rollback = SnapshotEvents(rawValue: 1 << 4)

  /// The object's values were reloaded by a refresh.
  ///
  /// ```swift
  /// if events.contains(.refresh) { recomputeTotals() }
  /// ```
  public static let refresh = SnapshotEvents(rawValue: 1 << 5)
}
