import Foundation

/// The description of one kind of object: its name, its attributes and relationships, its parent
/// entity and the class its objects are made of.
///
/// Build entities by hand for generic objects, or let ``ObjectModel/init(types:)`` derive them from
/// ``ManagedObject`` subclasses. An entity given to a model is copied; look up the model's own copy
/// with ``ObjectModel/entity(named:)``.
///
/// ```swift
/// let asset = EntityDescription(
///   name: "Asset",
///   attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
///   relationships: [
///     RelationshipDescription(name: "location", destination: "Location", inverse: "assets")
///   ])
/// ```
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
  // @unchecked Sendable: the resolved fields below are written only by `ObjectModel.init`, before
  // the model is returned to anyone; afterwards they are read-only.

  /// The entity's name, unique in its model.
  public let name: String
  /// The name of the entity this one inherits from, if any.
  public let parentName: String?
  /// Whether objects of exactly this entity may not be inserted (sub-entities may).
  public let isAbstract: Bool
  /// The attributes this entity declares itself (not inherited ones).
  public let attributes: [AttributeDescription]
  /// The relationships this entity declares itself (not inherited ones).
  public let relationships: [RelationshipDescription]
  /// The class objects of this entity are instances of.
  public let objectClass: ManagedObject.Type
  /// The entity's own fetched properties (a sub-entity also answers its parent's).
  public let fetchedProperties: [FetchedPropertyDescription]
  /// The entity's name in the model version before this one, when it was renamed (Core Data's
  /// `renamingIdentifier`): a migration from that version keeps its objects, with their keys,
  /// under the new name. Nil when the name did not change. Not part of the
  /// ``ObjectModel/versionHash``.
  public let originalName: String?

  /// The parent entity, once the entity belongs to a model.
  public internal(set) weak var parent: EntityDescription?
  /// The entities that inherit directly from this one, once the entity belongs to a model.
  public var subentities: [EntityDescription] { children.compactMap { $0.entity } }
  var children: [WeakEntity] = []
  /// Every property, inherited ones first; the index of a property is its storage slot.
  var properties: [Property] = []
  /// Fetched properties by name, inherited ones included.
  var fetchedByName: [String: FetchedPropertyDescription] = [:]
  /// Written only while the model is built, so its reads (every access by name) skip the dynamic
  /// exclusivity check.
  @exclusivity(unchecked) var propertiesByName: [String: Property] = [:]
  /// Indexes of the relationship properties, for delete rules and invariant checks.
  var relationshipProperties: [Property] = []
  /// The to-many relationships among them.
  var toManyProperties: [Property] = []
  /// The relationships whose delete rule is `deny`, and those whose rule is `cascade`: a delete
  /// looks at them for each object it reaches.
  var denyingRelationships: [Property] = []
  var cascadingRelationships: [Property] = []
  /// Whether every relationship may be emptied by a quiet delete (`Property.deletesQuietly`):
  /// then a delete checks only who observes the objects it reaches.
  var deletesQuietly = false
  /// The attributes of ``properties``, in order.
  var attributeProperties: [Property] = []
  /// The slots of the saved attributes whose type has a NaN (`Property.nanTest`): what a save
  /// checks of an inserted object.
  var nanCapableSlots: [Int] = []
  /// A fresh object's storage (the slots that do not live in typed fields): defaults for
  /// attributes, nil for relationships.
  /// Read by every new object and written only while the model is built: no dynamic exclusivity
  /// check.
  @exclusivity(unchecked) var initialStorage: ContiguousArray<Any?> = []
  /// Per slot: its index in an object's `ObjectStorage`, or -1 when it lives in a typed field.
  @exclusivity(unchecked) var storageIndex: ContiguousArray<Int> = []
  /// Per slot: the access to the attribute's typed field when the class declares it with
  /// ``Attribute`` (the value lives in the wrapper), nil when the slot array holds it. Read on
  /// every write and generic read of a value and written only while the model is built, so its
  /// reads skip the dynamic exclusivity check.
  @exclusivity(unchecked) @usableFromInline var fields: ContiguousArray<FieldAccess?> = []
  /// Per slot, one per member of a shared registrar (``RegistrarHandle/groupSize``, at
  /// `slot * groupSize + member`): the key path that names the slot of an object to Swift
  /// Observation's registrar (every path — typed, key-value coding, undo — names a slot with it,
  /// so that changes match reads). Read on every tracked read and set.
  @exclusivity(unchecked) @usableFromInline var observationKeyPaths:
    ContiguousArray<KeyPath<ManagedObject, Int>> = []
  /// The fields whose wrapper starts with another value than the entity's default (a model
  /// built from descriptions for a class with wrappers): a fresh object gets the default.
  @exclusivity(unchecked) var fieldDefaults: [(field: FieldAccess, value: Any?)] = []
  /// The slot of each property the class declares with a wrapper, by the wrapper's byte offset
  /// in an object (a wrapper finds its slot by where it sits); -1 at other offsets. An array, not
  /// a table: every new object's wrappers look their slots up once.
  @exclusivity(unchecked) var slotsByWrapperOffset: ContiguousArray<Int32> = []
  /// Where each wrapper keeps its slot in an object, in bytes, with the slot: a context writes
  /// them into every object it makes, so no wrapper has to look its slot up on first use.
  @exclusivity(unchecked) var wrapperSlots: [(offset: Int, slot: Int32)] = []
  /// The destination of each to-one the class declares with a wrapper, by the byte offset in an
  /// object of the wrapper's loaded key (``LoadedKeyOrCounts``): what the first read of a to-one
  /// that a load left as a key makes an object of (see ``RelationshipFields``). Read without a
  /// count on every such read.
  @exclusivity(unchecked) var loadedKeyDestinations: ContiguousArray<LoadedKeyDestination> = []
  /// Per slot: whether setters notify observers by themselves (the class's
  /// `automaticallyNotifiesObservers(forKey:)`, asked once when the model is built).
  var notifiesAutomatically: [Bool] = []
  /// The position of this entity in its model, for object identifiers.
  var index: Int = 0

  /// Creates an entity description for generic objects or a given class.
  ///
  /// - Parameters:
  ///   - name: The entity's name.
  ///   - parent: The name of the entity it inherits attributes and relationships from.
  ///   - isAbstract: Whether inserting an object of exactly this entity is refused.
  ///   - attributes: The attributes it declares.
  ///   - relationships: The relationships it declares.
  ///   - objectClass: The class its objects are made of; ``ManagedObject`` for generic objects.
  ///   - fetchedProperties: Its fetched properties.
  ///   - originalName: Its name in the previous model version, when it was renamed.
  public init(
    name: String, parent: String? = nil, isAbstract: Bool = false,
    attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
    objectClass: ManagedObject.Type = ManagedObject.self,
    fetchedProperties: [FetchedPropertyDescription] = [], originalName: String? = nil
  ) {
    self.name = name
    self.parentName = parent
    self.isAbstract = isAbstract
    self.attributes = attributes
    self.relationships = relationships
    self.objectClass = objectClass
    self.fetchedProperties = fetchedProperties
    self.originalName = originalName
  }

  /// A copy carrying the declared parts only, for a new model.
  func unresolvedCopy() -> EntityDescription {
    EntityDescription(
      name: name, parent: parentName, isAbstract: isAbstract, attributes: attributes,
      relationships: relationships, objectClass: objectClass,
      fetchedProperties: fetchedProperties, originalName: originalName)
  }

  /// The names of all properties, inherited ones first, in declaration order.
  public var propertyNames: [String] { properties.map(\.name) }

  /// All attributes, inherited ones first.
  public var allAttributes: [AttributeDescription] { properties.compactMap(\.attribute) }

  /// All relationships, inherited ones first.
  public var allRelationships: [RelationshipDescription] { properties.compactMap(\.relationship) }

  /// The destination entity of the relationship named `key`, or nil if there is none.
  ///
  /// - Parameter key: A relationship name.
  /// - Returns: The model's destination entity.
  public func destination(ofRelationship key: String) -> EntityDescription? {
    propertiesByName[key]?.destination
  }

  /// Whether this entity is `entity` or inherits from it.
  ///
  /// - Parameter entity: A possible ancestor.
  /// - Returns: true when objects of this entity may stand where `entity` is expected.
  /// - Complexity: O(depth of the inheritance chain).
  public func isKind(of entity: EntityDescription) -> Bool {
    var current: EntityDescription? = self
    while let candidate = current {
      if candidate === entity { return true }
      current = candidate.parent
    }
    return false
  }

  /// `Entity(name)`.
  public var description: String { "Entity(\(name))" }
}

/// A weak reference to an entity, for the parent-to-child links that would otherwise form cycles.
struct WeakEntity {
  weak var entity: EntityDescription?
}

extension EntityDescription {
  /// The destination of the to-one whose wrapper keeps a loaded key at `keyOffset` in an object
  /// of this entity (see ``loadedKeyDestinations``), without a count.
  @inline(__always)
  func loadedKeyDestination(at keyOffset: Int) -> Unmanaged<EntityDescription>? {
    loadedKeyDestinations.withUnsafeBufferPointer { entries in
      for entry in entries where entry.keyOffset == keyOffset {
        return Unmanaged.passUnretained(entry.destination)
      }
      return nil
    }
  }
}

/// A to-one's destination, by where its wrapper keeps a loaded key (see
/// ``EntityDescription/loadedKeyDestinations``). The model holds the destination.
struct LoadedKeyDestination {
  /// The byte offset in an object of the wrapper's ``LoadedKeyOrCounts``.
  let keyOffset: Int
  /// The relationship's destination.
  unowned(unsafe) let destination: EntityDescription
}
