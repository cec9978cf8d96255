/// A typed relationship of a ``ManagedObject`` subclass.
///
/// The property's type says the relationship's shape: an optional object is to-one, a `Set` is
/// to-many, an `Array` is ordered to-many. Setting the property keeps the inverse on the other side
/// at once, including taking the object away from its previous owner.
///
/// ```swift
/// final class BookCategory: ManagedObject {
///   @Attribute var name: String = ""
///   @Relationship(inverse: "category", deleteRule: .cascade) var books: Set<Book>
/// }
/// final class Page: ManagedObject {
///   @Relationship(inverse: "pages") var book: Book?
/// }
/// ```
///
/// Setting the property with an object of another context, or on a deleted object, is a
/// programming error and stops the program with a message; ``ManagedObject/setValue(_:forKey:)``
/// reports the same mistakes by throwing.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: _PropertyWrapper {
  let inverse: RelationshipDescription.Inverse?
  let deleteRule: DeleteRule
  let ordered: Bool?
  let isOptional: Bool
  let minCount: Int
  let maxCount: Int
  /// The cached storage slot of this property in its object; resolved on first use.
  public var _slot = -1

  /// Declares a relationship.
  ///
  /// - Parameters:
  ///   - inverse: The name of the inverse on the destination, or `.noInverse`.
  ///   - deleteRule: What deleting this object does to the destinations.
  ///   - ordered: Optional restatement of the order the property type implies (`Array` is ordered,
  ///     `Set` is not); a contradiction makes the model throw.
  ///   - isOptional: Whether the relationship may be empty when validated.
  ///   - minCount: Minimum number of objects of a to-many relationship; 0 for none.
  ///   - maxCount: Maximum number of objects of a to-many relationship; 0 for none.
  public init(
    inverse: RelationshipDescription.Inverse?, deleteRule: DeleteRule = .nullify,
    ordered: Bool? = nil, isOptional: Bool = true, minCount: Int = 0, maxCount: Int = 0
  ) {
    self.inverse = inverse
    self.deleteRule = deleteRule
    self.ordered = ordered
    self.isOptional = isOptional
    self.minCount = minCount
    self.maxCount = maxCount
  }

  /// Unavailable: `@Relationship` works only in `ManagedObject` subclasses.
  @available(*, unavailable, message: "@Relationship can only be used in ManagedObject subclasses")
  public var wrappedValue: Value {
    get { fatalError("unavailable") }
    // swift-format-ignore
    set { fatalError("unavailable") }
  }

  /// Reads and writes the relationship through its object.
  public static subscript<Object: ManagedObject>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    get {
      let slot = object._slot(of: storageKeyPath)
      object._noteAccess(slot, wrappedKeyPath)
      return object._relationshipValue(Value.self, slot: slot)
    }
    set {
      object._setTypedRelationship(newValue._objects, slot: object._slot(of: storageKeyPath))
    }
  }

  func _declaration(name: String) throws -> _Declaration {
    if let ordered, ordered != Value._isOrdered {
      throw ObjectGraphError(
        .invalidClass, entity: String(describing: Value._destination), key: name,
        reason: "relationship '\(name)' says ordered: \(ordered) but its type \(Value.self) is "
          + (Value._isOrdered ? "ordered (Array)" : "not ordered"))
    }
    return .relationship(
      RelationshipDescription(
        name: name, destination: Value._destination.entityName, inverse: inverse,
        toMany: Value._isToMany, ordered: Value._isOrdered, deleteRule: deleteRule,
        isOptional: isOptional, minCount: minCount, maxCount: maxCount))
  }
}

/// A Swift type that can be the value of a ``Relationship`` property: `Optional` of an object
/// (to-one), `Set` of objects (to-many) or `Array` of objects (ordered to-many).
public protocol RelationshipValue {
  /// The destination class.
  static var _destination: ManagedObject.Type { get }
  /// Whether the relationship is to-many.
  static var _isToMany: Bool { get }
  /// Whether the relationship is ordered.
  static var _isOrdered: Bool { get }
  /// Reads the value from a relationship slot.
  static func _fromStorage(_ storage: Any?) -> Self
  /// The objects this value holds, in order.
  var _objects: [ManagedObject] { get }
  /// A value holding `objects`.
  static func _fromObjects(_ objects: [ManagedObject]) -> Self
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
  /// The wrapped class.
  public static var _destination: ManagedObject.Type { Wrapped.self }
  /// false: an optional object is to-one.
  public static var _isToMany: Bool { false }
  /// false.
  public static var _isOrdered: Bool { false }
  /// The object in the slot, or nil.
  public static func _fromStorage(_ storage: Any?) -> Self {
    storage.map { unsafeDowncast($0 as AnyObject, to: Wrapped.self) }
  }
  /// The object, if any.
  public var _objects: [ManagedObject] { self.map { [$0] } ?? [] }
  /// The first object, or nil.
  public static func _fromObjects(_ objects: [ManagedObject]) -> Self {
    objects.first.map { unsafeDowncast($0, to: Wrapped.self) }
  }
}

extension Set: RelationshipValue where Element: ManagedObject {
  /// The element class.
  public static var _destination: ManagedObject.Type { Element.self }
  /// true.
  public static var _isToMany: Bool { true }
  /// false: a set has no order.
  public static var _isOrdered: Bool { false }
  /// The members of the slot's collection.
  public static func _fromStorage(_ storage: Any?) -> Self {
    guard let collection = storage as? ObjectCollection else { return [] }
    return Set(collection.items.lazy.map { unsafeDowncast($0, to: Element.self) })
  }
  /// The members.
  public var _objects: [ManagedObject] { map { $0 } }
  /// A set of the objects.
  public static func _fromObjects(_ objects: [ManagedObject]) -> Self {
    Set(objects.lazy.map { unsafeDowncast($0, to: Element.self) })
  }
}

extension Array: RelationshipValue where Element: ManagedObject {
  /// The element class.
  public static var _destination: ManagedObject.Type { Element.self }
  /// true.
  public static var _isToMany: Bool { true }
  /// true: an array keeps its order.
  public static var _isOrdered: Bool { true }
  /// The members of the slot's collection, in order.
  public static func _fromStorage(_ storage: Any?) -> Self {
    guard let collection = storage as? ObjectCollection else { return [] }
    return collection.items.map { unsafeDowncast($0, to: Element.self) }
  }
  /// The members in order.
  public var _objects: [ManagedObject] { map { $0 } }
  /// The objects, in order.
  public static func _fromObjects(_ objects: [ManagedObject]) -> Self {
    objects.map { unsafeDowncast($0, to: Element.self) }
  }
}

extension ManagedObject {
  /// The value of a relationship slot, typed.
  @usableFromInline
  final func _relationshipValue<Value: RelationshipValue>(_ type: Value.Type, slot: Int) -> Value {
    Value._fromStorage(storage[slot])
  }
}
