/// An error a caller can cause with data: an invalid model, an unknown key, a value of the wrong
/// type, an object of the wrong entity or of another context, a deleted object, a refused delete, or
/// a failed validation.
///
/// Every error names the entity, key and value involved, in ``entity``, ``key``, ``value`` and in its
/// ``description``. The operation that threw left the graph unchanged. Compare errors by ``kind``:
///
/// ```swift
/// do {
///   try book.setValue(12, forKey: "title")
/// } catch let error as ObjectGraphError where error.kind == .wrongType {
///   print(error)  // Book.title: 12 (Int) is not a value of type string
/// }
/// ```
public struct ObjectGraphError: Error, Sendable, CustomStringConvertible {
  /// What went wrong. New kinds may be added in later versions.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    enum Code: String, Sendable {
      case duplicateEntity, unknownParent, inheritanceCycle, duplicateProperty, unknownDestination
      case missingInverse, unknownInverse, inverseNotRelationship, inverseWrongEntity
      case inverseMismatch, invalidDefault, invalidClass, invalidName, invalidCount, unknownType
      case unknownEntity, abstractEntity, unknownKey, wrongType, nilNotAllowed, wrongEntity
      case otherContext, deletedObject, invalidObject, notToMany, indexOutOfRange
      case objectNotFound, otherStore, storeClosed, duplicateObject
      case deleteDenied, missingValue, tooFewObjects, tooManyObjects, multipleErrors
      case invalidRule, valueTooSmall, valueTooLarge, tooShort, tooLong, patternMismatch
      case invalidPredicate, invalidValue
      case duplicateTemplate, unknownTemplate, missingVariable
      case invalidMigrationPlan, otherModelVersion, transactionInProgress, invalidOrigin
    }
    let code: Code
    /// The kind's name, such as `unknownKey`.
    public var description: String { code.rawValue }
  }

  /// What went wrong.
  public let kind: Kind
  /// The name of the entity involved; a very long name is shortened.
  public let entity: String
  /// The key (property name or key path) involved, if any; a very long key is shortened.
  public let key: String?
  /// A description of the offending value, if any, shortened to a readable length.
  public let value: String?
  /// A sentence explaining the error.
  public let reason: String
  /// The errors combined into a ``Kind/multipleErrors`` error; empty otherwise.
  public let underlying: [ObjectGraphError]

  /// Creates an error, for example in a `validateForInsert()` override, so that it joins the
  /// errors `save()` combines.
  ///
  /// ```swift
  /// throw ObjectGraphError(.missingValue, entity: "Book", key: "isbn", reason: "an ISBN is required")
  /// ```
  /// - Parameters:
  ///   - kind: What went wrong.
  ///   - entity: The entity's name.
  ///   - key: The key involved.
  ///   - value: A description of the value involved.
  ///   - reason: A sentence explaining the error.
  public init(
    _ kind: Kind, entity: String, key: String? = nil, value: String? = nil, reason: String
  ) {
    self.init(kind.code, entity: entity, key: key, value: value, reason: reason)
  }

  init(
    _ code: Kind.Code, entity: String, key: String? = nil, value: String? = nil, reason: String,
    underlying: [ObjectGraphError] = []
  ) {
    self.kind = Kind(code: code)
    self.entity = Self.shorten(entity)
    self.key = key.map { Self.shorten($0) }
    self.value = value.map { Self.shorten($0, to: Self.describedLength) }
    self.reason =
      reason.count > Self.reasonLength
      ? "\(reason.prefix(Self.reasonLength))… (\(reason.count) characters)" : reason
    self.underlying = underlying
  }

  /// `Entity.key: reason`, the prefix said once: a reason that already begins with the entity
  /// (and key) is not prefixed again. Keys and values in messages are shortened to a readable
  /// length.
  public var description: String {
    var prefix = entity
    if let key, !key.isEmpty { prefix += (prefix.isEmpty ? "" : ".") + key }  // shortened in init
    guard !prefix.isEmpty, !Self.begins(reason, with: prefix) else { return reason }
    return "\(prefix): \(reason)"
  }

  /// Whether `reason` begins with `prefix` as a whole name, not followed by a letter, a digit or
  /// `_`: `Bookmarks are missing` does not begin with `Book`, nor `Book.isbnPrefix …` with
  /// `Book.isbn`.
  private static func begins(_ reason: String, with prefix: String) -> Bool {
    guard reason.hasPrefix(prefix) else { return false }
    guard let next = reason.dropFirst(prefix.count).first else { return true }
    return !(next.isLetter || next.isNumber || next == "_")
  }

  /// The longest text an error message quotes of a key or a value.
  static let quotedLength = 120
  /// The longest value kept as given: room for a value ``describe(_:)`` shortened already, with
  /// its quotes, its length and its type, so that it is not cut a second time (which would count
  /// the characters of the shortened text instead of the value's).
  static let describedLength = 2 * quotedLength
  /// The longest reason kept; a longer one (it quotes something huge) is cut.
  static let reasonLength = 2000

  /// `text`, or its first `length` characters followed by how long it was.
  static func shorten(_ text: String, to length: Int = quotedLength) -> String {
    guard text.count > length else { return text }
    return "\(text.prefix(length))… (\(text.count) characters)"
  }

  /// Describes a value for an error message, shortened: `"Dune" (String)`, `nil`, or `Book#3`.
  static func describe(_ value: Any?) -> String {
    guard let value else { return "nil" }
    if let object = value as? ManagedObject { return object.objectID.description }
    if let text = value as? String { return "\"\(shorten(text))\" (String)" }
    return "\(shorten(ValueText.of(value))) (\(type(of: value)))"
  }
}

extension ObjectGraphError.Kind {
  /// Two entities of a model have the same name.
  public static let duplicateEntity = Self(code: .duplicateEntity)
  /// An entity names a parent entity the model does not have.
  public static let unknownParent = Self(code: .unknownParent)
  /// Entities inherit from each other in a cycle.
  public static let inheritanceCycle = Self(code: .inheritanceCycle)
  /// Two properties of an entity (own or inherited) have the same name.
  public static let duplicateProperty = Self(code: .duplicateProperty)
  /// A relationship's destination entity is not in the model.
  public static let unknownDestination = Self(code: .unknownDestination)
  /// A relationship declares no inverse and does not say ``RelationshipDescription/Inverse/noInverse``.
  public static let missingInverse = Self(code: .missingInverse)
  /// A relationship's inverse names a property the destination does not have.
  public static let unknownInverse = Self(code: .unknownInverse)
  /// A relationship's inverse names an attribute of the destination.
  public static let inverseNotRelationship = Self(code: .inverseNotRelationship)
  /// A relationship's inverse leads to another entity than the relationship's own.
  public static let inverseWrongEntity = Self(code: .inverseWrongEntity)
  /// A relationship's inverse names a different relationship as its own inverse.
  public static let inverseMismatch = Self(code: .inverseMismatch)
  /// An attribute's default value is not of the attribute's type, or nil for a non-optional one.
  public static let invalidDefault = Self(code: .invalidDefault)
  /// A class given to the model cannot describe its entity: its property wrappers disagree with
  /// the entity's properties, or a sub-entity's class does not inherit from its parent's.
  public static let invalidClass = Self(code: .invalidClass)
  /// An entity or property name is empty, or contains `.` or `/`.
  public static let invalidName = Self(code: .invalidName)
  /// A relationship's minimum or maximum count is negative, or the minimum exceeds the maximum.
  public static let invalidCount = Self(code: .invalidCount)
  /// No attribute type has the given name.
  public static let unknownType = Self(code: .unknownType)
  /// No entity has the given name.
  public static let unknownEntity = Self(code: .unknownEntity)
  /// The entity is abstract and cannot be inserted.
  public static let abstractEntity = Self(code: .abstractEntity)
  /// The entity has no property with the given key.
  public static let unknownKey = Self(code: .unknownKey)
  /// The value is not of the property's type.
  public static let wrongType = Self(code: .wrongType)
  /// nil was given for a non-optional attribute.
  public static let nilNotAllowed = Self(code: .nilNotAllowed)
  /// The object is not of the relationship's destination entity.
  public static let wrongEntity = Self(code: .wrongEntity)
  /// The object belongs to another context.
  public static let otherContext = Self(code: .otherContext)
  /// The object was deleted; its relationships can no longer be used.
  public static let deletedObject = Self(code: .deletedObject)
  /// The object no longer belongs to a live context (the context was reset or released).
  public static let invalidObject = Self(code: .invalidObject)
  /// A to-many operation was used on an attribute or a to-one relationship.
  public static let notToMany = Self(code: .notToMany)
  /// An index was outside an ordered relationship's bounds.
  public static let indexOutOfRange = Self(code: .indexOutOfRange)
  /// No object has the identifier: the context does not know it and its store (or loader) has no
  /// such object, so a fault of it cannot be fulfilled.
  public static let objectNotFound = Self(code: .objectNotFound)
  /// The identifier names an object of another store than the context's.
  public static let otherStore = Self(code: .otherStore)
  /// The store was closed: it can no longer load or save.
  public static let storeClosed = Self(code: .storeClosed)
  /// A store was asked to insert an object with the key of an object it already holds.
  public static let duplicateObject = Self(code: .duplicateObject)
  /// A deny delete rule refused the delete.
  public static let deleteDenied = Self(code: .deleteDenied)
  /// A non-optional property has no value.
  public static let missingValue = Self(code: .missingValue)
  /// A to-many relationship holds fewer objects than its minimum count.
  public static let tooFewObjects = Self(code: .tooFewObjects)
  /// A to-many relationship holds more objects than its maximum count.
  public static let tooManyObjects = Self(code: .tooManyObjects)
  /// An attribute's rules do not fit its type, contradict each other, or hold a pattern that does
  /// not compile (see ``AttributeRules``).
  public static let invalidRule = Self(code: .invalidRule)
  /// A numeric value is below its attribute's minimum.
  public static let valueTooSmall = Self(code: .valueTooSmall)
  /// A numeric value is above its attribute's maximum.
  public static let valueTooLarge = Self(code: .valueTooLarge)
  /// A string or data value is shorter than its attribute's minimum length.
  public static let tooShort = Self(code: .tooShort)
  /// A string or data value is longer than its attribute's maximum length.
  public static let tooLong = Self(code: .tooLong)
  /// A string does not match its attribute's pattern.
  public static let patternMismatch = Self(code: .patternMismatch)
  /// A predicate cannot be checked or evaluated as written: a to-many key path compared without
  /// `ANY`, `ALL` or `NONE`, a variable never substituted, `BETWEEN` without two bounds, `IN`
  /// without a collection, or a `MATCHES` pattern that is not a regular expression (see
  /// ``FetchPredicate``).
  public static let invalidPredicate = Self(code: .invalidPredicate)
  /// A value that no store can keep exactly: NaN (not a number) in a `Double`, `Float`,
  /// `Decimal` or `Date` attribute, refused by ``ObjectContext/save()``. NaN is a value like any
  /// other in memory; SQLite would keep it as NULL, so a save writes nothing instead.
  public static let invalidValue = Self(code: .invalidValue)
  /// Two fetch request templates of a model have the same name (see ``FetchRequestTemplate``).
  public static let duplicateTemplate = Self(code: .duplicateTemplate)
  /// The model has no fetch request template with the given name.
  public static let unknownTemplate = Self(code: .unknownTemplate)
  /// A request was made from a fetch request template without a value for one of its variables.
  public static let missingVariable = Self(code: .missingVariable)
  /// A migration plan lists a model without a version, versions out of order, or two versions
  /// that are the same; see ``MigrationPlan``.
  public static let invalidMigrationPlan = Self(code: .invalidMigrationPlan)
  /// An archived undo history was recorded with another model than the context's (its steps
  /// name properties by their place in that model); see ``ObjectContext/restoreUndoHistory(_:)``.
  public static let otherModelVersion = Self(code: .otherModelVersion)
  /// A call that a transaction's body cannot make: `save()`, `undo()` and `redo()` of the
  /// context's undo log, a ``ObjectContext/refresh(_:mergeChanges:)`` of an object the body
  /// changed, or a nested `transaction(save: true)`; see
  /// ``ObjectContext/transaction(actionName:origin:save:_:)``.
  public static let transactionInProgress = Self(code: .transactionInProgress)
  /// An origin that cannot be put in force: one the library reserves (`undo`, `redo`, `merge`),
  /// or in a transaction's body one other than the transaction's; see
  /// ``ObjectContext/withOrigin(_:_:)``.
  public static let invalidOrigin = Self(code: .invalidOrigin)
  /// Several validation errors at once; see ``ObjectGraphError/underlying``.
  public static let multipleErrors = Self(code: .multipleErrors)
}
