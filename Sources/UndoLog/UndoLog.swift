/// An undo and redo log that records changes as values and groups them the way a user thinks.
///
/// `UndoLog` follows `UndoManager`'s rules (groups, nesting, grouping by event, levels, action
/// names, the undo/redo events) on every platform Swift runs on, and records ``UndoStep`` values
/// instead of closures: undo applies a step and records the inverse it returns for redo. On top it
/// bounds history by bytes, merges typing into one group (coalescing), keeps metadata per group,
/// and undoes back to a ``Checkpoint``.
///
/// The log is a class used from one isolation domain; it holds no locks and is not `Sendable`.
///
/// ```swift
/// final class Counter { var value = 0 }
/// struct Add: UndoStep {
///   let counter: Counter
///   let delta: Int
///   mutating func apply() -> any UndoStep {
///     counter.value += delta
///     return Add(counter: counter, delta: -delta)
///   }
/// }
///
/// let log = UndoLog()
/// let counter = Counter()
/// counter.value = 3
/// log.register(Add(counter: counter, delta: -3))  // opens the implicit event group
/// log.setActionName("Add Three")
/// log.markEventBoundary()                          // the event ends: one undo group
/// log.undoActionName                               // "Add Three"
/// try log.undo()                                   // counter.value == 0
/// try log.redo()                                   // counter.value == 3
/// ```
///
/// ## Grouping
///
/// Every registration joins the innermost open group. With ``groupsByEvent`` on (the default), a
/// registration with no group open opens an implicit *event group* that
/// ``markEventBoundary()`` closes, so one user event becomes one undo group. ``beginGroup()`` and
/// ``endGroup()`` nest explicit groups; a nested group folds into its parent when it ends, and a
/// group that ends with no step is discarded.
public final class UndoLog {
  // MARK: Open groups

  /// The innermost open group; empty and unused while ``groupingLevel`` is 0.
  ///
  /// Its accesses, and those of the flags read by every registration, skip the dynamic exclusivity
  /// checks: the log is used from one isolation domain and never lends them out across a call that
  /// could reach the log again.
  @exclusivity(unchecked) var current = UndoGroup()
  /// The open groups around ``current``, outermost first.
  var enclosing: [UndoGroup] = []
  /// Who opened the outermost open group, which decides who may close it.
  var outermostOrigin = GroupOrigin.explicit
  /// The errors undo and redo throw while refused, innermost refusal last (see
  /// ``beginRefusingUndo(throwing:)``).
  var refusals: [any Error] = []

  /// The number of open groups, counting the implicit event group.
  ///
  /// Zero when no group is open, and zero inside the ``Event/willUndo``, ``Event/didUndo``,
  /// ``Event/willRedo`` and ``Event/didRedo`` events. While the steps of an undo or redo run, it
  /// reads 1: their inverses are gathered in a group of their own.
  ///
  /// ```swift
  /// log.beginGroup()
  /// log.groupingLevel  // 2: the implicit event group, then the explicit one
  /// ```
  @exclusivity(unchecked) public internal(set) var groupingLevel = 0

  // MARK: Stacks

  var undoStack = GroupStack()
  var redoStack = GroupStack()
  /// The redo groups a registration cleared while groups were open, with the level of the open
  /// group that registration joined: ``discardGroup()`` of that group puts them back. Dropped when
  /// the outermost group closes.
  var clearedRedo: (level: Int, stack: GroupStack)?
  /// The id of the state below the oldest undo group: where undoing everything leads.
  var baseStateID: UInt64 = 0
  var nextGroupID: UInt64 = 1
  /// Tells checkpoints of this log from those of another.
  let logID = UInt64.random(in: 1...UInt64.max)

  // MARK: Flags and settings

  @exclusivity(unchecked) var disableCount = 0 {
    didSet { endGrowth() }
  }

  /// Counts the changes of the log's open groups and stacks: a ``StepMark`` is current while it
  /// holds the count of now (see ``registerGrowable(_:)``).
  @exclusivity(unchecked) var registrationSerial: UInt64 = 0

  /// Whether the log is applying the steps of an undo right now.
  ///
  /// Registrations made while it is `true` form the group pushed on the redo stack.
  ///
  /// ```swift
  /// if log.isUndoing { /* a change caused by undo, not by the user */ }
  /// ```
  @exclusivity(unchecked) public internal(set) var isUndoing = false

  /// Whether the log is applying the steps of a redo right now.
  ///
  /// Registrations made while it is `true` go on the undo stack and leave the redo stack alone.
  ///
  /// ```swift
  /// if log.isRedoing { /* a change caused by redo, not by the user */ }
  /// ```
  @exclusivity(unchecked) public internal(set) var isRedoing = false

  /// Set by `removeAllActions()` while an undo or redo runs: what it gathers is thrown away.
  var discardGathered = false

  /// Whether a registration with no group open opens an implicit event group.
  ///
  /// `true` by default: the first registration of a user event opens a group that
  /// ``markEventBoundary()`` closes, so everything one event changes undoes together. When
  /// `false`, a registration with no group open forms a group of its own, closed at once
  /// (`UndoManager` raises an exception instead).
  ///
  /// ```swift
  /// log.groupsByEvent = false
  /// log.register(step)  // a closed one-step group
  /// ```
  public var groupsByEvent = true

  /// The most groups each stack keeps; 0, the default, means no limit.
  ///
  /// When a stack grows past the limit its oldest groups are dropped, whole. Lowering the limit
  /// trims at once. A negative value is treated as 0.
  ///
  /// ```swift
  /// log.levelsOfUndo = 100
  /// ```
  ///
  /// - Complexity: Setting it is O(*k*), *k* the number of groups dropped.
  public var levelsOfUndo = 0 {
    didSet {
      if levelsOfUndo < 0 { levelsOfUndo = 0 }
      trim()
      _checkInvariantsAfterBulkChange()
    }
  }

  /// The most bytes the log retains, as measured by ``byteSize``; 0, the default, means no limit.
  ///
  /// When the log holds more, it drops whole groups, the oldest undo groups first, then the oldest
  /// (farthest) redo groups. It never drops half a group, an open group, or the newest group of
  /// either stack, so the next undo and the next redo always stay possible: ``byteSize`` can exceed
  /// the limit by those groups alone.
  ///
  /// ```swift
  /// log.byteLimit = 64 << 20  // 64 MiB of history
  /// ```
  ///
  /// - Complexity: Setting it is O(*k*), *k* the number of groups dropped.
  public var byteLimit = 0 {
    didSet {
      if byteLimit < 0 { byteLimit = 0 }
      trim()
      _checkInvariantsAfterBulkChange()
    }
  }

  /// How close in time consecutive registrations with the same coalescing key must be to merge;
  /// `nil`, the default, turns coalescing off.
  ///
  /// With a window set, a registration whose ``UndoStep/coalescingKey`` is not `nil` and equals the
  /// key of the registration just before it, made no longer than the window after it (as measured
  /// by ``now``), is dropped: the older step, which holds the oldest value, is kept, so typing a
  /// word undoes as one group. Each merged registration restarts the window. Undo, redo,
  /// ``closeCoalescing()``, ``checkpoint()``, a registration with another key and the removal of
  /// actions all end a run of merging. A group left empty by merging is discarded.
  ///
  /// ```swift
  /// log.coalescingWindow = .seconds(1)
  /// ```
  public var coalescingWindow: Duration? {
    didSet {
      lastCoalescing = nil
      endGrowth()
    }
  }

  /// The clock the coalescing window is measured by; `ContinuousClock.now` by default.
  ///
  /// Replace it in tests to control time.
  ///
  /// ```swift
  /// var time = ContinuousClock.now
  /// log.now = { time }
  /// time += .seconds(5)  // the next registration starts a new run
  /// ```
  public var now: () -> ContinuousClock.Instant = { ContinuousClock.now }

  /// The key and time of the last registration that may be merged with, if any.
  var lastCoalescing: (key: UndoCoalescingKey, time: ContinuousClock.Instant)?

  #if OBSERVEDGRAPH_INVARIANTS
    /// Mutations left before `_checkInvariantsAfterMutation()` runs the full scan again.
    var mutationsUntilFullCheck = 0
  #endif

  // MARK: Participants

  /// The objects steps act through, held weakly, in the order added.
  var participantEntries: [WeakParticipant] = []

  // MARK: Subscribers

  var handlers: [(id: UInt64, handler: (Event) -> Void)] = []
  var continuations: [(id: UInt64, continuation: AsyncStream<Event>.Continuation)] = []
  var nextSubscriberID: UInt64 = 1
  /// What event subscriptions reach the log through; cleared when the log ends.
  let anchor = Anchor()

  // MARK: Life cycle

  /// Creates an empty log: grouping by event, no limits, registration enabled, no group open.
  ///
  /// ```swift
  /// let log = UndoLog()
  /// log.canUndo  // false
  /// ```
  public init() {
    anchor.log = self
  }

  deinit {
    anchor.log = nil
    for entry in continuations {
      entry.continuation.finish()
    }
  }
}

/// Who opened the outermost open group.
enum GroupOrigin {
  /// `beginGroup()`; `endGroup()` may close it.
  case explicit
  /// The first registration of an event; `markEventBoundary()` closes it.
  case event
  /// An undo or redo, to gather the inverses of its steps; the log closes it.
  case gathering
}
