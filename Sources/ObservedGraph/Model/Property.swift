/// One resolved property of an entity: the slot it occupies in an object's storage, and for a
/// relationship its destination and inverse. Sub-entities share their parent's `Property` objects,
/// so a slot index means the same thing for every object whose entity inherits it.
final class Property: @unchecked Sendable {
  // @unchecked Sendable: `destination` and `inverse` are written only while `ObjectModel.init`
  // resolves the model, before the model is visible to anyone; afterwards the object is immutable.
  let slot: Int
  let name: String
  let attribute: AttributeDescription?
  let relationship: RelationshipDescription?
  unowned(unsafe) var owner: EntityDescription
  unowned(unsafe) var destination: EntityDescription?
  unowned(unsafe) var inverse: Property?
  let isToMany: Bool
  let isOrdered: Bool
  /// The default as held in storage, converted once when the model is built.
  var heldDefault: Any?
  /// An attribute's rules, checked and compiled when the model is built; nil when it has none.
  var rules: CheckedRules?
  /// The attribute type's equality, kept here so the hot path does not copy the description.
  let attributeEqual: (@Sendable (Any, Any) -> Bool)?
  /// The attribute type itself, kept here so that key-value coding does not copy the description.
  let attributeType: AttributeType?
  /// The attribute type's conversion from stored form, kept apart so that loading a value copies
  /// one closure, not the whole type.
  let attributeFromStored: (@Sendable (StoredValue) -> (any Sendable)?)?
  /// Whether an attribute accepts nil.
  let isOptionalAttribute: Bool
  /// For a saved (not transient) attribute of a type that has a NaN — `Double`, `Float`,
  /// `Decimal`, `Date` — the test of a held value (see `ManagedObject.unstorableValues(_:)`).
  let nanTest: (@Sendable (Any) -> Bool)?
  /// The attribute type's exact-type test, kept apart so key-value coding's common case copies one
  /// closure, not the whole type.
  let attributeAccepts: (@Sendable (Any) -> Bool)?

  init(slot: Int, attribute: AttributeDescription, owner: EntityDescription) {
    self.slot = slot
    self.name = attribute.name
    self.attribute = attribute
    self.attributeEqual = attribute.type.equal
    self.attributeType = attribute.type
    self.attributeFromStored = attribute.type.fromStored
    self.isOptionalAttribute = attribute.isOptional
    self.nanTest = attribute.isTransient ? nil : attribute.type.kind.nanTest
    self.attributeAccepts = attribute.type.accepts
    self.relationship = nil
    self.deleteRule = .nullify
    self.owner = owner
    self.isToMany = false
    self.isOrdered = false
  }

  init(slot: Int, relationship: RelationshipDescription, owner: EntityDescription) {
    self.slot = slot
    self.name = relationship.name
    self.attribute = nil
    self.attributeEqual = nil
    self.attributeType = nil
    self.attributeFromStored = nil
    self.isOptionalAttribute = false
    self.nanTest = nil
    self.attributeAccepts = nil
    self.relationship = relationship
    self.deleteRule = relationship.deleteRule
    self.owner = owner
    self.isToMany = relationship.isToMany
    self.isOrdered = relationship.isOrdered
  }

  var isRelationship: Bool { relationship != nil }

  /// Whether storing `new` in this slot (an attribute or a to-one relationship) over `old` is a
  /// change: attributes compare by value, to-one relationships by identity.
  func differs(_ old: Any?, _ new: Any?) -> Bool {
    switch (old, new) {
    case (nil, nil): return false
    case (let old?, let new?):
      if let equal = attributeEqual { return !equal(old, new) }
      return (old as AnyObject) !== (new as AnyObject)
    default: return true
    }
  }
  var isToOne: Bool { relationship != nil && !isToMany }

  // MARK: The value contract

  /// An attribute's held value in stored form. The value was checked on the way in, so failing to
  /// convert it (a `Codable` value whose encoding throws) stops the program with a message.
  func storedValue(of held: Any?) -> StoredValue? {
    guard let held, let type = attributeType else { return nil }
    do {
      return try type.toStored(held)
    } catch {
      preconditionFailure(
        "ObservedGraph: the value of \(qualifiedName) cannot be stored: encoding "
          + "\(ObjectGraphError.describe(held)) failed: \(error)")
    }
  }

  /// An attribute's held value for a stored one: `.some(nil)` for nil, nil when the stored value
  /// is not one of the attribute's type (an archive of another model).
  func heldValue(of stored: StoredValue?) -> Any?? {
    guard let stored else { return .some(nil) }
    guard let fromStored = attributeFromStored, let held = fromStored(stored) else { return nil }
    return .some(held)
  }

  /// What a non-optional attribute holds when a store gives nil for it: NaN for a `Double` or a
  /// `Float` (SQLite keeps NaN as NULL), the default for any other type.
  var heldValueForNull: Any? {
    switch attributeType?.kind {
    case .double?: Double.nan
    case .float?: Float.nan
    default: heldDefault
    }
  }

  /// A held value (an attribute's value, an object, or a list of objects) as a value.
  func snapshot(of held: Any?) -> SnapshotValue {
    if isToMany {
      let objects =
        (held as? [ManagedObject]) ?? (held as? ObjectCollection)?.items ?? []
      return .toMany(objects.map(\.objectID))
    }
    if isRelationship {
      return .toOne(held.map { heldReference($0, as: ManagedObject.self).objectID })
    }
    return .attribute(storedValue(of: held))
  }
  /// The relationship's delete rule (`nullify` for an attribute), kept apart from the description
  /// so reading it copies nothing.
  let deleteRule: DeleteRule

  /// Whether a quiet delete may empty the relationship (see `ObjectContext.deleteQuietly`): it
  /// has an inverse and a rule other than `noAction`, and it is a to-one whose inverse is an
  /// unordered to-many or the reverse.
  var deletesQuietly: Bool {
    guard let inverse, deleteRule != .noAction else { return false }
    return isToMany ? !isOrdered && inverse.isToOne : inverse.isToMany && !inverse.isOrdered
  }
  var qualifiedName: String { "\(owner.name).\(name)" }
}
