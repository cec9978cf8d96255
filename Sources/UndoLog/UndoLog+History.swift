extension UndoLog {
  /// The closed groups of an undo log, as values that can be encoded, decoded and restored into a
  /// new log.
  ///
  /// ``UndoLog/history()`` captures it; ``UndoLog/restore(_:)`` puts it back, in the same log or
  /// another. In between, it encodes with any `Codable` coder, into readable JSON for instance:
  ///
  /// ```json
  /// {
  ///   "redoGroups" : [ ],
  ///   "undoGroups" : [
  ///     {
  ///       "actionName" : "Score",
  ///       "metadata" : {
  ///         "turn" : { "type" : "Swift.Int", "value" : 3 }
  ///       },
  ///       "steps" : [
  ///         { "step" : { "player" : "ada", "score" : 0 }, "type" : "Scores.SetScore" }
  ///       ]
  ///     }
  ///   ],
  ///   "version" : 1
  /// }
  /// ```
  ///
  /// Each step is written as its type's ``ArchivableUndoStep/archiveName`` and its own encoding;
  /// each metadata value as its type's name (`String(reflecting:)`) and its encoding. Decoding
  /// finds the types by those names in the decoder's `userInfo`: the step types under
  /// ``stepTypesKey``, the metadata types under ``metadataTypesKey``.
  ///
  /// ```swift
  /// let data = try JSONEncoder().encode(log.history())
  ///
  /// let decoder = JSONDecoder()
  /// decoder.userInfo[UndoLog.History.stepTypesKey] = [SetScore.self]
  /// decoder.userInfo[UndoLog.History.metadataTypesKey] =
  ///   [Int.self] as [any (Decodable & Sendable).Type]
  /// try newLog.restore(decoder.decode(UndoLog.History.self, from: data))
  /// ```
  public struct History {
    /// The groups ``UndoLog/undo()`` would undo, oldest first: the last is undone first.
    ///
    /// Remove groups from the front to save less history.
    ///
    /// ```swift
    /// history.undoGroups.last?.actionName  // what "Undo" would undo
    /// ```
    public var undoGroups: [Group]

    /// The groups ``UndoLog/redo()`` would redo, farthest first: the last is redone first.
    ///
    /// ```swift
    /// history.redoGroups.last?.actionName  // what "Redo" would redo
    /// ```
    public var redoGroups: [Group]

    /// What the history applies to, as its owner describes it: names and values the owner
    /// writes before archiving and checks before restoring (an object graph's context writes its
    /// model's version hash, and refuses a history of another model). The log never reads them;
    /// ``UndoLog/history()`` returns none, and ``UndoLog/restore(_:)`` ignores them. Encoded
    /// only when there are some.
    ///
    /// ```swift
    /// var history = try log.history()
    /// history.labels["document"] = "v3"
    /// ```
    public var labels: [String: String] = [:]

    /// The `userInfo` key under which a decoder finds the step types a history may hold, as an
    /// `[any ArchivableUndoStep.Type]`.
    ///
    /// A step whose ``ArchivableUndoStep/archiveName`` matches none of them fails to decode with
    /// `DecodingError.dataCorrupted`.
    ///
    /// ```swift
    /// decoder.userInfo[UndoLog.History.stepTypesKey] =
    ///   [SetScore.self, MoveShape.self] as [any ArchivableUndoStep.Type]
    /// ```
    public static let stepTypesKey = CodingUserInfoKey(rawValue: "UndoLog.History.stepTypes")!

    /// The `userInfo` key under which a decoder finds the types of the metadata values a history
    /// may hold, as an `[any (Decodable & Sendable).Type]`, named by `String(reflecting:)`.
    ///
    /// A metadata value whose type name matches none of them fails to decode with
    /// `DecodingError.dataCorrupted`.
    ///
    /// ```swift
    /// decoder.userInfo[UndoLog.History.metadataTypesKey] =
    ///   [Selection.self, String.self] as [any (Decodable & Sendable).Type]
    /// ```
    public static let metadataTypesKey = CodingUserInfoKey(
      rawValue: "UndoLog.History.metadataTypes")!
  }
}

extension UndoLog.History {
  /// One closed undo group of a history: its action name, its metadata and its steps.
  ///
  /// ```swift
  /// for group in history.undoGroups {
  ///   print(group.actionName, group.steps.count)
  /// }
  /// ```
  public struct Group {
    /// The name of the action, as ``UndoLog/setActionName(_:)`` set it; `""` when unnamed.
    ///
    /// ```swift
    /// group.actionName  // "Typing"
    /// ```
    public internal(set) var actionName: String

    /// The values ``UndoLog/setMetadata(_:forKey:)`` attached to the group.
    ///
    /// ```swift
    /// group.metadata["selection"] as? Selection
    /// ```
    public internal(set) var metadata: [String: any Sendable]

    /// The steps of the group in registration order; undo applies them last first.
    ///
    /// Never empty.
    ///
    /// ```swift
    /// group.steps.compactMap { $0 as? SetScore }
    /// ```
    public internal(set) var steps: [any ArchivableUndoStep]
  }
}
