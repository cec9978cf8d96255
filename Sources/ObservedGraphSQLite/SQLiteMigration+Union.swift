import Foundation
import ObservedGraph

extension SQLiteMigrationStage {
  /// The model and schema of a custom stage's `migrate` context (see `MigrationStage`): every
  /// entity of the new version with its properties, plus, under their earlier names, the stored
  /// properties of the earlier version that the stage removes; and the entities the stage
  /// removes, with their stored properties. Objects are generic (`ManagedObject`).
  ///
  /// What the union leaves out: a removed property whose name the new version gives a property
  /// of the same hierarchy (an attribute the stage's `previousNames` names is there under that
  /// name), a removed entity of a hierarchy one of whose names the new version
  /// gives an entity, a removed relationship to an entity left out. A removed property is
  /// optional in the union, and a removed relationship nullifies on delete and keeps its inverse
  /// only when the union has it. Returns nil, refused, when the union is no valid model.
  mutating func makeUnion() -> (model: ObjectModel, schema: SQLiteSchema)? {
    let newNames = Set(destination.entities.map(\.name))
    // The union's name of each earlier entity it has.
    var unionName: [String: String] = [:]
    for (new, old) in earlierEntity { unionName[old] = new }
    for root in source.entities where root.parent == nil && laterEntity[root.name] == nil {
      let members = SQLiteSchema.hierarchy(root)
      guard !members.contains(where: { newNames.contains($0.name) }) else { continue }
      for member in members { unionName[member.name] = member.name }
    }
    // The property names the new version uses in each hierarchy, by root.
    var namesOfHierarchy: [String: Set<String>] = [:]
    for entity in destination.entities {
      namesOfHierarchy[Self.root(of: entity).name, default: []].formUnion(entity.propertyNames)
    }
    let keptRelationships = earlierRelationships().mapValues { Set($0.values) }

    var attributes: [String: [AttributeDescription]] = [:]  // by union entity
    // The previous names of attributes the union has under a stage's previous name.
    var aliases: [String: [String: String]] = [:]
    // The removed relationships the union has, with their earlier entity's name.
    var removed: [(entity: String, relationship: RelationshipDescription)] = []
    for old in source.entities {
      guard let name = unionName[old.name] else { continue }
      let taken =
        destination.entity(named: name).map { namesOfHierarchy[Self.root(of: $0).name] ?? [] }
        ?? []
      attributes[name] = old.attributes.compactMap { attribute in
        guard !attribute.isTransient, !(keptAttributes[name]?.contains(attribute.name) ?? false)
        else { return nil }
        // A name the new version takes: readable under the stage's previous name, if any.
        var union = attribute.name
        if taken.contains(attribute.name) {
          guard let alias = custom?.previousNames["\(name).\(attribute.name)"],
            !taken.contains(alias)
          else { return nil }
          aliases[name, default: [:]][alias] = attribute.name
          union = alias
        }
        return AttributeDescription(name: union, type: attribute.type, isOptional: true)
      }
      for relationship in old.relationships
      where !taken.contains(relationship.name)
        && !(keptRelationships[name]?.contains(relationship.name) ?? false)
        && unionName[relationship.destination] != nil
      {
        removed.append((old.name, relationship))
      }
    }
    let included = Set(removed.map { "\($0.entity).\($0.relationship.name)" })
    var relationships: [String: [RelationshipDescription]] = [:]  // by union entity
    for (entity, relationship) in removed {
      var inverse = RelationshipDescription.Inverse.noInverse
      if case .named(let name)? = relationship.inverse,
        let owner = source.entity(named: relationship.destination).flatMap({
          Self.declaring(name, from: $0)
        }),
        included.contains("\(owner.name).\(name)")
      {
        inverse = .named(name)
      }
      relationships[unionName[entity]!, default: []].append(
        RelationshipDescription(
          name: relationship.name, destination: unionName[relationship.destination]!,
          inverse: inverse, toMany: relationship.isToMany, ordered: relationship.isOrdered))
    }

    // Every property is optional in the union: existing objects have no value yet of what the
    // new version adds, and the stage's requirements check what it requires after `migrate`.
    var entities: [EntityDescription] = []
    for entity in destination.entities {
      let added = entity.attributes.map { attribute in
        var copy = attribute
        copy.isOptional = true
        return copy
      }
      let related = entity.relationships.map { relationship in
        var copy = relationship
        copy.isOptional = true
        copy.minCount = 0
        return copy
      }
      entities.append(
        EntityDescription(
          name: entity.name, parent: entity.parentName, isAbstract: entity.isAbstract,
          attributes: added + (attributes[entity.name] ?? []),
          relationships: related + (relationships[entity.name] ?? [])))
    }
    for old in source.entities where unionName[old.name] == old.name && !newNames.contains(old.name)
    {
      entities.append(
        EntityDescription(
          name: old.name, parent: old.parentName, isAbstract: old.isAbstract,
          attributes: attributes[old.name] ?? [], relationships: relationships[old.name] ?? []))
    }
    do {
      let model = try ObjectModel(entities: entities, fetchRequestTemplates: [])
      let retired = before.renamed(tables: duringTable, columns: duringColumn)
      return (
        model,
        SQLiteSchema(
          union: model, after: after, retired: retired, earlierEntity: earlierEntity,
          aliases: aliases)
      )
    } catch {
      refuseUnion(because: error)
      return nil
    }
  }

  /// The root of an entity's hierarchy.
  static func root(of entity: EntityDescription) -> EntityDescription {
    var root = entity
    while let parent = root.parent { root = parent }
    return root
  }

  /// The entity among `entity` and its ancestors that declares relationship `name`.
  static func declaring(_ name: String, from entity: EntityDescription) -> EntityDescription? {
    var next: EntityDescription? = entity
    while let current = next {
      if current.relationships.contains(where: { $0.name == name }) { return current }
      next = current.parent
    }
    return nil
  }
}
