import Foundation

/// Turns typed key paths of model classes (`\Book.title`, `\Book.category?.name`) into the
/// property names of a string key path (`title`, `category.name`), for converting Foundation's
/// `Predicate` and `SortDescriptor` into ``FetchPredicate`` and ``FetchSort``.
///
/// A key path is opaque: Swift does not say which property it names. It is resolved by reading it
/// on scratch objects of the entity — made outside any context, on a link of their own, with every
/// to-one relationship leading to a scratch object of its destination a few steps deep — while
/// an ``AccessRecording`` on that link notes each typed getter's read (the same hook typed
/// observation resolves its key paths with). The reads must form one chain of modelled properties,
/// each read on the object the previous one reached; anything else (a computed property, a
/// property that is not an ``Attribute`` or ``Relationship``) is not a property path. A key path
/// of one step must be the property's own getter: its key path if the getter reported one, or
/// else (an ``Attribute`` of a type with probe values, ``ProbedAttributeValue``) a key path that
/// gives every probe value written into the field back unchanged, reading nothing else. An alias
/// (`var name: String { title }`) passes for the attribute it gives back.
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
      guard read.object === current, read.typed else {
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
    // not it); a longer chain cannot be checked so (optional chaining builds no key path to
    // compare with, and its probes would have to go through every step).
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
  /// `root`.
  ///
  /// An ``Attribute`` of a type with probe values reports no key path: its values tell
  /// (``FieldAccess/readsAlone(_:on:slot:)``). Any other getter reports its key path, which must
  /// be `keyPath`; an inherited property's getter is reported with the class that declares it as
  /// its root (`\\Person.firstName` for `\\Player.firstName`): it matches when its root is a
  /// superclass of the key path's root and the value types agree. (A computed property of a
  /// subclass returning an inherited property of its own type unchanged passes for it too.)
  private static func isGetter(
    _ read: AccessRecording.Read, of keyPath: AnyKeyPath, on root: ManagedObject
  ) -> Bool {
    guard read.object === root, read.typed else { return false }
    guard let read = read.keyPath else {
      return root.entity.fields[read.slot]?.readsAlone(keyPath, on: root, slot: read.slot) ?? false
    }
    if read == keyPath { return true }
    let (readKind, kind) = (type(of: read), type(of: keyPath))
    guard readKind.rootType != kind.rootType, readKind.valueType == kind.valueType,
      let readRoot = readKind.rootType as? AnyClass, var root = kind.rootType as? AnyClass
    else { return false }
    while let superclass = _getSuperclass(root) {
      if superclass == readRoot { return true }
      root = superclass
    }
    return false
  }

  /// Whether `keyPath` is the getter of the ``Attribute`` at `slot` of `entity`'s objects, as its
  /// values tell on a scratch object (``FieldAccess/readsAlone(_:on:slot:)``); for typed
  /// observation, after reading the key path on an object of the entity read that slot alone.
  /// Answers are cached as names are.
  static func isAttributeGetter(_ keyPath: AnyKeyPath, slot: Int, in entity: EntityDescription)
    -> Bool
  {
    guard entity.objectClass != ManagedObject.self, let field = entity.fields[slot] else {
      return false
    }
    let key = CacheKey(
      objectClass: ObjectIdentifier(entity.objectClass), entity: entity.name, keyPath: keyPath,
      singleStep: true)
    if let names = cache.names(for: key) { return names == [entity.properties[slot].name] }
    let object = scratchObject(entity, depth: 0)
    guard field.readsAlone(keyPath, on: object, slot: slot) else { return false }
    cache.store([entity.properties[slot].name], for: key)
    return true
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
    let object = entity.objectClass.init(ObjectBootstrap(entity: entity, link: link, key: 0))
    made += 1
    // Each wrapper gets its slot now, as `ObjectContext.makeObject(_:key:)` does.
    let base = Unmanaged.passUnretained(object).toOpaque()
    for (offset, slot) in entity.wrapperSlots {
      (base + offset).storeBytes(of: slot, as: Int32.self)
    }
    object.lifecycle = .detached
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
