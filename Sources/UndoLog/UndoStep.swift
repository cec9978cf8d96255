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
/// The log applies a step through ``apply(in:)``, whose default calls ``apply()``: a step that
/// holds the objects it acts on implements ``apply()``. A step that holds no object reference,
/// only values such as identifiers, implements ``apply(in:)`` instead and finds what it acts on
/// through the log's participants (``UndoLog/participants(of:)``) when it runs; such a step can be
/// archived with its history (``ArchivableUndoStep``).
///
/// Every requirement has a default implementation, but a step must implement ``apply()`` or
/// ``apply(in:)``: the default ``apply()`` traps.
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

  /// Applies the step through the log that undoes or redoes it, and returns its inverse.
  ///
  /// The log calls this method, never ``apply()`` directly. The default implementation calls
  /// ``apply()``, so a step that holds what it acts on needs nothing more. A value step that holds
  /// no object reference (an identifier, a key path, a value) implements this method and finds the
  /// object it acts on among the log's participants, registered with
  /// ``UndoLog/addParticipant(_:)``. Such a step keeps nothing alive and can be archived.
  ///
  /// ```swift
  /// final class Scoreboard { var scores: [String: Int] = [:] }
  ///
  /// struct SetScore: UndoStep {
  ///   let player: String
  ///   let score: Int
  ///   mutating func apply(in log: UndoLog) -> any UndoStep {
  ///     guard let board = log.participants(of: Scoreboard.self).first else {
  ///       return EmptyUndoStep()  // nothing left to act on
  ///     }
  ///     let old = board.scores[player, default: 0]
  ///     board.scores[player] = score
  ///     return SetScore(player: player, score: old)
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter log: The log undoing or redoing the step.
  /// - Returns: The inverse step, or ``EmptyUndoStep`` when there is nothing to record.
  mutating func apply(in log: UndoLog) -> any UndoStep

  /// The object the step acts on, used by the default ``acts(on:)``.
  ///
  /// The default is `nil`: the step is never removed by target.
  ///
  /// ```swift
  /// var target: AnyObject? { counter }
  /// ```
  var target: AnyObject? { get }

  /// Whether the step acts on an object, used by ``UndoLog/removeAllActions(withTarget:)``.
  ///
  /// The default compares ``target`` with `target` by identity, and is `false` when ``target`` is
  /// `nil`. A value step that names what it acts on by value, an identifier for instance, holds no
  /// object to return from ``target``; it implements this method to answer for an object it does
  /// not hold.
  ///
  /// ```swift
  /// struct SetScore: UndoStep {
  ///   let board: String  // the scoreboard's id
  ///   // …
  ///   func acts(on target: AnyObject) -> Bool {
  ///     (target as? Scoreboard)?.id == board
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter target: An object whose steps are being removed.
  /// - Returns: `true` when the step acts on `target` and should be removed with it.
  func acts(on target: AnyObject) -> Bool

  /// Takes out of the step what it does to `target`, for
  /// ``UndoLog/removeAllActions(withTarget:)``, and says whether anything is left.
  ///
  /// The default asks ``acts(on:)``: a step that acts on `target` goes whole. A step that holds
  /// the changes of many objects side by side (see ``UndoLog/registerGrowable(_:)``) removes only
  /// the changes of `target` and keeps the others. A step may share its storage with copies of
  /// itself (in a captured ``UndoLog/History``, for instance): it changes a copy of that storage,
  /// never the storage itself. Its ``byteSize`` may shrink; the log counts it again.
  ///
  /// ```swift
  /// mutating func removeActions(on target: AnyObject) -> Bool {
  ///   changes.removeAll { $0.object === target }
  ///   return changes.isEmpty
  /// }
  /// ```
  ///
  /// - Parameter target: An object whose steps are being removed.
  /// - Returns: `true` when the log should drop the step: nothing is left of it.
  mutating func removeActions(on target: AnyObject) -> Bool

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
  /// add the bytes those hold. It should not change while the step is recorded: the log caches
  /// the sums. The log counts it clamped to `0...(1 << 32)` (4 GiB; `0...Int.max` on 32-bit
  /// platforms), so a negative or absurd size never makes its sums overflow.
  ///
  /// ```swift
  /// var byteSize: Int { MemoryLayout<Self>.size + text.utf8.count }
  /// ```
  var byteSize: Int { get }
}

extension UndoStep {
  /// The size the log counts for the step: ``byteSize`` clamped to
  /// `0...UndoLog.maximumStepByteSize`.
  var countedByteSize: Int {
    min(max(byteSize, 0), UndoLog.maximumStepByteSize)
  }
}

extension UndoLog {
  /// The most bytes the log counts for one step: 4 GiB, or `Int.max` where `Int` is 32 bits.
  ///
  /// Sums of this many steps cannot overflow before memory runs out on a 64-bit platform.
  static let maximumStepByteSize = Int(clamping: UInt64(1) << 32)
}

extension UndoStep {
  /// The default application: calls ``apply()``.
  ///
  /// ```swift
  /// var step = Add(counter: counter, delta: 1)
  /// _ = step.apply(in: log)  // the same as step.apply()
  /// ```
  ///
  /// - Parameter log: The log undoing or redoing the step; unused.
  /// - Returns: What ``apply()`` returns.
  public mutating func apply(in log: UndoLog) -> any UndoStep {
    apply()
  }

  /// The default ``apply()`` for a step that implements ``apply(in:)`` only; it traps.
  ///
  /// A step that finds what it acts on through the log cannot apply without one. The log never
  /// calls this method; call ``apply(in:)`` instead. A step that implements neither method traps
  /// here when it is first undone.
  ///
  /// ```swift
  /// var step = SetScore(player: "ada", score: 3)
  /// _ = step.apply(in: log)  // not step.apply()
  /// ```
  ///
  /// - Returns: Never returns.
  public mutating func apply() -> any UndoStep {
    preconditionFailure(
      "\(String(reflecting: Self.self)) implements neither apply() nor apply(in:) of UndoStep; "
        + "a step that implements apply(in:) only must be applied through its log")
  }

  /// The default target: `nil`, so the step is never removed by target.
  ///
  /// ```swift
  /// struct Note: UndoStep { mutating func apply() -> any UndoStep { EmptyUndoStep() } }
  /// // Note().target == nil
  /// ```
  public var target: AnyObject? { nil }

  /// The default test: whether ``target`` is `target`, compared by identity; `false` when
  /// ``target`` is `nil`.
  ///
  /// ```swift
  /// Add(counter: counter, delta: 1).acts(on: counter)  // true when its target is counter
  /// ```
  ///
  /// - Parameter target: An object whose steps are being removed.
  /// - Returns: Whether ``target`` is `target`.
  public func acts(on target: AnyObject) -> Bool {
    self.target === target
  }

  /// The default removal: the whole step goes when it ``acts(on:)`` `target`.
  ///
  /// ```swift
  /// var step = Add(counter: counter, delta: 1)
  /// step.removeActions(on: counter)  // true: drop it
  /// ```
  ///
  /// - Parameter target: An object whose steps are being removed.
  /// - Returns: ``acts(on:)``.
  public mutating func removeActions(on target: AnyObject) -> Bool {
    acts(on: target)
  }

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
