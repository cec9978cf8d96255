import Foundation

extension FetchRequest {
  /// What a fetch runs: the entity, the whole predicate and the whole order, with the typed
  /// `Predicate` and `SortDescriptor`s converted.
  ///
  /// The entity is the one named by ``entityName``, or else the entity of `Result`'s class. The
  /// predicate is ``predicate``, the converted typed predicate, or both joined with `AND`; it is
  /// validated for the entity, and the objects it names must be of the context's store. The order
  /// is ``sortDescriptors`` followed by the converted typed sort descriptors.
  ///
  /// - Parameter context: The context whose model the request is resolved in.
  /// - Returns: The entity, the predicate (nil for all objects) and the sort keys.
  /// - Throws: ``ObjectGraphError/Kind/unknownEntity`` when the model has no such entity,
  ///   ``ObjectGraphError/Kind/wrongEntity`` when its objects are not `Result`s, and the
  ///   errors of ``FetchPredicate/init(_:model:)``, ``FetchSort/init(_:model:)`` and
  ///   ``FetchPredicate/validate(for:)``; ``ObjectGraphError/Kind/otherStore`` for an object of
  ///   the predicate (or its identifier) that belongs to another store than the context's.
  func resolved(in context: ObjectContext) throws -> (
    entity: EntityDescription, predicate: FetchPredicate?, sort: [FetchSort]
  ) {
    let model = context.model
    let entity: EntityDescription
    if let entityName {
      guard let named = model.entity(named: entityName) else {
        throw ObjectGraphError(
          .unknownEntity, entity: entityName,
          reason: "the model has no entity named '\(ObjectGraphError.shorten(entityName))'")
      }
      guard named.objectClass is Result.Type else {
        throw ObjectGraphError(
          .wrongEntity, entity: entityName,
          reason: "objects of \(entityName) are \(named.objectClass), not \(Result.self)")
      }
      entity = named
    } else if let typed = model.entity(for: Result.self) {
      entity = typed
    } else {
      throw ObjectGraphError(
        .unknownEntity, entity: Result.entityName,
        reason: "the model has no entity for the class \(Result.self); name the entity with "
          + "FetchRequest(entityName:)")
    }
    var parts: [FetchPredicate] = []
    if let predicate { parts.append(predicate) }
    if let typedPredicate { parts.append(try FetchPredicate(typedPredicate, model: model)) }
    let predicate: FetchPredicate? =
      switch parts.count {
      case 0: nil
      case 1: parts[0]
      default: .and(parts)
      }
    try predicate?.validate(for: entity)
    try predicate?.checkObjects(belongTo: context.registry.storeIdentifier, fetching: entity)
    let sort = try sortDescriptors + typedSortDescriptors.map { try FetchSort($0, model: model) }
    return (entity, predicate, sort)
  }
}
