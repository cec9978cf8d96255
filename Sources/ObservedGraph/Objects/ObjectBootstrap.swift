/// The opaque value a context passes to ``ManagedObject/init(_:)`` when it creates an object.
///
/// Only the library makes these: objects are created by ``ObjectContext/insert(_:)``,
/// ``ObjectContext/insertObject(forEntityName:)`` and ``ObjectContext/object(with:)``, never by
/// calling an initializer directly.
public struct ObjectBootstrap {
  // Variables, so that ``ManagedObject/init(_:)`` moves them into the object instead of copying
  // them: a copy would retain and release the entity and the link, shared by every object, for
  // every object made.
  var entity: EntityDescription?
  var link: ContextLink?
  /// The key of the object's identifier (its store is the link's, its entity `entity`): a key, not
  /// an `ObjectID`, whose entity name would be copied into every new object's making.
  let key: Int64

  /// An object made only to read its property wrappers while a model is derived.
  static var prototype: ObjectBootstrap { ObjectBootstrap(entity: nil, link: nil, key: 0) }
}
