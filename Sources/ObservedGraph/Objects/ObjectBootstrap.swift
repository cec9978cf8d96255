/// The opaque value a context passes to ``ManagedObject/init(_:)`` when it creates an object.
///
/// Only the library makes these: objects are created by ``ObjectContext/insert(_:)``,
/// ``ObjectContext/insertObject(forEntityName:)`` and ``ObjectContext/object(with:)``, never by
/// calling an initializer directly.
public struct ObjectBootstrap {
  let entity: EntityDescription?
  let link: ContextLink?
  let id: ObjectID?

  /// An object made only to read its property wrappers while a model is derived.
  static var prototype: ObjectBootstrap { ObjectBootstrap(entity: nil, link: nil, id: nil) }
}
