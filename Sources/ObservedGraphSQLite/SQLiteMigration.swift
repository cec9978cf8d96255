import Foundation
import ObservedGraph

/// The inferred stage between two consecutive model versions: the statements that turn a store
/// file of `source` into one of `destination`, or, when a change cannot be inferred, each change
/// that stops it (``refusals``). Nothing is written while a stage is inferred.
///
/// Inferred today: adding an attribute (optional, or with a default: existing objects take the
/// default), removing one, renaming one (``AttributeDescription/originalName``), optional to
/// non-optional with a default (objects without a value take it), non-optional to optional;
/// adding an entity (a new hierarchy, or under an existing entity), removing a whole hierarchy
/// (its table and its objects go); adding an optional relationship (existing objects have
/// none) and removing one (its column or join table goes). An entity kept must keep its parent,
/// and a relationship kept its shape. Columns are matched by their place in the two schemas,
/// not by name: a rename can move another column's `_2` suffix. Entity ids are the file's: an
/// entity kept keeps its id, and an added one takes the next after the largest the file names.
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
  }

  let source: ObjectModel
  let destination: ObjectModel
  private(set) var steps: [Step] = []
  private(set) var refusals: [MigrationRefusal] = []
  /// The entity ids of the file after the stage: those of the entities it keeps, and the next
  /// ones after the largest the file names for the entities it adds.
  let entityIDs: [String: Int]

  /// Infers the stage from `source` to `destination`, for a file whose `og_entities` holds
  /// `entityIDs`.
  init(from source: ObjectModel, to destination: ObjectModel, entityIDs: [String: Int]) {
    self.source = source
    self.destination = destination
    let before = SQLiteSchema(model: source, entityIDs: entityIDs)
    let after = SQLiteSchema(model: destination, entityIDs: entityIDs)
    self.entityIDs = after.entityIDs
    checkEntities()
    guard refusals.isEmpty else { return }
    var renamed: [String: [String: String]] = [:]  // table → old column → new column
    var defaults: [String: [String: SQLiteValue]] = [:]  // table → new column → value
    var fills: [Step] = []
    for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
      // A new entity has no objects: its columns and tables are added empty.
      guard let old = source.entity(named: entity.name) else { continue }
      matchAttributes(
        of: entity, old, before, after, renamed: &renamed, defaults: &defaults, fills: &fills)
      matchRelationships(of: entity, old, before, after, renamed: &renamed)
    }
    guard refusals.isEmpty else { return }
    let stored = { (table: SQLiteSchema.Table) in
      !table.name.hasPrefix("og_") || table.name.hasPrefix("og_join_")
    }
    for table in after.tables where stored(table) {
      if let oldTable = before.tables.first(where: { $0.name == table.name }) {
        alter(
          oldTable, into: table, renamed: renamed[table.name] ?? [:],
          defaults: defaults[table.name] ?? [:])
      } else {
        steps += SQLiteSchema.statements(creating: table).map(Step.execute)
      }
    }
    for table in before.tables
    where stored(table) && !after.tables.contains(where: { $0.name == table.name }) {
      steps.append(.execute("DROP TABLE \(SQLiteSchema.quoted(table.name))"))
    }
    steps += fills
    for name in Set(before.entityIDs.keys).subtracting(after.entityIDs.keys).sorted() {
      steps.append(
        .run(
          #"DELETE FROM "og_entities" WHERE "id" = ?"#, [.integer(Int64(before.entityIDs[name]!))]))
    }
    for name in Set(after.entityIDs.keys).subtracting(before.entityIDs.keys).sorted() {
      steps.append(
        .run(
          #"INSERT INTO "og_entities" ("id", "name") VALUES (?, ?)"#,
          [.integer(Int64(after.entityIDs[name]!)), .text(name)]))
    }
  }

  // MARK: Inference

  /// Entities added and removed are inferred when no existing object changes entity: a new
  /// entity (of a new hierarchy or under an existing entity) starts empty, and a removed
  /// hierarchy takes its table with it. An entity kept must keep its parent and abstractness.
  private mutating func checkEntities() {
    let before = Set(source.entities.map(\.name))
    let after = Set(destination.entities.map(\.name))
    for name in before.subtracting(after).sorted() {
      let entity = source.entity(named: name)!
      var root = entity
      while let parent = root.parent { root = parent }
      if after.contains(root.name) {
        refuse(
          name, nil, "entity removed from the hierarchy of \(root.name)",
          needs: "a migration this version does not infer yet (the objects of an entity under "
            + "one that stays)")
      }
    }
    for name in before.intersection(after).sorted() {
      let old = source.entity(named: name)!
      let new = destination.entity(named: name)!
      if old.parentName != new.parentName || old.isAbstract != new.isAbstract {
        refuse(
          name, nil,
          "parent \(old.parentName ?? "none") → \(new.parentName ?? "none"), abstract "
            + "\(old.isAbstract) → \(new.isAbstract)",
          needs: "a migration this version does not infer yet (changes of inheritance)")
      }
    }
  }

  /// Matches the attributes an entity declares with those of its previous version: renamed,
  /// added, removed, or made optional or required.
  private mutating func matchAttributes(
    of entity: EntityDescription, _ old: EntityDescription, _ before: SQLiteSchema,
    _ after: SQLiteSchema, renamed: inout [String: [String: String]],
    defaults: inout [String: [String: SQLiteValue]], fills: inout [Step]
  ) {
    var matched: Set<String> = []
    for attribute in entity.attributes {
      let earlierName = attribute.originalName ?? attribute.name
      let earlier =
        old.attributes.first { $0.name == earlierName }
        ?? old.attributes.first { $0.name == attribute.name }
      guard let earlier, !matched.contains(earlier.name) else {
        added(attribute, of: entity, after, defaults: &defaults)
        continue
      }
      matched.insert(earlier.name)
      let change = earlier.name == attribute.name ? "" : "renamed from \(earlier.name), "
      if earlier.isTransient != attribute.isTransient {
        refuse(
          entity.name, attribute.name,
          change + (attribute.isTransient ? "made transient" : "no longer transient"),
          needs: "a migration this version does not infer yet")
        continue
      }
      if earlier.type != attribute.type {
        refuse(
          entity.name, attribute.name, change + "type \(earlier.type) → \(attribute.type)",
          needs: "a migration this version does not infer yet (type changes)")
        continue
      }
      guard !attribute.isTransient,
        case .column(let table, let oldColumn)? = before.places[old.name]?[earlier.name],
        case .column(_, let newColumn)? = after.places[entity.name]?[attribute.name]
      else { continue }
      renamed[table, default: [:]][oldColumn] = newColumn
      if earlier.isOptional && !attribute.isOptional {
        guard let value = defaultValue(of: attribute, entity) else { continue }
        guard value != .null else {
          refuse(
            entity.name, attribute.name, change + "optional → not optional",
            needs: "a default value, which objects without a value take")
          continue
        }
        let ids = after.entityIDs(ofHierarchyUnder: entity).map(String.init)
        fills.append(
          .run(
            "UPDATE \(SQLiteSchema.quoted(table)) SET \(SQLiteSchema.quoted(newColumn)) = ? "
              + "WHERE \(SQLiteSchema.quoted(newColumn)) IS NULL AND \"og_entity\" IN "
              + "(\(ids.joined(separator: ", ")))", [value]))
      }
    }
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
      refuse(
        entity.name, attribute.name, "added, not optional",
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

  /// Relationships added (optional ones: existing objects have none) and removed are inferred;
  /// one kept must keep its shape, and its columns may move (a `_2` suffix).
  private mutating func matchRelationships(
    of entity: EntityDescription, _ old: EntityDescription, _ before: SQLiteSchema,
    _ after: SQLiteSchema, renamed: inout [String: [String: String]]
  ) {
    let oldLines = Dictionary(
      uniqueKeysWithValues: old.relationships.map { ($0.name, Self.line($0)) })
    for relationship in entity.relationships {
      guard let was = oldLines[relationship.name] else {
        let required =
          relationship.isToMany ? relationship.minCount > 0 : !relationship.isOptional
        if required {
          refuse(
            entity.name, relationship.name, "required relationship added",
            needs: "a custom stage: existing objects have no related object")
        }
        continue
      }
      let now = Self.line(relationship)
      guard was == now else {
        refuse(
          entity.name, relationship.name, "relationship \(was) → \(now)",
          needs: "a migration this version does not infer yet (relationship changes)")
        continue
      }
      switch (
        before.places[old.name]?[relationship.name], after.places[entity.name]?[relationship.name]
      ) {
      case (.column(let table, let oldColumn)?, .column(_, let newColumn)?):
        renamed[table, default: [:]][oldColumn] = newColumn
        // A to-one whose destination gains its first sub-entity gets the entity column beside
        // it, empty: the store reads an empty one as the destination itself, which is what every
        // reference made before the stage is.
        if let oldEntity = before.entityColumns["\(table).\(oldColumn)"],
          let newEntity = after.entityColumns["\(table).\(newColumn)"]
        {
          renamed[table, default: [:]][oldEntity] = newEntity
        }
      case (
        .inverseColumn(let table, let oldColumn, let oldOrder)?,
        .inverseColumn(_, let newColumn, let newOrder)?
      ):
        renamed[table, default: [:]][oldColumn] = newColumn
        if let oldOrder, let newOrder { renamed[table, default: [:]][oldOrder] = newOrder }
      default:
        break
      }
    }
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

  private mutating func refuse(
    _ entity: String, _ property: String?, _ change: String, needs: String
  ) {
    refusals.append(
      MigrationRefusal(
        from: source.version, to: destination.version, entity: entity, property: property,
        change: change, needs: needs))
  }

  // MARK: Statements

  /// The statements that turn `old` into `new`: the columns no longer there dropped (their
  /// indexes first), the renamed ones renamed (through temporary names when a new name is an old
  /// one's), the new ones added with their defaults.
  private mutating func alter(
    _ old: SQLiteSchema.Table, into new: SQLiteSchema.Table, renamed: [String: String],
    defaults: [String: SQLiteValue]
  ) {
    let table = SQLiteSchema.quoted(new.name)
    var mapping = renamed
    for column in old.columns
    where new.columns.contains(where: { $0.name == column.name })
      && mapping[column.name] == nil && !mapping.values.contains(column.name)
    {
      mapping[column.name] = column.name
    }
    let dropped = old.columns.map(\.name).filter { mapping[$0] == nil }
    let moves = old.columns.map(\.name).compactMap { name in
      mapping[name].flatMap { $0 == name ? nil : (name, $0) }
    }
    for column in old.indexed where mapping[column] != column {
      steps.append(
        .execute("DROP INDEX IF EXISTS \(SQLiteSchema.quoted("og_index_\(old.name)_\(column)"))"))
    }
    for column in dropped {
      steps.append(.execute("ALTER TABLE \(table) DROP COLUMN \(SQLiteSchema.quoted(column))"))
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
          .run("UPDATE \(table) SET \(SQLiteSchema.quoted(column.name)) = ?", [value]))
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

/// A change between two model versions that a migration cannot infer: the entity and property,
/// what changed, and what the change needs (a default value, a custom stage…).
///
/// ```swift
/// print(refusal)   // 1.0.0 → 2.0.0: Book.isbn: added, not optional: needs a default value, …
/// ```
public struct MigrationRefusal: Equatable, Sendable, CustomStringConvertible {
  /// The version the change is from.
  public let from: ModelVersion?
  /// The version the change is to.
  public let to: ModelVersion?
  /// The entity's name.
  public let entity: String
  /// The property's name; nil for a change of the entity itself.
  public let property: String?
  /// What changed, such as `type int → string`.
  public let change: String
  /// What the change needs to be migrated.
  public let needs: String

  /// A refusal, as a migration reports it.
  ///
  /// - Parameters:
  ///   - from: The version the change is from.
  ///   - to: The version the change is to.
  ///   - entity: The entity's name.
  ///   - property: The property's name, or nil.
  ///   - change: What changed.
  ///   - needs: What the change needs.
  public init(
    from: ModelVersion?, to: ModelVersion?, entity: String, property: String?, change: String,
    needs: String
  ) {
    self.from = from
    self.to = to
    self.entity = entity
    self.property = property
    self.change = change
    self.needs = needs
  }

  /// `1.0.0 → 2.0.0: Book.price: type double → string: needs …`.
  public var description: String {
    let versions =
      "\(from.map(String.init(describing:)) ?? "?") → "
      + "\(to.map(String.init(describing:)) ?? "?")"
    return "\(versions): \(entity)\(property.map { ".\($0)" } ?? ""): \(change): needs \(needs)"
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

extension MigrationPlan {
  /// Checks what opening the store file at `url` with this plan would do, without writing to it
  /// (a dry run): the file is opened read-only and every stage is inferred.
  ///
  /// ```swift
  /// let stages = try plan.validate(against: url)   // [2.0.0, 3.0.0]: the file is version 1
  /// ```
  /// - Parameter url: A store file.
  /// - Returns: The versions the file would be migrated to, in order; empty when it is of the
  ///   plan's current version.
  /// - Throws: What ``SQLiteStore/init(url:model:options:)`` would throw for the file and the
  ///   plan's current model, before writing: ``SQLiteError`` for a file SQLite refuses (or no
  ///   file), ``SQLiteStoreOpenError`` for a file that is not a store, another model's, a later
  ///   version's, or a migration that cannot be inferred.
  public func validate(against url: URL) throws -> [ModelVersion] {
    let connection = try SQLiteConnection(path: url.path, create: false, readOnly: true)
    defer { connection.close() }
    let tables = try SQLiteStoreFile.tables(connection)
    guard tables.contains("og_metadata") else {
      throw SQLiteStoreOpenError.notAStore(path: url.path, tables: tables)
    }
    let opening = try SQLiteStoreFile.opening(
      SQLiteStoreFile.metadata(connection), model: currentModel, plan: self, path: url.path,
      entityIDs: SQLiteStoreFile.entityIDs(connection))
    guard case .migrate(let stages) = opening else { return [] }
    return stages.compactMap(\.destination.version)
  }
}
