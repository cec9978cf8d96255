/// A step that does nothing and that an ``UndoLog`` never records.
///
/// Return it from ``UndoStep/apply()`` when the step has registered its own inverse with the log
/// while it ran (as closure handlers do), or when there is nothing to take back, for instance
/// because the object the step acted on is gone.
///
/// ```swift
/// struct Touch: UndoStep {
///   weak var object: Counter?
///   mutating func apply() -> any UndoStep {
///     guard let object else { return EmptyUndoStep() }
///     object.touches += 1
///     return Untouch(object: object)
///   }
/// }
/// ```
public struct EmptyUndoStep: UndoStep, Hashable, Sendable {
  /// Creates the empty step.
  ///
  /// ```swift
  /// return EmptyUndoStep()
  /// ```
  public init() {}

  /// Does nothing and returns another empty step.
  ///
  /// ```swift
  /// var step = EmptyUndoStep()
  /// _ = step.apply()  // no effect
  /// ```
  ///
  /// - Returns: An ``EmptyUndoStep``.
  public mutating func apply() -> any UndoStep { self }

  /// Zero: the empty step retains nothing.
  ///
  /// ```swift
  /// EmptyUndoStep().byteSize  // 0
  /// ```
  public var byteSize: Int { 0 }
}

extension UndoStep {
  /// Whether the step is an ``EmptyUndoStep``; a comparison of type identities, no cast.
  var isEmptyUndoStep: Bool {
    ObjectIdentifier(Self.self) == ObjectIdentifier(EmptyUndoStep.self)
  }
}
