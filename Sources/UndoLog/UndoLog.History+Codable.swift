extension UndoLog.History: Codable {
  /// The version of the encoded form this log writes and reads.
  static let archiveVersion = 1

  enum CodingKeys: String, CodingKey {
    case version
    case undoGroups
    case redoGroups
    case labels
  }

  enum GroupKeys: String, CodingKey {
    case actionName
    case metadata
    case steps
  }

  enum StepKeys: String, CodingKey {
    case type
    case step
  }

  enum MetadataKeys: String, CodingKey {
    case type
    case value
  }

  /// A metadata key, which any string can be.
  struct MetadataKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
      self.stringValue = stringValue
    }

    init?(intValue: Int) {
      nil
    }
  }

  /// Decodes a history, finding step and metadata types in the decoder's `userInfo`.
  ///
  /// List every step type the archive may hold under ``stepTypesKey`` and every metadata type
  /// under ``metadataTypesKey``.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.userInfo[UndoLog.History.stepTypesKey] = [SetScore.self]
  /// let history = try decoder.decode(UndoLog.History.self, from: data)
  /// ```
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError.dataCorrupted` for a step or metadata type name not listed in the
  ///   `userInfo` key (the message names the type name and the key), for a group with no step,
  ///   for a `userInfo` value that is not a list of types, and for an archive of a newer version;
  ///   any error the decoder or a step's own decoding throws.
  /// - Complexity: O(*n* + *t*), *n* the steps and metadata values, *t* the types listed.
  public init(from decoder: any Decoder) throws {
    let types = try ArchiveTypes(userInfo: decoder.userInfo, codingPath: decoder.codingPath)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decodeIfPresent(Int.self, forKey: .version) ?? Self.archiveVersion
    guard version == Self.archiveVersion else {
      throw DecodingError.dataCorruptedError(
        forKey: .version, in: container,
        debugDescription:
          "undo history archive version \(version); this UndoLog reads version "
          + "\(Self.archiveVersion)")
    }
    undoGroups = try Self.decodeGroups(in: container, forKey: .undoGroups, types: types)
    redoGroups = try Self.decodeGroups(in: container, forKey: .redoGroups, types: types)
    labels = try container.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
  }

  /// Encodes the history: each step beside its type's archive name, each metadata value beside
  /// its type's name.
  ///
  /// ```swift
  /// let encoder = JSONEncoder()
  /// encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  /// let data = try encoder.encode(log.history())
  /// ```
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: `EncodingError.invalidValue` for a metadata value that is not `Encodable` (a
  ///   history made by ``UndoLog/history()`` has none); any error a step's encoding throws.
  /// - Complexity: O(*n*), *n* the steps and metadata values.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Self.archiveVersion, forKey: .version)
    try Self.encodeGroups(undoGroups, in: &container, forKey: .undoGroups)
    try Self.encodeGroups(redoGroups, in: &container, forKey: .redoGroups)
    if !labels.isEmpty { try container.encode(labels, forKey: .labels) }
  }

  // MARK: Encoding

  private static func encodeGroups(
    _ groups: [Group], in container: inout KeyedEncodingContainer<CodingKeys>,
    forKey key: CodingKeys
  ) throws {
    var list = container.nestedUnkeyedContainer(forKey: key)
    for group in groups {
      var fields = list.nestedContainer(keyedBy: GroupKeys.self)
      try fields.encode(group.actionName, forKey: .actionName)
      var metadata = fields.nestedContainer(keyedBy: MetadataKey.self, forKey: .metadata)
      for (name, value) in group.metadata.sorted(by: { $0.key < $1.key }) {
        let typeName = String(reflecting: type(of: value))
        guard let encodable = value as? any Encodable else {
          throw EncodingError.invalidValue(
            value,
            EncodingError.Context(
              codingPath: metadata.codingPath + [MetadataKey(stringValue: name)],
              debugDescription: "metadata \"\(name)\" is a \(typeName), which is not Encodable"))
        }
        var entry = metadata.nestedContainer(
          keyedBy: MetadataKeys.self, forKey: MetadataKey(stringValue: name))
        try entry.encode(typeName, forKey: .type)
        try entry.encode(encodable, forKey: .value)
      }
      var steps = fields.nestedUnkeyedContainer(forKey: .steps)
      for step in group.steps {
        var entry = steps.nestedContainer(keyedBy: StepKeys.self)
        try entry.encode(type(of: step).archiveName, forKey: .type)
        try entry.encode(step, forKey: .step)
      }
    }
  }

  // MARK: Decoding

  private static func decodeGroups(
    in container: KeyedDecodingContainer<CodingKeys>, forKey key: CodingKeys, types: ArchiveTypes
  ) throws -> [Group] {
    var list = try container.nestedUnkeyedContainer(forKey: key)
    var groups: [Group] = []
    while !list.isAtEnd {
      let fields = try list.nestedContainer(keyedBy: GroupKeys.self)
      let actionName = try fields.decode(String.self, forKey: .actionName)

      var metadata: [String: any Sendable] = [:]
      let metadataFields = try fields.nestedContainer(keyedBy: MetadataKey.self, forKey: .metadata)
      for name in metadataFields.allKeys {
        let entry = try metadataFields.nestedContainer(keyedBy: MetadataKeys.self, forKey: name)
        let typeName = try entry.decode(String.self, forKey: .type)
        guard let valueType = types.metadata[typeName] else {
          throw DecodingError.dataCorruptedError(
            forKey: .type, in: entry,
            debugDescription:
              "unknown metadata type \"\(typeName)\" for key \"\(name.stringValue)\"; list it in "
              + "decoder.userInfo[UndoLog.History.metadataTypesKey]")
        }
        metadata[name.stringValue] = try decodeValue(valueType, from: entry)
      }

      var stepList = try fields.nestedUnkeyedContainer(forKey: .steps)
      var steps: [any ArchivableUndoStep] = []
      while !stepList.isAtEnd {
        let entry = try stepList.nestedContainer(keyedBy: StepKeys.self)
        let typeName = try entry.decode(String.self, forKey: .type)
        guard let stepType = try types.step(named: typeName, in: entry) else {
          throw DecodingError.dataCorruptedError(
            forKey: .type, in: entry,
            debugDescription:
              "unknown undo step type \"\(typeName)\"; list it in "
              + "decoder.userInfo[UndoLog.History.stepTypesKey]")
        }
        steps.append(try decodeStep(stepType, from: entry))
      }
      guard !steps.isEmpty else {
        throw DecodingError.dataCorruptedError(
          forKey: .steps, in: fields, debugDescription: "an undo group holds no step")
      }
      groups.append(Group(actionName: actionName, metadata: metadata, steps: steps))
    }
    return groups
  }

  private static func decodeValue<Value: Decodable & Sendable>(
    _ type: Value.Type, from entry: KeyedDecodingContainer<MetadataKeys>
  ) throws -> any Sendable {
    try entry.decode(Value.self, forKey: .value)
  }

  private static func decodeStep<Step: ArchivableUndoStep>(
    _ type: Step.Type, from entry: KeyedDecodingContainer<StepKeys>
  ) throws -> any ArchivableUndoStep {
    try entry.decode(Step.self, forKey: .step)
  }
}

/// The step and metadata types a decoder was given, by the names the archive writes.
private struct ArchiveTypes {
  /// Step types by archive name; `nil` marks a name two different types share.
  var steps: [String: (any ArchivableUndoStep.Type)?] = [:]
  var metadata: [String: any (Decodable & Sendable).Type] = [:]

  init(userInfo: [CodingUserInfoKey: Any], codingPath: [any CodingKey]) throws {
    if let listed = userInfo[UndoLog.History.stepTypesKey] {
      guard let stepTypes = listed as? [any ArchivableUndoStep.Type] else {
        throw Self.notAList(
          "UndoLog.History.stepTypesKey", "[any ArchivableUndoStep.Type]", listed, codingPath)
      }
      for stepType in stepTypes {
        let name = stepType.archiveName
        if let known = steps[name], let known, known != stepType {
          steps[name] = .some(nil)
        } else if steps[name] == nil {
          steps[name] = stepType
        }
      }
    }
    if let listed = userInfo[UndoLog.History.metadataTypesKey] {
      guard let metadataTypes = listed as? [any (Decodable & Sendable).Type] else {
        throw Self.notAList(
          "UndoLog.History.metadataTypesKey", "[any (Decodable & Sendable).Type]", listed,
          codingPath)
      }
      for metadataType in metadataTypes {
        metadata[String(reflecting: metadataType)] = metadataType
      }
    }
  }

  /// The step type named `name`, or `nil` when none is; throws when two types share the name.
  func step(
    named name: String, in entry: KeyedDecodingContainer<UndoLog.History.StepKeys>
  ) throws -> (any ArchivableUndoStep.Type)? {
    guard let found = steps[name] else { return nil }
    guard let found else {
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: entry,
        debugDescription:
          "two undo step types in decoder.userInfo[UndoLog.History.stepTypesKey] have the "
          + "archive name \"\(name)\"")
    }
    return found
  }

  private static func notAList(
    _ key: String, _ expected: String, _ value: Any, _ codingPath: [any CodingKey]
  ) -> DecodingError {
    DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: codingPath,
        debugDescription:
          "decoder.userInfo[\(key)] holds a \(String(reflecting: type(of: value))); "
          + "expected \(expected)"))
  }
}
