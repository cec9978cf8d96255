import Foundation
import ObservedGraph

/// The tables an SQLite file holds for a model, and where each property lives in them: made from
/// the model alone, so the same model always gives the same schema.
///
/// - One table per entity hierarchy, named after its root entity: `og_pk` (the object's key,
///   `INTEGER PRIMARY KEY`), `og_entity` (the object's entity, an id of `og_entities`), then a
///   column per stored attribute and per to-one relationship of every entity of the hierarchy,
///   parents first and siblings by name. A name a later entity of the hierarchy declares again gets
///   a suffix (`name_2`). Transient attributes have no column.
/// - A to-one relationship is an `INTEGER` column holding the related object's key, with an index.
///   SQLite does not enforce it: a `noAction` delete may leave it naming an object that is gone.
///   When the destination entity has sub-entities, `<name>_entity` beside it holds the related
///   object's entity id (empty, as a migration leaves it: the destination itself).
/// - A to-many whose inverse is a to-one lives in the inverse's column; when it is ordered, the
///   destination's table also has `<inverse>_order`, the object's position.
/// - A many-to-many pair shares one join table `og_join_<Entity>_<relationship>`, named after the
///   side whose entity and name sort first: `source` and `target` keys (primary key together,
///   `target` indexed), and `source_order` / `target_order` for an ordered side. A to-many without
///   an inverse has a join table of its own.
/// - An attribute marked indexed (``AttributeDescription/isIndexed``) has an index on its column.
/// - `og_metadata` (key and value) and `og_entities` (id and name; in a new file, ids from 1 in
///   name order; an entity a migration adds takes the next id, and the others keep theirs).
///
/// Attribute columns, their SQLite types and how they sort:
///
/// | attribute type | column | value | sorts |
/// |---|---|---|---|
/// | `string`, `url` | `TEXT` | the string; a URL's absolute string | by code unit, unless a collation is given |
/// | `bool`, `int16` … `int` | `INTEGER` | 0 / 1; the number | numerically |
/// | `float`, `double` | `REAL` | the number | numerically |
/// | `decimal` | `TEXT` | its exact decimal text | as text: comparisons run in memory |
/// | `date` | `REAL` | seconds since 2001-01-01 UTC (Core Data's reference date) | in time order |
/// | `data`, `uuid`, `transformable` | `BLOB` | the bytes; a UUID's 16 bytes; the JSON | bytewise |
struct SQLiteSchema {
  /// One table.
  struct Table: Equatable {
    var name: String
    var columns: [Column]
    /// Columns of the primary key when it is not `og_pk`.
    var primaryKey: [String] = []
    /// Indexed columns, one index each.
    var indexed: [String] = []
  }

  struct Column: Equatable {
    var name: String
    var type: String
  }

  /// Where a property lives.
  enum Place: Equatable {
    /// An attribute's or a to-one's column in the entity's table.
    case column(table: String, column: String)
    /// A to-many held by the destination's to-one column (and its order column when ordered).
    case inverseColumn(table: String, column: String, order: String?)
    /// A to-many in a join table: this side's key column, the other side's, and this side's order
    /// column when ordered.
    case join(table: String, owner: String, member: String, order: String?)
    /// A transient attribute: no column.
    case notStored

    /// Whether the place keeps an order: an ordered to-many's.
    var isOrdered: Bool {
      switch self {
      case .inverseColumn(_, _, let order), .join(_, _, _, let order): order != nil
      case .column, .notStored: false
      }
    }
  }

  private(set) var tables: [Table] = []
  /// The table of each entity, by entity name.
  private(set) var tableOfEntity: [String: String] = [:]
  /// Each entity's id in `og_entities`, by entity name.
  private(set) var entityIDs: [String: Int] = [:]
  /// Where each property lives, by entity name and property name (inherited ones included).
  private(set) var places: [String: [String: Place]] = [:]
  /// The order column beside a to-one column whose inverse is ordered, by "table.column".
  private var orderColumns: [String: String] = [:]
  /// The entity column beside a to-one column whose destination has sub-entities, by
  /// "table.column": the related object's entity id, since its key alone does not say it.
  private(set) var entityColumns: [String: String] = [:]

  /// The schema of `model`, with the entity ids a file keeps (`og_entities`) when it has them:
  /// an entity the file does not name takes the next id after the largest (and at least
  /// `nextID`), in name order. A new file's ids are 1, 2, … in name order.
  init(model: ObjectModel, entityIDs kept: [String: Int] = [:], nextID: Int? = nil) {
    var next = max(nextID ?? 1, (kept.values.max() ?? 0) + 1)
    for entity in model.entities.sorted(by: { $0.name < $1.name }) {
      if let id = kept[entity.name] {
        entityIDs[entity.name] = id
      } else {
        entityIDs[entity.name] = next
        next += 1
      }
    }
    tables.append(
      Table(
        name: "og_metadata",
        columns: [Column(name: "key", type: "TEXT"), Column(name: "value", type: "")],
        primaryKey: ["key"]))
    tables.append(
      Table(
        name: "og_entities",
        columns: [Column(name: "id", type: "INTEGER"), Column(name: "name", type: "TEXT")],
        primaryKey: ["id"]))
    let roots = model.entities.filter { $0.parent == nil }.sorted { $0.name < $1.name }
    for root in roots { addHierarchy(root) }
    for root in roots {
      for entity in Self.hierarchy(root) { addToManyPlaces(entity, model: model) }
    }
    // Inherited properties live where their entity's parent put them.
    for entity in model.entities {
      var chain: [EntityDescription] = []
      var next: EntityDescription? = entity
      while let current = next {
        chain.append(current)
        next = current.parent
      }
      for ancestor in chain.dropFirst() {
        for (name, place) in places[ancestor.name] ?? [:] where places[entity.name]?[name] == nil {
          places[entity.name, default: [:]][name] = place
        }
      }
    }
  }

  /// This schema with tables and columns under other names: `tables` maps table names to new
  /// ones, `columns` a table's name (before the renames) to its columns' new names. A name
  /// without an entry stays.
  func renamed(tables: [String: String], columns: [String: [String: String]]) -> SQLiteSchema {
    func table(_ name: String) -> String { tables[name] ?? name }
    func column(_ table: String, _ name: String) -> String { columns[table]?[name] ?? name }
    func place(_ place: Place) -> Place {
      switch place {
      case .column(let t, let c): .column(table: table(t), column: column(t, c))
      case .inverseColumn(let t, let c, let order):
        .inverseColumn(table: table(t), column: column(t, c), order: order.map { column(t, $0) })
      case .join(let t, let owner, let member, let order):
        .join(
          table: table(t), owner: column(t, owner), member: column(t, member),
          order: order.map { column(t, $0) })
      case .notStored: .notStored
      }
    }
    func key(_ key: String) -> String {
      guard let dot = key.firstIndex(of: ".") else { return key }
      let t = String(key[..<dot])
      return "\(table(t)).\(column(t, String(key[key.index(after: dot)...])))"
    }
    var copy = self
    copy.tables = self.tables.map { old in
      Table(
        name: table(old.name),
        columns: old.columns.map { Column(name: column(old.name, $0.name), type: $0.type) },
        primaryKey: old.primaryKey.map { column(old.name, $0) },
        indexed: old.indexed.map { column(old.name, $0) })
    }
    copy.tableOfEntity = tableOfEntity.mapValues(table)
    copy.places = places.mapValues { $0.mapValues(place) }
    copy.orderColumns = Dictionary(
      uniqueKeysWithValues: orderColumns.map { entry in
        let t = String(entry.key.prefix { $0 != "." })
        return (key(entry.key), column(t, entry.value))
      })
    copy.entityColumns = Dictionary(
      uniqueKeysWithValues: entityColumns.map { entry in
        let t = String(entry.key.prefix { $0 != "." })
        return (key(entry.key), column(t, entry.value))
      })
    return copy
  }

  /// The schema of a custom migration stage's union model (see `MigrationStage`): each property
  /// where `after` (the new version's schema) places it, or else, for one that only the earlier
  /// version has, where `retired` does (the earlier version's schema under the names its tables
  /// and columns have while the stage runs); `earlierEntity` gives a kept entity's earlier name
  /// by its new one. A table of both holds the columns of both.
  ///
  /// `aliases` gives, by union entity, the previous name of each attribute the union has under
  /// another name (a custom stage's `previousNames`); its sub-entities inherit them.
  init(
    union model: ObjectModel, after: SQLiteSchema, retired: SQLiteSchema,
    earlierEntity: [String: String], aliases: [String: [String: String]] = [:]
  ) {
    tables = after.tables
    for table in retired.tables {
      if let index = tables.firstIndex(where: { $0.name == table.name }) {
        let names = Set(tables[index].columns.map(\.name))
        tables[index].columns += table.columns.filter { !names.contains($0.name) }
      } else {
        tables.append(table)
      }
    }
    entityColumns = after.entityColumns.merging(retired.entityColumns) { new, _ in new }
    orderColumns = after.orderColumns.merging(retired.orderColumns) { new, _ in new }
    for entity in model.entities {
      let earlier = earlierEntity[entity.name] ?? entity.name
      let inNewVersion = after.entityIDs[entity.name] != nil
      entityIDs[entity.name] =
        inNewVersion ? after.entityIDs[entity.name] : retired.entityIDs[earlier]
      tableOfEntity[entity.name] =
        inNewVersion ? after.tableOfEntity[entity.name] : retired.tableOfEntity[earlier]
      var declared: [String: String] = [:]  // alias → previous name, inherited ones too
      var next: EntityDescription? = entity
      while let current = next {
        declared.merge(aliases[current.name] ?? [:]) { own, _ in own }
        next = current.parent
      }
      for name in entity.propertyNames {
        places[entity.name, default: [:]][name] =
          (inNewVersion ? after.places[entity.name]?[name] : nil)
          ?? retired.places[earlier]?[declared[name] ?? name]
      }
    }
  }

  /// The root and its descendants, parents first, siblings by name.
  static func hierarchy(_ root: EntityDescription) -> [EntityDescription] {
    [root] + root.subentities.sorted { $0.name < $1.name }.flatMap(hierarchy)
  }

  private mutating func addHierarchy(_ root: EntityDescription) {
    var table = Table(
      name: root.name,
      columns: [Column(name: "og_pk", type: "INTEGER"), Column(name: "og_entity", type: "INTEGER")])
    var used: Set<String> = ["og_pk", "og_entity"]
    func column(_ name: String, _ type: String) -> String {
      var candidate = name
      var suffix = 2
      while used.contains(candidate) {
        candidate = "\(name)_\(suffix)"
        suffix += 1
      }
      used.insert(candidate)
      table.columns.append(Column(name: candidate, type: type))
      return candidate
    }
    for entity in Self.hierarchy(root) {
      tableOfEntity[entity.name] = root.name
      for attribute in entity.attributes {
        guard !attribute.isTransient else {
          places[entity.name, default: [:]][attribute.name] = .notStored
          continue
        }
        let name = column(attribute.name, Self.columnType(of: attribute.type))
        places[entity.name, default: [:]][attribute.name] = .column(table: root.name, column: name)
        if attribute.isIndexed { table.indexed.append(name) }
      }
      for relationship in entity.relationships where !relationship.isToMany {
        let name = column(relationship.name, "INTEGER")
        table.indexed.append(name)
        places[entity.name, default: [:]][relationship.name] = .column(
          table: root.name, column: name)
        if let destination = entity.destination(ofRelationship: relationship.name),
          !destination.subentities.isEmpty
        {
          entityColumns["\(root.name).\(name)"] = column("\(name)_entity", "INTEGER")
        }
        // An ordered to-many on the other side keeps each object's position beside its key.
        if case .named(let inverseName) = relationship.inverse,
          let inverse = entity.destination(ofRelationship: relationship.name)?.allRelationships
            .first(where: { $0.name == inverseName }),
          inverse.isToMany, inverse.isOrdered
        {
          orderColumns["\(root.name).\(name)"] = column("\(name)_order", "INTEGER")
        }
      }
    }
    tables.append(table)
  }

  private mutating func addToManyPlaces(_ entity: EntityDescription, model: ObjectModel) {
    for relationship in entity.relationships where relationship.isToMany {
      let destination = model.entity(named: relationship.destination)
      let inverse: RelationshipDescription? =
        if case .named(let name) = relationship.inverse {
          destination?.allRelationships.first { $0.name == name }
        } else { nil }
      if let inverse, !inverse.isToMany, let destination,
        case .column(let table, let column) = places[inverseOwner(destination, inverse.name)]?[
          inverse.name]
      {
        places[entity.name, default: [:]][relationship.name] = .inverseColumn(
          table: table, column: column,
          order: relationship.isOrdered ? orderColumns["\(table).\(column)"] : nil)
        continue
      }
      // A join table: named after the side whose entity and name sort first.
      let otherEntity = destination.map { inverseOwner($0, inverse?.name ?? "") } ?? ""
      let mine = (entity.name, relationship.name)
      let theirs = (otherEntity, inverse?.name ?? "")
      let isSource = inverse == nil || mine <= theirs
      let (sourceEntity, sourceName) = isSource ? mine : theirs
      let tableName = "og_join_\(sourceEntity)_\(sourceName)"
      if isSource {
        var columns = [
          Column(name: "source", type: "INTEGER"), Column(name: "target", type: "INTEGER"),
        ]
        if relationship.isOrdered { columns.append(Column(name: "source_order", type: "INTEGER")) }
        if inverse?.isOrdered == true {
          columns.append(Column(name: "target_order", type: "INTEGER"))
        }
        tables.append(
          Table(
            name: tableName, columns: columns, primaryKey: ["source", "target"], indexed: ["target"]
          ))
      }
      places[entity.name, default: [:]][relationship.name] = .join(
        table: tableName, owner: isSource ? "source" : "target",
        member: isSource ? "target" : "source",
        order: relationship.isOrdered ? (isSource ? "source_order" : "target_order") : nil)
    }
  }

  /// The entity that declares `name` among `entity` and its ancestors.
  private func inverseOwner(_ entity: EntityDescription, _ name: String) -> String {
    var next: EntityDescription? = entity
    while let current = next {
      if current.relationships.contains(where: { $0.name == name }) { return current.name }
      next = current.parent
    }
    return entity.name
  }

  /// The column type of an attribute type (see the table above).
  static func columnType(of type: AttributeType) -> String {
    switch type.name {
    case "string", "url", "decimal": "TEXT"
    case "bool", "int16", "int32", "int64", "int": "INTEGER"
    case "float", "double", "date": "REAL"
    default: "BLOB"  // data, uuid, transformable(…)
    }
  }

  // MARK: SQL

  /// The statements that create the indexes a file lacks (`IF NOT EXISTS`): an existing store
  /// whose model now marks an attribute indexed gets its index when it opens.
  var indexStatements: [String] {
    tables.flatMap { table in
      table.indexed.map { column in
        "CREATE INDEX IF NOT EXISTS \(Self.quoted("og_index_\(table.name)_\(column)")) ON "
          + "\(Self.quoted(table.name)) (\(Self.quoted(column)))"
      }
    }
  }

  /// The statements that create the schema in an empty file, in order.
  var statements: [String] { tables.flatMap(Self.statements(creating:)) }

  /// The statements that create one table and its indexes.
  static func statements(creating table: Table) -> [String] {
    var definitions = table.columns.map { column in
      let declared = column.type.isEmpty ? "" : " \(column.type)"
      let key = table.primaryKey.isEmpty && column.name == "og_pk" ? " PRIMARY KEY" : ""
      let required = column.name == "og_entity" || table.primaryKey.contains(column.name)
      return Self.quoted(column.name) + declared + key + (required ? " NOT NULL" : "")
    }
    if !table.primaryKey.isEmpty {
      definitions.append(
        "PRIMARY KEY (\(table.primaryKey.map(Self.quoted).joined(separator: ", ")))")
    }
    let create =
      "CREATE TABLE \(Self.quoted(table.name)) (\(definitions.joined(separator: ", ")))"
    return [create]
      + table.indexed.map { column in
        "CREATE INDEX \(Self.quoted("og_index_\(table.name)_\(column)")) ON "
          + "\(Self.quoted(table.name)) (\(Self.quoted(column)))"
      }
  }

  /// A name as an SQL identifier: in double quotes, a double quote doubled.
  static func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
