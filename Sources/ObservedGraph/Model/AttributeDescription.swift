/// The description of one attribute of an entity: its name, type, default value and flags.
///
/// ```swift
/// let title = AttributeDescription(name: "title", type: .string, defaultValue: "")
/// let note = AttributeDescription(name: "note", type: .string, isOptional: true)
/// let scratch = AttributeDescription(name: "scratch", type: .int, defaultValue: 0, isTransient: true)
/// let price = AttributeDescription(
///   name: "price", type: .double, defaultValue: 0.0, rules: AttributeRules(minimum: 0),
///   isIndexed: true)
/// ```
public struct AttributeDescription: Sendable {
  /// The key of the attribute, unique within its entity and the entity's ancestors.
  public var name: String
  /// The type of the values the attribute stores.
  public var type: AttributeType
  /// The value a newly inserted object starts with; nil means no value (only valid when optional).
  public var defaultValue: (any Sendable)?
  /// Whether nil is a valid value. Setting nil on a non-optional attribute throws.
  public var isOptional: Bool
  /// Whether the attribute is not persisted by stores (it is still observed and undoable).
  public var isTransient: Bool
  /// Rules the value must follow when its object is saved.
  public var rules: AttributeRules
  /// Whether stores index the attribute, for fetches that compare or sort by it (an SQLite index
  /// on its column).
  public var isIndexed: Bool
  /// The attribute's name in the model version before this one, when it was renamed (SwiftData's
  /// `originalName`, Core Data's `renamingIdentifier`): a migration from that version keeps its
  /// values under the new name. Nil when the name did not change. Not part of the
  /// ``ObjectModel/versionHash``.
  public var originalName: String?

  /// Creates an attribute description.
  ///
  /// - Parameters:
  ///   - name: The attribute's key.
  ///   - type: The attribute's value type.
  ///   - defaultValue: The starting value of new objects; must be of `type`. The model checks it
  ///     when built.
  ///   - isOptional: Whether nil is allowed. Defaults to true when there is no default value.
  ///   - isTransient: Whether stores skip the attribute.
  ///   - rules: Rules the value must follow when its object is saved.
  ///   - isIndexed: Whether stores index the attribute.
  ///   - originalName: The attribute's name in the previous model version, when it was renamed.
  public init(
    name: String, type: AttributeType, defaultValue: (any Sendable)? = nil,
    isOptional: Bool? = nil, isTransient: Bool = false, rules: AttributeRules = AttributeRules(),
    isIndexed: Bool = false, originalName: String? = nil
  ) {
    self.name = name
    self.type = type
    self.defaultValue = defaultValue
    self.isOptional = isOptional ?? (defaultValue == nil)
    self.isTransient = isTransient
    self.rules = rules
    self.isIndexed = isIndexed
    self.originalName = originalName
  }
}
