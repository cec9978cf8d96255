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
/// Setting a to-many property reports what changed: `book.pages.append(page)` is an insertion at
/// the end, `book.pages.remove(at: 0)` a removal at index 0, a move a removal at its old index
/// followed by an insertion at its new one, and any other assignment its difference — the objects
/// that left (with their old indexes), then the objects that joined (with their new indexes). An
/// assignment that changes nothing is a setting whose old and new values are equal.
///
/// Setting the property with an object of another context, or on a deleted object, is a
/// programming error and stops the program with a message; ``ManagedObject/setValue(_:forKey:)``
/// reports the same mistakes by throwing.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
  // The declaration, read once from a prototype when the model is built, sits in every object
  // beside the value: counts in 32 bits and the small fields together keep the wrapper at 40
  // bytes.
  /// The related object (to-one) or the members' collection (to-many), nil until set: the
  /// relationship's value, reached through its ``RelationshipFieldAccess``.
  @usableFromInline var target: AnyObject?
  @usableFromInline let inverse: RelationshipDescription.Inverse?
  /// A to-one's key that a load left, or the declaration's counts (``LoadedKeyOrCounts``).
  @usableFromInline var loadedKeyOrCounts: LoadedKeyOrCounts
  /// The storage slot of this property in its object; resolved on first use, negative until then.
  @usableFromInline var slot: Int32 = -1
  @usableFromInline let deleteRule: DeleteRule
  @usableFromInline let ordered: Bool?
  @usableFromInline let isOptional: Bool

  /// Declares a relationship.
  ///
  /// ```swift
  /// @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [Page]
  /// ```
  /// - Parameters:
  ///   - inverse: The name of the inverse on the destination, or `.noInverse`.
  ///   - deleteRule: What deleting this object does to the destinations.
  ///   - ordered: Optional restatement of the order the property type implies (`Array` is ordered,
  ///     `Set` is not); a contradiction makes the model throw.
  ///   - isOptional: Whether the relationship may be empty when validated.
  ///   - minCount: Minimum number of objects of a to-many relationship; 0 for none. Kept in 31
  ///     bits: a larger one counts as 2³⁰ − 1 (and a negative one below −2³⁰, which the model
  ///     refuses, as −2³⁰).
  ///   - maxCount: Maximum number of objects of a to-many relationship; 0 for none. Kept in 32
  ///     bits: a larger one counts as `Int32.max`.
  // Inlinable: every new object runs it for each relationship, and out of line it would run as
  // unspecialized generic code.
  @inlinable
  public init(
    inverse: RelationshipDescription.Inverse?, deleteRule: DeleteRule = .nullify,
    ordered: Bool? = nil, isOptional: Bool = true, minCount: Int = 0, maxCount: Int = 0
  ) {
    self.inverse = inverse
    self.deleteRule = deleteRule
    self.ordered = ordered
    self.isOptional = isOptional
    self.loadedKeyOrCounts = LoadedKeyOrCounts(minCount: minCount, maxCount: maxCount)
  }

  /// The declaration's counts, from the field the initializer packed them in.
  var counts: (minimum: Int, maximum: Int) { loadedKeyOrCounts.counts ?? (0, 0) }

  /// Unavailable: every relationship names its inverse.
  ///
  /// Chosen by the compiler for `@Relationship var books: Set<Book>` and for a declaration whose
  /// arguments leave out `inverse:`, so that the error says what to write instead of "class has
  /// no initializers".
  @available(
    *, unavailable,
    message:
      "name the inverse relationship on the other entity, as in '@Relationship(inverse: \"category\")', or say there is none: '@Relationship(inverse: .noInverse)'"
  )
  public init(
    deleteRule: DeleteRule = .nullify, ordered: Bool? = nil, isOptional: Bool = true,
    minCount: Int = 0, maxCount: Int = 0
  ) {
    fatalError("unavailable")
  }

  /// Unavailable: a relationship has no initial value.
  ///
  /// Chosen by the compiler for `@Relationship(inverse: "book") var pages: [Page] = []`.
  @available(
    *, unavailable,
    message:
      "a relationship starts empty and takes no initial value: remove '= ...' (set it after 'context.insert(_:)')"
  )
  public init(
    wrappedValue: Value, inverse: RelationshipDescription.Inverse?,
    deleteRule: DeleteRule = .nullify, ordered: Bool? = nil, isOptional: Bool = true,
    minCount: Int = 0, maxCount: Int = 0
  ) {
    fatalError("unavailable")
  }

  /// Unavailable: `@Relationship` works only in `ManagedObject` subclasses.
  @available(*, unavailable, message: "@Relationship can only be used in ManagedObject subclasses")
  public var wrappedValue: Value {
    get { fatalError("unavailable") }
    // swift-format-ignore
    set { fatalError("unavailable") }
  }

  /// Reads and writes the relationship through its object.
  ///
  /// Inlinable: in the caller's module the key path to the wrapper is a literal, so the slot is
  /// a field load instead of a key path applied by the runtime.
  @inlinable
  public static subscript<Object: ManagedObject>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    // The library's three value types read and hand over their objects directly
    // (``ModelledRelationshipValue``): the casts fold away once `Value` is known, in the caller's
    // module. Any other conforming type goes through its ``RelationshipValue/relationshipShape``.
    get {
      let slot = slot(of: object, storageKeyPath)
      if let modelled = Value.self as? any ModelledRelationshipValue.Type {
        return read(modelled, object, slot: slot, keyPath: wrappedKeyPath)
      }
      return Value.relationshipShape.make(object.readMembers(slot: slot, keyPath: wrappedKeyPath))
        as! Value
    }
    set {
      let slot = slot(of: object, storageKeyPath)
      // A to-one value is handed over as it is: no shape, no cast, no array.
      if let modelled = Value.self as? any ModelledRelationshipValue.Type,
        let target = toOneTarget(modelled, of: newValue)
      {
        return object.writeToOne(target, slot: slot)
      }
      object.writeRelationship(Value.relationshipShape.members(newValue), slot: slot)
    }
  }

  /// ``ModelledRelationshipValue/read(_:slot:keyPath:)`` of `Value`, which is `Modelled`.
  @inlinable @inline(__always)
  static func read<Modelled: ModelledRelationshipValue>(
    _ modelled: Modelled.Type, _ object: ManagedObject, slot: Int, keyPath: AnyKeyPath
  ) -> Value {
    Modelled.read(object, slot: slot, keyPath: keyPath) as! Value
  }

  /// ``ModelledRelationshipValue/toOneTarget(of:)`` of `Value`, which is `Modelled`.
  @inlinable @inline(__always)
  static func toOneTarget<Modelled: ModelledRelationshipValue>(
    _ modelled: Modelled.Type, of value: Value
  ) -> ManagedObject?? {
    Modelled.toOneTarget(of: value as! Modelled)
  }

  @inlinable @inline(__always)
  static func slot<Object: ManagedObject>(
    of object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Int {
    let cached = Int(object[keyPath: storageKeyPath].slot)
    if cached >= 0 { return cached }
    // The first use of the wrapper in an object: its slot is found by where the wrapper sits in
    // the object, and cached in the wrapper.
    let slot = object.resolveSlot(
      wrapperOffset: ManagedObject.wrapperOffset(object, storageKeyPath))
    object[keyPath: storageKeyPath].slot = Int32(slot)
    return slot
  }
}

extension Relationship: PropertyWrapperDeclaring {
  static var slotOffset: Int { MemoryLayout<Self>.offset(of: \Self.slot)! }

  func declaration(name: String) throws -> Declaration {
    let shape = Value.relationshipShape
    if let ordered, ordered != shape.isOrdered {
      throw ObjectGraphError(
        .invalidClass, entity: shape.destination.entityName, key: name,
        reason: "relationship '\(name)' says ordered: \(ordered) but its type \(Value.self) is "
          + (shape.isOrdered ? "ordered (Array)" : "not ordered"))
    }
    return .relationship(
      RelationshipDescription(
        name: name, destination: shape.destination.entityName, inverse: inverse,
        toMany: shape.isToMany, ordered: shape.isOrdered, deleteRule: deleteRule,
        isOptional: isOptional, minCount: counts.minimum, maxCount: counts.maximum))
  }

  var destinationClass: ManagedObject.Type? { Value.relationshipShape.destination }
}

/// A Swift type that can be the value of a ``Relationship`` property: `Optional` of an object
/// (to-one), `Set` of objects (to-many) or `Array` of objects (ordered to-many).
///
/// The library provides the three conformances; the requirement describes the shape.
public protocol RelationshipValue {
  /// The shape of the relationship a property of this type declares.
  ///
  /// ```swift
  /// [Page].relationshipShape   // ordered to-many of Page
  /// ```
  static var relationshipShape: RelationshipShape { get }
}

/// The library's own relationship value types (`Optional`, `Set` and `Array` of objects), which
/// the typed accessors of ``Relationship`` read and write without going through a
/// ``RelationshipShape``: inlinable, so that building a `Set` of a thousand members is
/// specialized for its element and reads the members in place.
@usableFromInline
protocol ModelledRelationshipValue: RelationshipValue {
  /// For a to-one value, the object it holds (or nil), wrapped once more; nil for a to-many value.
  static func toOneTarget(of value: Self) -> ManagedObject??

  /// The value the typed getter returns: reads the relationship at `slot` of `object` through
  /// the object's read hook (a fault is fulfilled, the read is reported to Swift Observation, or
  /// to a key path's resolution with `keyPath`) and makes the value of its members.
  static func read(_ object: ManagedObject, slot: Int, keyPath: AnyKeyPath) -> Self
}

/// How a ``RelationshipValue`` type relates objects: its destination class, whether it is to-many
/// and ordered, and how its values convert to and from a list of objects. Opaque; made by the
/// library's conformances.
///
/// ```swift
/// Set<Book>.relationshipShape.description   // "to-many of Book"
/// ```
public struct RelationshipShape: Sendable, CustomStringConvertible {
  let destination: ManagedObject.Type
  let isToMany: Bool
  let isOrdered: Bool
  @usableFromInline let make: @Sendable ([ManagedObject]) -> Any
  @usableFromInline let members: @Sendable (Any) -> [ManagedObject]

  /// `to-one of Book`, `to-many of Book` or `ordered to-many of Page`.
  public var description: String {
    (isToMany ? (isOrdered ? "ordered to-many" : "to-many") : "to-one") + " of \(destination)"
  }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
  /// To-one: nil or one object of the wrapped class.
  public static var relationshipShape: RelationshipShape {
    RelationshipShape(
      destination: Wrapped.self, isToMany: false, isOrdered: false,
      make: { objects in objects.first.map { unsafeDowncast($0, to: Wrapped.self) } as Any },
      members: { value in (value as! Self).map { [$0] } ?? [] })
  }
}

extension Optional: ModelledRelationshipValue where Wrapped: ManagedObject {
  /// The object the value holds, or nil, wrapped once more: a to-one value.
  @inlinable
  static func toOneTarget(of value: Self) -> ManagedObject?? { .some(value) }

  /// The related object, read without an array.
  @inlinable
  static func read(_ object: ManagedObject, slot: Int, keyPath: AnyKeyPath) -> Self {
    object.readToOne(slot: slot, keyPath: keyPath).map { unsafeDowncast($0, to: Wrapped.self) }
  }
}

extension Set: RelationshipValue where Element: ManagedObject {
  /// To-many, unordered, of the element class.
  public static var relationshipShape: RelationshipShape {
    RelationshipShape(
      destination: Element.self, isToMany: true, isOrdered: false,
      make: { objects in Set(objects.lazy.map { unsafeDowncast($0, to: Element.self) }) },
      members: { value in (value as! Self).map { $0 } })
  }
}

extension Set: ModelledRelationshipValue where Element: ManagedObject {
  /// Nil: a to-many value.
  @inlinable
  static func toOneTarget(of value: Self) -> ManagedObject?? { nil }

  /// The set of the members, read in place.
  @inlinable
  static func read(_ object: ManagedObject, slot: Int, keyPath: AnyKeyPath) -> Self {
    let references = object.readMemberReferences(slot: slot, keyPath: keyPath)
    var set = Self(minimumCapacity: references.count)
    for reference in references {
      set.insert(unsafeDowncast(reference.takeUnretainedValue(), to: Element.self))
    }
    return set
  }
}

extension Array: RelationshipValue where Element: ManagedObject {
  /// To-many, ordered, of the element class.
  public static var relationshipShape: RelationshipShape {
    RelationshipShape(
      destination: Element.self, isToMany: true, isOrdered: true,
      make: { objects in objects.map { unsafeDowncast($0, to: Element.self) } },
      members: { value in (value as! Self).map { $0 } })
  }
}

extension Array: ModelledRelationshipValue where Element: ManagedObject {
  /// Nil: a to-many value.
  @inlinable
  static func toOneTarget(of value: Self) -> ManagedObject?? { nil }

  /// The members in order, read in place.
  @inlinable
  static func read(_ object: ManagedObject, slot: Int, keyPath: AnyKeyPath) -> Self {
    object.readMemberReferences(slot: slot, keyPath: keyPath).map {
      unsafeDowncast($0.takeUnretainedValue(), to: Element.self)
    }
  }
}
