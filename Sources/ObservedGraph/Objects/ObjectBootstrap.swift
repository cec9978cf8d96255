/// The opaque value a context passes to ``ManagedObject/init(_:)`` when it creates an object.
///
/// Only the library makes these: objects are created by ``ObjectContext/insert(_:)`` and
/// ``ObjectContext/insertObject(forEntityName:)``, never by calling an initializer directly.
public struct ObjectBootstrap {
  let entity: EntityDescription?
  let context: ObjectContext?
  let number: UInt64

  /// An object made only to read its property wrappers while a model is derived.
  static var prototype: ObjectBootstrap { ObjectBootstrap(entity: nil, context: nil, number: 0) }
}
