/// An object of an ``ObjectContext``: storage for the properties its entity describes, observed,
/// undoable and kept consistent with the other side of every relationship.
///
/// Subclass it and declare properties with ``Attribute`` and ``Relationship`` to get typed access, or
/// use it as is for generic objects that are read and written by key. Objects are made by a context,
/// never with an initializer:
///
/// ```swift
/// final class Book: ManagedObject {
///   @Attribute var title: String = ""
///   @Attribute var price: Double = 0
///   @Relationship(inverse: "books") var category: BookCategory?
///   @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [Page]
///
///   override func awakeFromInsert() {
///     super.awakeFromInsert()
///     title = "Untitled"
///   }
/// }
///
/// let book = context.insert(Book.self)
/// book.title = "Dune"
/// ```
///
/// A `ManagedObject` belongs to the isolation domain of its context and is not `Sendable`; pass its
/// ``objectID`` across domains instead.
open class ManagedObject: Hashable, CustomStringConvertible {
  /// The object's entity.
  public let entity: EntityDescription
  /// The object's identifier, stable for the object's life.
  public let objectID: ObjectID
  // The context owns its objects; it marks them `.invalid` before it goes away, and every use of
  // `_context` checks `lifecycle` first, so the unowned reference is never followed dangling.
  unowned(unsafe) var _context: ObjectContext?
  var storage: ContiguousArray<Any?>
  var lifecycle: Lifecycle
  var isInsertedFlag = false
  var isDeletedFlag = false
  var changes = ChangeState()

  enum Lifecycle: UInt8 {
    /// Made to read a class's property wrappers; has no context.
    case prototype
    /// Registered with its context.
    case registered
    /// Its insertion was undone; redo brings it back.
    case unregistered
    /// Its context was reset or released.
    case invalid
  }

  /// Creates an object for a context. Only the library calls this; subclasses that override it
  /// must call `super.init(bootstrap)`.
  ///
  /// - Parameter bootstrap: The context's opaque creation token.
  public required init(_ bootstrap: ObjectBootstrap) {
    if let entity = bootstrap.entity, let context = bootstrap.context {
      self.entity = entity
      self.objectID = ObjectID(
        entityName: entity.name, contextNumber: context.number, number: bootstrap.number)
      self._context = context
      self.storage = entity.initialStorage
      self.lifecycle = .registered
    } else {
      self.entity = EntityDescription.prototype
      self.objectID = ObjectID(entityName: "", contextNumber: 0, number: 0)
      self._context = nil
      self.storage = []
      self.lifecycle = .prototype
    }
  }

  /// The name of the entity a subclass describes; the class name by default.
  ///
  /// Override it to give the entity another name:
  /// ```swift
  /// override class var entityName: String { "Category" }
  /// ```
  open class var entityName: String { String(describing: self) }

  /// Whether the entity this class describes is abstract.
  ///
  /// Class properties are inherited, so answer for the class itself only:
  /// ```swift
  /// class Person: ManagedObject {
  ///   override class var isAbstract: Bool { self == Person.self }
  /// }
  /// ```
  open class var isAbstract: Bool { false }

  /// The context the object belongs to, or nil once its context was reset or released.
  public var context: ObjectContext? {
    lifecycle == .registered || lifecycle == .unregistered ? _context : nil
  }

  // MARK: Lifecycle hooks

  /// Called once in the object's life, when it is inserted, after defaults are applied and before
  /// the caller receives it. Never called again on redo of the insert or undo of a delete.
  ///
  /// Values and relationships set here are part of the insert: undoing the insert takes them back
  /// with it. Call `super`.
  open func awakeFromInsert() {}

  /// Called at the start of ``ObjectContext/delete(_:)``, before the delete rules run, with every
  /// relationship still intact. Call `super`.
  open func prepareForDeletion() {}

  /// Checks the object before it is saved for the first time. The default checks non-optional
  /// attributes and relationships and the count limits of to-many relationships.
  ///
  /// Overrides call `super` and combine errors.
  /// - Throws: ``ObjectGraphError`` (``ObjectGraphError/Kind/multipleErrors`` for several).
  open func validateForInsert() throws { try validateProperties() }

  /// Checks a changed object before it is saved. The default is the same as ``validateForInsert()``.
  ///
  /// - Throws: ``ObjectGraphError`` (``ObjectGraphError/Kind/multipleErrors`` for several).
  open func validateForUpdate() throws { try validateProperties() }

  // MARK: Identity

  /// Objects are equal only to themselves.
  public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  /// `<Book c1/3>` followed by the object's attribute values.
  open var description: String {
    let values = entity.properties.filter { !$0.isRelationship }.map { property in
      "\(property.name): \(ObjectGraphError.describe(storage[property.slot]))"
    }
    return "\(shortDescription) { \(values.joined(separator: ", ")) }"
  }

  /// `<Book 3>`: the entity and object number.
  var shortDescription: String { "<\(entity.name) \(objectID.number)>" }
}

extension EntityDescription {
  /// The entity of prototype objects, which only exist while a model reads their wrappers.
  static let prototype = EntityDescription(name: "<prototype>")
}
