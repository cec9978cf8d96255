#if compiler(>=6.2)
  /// An undo step that can be saved with its history and read back into a new log.
  ///
  /// ``UndoLog/history()`` captures the groups of a log as an ``UndoLog/History``, which encodes to
  /// JSON or any other format with a `Codable` coder. Every step in it must be archivable: a value
  /// that encodes itself, holds no object reference, and finds what it acts on through the log
  /// when applied (``UndoStep/apply(in:)`` and ``UndoLog/participants(of:)``). The archive writes
  /// the step's ``archiveName`` beside its encoding; decoding looks the name up among the types
  /// listed in the decoder's `userInfo` under ``UndoLog/History/stepTypesKey``.
  ///
  /// The inverse a step returns should be archivable too, or the history stops being archivable
  /// after the first undo.
  ///
  /// The protocol refines `SendableMetatype`: step types are handed to decoders in `userInfo`,
  /// which holds `Sendable` values, so the conformance cannot be isolated to an actor.
  ///
  /// ```swift
  /// struct SetScore: ArchivableUndoStep {
  ///   let player: String
  ///   let score: Int
  ///   mutating func apply(in log: UndoLog) -> any UndoStep {
  ///     guard let board = log.participants(of: Scoreboard.self).first else {
  ///       return EmptyUndoStep()
  ///     }
  ///     let old = board.scores[player, default: 0]
  ///     board.scores[player] = score
  ///     return SetScore(player: player, score: old)
  ///   }
  /// }
  ///
  /// let decoder = JSONDecoder()
  /// decoder.userInfo[UndoLog.History.stepTypesKey] = [SetScore.self]
  /// ```
  public protocol ArchivableUndoStep: UndoStep, Codable, SendableMetatype {
    /// The name the archive writes beside each step of this type, to find the type when decoding.
    ///
    /// The default is `String(reflecting: Self.self)`, the module-qualified type name, such as
    /// `"Scores.SetScore"`. Give a stable name of your own to be free to rename or move the type
    /// without losing saved histories. Names must differ between the types a decoder is given.
    ///
    /// ```swift
    /// static var archiveName: String { "setScore" }
    /// ```
    static var archiveName: String { get }
  }
#else
  /// An undo step that can be saved with its history and read back into a new log.
  ///
  /// Compilers before Swift 6.2 have no `SendableMetatype`; every metatype is sendable there.
  public protocol ArchivableUndoStep: UndoStep, Codable {
    static var archiveName: String { get }
  }
#endif

extension ArchivableUndoStep {
  /// The default archive name: `String(reflecting: Self.self)`, the module-qualified type name.
  ///
  /// ```swift
  /// SetScore.archiveName  // "Scores.SetScore"
  /// ```
  public static var archiveName: String { String(reflecting: Self.self) }
}
