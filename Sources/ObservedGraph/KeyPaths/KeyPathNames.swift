import Foundation

/// Turns typed key paths of model classes (`\Book.title`, `\Book.category?.name`) into the
/// property names of a string key path (`title`, `category.name`), for converting Foundation's
/// `Predicate` and `SortDescriptor` into ``FetchPredicate`` and ``FetchSort``.
///
/// A key path is opaque: Swift does not say which property it names. It is resolved by reading it
/// on scratch objects of the entity — made outside any context, on a link of their own, with every
/// to-one relationship leading to a scratch object of its destination a few steps deep — while
/// an ``AccessRecording`` on that link notes each typed getter's read with the getter's own key
/// path (the same hook typed observation resolves its key paths with). The reads must form one
/// chain of modelled properties, each read on the object the previous one reached; anything else
/// (a computed property, a property that is not an ``Attribute`` or ``Relationship``) is not a
/// property path. A key path of one step must be the property's own getter: the key path the
/// getter reported, compared with `==`, so a computed property that reads one attribute — an
/// alias (`var name: String { title }`) as much as `String(title.prefix(400))` — is never taken
/// for it, whatever values it gives. Values are never compared.
///
/// An inherited property's getter reports the key path of the class that declares it
/// (`\Person.firstName` for `\Player.firstName`), and Swift gives no way to compare two key
/// paths of different roots. Such a read stands for `keyPath` when `keyPath` is settable (a
/// getter-only computed property's key path is not), has the same value type, and its root is a
/// subclass of the declaring class. The one case this cannot tell: a settable computed property
/// of a subclass that reads exactly one inherited property of its own type (Fetching.md,
/// "Which key paths a predicate takes").
///
/// Resolutions are cached per class, entity name and key path in a process-wide table behind a
/// lock: a model is `Sendable`, and a key path names the same properties in every model its class
/// belongs to. Failures are not cached.
enum KeyPathNames {
  /// How deep scratch to-one relationships go: the longest relationship path a multi-step key path
  /// may follow.
  static let scratchDepth = 4
  /// The most scratch objects one resolution makes.
  static let scratchLimit = 256

  /// The property names a key path reads, from an object of `entity`.
  ///
  /// - Parameters:
  ///   - keyPath: A key path whose root is the class of `entity` or one of its superclasses.
  ///   - entity: The entity of the objects the key path is read on; its class must not be the
  ///     generic ``ManagedObject``.
  ///   - singleStep: Whether the key path must name one property of the entity itself (what
  ///     `#Predicate` builds, one member access at a time). A one-step key path must then be that
  ///     property's own getter, not a computed property reading it.
  /// - Returns: The names, one per step.
  /// - Throws: ``ObjectGraphError/Kind/invalidPredicate`` naming the entity when the key path is
  ///   not a chain of modelled properties.
  static func names(of keyPath: AnyKeyPath, in entity: EntityDescription, singleStep: Bool)
    throws -> [String]
  {
    let key = CacheKey(
      objectClass: ObjectIdentifier(entity.objectClass), entity: entity.name, keyPath: keyPath,
      singleStep: singleStep)
    if let names = cache.names(for: key) { return names }
    let names = try resolve(keyPath, in: entity, singleStep: singleStep)
    cache.store(names, for: key)
    return names
  }

  private static func resolve(_ keyPath: AnyKeyPath, in entity: EntityDescription, singleStep: Bool)
    throws -> [String]
  {
    guard entity.objectClass != ManagedObject.self else {
      throw ObjectGraphError(
        .invalidPredicate, entity: entity.name, value: describe(keyPath),
        reason: "\(entity.name) has no class of its own, so a typed key path cannot name its "
          + "properties; use a FetchPredicate with string key paths")
    }
    // To-one relationships lead on even for one step: a computed property reading through one
    // then shows as several reads (and does not meet a nil it may not expect).
    let root = scratchObject(entity, depth: scratchDepth)
    let link = root.link.unsafelyUnwrapped
    let recording = AccessRecording()
    link.accessRecording = recording
    // A key path of another root reads nothing (the subscript gives nil).
    _ = root[keyPath: keyPath]
    link.accessRecording = nil
    var names: [String] = []
    var current: ManagedObject? = root
    for read in recording.reads {
      guard read.object === current, read.keyPath != nil else {
        throw notAProperty(keyPath, entity, reason: "is not a chain of modelled properties")
      }
      let property = read.object.entity.properties[read.slot]
      names.append(property.name)
      current =
        property.isRelationship && !property.isToMany ? read.object.members(property).first : nil
    }
    guard !names.isEmpty else {
      throw notAProperty(keyPath, entity, reason: "reads no Attribute or Relationship property")
    }
    // One read must be the property's own getter (a computed property reading one property is
    // not it); a longer chain cannot be checked so: optional chaining builds no key path to
    // compare with, so a computed property reading the same chain is taken for it.
    if singleStep || names.count == 1 {
      guard names.count == 1, isGetter(recording.reads[0], of: keyPath, on: root) else {
        throw notAProperty(
          keyPath, entity,
          reason: "is a computed property (it reads \(names.joined(separator: ", "))), not a "
            + "modelled property")
      }
    }
    return names
  }

  /// Whether `keyPath` is the getter that made `read`, a typed getter's read of the scratch object
  /// `root`: the getter's key path is `keyPath`, or, for an inherited property, `keyPath` is a
  /// settable key path of the same value type from a subclass of the getter's root (see the type's
  /// comment).
  private static func isGetter(
    _ read: AccessRecording.Read, of keyPath: AnyKeyPath, on root: ManagedObject
  ) -> Bool {
    guard read.object === root, let getter = read.keyPath else { return false }
    if getter == keyPath { return true }
    let (getterKind, kind) = (type(of: getter), type(of: keyPath))
    guard keyPath is any SettableThroughReference, getterKind.rootType != kind.rootType,
      getterKind.valueType == kind.valueType, let getterRoot = getterKind.rootType as? AnyClass,
      var root = kind.rootType as? AnyClass
    else { return false }
    while let superclass = _getSuperclass(root) {
      if superclass == getterRoot { return true }
      root = superclass
    }
    return false
  }

  /// An object of `entity` outside any context, on a link of its own, its to-one relationships
  /// leading `depth` steps on to scratch objects of their destinations (on the same link).
  private static func scratchObject(_ entity: EntityDescription, depth: Int) -> ManagedObject {
    let link = ContextLink(nil, storeIdentifier: UUID(), participatesInSwiftObservation: false)
    var made = 0
    return scratchObject(entity, link: link, depth: depth, made: &made)
  }

  /// A scratch object of `entity` on `link`, counting the objects made in `made`.
  private static func scratchObject(
    _ entity: EntityDescription, link: ContextLink, depth: Int, made: inout Int
  ) -> ManagedObject {
    let object = ObjectRegistry.makeObject(entity, key: 0, link: link)
    made += 1
    guard depth > 0 else { return object }
    for property in entity.relationshipProperties where !property.isToMany {
      guard let destination = property.destination, made < scratchLimit,
        destination.objectClass != ManagedObject.self
      else { continue }
      let target = scratchObject(destination, link: link, depth: depth - 1, made: &made)
      object.setRelationshipReference(target, for: property)
    }
    return object
  }

  /// A key path for an error message: as Swift prints it when that names its properties
  /// (`\\Book.title`), else its root and value types (Swift prints the address of a computed
  /// property's getter).
  static func describe(_ keyPath: AnyKeyPath) -> String {
    let printed = String(describing: keyPath)
    guard printed.contains("<computed") else { return printed }
    let kind = type(of: keyPath)
    return "a key path from \(kind.rootType) to \(kind.valueType)"
  }

  private static func notAProperty(
    _ keyPath: AnyKeyPath, _ entity: EntityDescription, reason: String
  ) -> ObjectGraphError {
    let spelled = describe(keyPath)
    return ObjectGraphError(
      .invalidPredicate, entity: entity.name, value: spelled,
      reason: "\(spelled) on \(entity.name) (class \(entity.objectClass)) \(reason); "
        + "a typed predicate or sort descriptor can only use Attribute and Relationship properties")
  }

  // MARK: The cache

  /// A class (immortal, so its identifier is never reused), the entity it makes objects of, and
  /// the question asked.
  struct CacheKey: Hashable {
    let objectClass: ObjectIdentifier
    let entity: String
    let keyPath: AnyKeyPath
    let singleStep: Bool
  }

  /// Resolved names, shared by every context and thread.
  // Unchecked: every access to `entries` holds `lock`.
  final class Cache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [CacheKey: [String]] = [:]

    func names(for key: CacheKey) -> [String]? {
      lock.lock()
      defer { lock.unlock() }
      return entries[key]
    }

    func store(_ names: [String], for key: CacheKey) {
      lock.lock()
      defer { lock.unlock() }
      entries[key] = names
    }
  }

  static let cache = Cache()
}

/// The key paths that can set a property of a class: a getter-only computed property's key path
/// is a `KeyPath`, never one of these, while every ``Attribute`` and ``Relationship`` is settable.
private protocol SettableThroughReference {}

extension ReferenceWritableKeyPath: SettableThroughReference {}
