import Foundation
import ObservedGraph

/// The inferred stage between two consecutive model versions: the statements that turn a store
/// file of `source` into one of `destination`, or, when a change cannot be inferred, each change
/// that stops it (``refusals``). Nothing is written while a stage is inferred.
///
/// Inferred today: adding an attribute (optional, or with a default: existing objects take the
/// default), removing one, renaming one (``AttributeDescription/originalName``), optional to
/// non-optional with a default (objects without a value take it), non-optional to optional,
/// widening a number (``widens(_:to:)``), an index no longer wanted, moving one up or down its
/// hierarchy (``movedAttribute(_:_:)``); adding an entity (a new hierarchy, or under an existing
/// entity), removing a whole hierarchy (its table and its objects go) or an entity under one
/// that stays (its objects go, ``removals(under:_:_:)``), renaming one
/// (``EntityDescription/originalName``: its table and its id kept); adding an optional
/// relationship (existing objects have none), removing one (its column or join table goes),
/// renaming one (``RelationshipDescription/originalName``), moving one up or down its hierarchy
/// (`findMovedRelationships()`, `cleared(_:of:_:)`), turning a to-one into a to-many or
/// back while its inverse is a to-many or a to-one (``reshape``), a to-many made ordered (its
/// order column filled in key order, ``numbering(_:order:by:key:where:)``) or unordered. An
/// entity kept must keep its parent, and a relationship kept its shape. Columns are matched by
/// their place in the two schemas, not by name: a rename can move another column's `_2` suffix.
/// Entity ids are the file's: an entity kept keeps its id, and an added one takes the next after
/// the largest the file names.
///
/// What SQLite 3.40 does with each statement: `ADD COLUMN` with a constant default and
/// `RENAME COLUMN` change only the schema (no row is read or written); `DROP COLUMN` rewrites
/// the table, and the column's index is dropped first; an index on a renamed column is dropped
/// and made again under its new name when the store opens.
struct SQLiteMigrationStage {
  /// One statement of a stage.
  enum Step: Equatable {
    /// A statement without arguments.
    case execute(String)
    /// A statement with arguments.
    case run(String, [SQLiteValue])
    /// A query that must find no row: a row means the file's objects stop the stage (a to-many
    /// that becomes a to-one while an object has several related objects). Run before the
    /// stage writes anything.
    case refuseIf(String, MigrationRefusal)
    /// A statement that goes through every row of a table, named as it is before the stage:
    /// what a progress report counts.
    indirect case touching(String, Step)
  }

  let source: ObjectModel
  let destination: ObjectModel
  /// The app's code for the stage, when it has some.
  let custom: MigrationStage?
  /// The statements before a custom stage's `migrate`: checks of the file's objects, then what
  /// adds and renames (tables, columns, entity ids) and moves rows into new places.
  private(set) var steps: [Step] = []
  /// Checks after `migrate`: that every object has what the new version requires and the
  /// custom stage was to fill (empty without a custom stage).
  private(set) var requirements: [Step] = []
  /// The statements after `migrate`: what the new version removes is dropped.
  private(set) var drops: [Step] = []
  private(set) var refusals: [MigrationRefusal] = []
  /// The entity ids of the file after the stage: those of the entities it keeps (renamed ones
  /// included), and the next ones after the largest the file names for the entities it adds.
  let entityIDs: [String: Int]
  /// The schema of the file before the stage, and after it.
  let before: SQLiteSchema
  let after: SQLiteSchema
  /// The model and schema of a custom stage's `migrate` context: both versions' properties, where
  /// the file holds them between ``steps`` and ``drops``; nil without `migrate`.
  private(set) var union: (model: ObjectModel, schema: SQLiteSchema)?
  /// The previous version's name of each entity the stage keeps, by its new name: its
  /// ``EntityDescription/originalName`` when the previous version has it, or else its own name.
  let earlierEntity: [String: String]
  /// The new name of each entity the stage keeps, by its previous name.
  let laterEntity: [String: String]
  /// The new name of each table the stage keeps, by its previous name.
  private var laterTable: [String: String] = [:]
  /// The previous version's names of the attributes each kept entity keeps, by entity (new name).
  private(set) var keptAttributes: [String: Set<String>] = [:]
  /// The attributes the stage moves within their hierarchy, as "Entity.name" of the previous
  /// version: each moves to one entity.
  private var movedAttributes: Set<String> = []
  /// The relationships the stage moves within their hierarchy: by "Entity.name" of the new
  /// version, the entity that declared it and its name in the previous version.
  private(set) var movedRelationships: [String: (owner: String, name: String)] = [:]
  /// The same, by "Entity.name" of the previous version: the entity that declares it now.
  private var movedTo: [String: String] = [:]
  /// The name each table of the previous version has between ``steps`` and ``drops``, when it
  /// is not its previous name: its new name, or a temporary one for a table the stage drops
  /// whose name a kept or new table takes.
  private(set) var duringTable: [String: String] = [:]
  /// Likewise for columns, by previous table name and previous column name.
  private(set) var duringColumn: [String: [String: String]] = [:]

  /// Infers the stage from `source` to `destination`, for a file whose `og_entities` holds
  /// `entityIDs`. With a `custom` stage that has a `migrate` body, a new required attribute or
  /// relationship without a default is no refusal: `migrate` is to fill it, and
  /// ``requirements`` checks that it did.
  init(
    from source: ObjectModel, to destination: ObjectModel, entityIDs: [String: Int],
    custom: MigrationStage? = nil
  ) {
    self.source = source
    self.destination = destination
    self.custom = custom
    earlierEntity = Self.match(
      destination.entities.map { ($0.name, $0.originalName) }, in: Set(source.entities.map(\.name)))
    laterEntity = Dictionary(uniqueKeysWithValues: earlierEntity.map { ($1, $0) })
    let before = SQLiteSchema(model: source, entityIDs: entityIDs)
    let after = SQLiteSchema(
      model: destination, entityIDs: earlierEntity.compactMapValues { entityIDs[$0] },
      nextID: (entityIDs.values.max() ?? 0) + 1)
    self.before = before
    self.after = after
    self.entityIDs = after.entityIDs
    checkEntities()
    guard refusals.isEmpty else { return }
    for (new, old) in earlierEntity where destination.entity(named: new)!.parent == nil {
      laterTable[old] = new  // a hierarchy's table is named after its root
    }
    var renamed: [String: [String: String]] = [:]  // old table → old column → new column
    var defaults: [String: [String: SQLiteValue]] = [:]  // new table → new column → value
    var fills: [Step] = []
    var moves = Moves()
    findMovedRelationships()
    let relationships = earlierRelationships()
    for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
      // A new entity has no objects: its columns and tables are added empty.
      guard let old = earlierEntity[entity.name].flatMap(source.entity(named:)) else { continue }
      matchAttributes(
        of: entity, old, before, after, renamed: &renamed, defaults: &defaults, fills: &fills)
      matchRelationships(
        of: entity, old, before, after, relationships, renamed: &renamed, moves: &moves,
        fills: &fills)
    }
    guard refusals.isEmpty else { return }
    let stored = { (table: SQLiteSchema.Table) in
      !table.name.hasPrefix("og_") || table.name.hasPrefix("og_join_")
    }
    let removals = removals(under: before, after, relationships)
    steps += moves.checks + removals.checks
    let kept = before.tables.filter { stored($0) && laterTable[$0.name] != nil }
    let dropped = before.tables.filter { stored($0) && laterTable[$0.name] == nil }
    let earlierTable = Dictionary(uniqueKeysWithValues: laterTable.map { ($1, $0) })
    let created = after.tables.filter { stored($0) && earlierTable[$0.name] == nil }
    let newTables = Dictionary(uniqueKeysWithValues: after.tables.map { ($0.name, $0) })
    // An index is named after the table and column it was made on: the indexes of a table or
    // column that is renamed or dropped go first, so that no index the stage makes finds its
    // name taken. The store makes the kept ones again under their new names when it opens.
    for table in kept {
      let new = newTables[laterTable[table.name]!]!
      let mapping = Self.columnMapping(table, into: new, renamed: renamed[table.name] ?? [:])
      for column in table.indexed
      where table.name != new.name || mapping[column] != column
        || !new.indexed.contains(mapping[column] ?? "")
      {
        steps.append(.execute("DROP INDEX IF EXISTS \(Self.indexName(table.name, column))"))
      }
    }
    // A table the stage drops stays until `drops` (a custom stage's `migrate` reads it); one
    // whose name a kept or new table takes moves aside first.
    let taken = Set(kept.map { laterTable[$0.name]! } + created.map(\.name))
    for table in dropped where taken.contains(table.name) {
      for column in table.indexed {
        steps.append(.execute("DROP INDEX IF EXISTS \(Self.indexName(table.name, column))"))
      }
      let aside = "og_retired_table_\(duringTable.count)"
      duringTable[table.name] = aside
      steps.append(
        .execute(
          "ALTER TABLE \(SQLiteSchema.quoted(table.name)) RENAME TO \(SQLiteSchema.quoted(aside))"))
    }
    renameTables(kept: kept.map(\.name))
    for table in kept where laterTable[table.name] != table.name {
      duringTable[table.name] = laterTable[table.name]
    }
    // A new table's indexes are made after the rows that move into it: one sort each, not an
    // insert into them per row.
    let statements = created.map(SQLiteSchema.statements(creating:))
    steps += statements.map { Step.execute($0[0]) }
    steps += moves.intoTables
    steps += statements.flatMap { $0.dropFirst().map(Step.execute) }
    for table in kept {
      alter(
        table, into: newTables[laterTable[table.name]!]!, renamed: renamed[table.name] ?? [:],
        defaults: defaults[laterTable[table.name]!] ?? [:])
    }
    steps += moves.intoColumns
    steps += fills
    steps += removals.steps
    for (new, old) in earlierEntity.sorted(by: { $0.key < $1.key }) where new != old {
      steps.append(
        .run(
          #"UPDATE "og_entities" SET "name" = ? WHERE "id" = ?"#,
          [.text(new), .integer(Int64(after.entityIDs[new]!))]))
    }
    for name in Set(after.entityIDs.keys).subtracting(earlierEntity.keys).sorted() {
      steps.append(
        .run(
          #"INSERT INTO "og_entities" ("id", "name") VALUES (?, ?)"#,
          [.integer(Int64(after.entityIDs[name]!)), .text(name)]))
    }
    for table in dropped {
      drops.append(
        .execute("DROP TABLE \(SQLiteSchema.quoted(duringTable[table.name] ?? table.name))"))
    }
    for name in Set(before.entityIDs.keys).subtracting(laterEntity.keys).sorted() {
      drops.append(
        .run(
          #"DELETE FROM "og_entities" WHERE "id" = ?"#, [.integer(Int64(before.entityIDs[name]!))]))
    }
    if custom?.migrate != nil { union = makeUnion() }
  }

  /// The statements that move related objects between a to-one's column and a join table, when
  /// a relationship turns from to-one into to-many or back.
  struct Moves {
    /// Queries that must find no row, run first.
    var checks: [Step] = []
    /// Copies from old columns into new join tables (the columns are dropped after).
    var intoTables: [Step] = []
    /// Copies from old join tables into new columns (the tables are dropped after).
    var intoColumns: [Step] = []
  }

  /// Matches new names with the previous version's: a name whose original name the previous
  /// version has takes it (once), then a name the previous version has takes itself (unless a
  /// rename took it). Returns the previous name of each matched new name.
  static func match(_ names: [(name: String, original: String?)], in earlier: Set<String>)
    -> [String: String]
  {
    var matched: [String: String] = [:]
    var taken: Set<String> = []
    for (name, original) in names {
      if let original, earlier.contains(original), taken.insert(original).inserted {
        matched[name] = original
      }
    }
    for (name, _) in names where matched[name] == nil && earlier.contains(name) {
      if taken.insert(name).inserted { matched[name] = name }
    }
    return matched
  }

  /// The previous version's name of each relationship of each kept entity, by entity name (new)
  /// and relationship name (new).
  func earlierRelationships() -> [String: [String: String]] {
    var names: [String: [String: String]] = [:]
    for (new, old) in earlierEntity {
      names[new] = Self.match(
        destination.entity(named: new)!.relationships.map { ($0.name, $0.originalName) },
        in: Set(source.entity(named: old)!.relationships.map(\.name)))
    }
    for (key, moved) in movedRelationships {
      let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
      names[parts[0], default: [:]][parts[1]] = moved.name
    }
    return names
  }

  /// Finds the relationships a kept entity declares that its previous version did not, but an
  /// ancestor or a descendant of it did (under the relationship's original name): relationships
  /// moved up or down their hierarchy. One that several such entities declared is not moved.
  private mutating func findMovedRelationships() {
    for (new, earlier) in earlierEntity.sorted(by: { $0.key < $1.key }) {
      let old = source.entity(named: earlier)!
      let names = Set(old.relationships.map(\.name))
      for relationship in destination.entity(named: new)!.relationships {
        let name = relationship.originalName ?? relationship.name
        guard !names.contains(name), !names.contains(relationship.name) else { continue }
        let owners = source.entities.filter { other in
          (Self.isUnder(other, old) || Self.isUnder(old, other))
            && other.relationships.contains { $0.name == name }
        }
        guard owners.count == 1, movedTo["\(owners[0].name).\(name)"] == nil else { continue }
        movedRelationships["\(new).\(relationship.name)"] = (owners[0].name, name)
        movedTo["\(owners[0].name).\(name)"] = new
      }
    }
  }

  /// Renames the kept tables whose names change, through temporary names when a new name is one
  /// a table still has.
  private mutating func renameTables(kept: [String]) {
    let moves = kept.compactMap { old in laterTable[old].flatMap { $0 == old ? nil : (old, $0) } }
    let direct = moves.allSatisfy { !kept.contains($0.1) }
    for (index, (from, to)) in moves.enumerated() {
      steps.append(
        .execute(
          "ALTER TABLE \(SQLiteSchema.quoted(from)) RENAME TO "
            + SQLiteSchema.quoted(direct ? to : "og_migrating_table_\(index)")))
    }
    if !direct {
      for (index, (_, to)) in moves.enumerated() {
        steps.append(
          .execute(
            "ALTER TABLE \(SQLiteSchema.quoted("og_migrating_table_\(index)")) RENAME TO "
              + SQLiteSchema.quoted(to)))
      }
    }
  }

  // MARK: Inference

  /// Entities added and removed are inferred when no existing object changes entity: a new
  /// entity (of a new hierarchy or under an existing entity) starts empty, a removed hierarchy
  /// takes its table with it, and a removed entity under one that stays its objects
  /// (``removals(under:_:_:)``). An entity kept (renamed or not) must keep its parent and
  /// abstractness.
  private mutating func checkEntities() {
    for (name, earlier) in earlierEntity.sorted(by: { $0.key < $1.key }) {
      let old = source.entity(named: earlier)!
      let new = destination.entity(named: name)!
      let parent = old.parentName.map { laterEntity[$0] ?? "(removed) \($0)" }
      if parent != new.parentName || old.isAbstract != new.isAbstract {
        refuse(
          name, nil,
          "parent \(old.parentName ?? "none") → \(new.parentName ?? "none"), abstract "
            + "\(old.isAbstract) → \(new.isAbstract)",
          needs: "a migration this version does not infer yet (changes of inheritance)")
      }
    }
  }

  /// The statements that delete the objects of the entities removed from under an entity that
  /// stays (their rows of the hierarchy's table; their columns go with the stage's drops), after
  /// the relationships that may hold them let go: a to-one whose destination is an ancestor of
  /// theirs is emptied where it names one (refused when it is required), and their join-table
  /// rows go, on either side. Keys are unique in a store, so a key of theirs names no other
  /// object. The checks run first, on the file as it is; the steps after the renames, with the
  /// new names. `earlierNames` gives each kept relationship's previous name.
  private func removals(
    under before: SQLiteSchema, _ after: SQLiteSchema,
    _ earlierNames: [String: [String: String]]
  ) -> (checks: [Step], steps: [Step]) {
    let quoted = SQLiteSchema.quoted
    var checks: [Step] = []
    var steps: [Step] = []
    for removed in source.entities.sorted(by: { $0.name < $1.name })
    where laterEntity[removed.name] == nil
      && removed.parent.flatMap({ laterEntity[$0.name] }) != nil
    {
      var ancestors: Set<String> = []  // new names
      var parent = removed.parent
      while let next = parent {
        if let name = laterEntity[next.name] { ancestors.insert(name) }
        parent = next.parent
      }
      guard !ancestors.isEmpty, let oldTable = before.tableOfEntity[removed.name] else { continue }
      let table = laterTable[oldTable] ?? oldTable
      let ids = before.entityIDs(ofHierarchyUnder: removed).map(String.init)
        .joined(separator: ", ")
      let keys = "(SELECT \"og_pk\" FROM \(quoted(table)) WHERE \"og_entity\" IN (\(ids)))"
      for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
        for relationship in entity.relationships {
          let holds = ancestors.contains(relationship.destination)
          switch after.places[entity.name]?[relationship.name] {
          case .column(let other, let column)? where holds:
            // A required to-one kept from the previous version (a new one names no object).
            if !relationship.isOptional, let oldEntity = earlierEntity[entity.name],
              let oldName = earlierNames[entity.name]?[relationship.name],
              case .column(let oldOther, let oldColumn)? = before.places[oldEntity]?[oldName]
            {
              checks.append(
                .refuseIf(
                  "SELECT 1 FROM \(quoted(oldOther)) WHERE \(quoted(oldColumn)) IN (SELECT "
                    + "\"og_pk\" FROM \(quoted(oldTable)) WHERE \"og_entity\" IN (\(ids))) LIMIT 1",
                  MigrationRefusal(
                    from: source.version, to: destination.version, entity: entity.name,
                    property: relationship.name,
                    change: "relates objects of \(removed.name), which is removed",
                    needs: "a custom stage: the relationship is required")))
            }
            steps.append(
              Self.emptying(other, column, after, where: "\(quoted(column)) IN \(keys)"))
          case .join(let join, let owner, let member, _)?:
            if holds {
              steps.append(
                .execute("DELETE FROM \(quoted(join)) WHERE \(quoted(member)) IN \(keys)"))
            }
            if ancestors.contains(entity.name) {
              steps.append(
                .execute("DELETE FROM \(quoted(join)) WHERE \(quoted(owner)) IN \(keys)"))
            }
          default:
            break
          }
        }
      }
      steps.append(
        .touching(
          oldTable, .execute("DELETE FROM \(quoted(table)) WHERE \"og_entity\" IN (\(ids))")))
    }
    return (checks, steps)
  }

  /// Matches the attributes an entity declares with those of its previous version: renamed,
  /// added, removed, or made optional or required.
  private mutating func matchAttributes(
    of entity: EntityDescription, _ old: EntityDescription, _ before: SQLiteSchema,
    _ after: SQLiteSchema, renamed: inout [String: [String: String]],
    defaults: inout [String: [String: SQLiteValue]], fills: inout [Step]
  ) {
    let names = Self.match(
      entity.attributes.map { ($0.name, $0.originalName) }, in: Set(old.attributes.map(\.name)))
    let quoted = SQLiteSchema.quoted
    for attribute in entity.attributes {
      var owner = old
      var earlier = names[attribute.name].flatMap { name in
        old.attributes.first { $0.name == name }
      }
      if earlier == nil, let moved = movedAttribute(attribute.originalName ?? attribute.name, old) {
        (owner, earlier) = moved
      }
      guard let earlier else {
        added(attribute, of: entity, after, defaults: &defaults)
        continue
      }
      keptAttributes[entity.name, default: []].insert(earlier.name)
      let movedUp = owner.name != old.name && Self.isUnder(owner, old)
      let movedDown = owner.name != old.name && !movedUp
      var change = earlier.name == attribute.name ? "" : "renamed from \(earlier.name), "
      if owner.name != old.name { change += "moved from \(owner.name), " }
      if earlier.isTransient != attribute.isTransient {
        refuse(
          entity.name, attribute.name,
          change + (attribute.isTransient ? "made transient" : "no longer transient"),
          needs: "a migration this version does not infer yet")
        continue
      }
      if earlier.type != attribute.type && !Self.widens(earlier.type, to: attribute.type) {
        // A custom stage converts the values: the attribute is a new one, and the previous one
        // is removed (`migrate` reads it under a name of the stage's `previousNames`).
        if custom?.migrate != nil, owner.name == old.name {
          keptAttributes[entity.name]?.remove(earlier.name)
          added(attribute, of: entity, after, defaults: &defaults)
          continue
        }
        refuse(
          entity.name, attribute.name, change + "type \(earlier.type) → \(attribute.type)",
          needs: "a custom stage that converts the values (its migrate reads the previous ones "
            + "under a name of its previousNames)"
            + (Self.isInteger(earlier.type) && attribute.type == .double
              ? ": a double does not hold every integer above 2^53" : ""))
        continue
      }
      guard !attribute.isTransient,
        case .column(let table, let oldColumn)? = before.places[owner.name]?[earlier.name],
        case .column(let newTable, let newColumn)? = after.places[entity.name]?[attribute.name]
      else { continue }
      renamed[table, default: [:]][oldColumn] = newColumn
      let ids = after.entityIDs(ofHierarchyUnder: entity).map(String.init)
        .joined(separator: ", ")
      if movedDown {
        // The objects of the entities the attribute no longer reaches lose their values.
        fills.append(
          .touching(
            table,
            .execute(
              "UPDATE \(quoted(newTable)) SET \(quoted(newColumn)) = NULL WHERE "
                + "\(quoted(newColumn)) IS NOT NULL AND \"og_entity\" NOT IN (\(ids))")))
      }
      // Objects without a value take the default: those the attribute now reaches (moved up),
      // or all (made required).
      guard movedUp || (earlier.isOptional && !attribute.isOptional),
        let value = defaultValue(of: attribute, entity)
      else { continue }
      guard value != .null else {
        if !attribute.isOptional {
          require(
            entity, attribute.name, after,
            change + (movedUp ? "not optional" : "optional → not optional"),
            needs: "a default value, which objects without a value take")
        }
        continue
      }
      fills.append(
        .touching(
          table,
          .run(
            "UPDATE \(quoted(newTable)) SET \(quoted(newColumn)) = ? WHERE \(quoted(newColumn)) "
              + "IS NULL AND \"og_entity\" IN (\(ids))", [value])))
    }
  }

  /// The attribute named `name` that an ancestor or a descendant of `old` declares in the
  /// previous version, with its entity: one the new version moves within the hierarchy. Nil
  /// when none does, or several do, or another attribute of the stage took it.
  private mutating func movedAttribute(_ name: String, _ old: EntityDescription)
    -> (EntityDescription, AttributeDescription)?
  {
    var related: [EntityDescription] = []
    var parent = old.parent
    while let next = parent {
      related.append(next)
      parent = next.parent
    }
    var pending = old.subentities
    while let next = pending.popLast() {
      related.append(next)
      pending += next.subentities
    }
    let found = related.compactMap { entity in
      entity.attributes.first { $0.name == name }.map { (entity, $0) }
    }
    guard found.count == 1, movedAttributes.insert("\(found[0].0.name).\(name)").inserted
    else { return nil }
    return found[0]
  }

  /// Whether `entity` is under `ancestor` (a descendant of it).
  static func isUnder(_ entity: EntityDescription, _ ancestor: EntityDescription) -> Bool {
    var parent = entity.parent
    while let next = parent {
      if next.name == ancestor.name { return true }
      parent = next.parent
    }
    return false
  }

  /// Whether values of `from` are values of `to` as they are stored: a wider integer
  /// (`int16` → `int32` → `int64`, `int`), or `float` → `double`. Both keep the column's SQLite
  /// type (`INTEGER`, `REAL`), so no row changes.
  static func widens(_ from: AttributeType, to: AttributeType) -> Bool {
    let integers: [AttributeType] = [.int16, .int32, .int64]
    if let narrow = integers.firstIndex(of: from == .int ? .int64 : from),
      let wide = integers.firstIndex(of: to == .int ? .int64 : to)
    {
      return narrow <= wide
    }
    return from == .float && to == .double
  }

  static func isInteger(_ type: AttributeType) -> Bool {
    [.int16, .int32, .int64, .int].contains(type)
  }

  /// An attribute the previous version did not have: its column, with the default (if any) as
  /// every existing object's value.
  private mutating func added(
    _ attribute: AttributeDescription, of entity: EntityDescription, _ after: SQLiteSchema,
    defaults: inout [String: [String: SQLiteValue]]
  ) {
    guard !attribute.isTransient,
      case .column(let table, let column)? = after.places[entity.name]?[attribute.name],
      let value = defaultValue(of: attribute, entity)
    else { return }
    if value == .null && !attribute.isOptional {
      require(
        entity, attribute.name, after, "added, not optional",
        needs: "a default value, which existing objects take")
      return
    }
    defaults[table, default: [:]][column] = value
  }

  /// An attribute's default as SQLite keeps it (`.null` for none); nil, refused, when SQLite
  /// cannot keep it.
  private mutating func defaultValue(
    of attribute: AttributeDescription, _ entity: EntityDescription
  ) -> SQLiteValue? {
    guard let value = attribute.defaultValue else { return .null }
    do {
      return try ColumnValue.sqlite(try attribute.type.storedValue(of: value), lengthLimit: .max)
    } catch {
      refuse(
        entity.name, attribute.name, "default value \(value)",
        needs: "a default value SQLite can keep (not NaN)")
      return nil
    }
  }

  /// Relationships added (optional ones: existing objects have none), removed and renamed
  /// (``RelationshipDescription/originalName``) are inferred; one kept must keep its shape (its
  /// destination and inverse may be renamed), and its columns and join table may move: a `_2`
  /// suffix, a join table named after a renamed entity or relationship, its sides swapped.
  private mutating func matchRelationships(
    of entity: EntityDescription, _ old: EntityDescription, _ before: SQLiteSchema,
    _ after: SQLiteSchema, _ earlierNames: [String: [String: String]],
    renamed: inout [String: [String: String]], moves: inout Moves, fills: inout [Step]
  ) {
    let names = earlierNames[entity.name] ?? [:]
    for relationship in entity.relationships {
      // The entity that declared it: its own previous version, or the one it moved from.
      let moved = movedRelationships["\(entity.name).\(relationship.name)"]
      let owner = moved.flatMap { source.entity(named: $0.owner) } ?? old
      guard let earlierName = names[relationship.name],
        let was = owner.relationships.first(where: { $0.name == earlierName })
      else {
        let name = relationship.originalName ?? relationship.name
        if let owner = source.entities.first(where: { other in
          (Self.isUnder(other, old) || Self.isUnder(old, other))
            && other.relationships.contains { $0.name == name }
        }) {
          refuse(
            entity.name, relationship.name,
            "moved from \(owner.name), as several entities of "
              + "the hierarchy declared it",
            needs: "a migration this version does not infer yet")
          continue
        }
        let required =
          relationship.isToMany ? relationship.minCount > 0 : !relationship.isOptional
        if required {
          require(
            entity, relationship.name, after, "required relationship added",
            needs: "a custom stage: existing objects have no related object")
        }
        continue
      }
      let change = earlierName == relationship.name ? "" : "renamed from \(earlierName), "
      let wasLine = line(was, renamingTo: earlierNames)
      let nowLine = Self.line(relationship)
      // Unordered ↔ ordered: the same places, with an order column added (filled in key order)
      // or dropped.
      var reordered = was
      reordered.isOrdered = relationship.isOrdered
      let orderChanges =
        was.isOrdered != relationship.isOrdered
        && line(reordered, renamingTo: earlierNames) == nowLine
      if wasLine != nowLine, !orderChanges,
        reshape(
          entity, relationship, was: was, owner, before, after, renamingTo: earlierNames,
          moves: &moves)
      {
        continue
      }
      guard wasLine == nowLine || orderChanges else {
        refuse(
          entity.name, relationship.name, change + "relationship \(wasLine) → \(nowLine)",
          needs: "a migration this version does not infer yet (relationship changes)")
        continue
      }
      if moved != nil, Self.isUnder(old, owner) {
        fills += cleared(relationship, of: entity, after)
      }
      switch (
        before.places[owner.name]?[earlierName], after.places[entity.name]?[relationship.name]
      ) {
      case (.column(let table, let oldColumn)?, .column(let newTable, let newColumn)?):
        renamed[table, default: [:]][oldColumn] = newColumn
        // A to-one whose destination gains its first sub-entity gets the entity column beside
        // it, empty: the store reads an empty one as the destination itself, which is what every
        // reference made before the stage is — unless the destination moved up its hierarchy
        // (the inverse of a relationship moved up): then it is filled from the objects' rows.
        let newEntity = after.entityColumns["\(newTable).\(newColumn)"]
        if let oldEntity = before.entityColumns["\(table).\(oldColumn)"], let newEntity {
          renamed[table, default: [:]][oldEntity] = newEntity
        } else if let newEntity, laterEntity[was.destination] != relationship.destination,
          let target = after.tableOfEntity[relationship.destination]
        {
          let quoted = SQLiteSchema.quoted
          fills.append(
            .touching(
              table,
              .execute(
                "UPDATE \(quoted(newTable)) SET \(quoted(newEntity)) = (SELECT \"og_entity\" FROM "
                  + "\(quoted(target)) WHERE \(quoted(target)).\"og_pk\" = "
                  + "\(quoted(newTable)).\(quoted(newColumn))) WHERE \(quoted(newColumn)) IS NOT NULL"
              )))
        }
      case (
        .inverseColumn(let table, let oldColumn, let oldOrder)?,
        .inverseColumn(let newTable, let newColumn, let newOrder)?
      ):
        renamed[table, default: [:]][oldColumn] = newColumn
        if let oldOrder, let newOrder { renamed[table, default: [:]][oldOrder] = newOrder }
        if oldOrder == nil, let newOrder {
          fills.append(
            .touching(
              table,
              Self.numbering(
                newTable, order: newOrder, by: newColumn, key: "og_pk",
                where: "\(SQLiteSchema.quoted(newColumn)) IS NOT NULL")))
        }
      case (
        .join(let table, let oldOwner, let oldMember, let oldOrder)?,
        .join(let newTable, let newOwner, let newMember, let newOrder)?
      ):
        laterTable[table] = newTable
        renamed[table, default: [:]][oldOwner] = newOwner
        renamed[table, default: [:]][oldMember] = newMember
        if let oldOrder, let newOrder { renamed[table, default: [:]][oldOrder] = newOrder }
        if oldOrder == nil, let newOrder {
          fills.append(
            .touching(
              table,
              Self.numbering(newTable, order: newOrder, by: newOwner, key: newMember, where: nil)))
        }
      default:
        break
      }
    }
  }

  /// The statements that let go of what a relationship moved down its hierarchy no longer
  /// reaches: its values on the objects outside `entity`'s hierarchy, and what names those
  /// objects through it (a one-to-one's other column, the column of a to-many's members, the
  /// join-table rows they own). With the new names: run after the renames.
  private func cleared(
    _ relationship: RelationshipDescription, of entity: EntityDescription, _ after: SQLiteSchema
  ) -> [Step] {
    let quoted = SQLiteSchema.quoted
    let table = after.tableOfEntity[entity.name]!
    let ids = after.entityIDs(ofHierarchyUnder: entity).map(String.init).joined(separator: ", ")
    let outside = "(SELECT \"og_pk\" FROM \(quoted(table)) WHERE \"og_entity\" NOT IN (\(ids)))"
    var steps: [Step] = []
    func clear(_ table: String, _ column: String, where condition: String) {
      steps.append(Self.emptying(table, column, after, where: condition))
    }
    switch after.places[entity.name]?[relationship.name] {
    case .column(let table, let column)?:
      clear(table, column, where: "\(quoted(column)) IS NOT NULL AND \"og_entity\" NOT IN (\(ids))")
      if case .named(let name)? = relationship.inverse,
        let inverse = destination.entity(named: relationship.destination)?.allRelationships
          .first(where: { $0.name == name }), !inverse.isToMany,
        case .column(let other, let otherColumn)? = after.places[relationship.destination]?[name]
      {
        clear(other, otherColumn, where: "\(quoted(otherColumn)) IN \(outside)")
      }
    case .inverseColumn(let table, let column, _)?:
      clear(table, column, where: "\(quoted(column)) IN \(outside)")
    case .join(let join, let owner, _, _)?:
      steps.append(.execute("DELETE FROM \(quoted(join)) WHERE \(quoted(owner)) IN \(outside)"))
    case .notStored?, nil:
      break
    }
    return steps
  }

  /// The statement that empties a to-one's column, and the entity column beside it, in the
  /// rows of `table` that meet `condition` (names of `after`).
  static func emptying(
    _ table: String, _ column: String, _ after: SQLiteSchema, where condition: String
  ) -> Step {
    let quoted = SQLiteSchema.quoted
    let entityColumn = after.entityColumns["\(table).\(column)"].map { ", \(quoted($0)) = NULL" }
    return .execute(
      "UPDATE \(quoted(table)) SET \(quoted(column)) = NULL\(entityColumn ?? "") WHERE \(condition)"
    )
  }

  /// The statement that gives each row of `table` its position (from 0) among the rows with
  /// the same `owner`, in the order of `key`: an ordered to-many's initial order, by key.
  static func numbering(
    _ table: String, order: String, by owner: String, key: String, where condition: String?
  ) -> Step {
    let quoted = SQLiteSchema.quoted
    return .execute(
      "UPDATE \(quoted(table)) SET \(quoted(order)) = \"og_numbered\".\"position\" FROM (SELECT "
        + "\(quoted(owner)) AS \"owner\", \(quoted(key)) AS \"key\", row_number() OVER (PARTITION "
        + "BY \(quoted(owner)) ORDER BY \(quoted(key))) - 1 AS \"position\" FROM \(quoted(table))"
        + (condition.map { " WHERE \($0)" } ?? "") + ") AS \"og_numbered\" WHERE "
        + "\(quoted(table)).\(quoted(owner)) = \"og_numbered\".\"owner\" AND "
        + "\(quoted(table)).\(quoted(key)) = \"og_numbered\".\"key\"")
  }

  /// Moves a relationship that turns from to-one into to-many (ordered or not: each object's
  /// one related object is at position 0), or back. While its inverse is a to-many
  /// (one-to-many ↔ many-to-many; an ordered one's positions move with the pairs), or it has
  /// none, the related objects move from the to-one's column into the new join table, or from
  /// the join table into the new column; while the
  /// inverse is a to-one (one-to-one ↔ one-to-many) the inverse's column holds the pairs, and
  /// the to-one's column is dropped, or added and filled from it. The way to a to-one is
  /// refused, before the stage writes, when an object has more than one. Returns false for any
  /// other change.
  private func reshape(
    _ entity: EntityDescription, _ relationship: RelationshipDescription,
    was: RelationshipDescription, _ old: EntityDescription, _ before: SQLiteSchema,
    _ after: SQLiteSchema, renamingTo earlierNames: [String: [String: String]],
    moves: inout Moves
  ) -> Bool {
    var reshaped = was
    reshaped.isToMany = relationship.isToMany
    reshaped.minCount = relationship.minCount
    reshaped.maxCount = relationship.maxCount
    reshaped.isOptional = relationship.isOptional
    reshaped.isOrdered = relationship.isOrdered
    guard was.isToMany != relationship.isToMany,
      line(reshaped, renamingTo: earlierNames) == Self.line(relationship)
    else { return false }
    // The inverse, when there is one, and where an ordered one keeps its positions before and
    // after: beside the to-one's column, or in the join table.
    var inverse: RelationshipDescription?
    var positions: (before: String?, after: String?) = (nil, nil)
    if case .named(let inverseName)? = relationship.inverse {
      guard
        let found = destination.entity(named: relationship.destination)?.allRelationships
          .first(where: { $0.name == inverseName })
      else { return false }
      inverse = found
      if found.isToMany, found.isOrdered, case .named(let earlierInverse)? = was.inverse {
        positions = (
          before.places[was.destination]?[earlierInverse].flatMap(Self.orderColumn),
          after.places[relationship.destination]?[inverseName].flatMap(Self.orderColumn)
        )
        guard positions.before != nil, positions.after != nil else { return false }
      }
    }
    let ids = after.entityIDs(ofHierarchyUnder: entity).map(String.init).joined(separator: ", ")
    let quoted = SQLiteSchema.quoted
    let refusal = MigrationRefusal(
      from: source.version, to: destination.version, entity: entity.name,
      property: relationship.name, change: "to-many → to-one",
      needs: "a custom stage: an object has more than one related object")
    if let inverse, !inverse.isToMany {
      // One-to-one ↔ one-to-many: the inverse's column holds every pair either way.
      switch (before.places[old.name]?[was.name], after.places[entity.name]?[relationship.name]) {
      case (.column?, .inverseColumn(let table, let column, let order)?):
        // This side's column is dropped with the stage; an ordered to-many's one member is
        // at position 0.
        if let order {
          moves.intoColumns.append(
            .execute(
              "UPDATE \(quoted(table)) SET \(quoted(order)) = 0 WHERE \(quoted(column)) IS NOT "
                + "NULL"))
        }
        return true
      case (
        .inverseColumn(let oldTable, let oldColumn, _)?, .column(let table, let column)?
      ):
        guard
          case .column(let inverseTable, let inverseColumn)? = after.places[
            relationship.destination]?[inverse.name]
        else { return false }
        moves.checks.append(
          .refuseIf(
            "SELECT \(quoted(oldColumn)) FROM \(quoted(oldTable)) WHERE \(quoted(oldColumn)) IS "
              + "NOT NULL GROUP BY \(quoted(oldColumn)) HAVING count(*) > 1 LIMIT 1", refusal))
        let earlier = laterTable.first { $0.value == table }?.key ?? table
        // One pass over the pairs, each owner's row found by its key: no index needed (the
        // inverse column's may be gone, dropped for a rename in the same stage).
        let entityColumn = after.entityColumns["\(table).\(column)"]
        moves.intoColumns.append(
          .touching(
            earlier,
            .execute(
              "UPDATE \(quoted(table)) SET \(quoted(column)) = \"og_pairs\".\"key\""
                + (entityColumn.map { ", \(quoted($0)) = \"og_pairs\".\"entity\"" } ?? "")
                + " FROM (SELECT \(quoted(inverseColumn)) AS \"owner\", \"og_pk\" AS \"key\", "
                + "\"og_entity\" AS \"entity\" FROM \(quoted(inverseTable)) WHERE "
                + "\(quoted(inverseColumn)) IS NOT NULL) AS \"og_pairs\" WHERE "
                + "\(quoted(table)).\"og_pk\" = \"og_pairs\".\"owner\" AND "
                + "\(quoted(table)).\"og_entity\" IN (\(ids))")))
        return true
      default:
        return false
      }
    }
    switch (before.places[old.name]?[was.name], after.places[entity.name]?[relationship.name]) {
    case (.column(let table, let column)?, .join(let join, let owner, let member, let order)?):
      // Read after the tables' renames, before the column is dropped. An ordered to-many's one
      // member is at position 0.
      let source = laterTable[table] ?? table
      var columns = [owner, member].map(quoted)
      var values = ["\"og_pk\"", quoted(column)]
      if let order {
        columns.append(quoted(order))
        values.append("0")
      }
      // An ordered inverse's positions move from beside the column into the join table.
      if let from = positions.before, let to = positions.after {
        columns.append(quoted(to))
        values.append(quoted(from))
      }
      moves.intoTables.append(
        .touching(
          table,
          .execute(
            "INSERT INTO \(quoted(join)) (\(columns.joined(separator: ", "))) SELECT "
              + "\(values.joined(separator: ", ")) FROM \(quoted(source)) WHERE "
              + "\(quoted(column)) IS NOT NULL AND \"og_entity\" IN (\(ids))")))
      return true
    case (.join(let join, let owner, let member, _)?, .column(let table, let column)?):
      moves.checks.append(
        .refuseIf(
          "SELECT \(quoted(owner)) FROM \(quoted(join)) GROUP BY \(quoted(owner)) "
            + "HAVING count(*) > 1 LIMIT 1",
          refusal))
      // Counted under the table's name before the stage.
      let earlier = laterTable.first { $0.value == table }?.key ?? table
      // One pass over the join table, each owner's row found by its key (no index needed); an
      // ordered inverse's positions move from the join table to beside the column.
      let position = positions.before.map { from in
        (
          ", \(quoted(positions.after!)) = \"og_pairs\".\"position\"",
          ", \(quoted(from)) AS \"position\""
        )
      }
      moves.intoColumns.append(
        .touching(
          earlier,
          .execute(
            "UPDATE \(quoted(table)) SET \(quoted(column)) = \"og_pairs\".\"member\"\(position?.0 ?? "") "
              + "FROM (SELECT \(quoted(owner)) AS \"owner\", \(quoted(member)) AS \"member\""
              + "\(position?.1 ?? "") FROM \(quoted(join))) AS \"og_pairs\" WHERE "
              + "\(quoted(table)).\"og_pk\" = \"og_pairs\".\"owner\" AND "
              + "\(quoted(table)).\"og_entity\" IN (\(ids))")))
      if let entityColumn = after.entityColumns["\(table).\(column)"],
        let root = after.tableOfEntity[relationship.destination]
      {
        moves.intoColumns.append(
          .execute(
            "UPDATE \(quoted(table)) SET \(quoted(entityColumn)) = (SELECT \"og_entity\" FROM "
              + "\(quoted(root)) WHERE \(quoted(root)).\"og_pk\" = \(quoted(table)).\(quoted(column))) "
              + "WHERE \(quoted(column)) IS NOT NULL"))
      }
      return true
    default:
      return false
    }
  }

  /// The column that keeps an ordered to-many's positions, in its place.
  static func orderColumn(_ place: SQLiteSchema.Place) -> String? {
    switch place {
    case .inverseColumn(_, _, let order), .join(_, _, _, let order): order
    case .column, .notStored: nil
    }
  }

  /// A relationship of the previous version as ``line(_:)`` describes it, with its destination
  /// and inverse under their new names.
  private func line(
    _ relationship: RelationshipDescription, renamingTo earlierNames: [String: [String: String]]
  ) -> String {
    var renamed = relationship
    var destination = laterEntity[relationship.destination]
    // The inverse of a relationship moved within its hierarchy points at the entity it moved to.
    if case .named(let inverse)? = relationship.inverse,
      let owner = source.entity(named: relationship.destination).flatMap({
        SQLiteMigrationStage.declaring(inverse, from: $0)
      }),
      let moved = movedTo["\(owner.name).\(inverse)"]
    {
      destination = moved
    }
    renamed.destination = destination ?? "(removed) \(relationship.destination)"
    if case .named(let inverse)? = relationship.inverse {
      let later = destination.flatMap { earlierNames[$0]?.first { $0.value == inverse }?.key }
      renamed.inverse = .named(later ?? "(removed) \(inverse)")
    }
    return Self.line(renamed)
  }

  /// A relationship as the version hash describes it.
  private static func line(_ relationship: RelationshipDescription) -> String {
    let inverse =
      switch relationship.inverse {
      case .named(let name)?: name
      case .noInverse?: "none"
      case nil: "-"
      }
    return "\(relationship.destination) inverse:\(inverse) "
      + "\(relationship.isToMany ? "to-many" : "to-one") ordered:\(relationship.isOrdered) "
      + "optional:\(relationship.isOptional) count:\(relationship.minCount)-\(relationship.maxCount)"
  }

  /// A property every object of `entity` must have a value of after the stage, when existing
  /// objects have none: refused without a custom stage's `migrate`, which is to fill it; with one,
  /// a check after `migrate` (``requirements``) that no object is left without.
  private mutating func require(
    _ entity: EntityDescription, _ property: String, _ after: SQLiteSchema, _ change: String,
    needs: String
  ) {
    guard custom?.migrate != nil else {
      refuse(entity.name, property, change, needs: needs)
      return
    }
    let quoted = SQLiteSchema.quoted
    let ids = after.entityIDs(ofHierarchyUnder: entity).map(String.init).joined(separator: ", ")
    let minimum = entity.allRelationships.first { $0.name == property }.map { max($0.minCount, 1) }
    let lacking: String
    switch after.places[entity.name]?[property] {
    case .column(_, let column)?:
      lacking = "\(quoted(column)) IS NULL"
    case .inverseColumn(let table, let column, _)?:
      lacking =
        "(SELECT count(*) FROM \(quoted(table)) AS \"m\" WHERE \"m\".\(quoted(column)) = "
        + "\"o\".\"og_pk\") < \(minimum ?? 1)"
    case .join(let table, let owner, _, _)?:
      lacking =
        "(SELECT count(*) FROM \(quoted(table)) AS \"m\" WHERE \"m\".\(quoted(owner)) = "
        + "\"o\".\"og_pk\") < \(minimum ?? 1)"
    case .notStored?, nil:
      return
    }
    requirements.append(
      .refuseIf(
        "SELECT 1 FROM \(quoted(after.tableOfEntity[entity.name]!)) AS \"o\" WHERE "
          + "\"o\".\"og_entity\" IN (\(ids)) AND \(lacking) LIMIT 1",
        MigrationRefusal(
          from: source.version, to: destination.version, entity: entity.name, property: property,
          change: change,
          needs: "a value for every object, and the custom stage's migrate left an object without "
            + "one")))
  }

  /// Refuses a custom stage whose union of both versions is no valid model.
  mutating func refuseUnion(because error: any Error) {
    refuse(
      destination.entities.map(\.name).sorted().first ?? "", nil,
      "both versions' properties in one model for the custom stage's migrate",
      needs: "a model this version can make (\(error))")
  }

  private mutating func refuse(
    _ entity: String, _ property: String?, _ change: String, needs: String
  ) {
    refusals.append(
      MigrationRefusal(
        from: source.version, to: destination.version, entity: entity, property: property,
        change: change, needs: needs))
  }

  // MARK: Statements

  /// Where each column of `old` goes in `new`: a kept property's as `renamed` says (every kept
  /// property's column is there, renamed or not), and `og_pk` and `og_entity`. A column without
  /// an entry is dropped, even when `new` has a column of its name: that one is another
  /// property's (a removed to-one `tag` and an added attribute `tag` share no value).
  static func columnMapping(
    _ old: SQLiteSchema.Table, into new: SQLiteSchema.Table, renamed: [String: String]
  ) -> [String: String] {
    var mapping = renamed
    for column in ["og_pk", "og_entity"]
    where old.columns.contains(where: { $0.name == column })
      && new.columns.contains(where: { $0.name == column })
    {
      mapping[column] = column
    }
    return mapping
  }

  /// The quoted name of the store's index on `column` of `table`.
  static func indexName(_ table: String, _ column: String) -> String {
    SQLiteSchema.quoted("og_index_\(table)_\(column)")
  }

  /// The statements that turn kept table `old` into `new` (its indexes are gone already): the
  /// renamed columns renamed (through temporary names when a new name is an old one's), the new
  /// ones added with their defaults; a column no longer there is dropped in ``drops``, and
  /// until then moved aside when a column of `new` takes its name.
  private mutating func alter(
    _ old: SQLiteSchema.Table, into new: SQLiteSchema.Table, renamed: [String: String],
    defaults: [String: SQLiteValue]
  ) {
    let table = SQLiteSchema.quoted(new.name)
    let mapping = Self.columnMapping(old, into: new, renamed: renamed)
    let dropped = old.columns.map(\.name).filter { mapping[$0] == nil }
    let moves = old.columns.map(\.name).compactMap { name in
      mapping[name].flatMap { $0 == name ? nil : (name, $0) }
    }
    duringColumn[old.name] = mapping
    let newNames = Set(new.columns.map(\.name))
    for (index, column) in dropped.enumerated() {
      let during = newNames.contains(column) ? "og_retired_\(index)" : column
      duringColumn[old.name]![column] = during
      if during != column {
        steps.append(
          .execute(
            "ALTER TABLE \(table) RENAME COLUMN \(SQLiteSchema.quoted(column)) TO "
              + SQLiteSchema.quoted(during)))
      }
      drops.append(
        .touching(
          old.name, .execute("ALTER TABLE \(table) DROP COLUMN \(SQLiteSchema.quoted(during))")))
    }
    let remaining = Set(old.columns.map(\.name)).subtracting(dropped)
    let direct = moves.allSatisfy { !remaining.contains($0.1) }
    for (index, (from, to)) in moves.enumerated() {
      let target = direct ? to : "og_migrating_\(index)"
      steps.append(
        .execute(
          "ALTER TABLE \(table) RENAME COLUMN \(SQLiteSchema.quoted(from)) TO "
            + SQLiteSchema.quoted(target)))
    }
    if !direct {
      for (index, (_, to)) in moves.enumerated() {
        steps.append(
          .execute(
            "ALTER TABLE \(table) RENAME COLUMN \(SQLiteSchema.quoted("og_migrating_\(index)")) "
              + "TO \(SQLiteSchema.quoted(to))"))
      }
    }
    let kept = Set(mapping.values)
    for column in new.columns where !kept.contains(column.name) {
      let declared = column.type.isEmpty ? "" : " \(column.type)"
      let value = defaults[column.name] ?? .null
      let add = "ALTER TABLE \(table) ADD COLUMN \(SQLiteSchema.quoted(column.name))\(declared)"
      if let literal = Self.literal(value) {
        steps.append(.execute(add + (value == .null ? "" : " DEFAULT \(literal)")))
      } else {
        steps.append(.execute(add))
        steps.append(
          .touching(
            old.name,
            .run("UPDATE \(table) SET \(SQLiteSchema.quoted(column.name)) = ?", [value])))
      }
    }
  }

  /// A value as an SQL literal, exactly (SQLite reads a double's shortest text back as the same
  /// double); nil for text SQL cannot quote (it holds a NUL).
  static func literal(_ value: SQLiteValue) -> String? {
    switch value {
    case .null: return "NULL"
    case .integer(let number): return String(number)
    case .real(let number):
      guard number.isFinite else { return number > 0 ? "9e999" : "-9e999" }
      let text = "\(number)"
      return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
    case .text(let text):
      guard !text.utf8.contains(0) else { return nil }
      return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let bytes):
      let digits = Array("0123456789ABCDEF")
      return "X'" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + "'"
    }
  }
}

extension SQLiteSchema {
  /// The ids of `entity` and of every entity under it.
  func entityIDs(ofHierarchyUnder entity: EntityDescription) -> [Int] {
    var ids: [Int] = []
    var pending = [entity]
    while let next = pending.popLast() {
      if let id = entityIDs[next.name] { ids.append(id) }
      pending += next.subentities
    }
    return ids.sorted()
  }
}
