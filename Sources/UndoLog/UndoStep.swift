/// A recorded change, stored as a value, that an ``UndoLog`` can apply to undo or redo it.
///
/// A step is the unit an undo log records. Unlike `UndoManager`'s closures, a step is a plain value:
/// it can be inspected, measured (``byteSize``), matched to an object (``target``) and merged with
/// the next change to the same property (``coalescingKey``). Applying a step performs the change it
/// describes and returns the step that takes the application back, its *inverse*. The log records
/// that inverse on the opposite stack, so undo produces the redo step and redo produces the undo
/// step again, with no closure anywhere.
///
/// ```swift
/// final class Counter { var value = 0 }
///
/// struct AddStep: UndoStep {
///   let counter: Counter
///   let delta: Int
///   mutating func apply() -> any UndoStep {
///     counter.value += delta
///     return AddStep(counter: counter, delta: -delta)
///   }
/// }
///
/// let counter = Counter()
/// let log = UndoLog()
/// counter.value += 5
/// log.register(AddStep(counter: counter, delta: -5))
/// try log.undo()  // counter.value == 0, and the inverse (+5) waits on the redo stack
/// try log.redo()  // counter.value == 5
/// ```
///
/// The requirements other than ``apply()`` have default implementations.
public protocol UndoStep {
  /// Applies the step and returns its inverse, the step that takes the application back.
  ///
  /// The log calls this while undoing or redoing, running the steps of a group last-in first-out,
  /// and records the returned step on the opposite stack. A step that registers its own inverse
  /// with the log while it runs (as `UndoManager`-style handlers do), or that has nothing left to
  /// do, returns ``EmptyUndoStep``, which the log never records.
  ///
  /// ```swift
  /// mutating func apply() -> any UndoStep {
  ///   let old = box.value
  ///   box.value = value
  ///   return SetStep(box: box, value: old)
  /// }
  /// ```
  ///
  /// - Returns: The inverse step, or ``EmptyUndoStep`` when there is nothing to record.
  mutating func apply() -> any UndoStep

  /// The object the step acts on, used by ``UndoLog/removeAllActions(withTarget:)``.
  ///
  /// The default is `nil`: the step is never removed by target.
  ///
  /// ```swift
  /// var target: AnyObject? { counter }
  /// ```
  var target: AnyObject? { get }

  /// The identity used for same-key coalescing, or `nil` to never coalesce.
  ///
  /// When ``UndoLog/coalescingWindow`` is set, a registration whose key equals the key of the
  /// registration just before it, within the window, is dropped: the older step, which holds the
  /// oldest value, is kept. The default is `nil`.
  ///
  /// ```swift
  /// var coalescingKey: UndoCoalescingKey? {
  ///   UndoCoalescingKey(object: ObjectIdentifier(document), key: 0)
  /// }
  /// ```
  var coalescingKey: UndoCoalescingKey? { get }

  /// The number of bytes the step retains, used by ``UndoLog/byteLimit`` and
  /// ``UndoLog/byteSize``.
  ///
  /// The default is `MemoryLayout<Self>.size`. A step holding a buffer, a string or an array should
  /// add the bytes those hold.
  ///
  /// ```swift
  /// var byteSize: Int { MemoryLayout<Self>.size + text.utf8.count }
  /// ```
  var byteSize: Int { get }
}

extension UndoStep {
  /// The default target: `nil`, so the step is never removed by target.
  ///
  /// ```swift
  /// struct Note: UndoStep { mutating func apply() -> any UndoStep { EmptyUndoStep() } }
  /// // Note().target == nil
  /// ```
  public var target: AnyObject? { nil }

  /// The default coalescing key: `nil`, so the step never coalesces.
  ///
  /// ```swift
  /// struct Note: UndoStep { mutating func apply() -> any UndoStep { EmptyUndoStep() } }
  /// // Note().coalescingKey == nil
  /// ```
  public var coalescingKey: UndoCoalescingKey? { nil }

  /// The default size: `MemoryLayout<Self>.size`.
  ///
  /// ```swift
  /// struct Note: UndoStep { mutating func apply() -> any UndoStep { EmptyUndoStep() } }
  /// // Note().byteSize == MemoryLayout<Note>.size
  /// ```
  public var byteSize: Int { MemoryLayout<Self>.size }
}
