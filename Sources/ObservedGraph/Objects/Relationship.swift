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
  /// Whether the declaration names the relationship's name in the previous model version (noted
  /// by ``DeclaredOriginalNames`` while a model reads the class, not kept in every object).
  @usableFromInline let hasOriginalName: Bool

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
  ///   - originalName: The relationship's name in the previous model version, when it was
  ///     renamed (``RelationshipDescription/originalName``).
  // Inlinable: every new object runs it for each relationship, and out of line it would run as
  // unspecialized generic code.
  @inlinable
  public init(
    inverse: RelationshipDescription.Inverse?, deleteRule: DeleteRule = .nullify,
    ordered: Bool? = nil, isOptional: Bool = true, minCount: Int = 0, maxCount: Int = 0,
    originalName: String? = nil
  ) {
    self.inverse = inverse
    self.deleteRule = deleteRule
    self.ordered = ordered
    self.isOptional = isOptional
    self.loadedKeyOrCounts = LoadedKeyOrCounts(minCount: minCount, maxCount: maxCount)
    self.hasOriginalName = originalName != nil
    if let originalName { DeclaredOriginalNames.note(originalName) }
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
    get {
      Value.value(
        reading: RelationshipRead(
          object, slot: slot(of: object, storageKeyPath), keyPath: wrappedKeyPath))
    }
    set {
      let slot = slot(of: object, storageKeyPath)
      // A to-one value is handed over as it is: no shape, no cast, no array.
      if let target = Value.toOneTarget(of: newValue) {
        return object.writeToOne(target, slot: slot)
      }
      object.writeRelationship(Value.relationshipShape.members(newValue), slot: slot)
    }
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

  var declaresOriginalName: Bool { hasOriginalName }

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
/// The library provides the three conformances. Each describes its shape
/// (``relationshipShape``), makes its value from the relationship a typed getter reads
/// (``value(reading:)``), and says which object a to-one value holds (``toOneTarget(of:)``),
/// so that the typed accessors need no cast.
public protocol RelationshipValue {
  /// The shape of the relationship a property of this type declares.
  ///
  /// ```swift
  /// [Page].relationshipShape   // ordered to-many of Page
  /// ```
  static var relationshipShape: RelationshipShape { get }

  /// For a to-one value, the object it holds (or nil), wrapped once more; nil for a to-many value.
  ///
  /// The typed setter of a to-one relationship uses it to hand the object over without going
  /// through ``relationshipShape``. The default is nil, as for a to-many value.
  ///
  /// ```swift
  /// Book?.toOneTarget(of: book)  // .some(book)
  /// Set<Book>.toOneTarget(of: [])  // nil
  /// ```
  ///
  /// - Parameter value: A value of a relationship property.
  /// - Returns: `.some(object)` for a to-one value; nil for a to-many value.
  static func toOneTarget(of value: Self) -> ManagedObject??

  /// The value a typed getter returns, made from the relationship it reads.
  ///
  /// The library's conformances read the related objects in place, without an array of them,
  /// specialized for their element; the default makes the value with ``relationshipShape``
  /// from ``RelationshipRead/members()``.
  ///
  /// ```swift
  /// Set<Book>.value(reading: read)  // category.books, when `read` reads them
  /// ```
  ///
  /// - Parameter relationship: The read under way: the relationship's related objects.
  /// - Returns: The value.
  static func value(reading relationship: RelationshipRead) -> Self
}

extension RelationshipValue {
  /// The default: the value ``relationshipShape`` makes of the members.
  ///
  /// ```swift
  /// Set<Book>.value(reading: read)  // the members, as a set
  /// ```
  ///
  /// - Parameter relationship: The read under way.
  /// - Returns: The value.
  @inlinable
  public static func value(reading relationship: RelationshipRead) -> Self {
    relationshipShape.make(relationship.members()) as! Self
  }

  /// The default: nil, as for a to-many value.
  ///
  /// ```swift
  /// [Page].toOneTarget(of: pages)  // nil
  /// ```
  ///
  /// - Parameter value: A value of a relationship property.
  /// - Returns: nil.
  public static func toOneTarget(of value: Self) -> ManagedObject?? { nil }
}

/// One read of a relationship by its typed getter, which a ``RelationshipValue`` type makes its
/// value from. Made by the library for the length of the getter; each of its reads fulfils the
/// object's fault and reports the read to Swift Observation, as any read of the property does.
///
/// ```swift
/// static func value(reading relationship: RelationshipRead) -> Self {
///   relationship.members().map { $0 as! Book }
/// }
/// ```
public struct RelationshipRead {
  @usableFromInline let object: ManagedObject
  @usableFromInline let slot: Int
  @usableFromInline let keyPath: AnyKeyPath

  @inlinable
  init(_ object: ManagedObject, slot: Int, keyPath: AnyKeyPath) {
    self.object = object
    self.slot = slot
    self.keyPath = keyPath
  }

  /// The related object of a to-one relationship, or nil; for a to-many relationship, its first
  /// member.
  ///
  /// ```swift
  /// relationship.relatedObject()  // book.category
  /// ```
  ///
  /// - Returns: The object, or nil.
  @inlinable
  public func relatedObject() -> ManagedObject? {
    object.readToOne(slot: slot, keyPath: keyPath)
  }

  /// The related objects, in order (a to-one's object, or none).
  ///
  /// ```swift
  /// relationship.members()  // [dune, emma]
  /// ```
  ///
  /// - Returns: The objects.
  @inlinable
  public func members() -> [ManagedObject] {
    object.readMembers(slot: slot, keyPath: keyPath)
  }

  /// The related objects in order, unretained: each stays alive while the relationship holds it,
  /// which it does for the rest of the getter. A value is made from them without an array of
  /// retained objects on the way; take each with `takeUnretainedValue()`.
  ///
  /// ```swift
  /// relationship.memberReferences().map { $0.takeUnretainedValue() as! Page }
  /// ```
  ///
  /// - Returns: The objects, unretained.
  @inlinable
  public func memberReferences() -> ContiguousArray<Unmanaged<ManagedObject>> {
    object.readMemberReferences(slot: slot, keyPath: keyPath)
  }
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
  /// The object the value holds, or nil, wrapped once more: a to-one value.
  ///
  /// ```swift
  /// Book?.toOneTarget(of: nil)  // .some(nil)
  /// ```
  ///
  /// - Parameter value: A to-one value.
  /// - Returns: `.some(value)`.
  public static func toOneTarget(of value: Self) -> ManagedObject?? { .some(value) }

  /// The related object, read without an array.
  ///
  /// ```swift
  /// Category?.value(reading: read)  // book.category
  /// ```
  ///
  /// - Parameter relationship: The read under way.
  /// - Returns: The related object, or nil.
  @inlinable
  public static func value(reading relationship: RelationshipRead) -> Self {
    relationship.relatedObject().map { unsafeDowncast($0, to: Wrapped.self) }
  }

  /// To-one: nil or one object of the wrapped class.
  public static var relationshipShape: RelationshipShape {
    RelationshipShape(
      destination: Wrapped.self, isToMany: false, isOrdered: false,
      make: { objects in objects.first.map { unsafeDowncast($0, to: Wrapped.self) } as Any },
      members: { value in (value as! Self).map { [$0] } ?? [] })
  }
}

extension Set: RelationshipValue where Element: ManagedObject {
  /// The set of the members, read in place.
  ///
  /// ```swift
  /// Set<Book>.value(reading: read)  // category.books
  /// ```
  ///
  /// - Parameter relationship: The read under way.
  /// - Returns: The members as a set of the element class.
  @inlinable
  public static func value(reading relationship: RelationshipRead) -> Self {
    let references = relationship.memberReferences()
    var set = Self(minimumCapacity: references.count)
    for reference in references {
      set.insert(unsafeDowncast(reference.takeUnretainedValue(), to: Element.self))
    }
    return set
  }

  /// To-many, unordered, of the element class.
  public static var relationshipShape: RelationshipShape {
    RelationshipShape(
      destination: Element.self, isToMany: true, isOrdered: false,
      make: { objects in Set(objects.lazy.map { unsafeDowncast($0, to: Element.self) }) },
      members: { value in (value as! Self).map { $0 } })
  }
}

extension Array: RelationshipValue where Element: ManagedObject {
  /// The members in order, read in place.
  ///
  /// ```swift
  /// [Page].value(reading: read)  // book.pages
  /// ```
  ///
  /// - Parameter relationship: The read under way.
  /// - Returns: The members as an array of the element class.
  @inlinable
  public static func value(reading relationship: RelationshipRead) -> Self {
    relationship.memberReferences().map {
      unsafeDowncast($0.takeUnretainedValue(), to: Element.self)
    }
  }

  /// To-many, ordered, of the element class.
  public static var relationshipShape: RelationshipShape {
    RelationshipShape(
      destination: Element.self, isToMany: true, isOrdered: true,
      make: { objects in objects.map { unsafeDowncast($0, to: Element.self) } },
      members: { value in (value as! Self).map { $0 } })
  }
}
