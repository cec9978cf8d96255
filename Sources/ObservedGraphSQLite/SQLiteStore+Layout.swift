import Foundation
import ObservedGraph

/// How one entity's objects sit in the file: the table, the columns of its row and the SQL that
/// reads and writes them, made once when the store opens. A class, and columns of plain values, so
/// that reading a row copies and retains nothing of it.
final class EntityLayout {
  /// A stored column of the entity's row, after `og_pk` and `og_entity`.
  struct Column {
    enum Kind {
      /// An attribute, and how its values convert (its type is in ``EntityLayout/types``).
      case attribute(ColumnValue.Conversion)
      /// A to-one relationship's key; `entityColumn` is the index (among `columns`) of the
      /// column holding its entity id, when the destination has sub-entities. The destination's
      /// name is in ``EntityLayout/destinations``.
      case toOne(entityColumn: Int?)
      /// The entity id of the to-one before it.
      case toOneEntity
    }
    /// The column's index in ``EntityLayout/names``.
    let index: Int
    /// The property's index in the entity's ``EntityDescription/propertyNames``.
    let slot: Int
    let kind: Kind
    /// Whether the column is a non-optional attribute's: NULL is no value of it (see
    /// ``SQLiteStatement/Row/give(at:as:slot:to:required:checkingASCII:_:)``).
    var required = false
    /// The column's position in a row read with ``EntityLayout/selectColumns``.
    var position = 0
  }

  /// A to-many relationship and where its members are.
  struct ToMany {
    let slot: Int
    let name: String
    let place: SQLiteSchema.Place
    let destination: EntityDescription
    /// The destination's table.
    let destinationTable: String
    /// The destination table's position among the schema's tables (see
    /// ``EntityLayout/tableNumber``).
    let destinationTableNumber: Int
  }

  let entity: EntityDescription
  /// How many properties the entity has (the length of a stored object's values).
  let propertyCount: Int
  let entityID: Int64
  let table: String
  /// The table's position among the schema's tables: a row read from it is of an entity whose
  /// layout has the same number, or is left out (another program wrote another entity's id in
  /// it, whose columns are elsewhere).
  let tableNumber: Int
  let columns: [Column]
  /// Each column's name, by ``Column/index``.
  let names: [String]
  /// Each attribute column's type, by ``Column/index`` (nil for other columns).
  let types: [AttributeType?]
  /// Each to-one column's destination entity, by ``Column/index`` (nil for other columns).
  let destinations: [EntityDescription?]
  /// `destinations`, unretained: valid while the layout lives.
  let destinationReferences: [Unmanaged<EntityDescription>?]
  let toMany: [ToMany]
  /// Every column of the table, `og_pk` and `og_entity` first: what a read of a row of any of
  /// the table's entities selects.
  let selectColumns: [String]
  /// `SELECT <selectColumns> FROM <table> WHERE og_pk = ?`.
  let select: String
  /// `INSERT INTO <table> (og_pk, og_entity, <columns>) VALUES (?, …)`.
  let insert: String

  init(_ entity: EntityDescription, schema: SQLiteSchema, model: ObjectModel) {
    self.entity = entity
    propertyCount = entity.propertyNames.count
    entityID = Int64(schema.entityIDs[entity.name]!)
    table = schema.tableOfEntity[entity.name]!
    let tableNumbers = Dictionary(
      schema.tables.enumerated().map { ($0.element.name, $0.offset) }
    ) { first, _ in first }
    tableNumber = tableNumbers[table] ?? -1
    let places = schema.places[entity.name] ?? [:]
    let attributes = Dictionary(entity.allAttributes.map { ($0.name, $0) }) { first, _ in first }
    let relationships = Dictionary(entity.allRelationships.map { ($0.name, $0) }) { a, _ in a }
    var columns: [Column] = []
    var names: [String] = []
    var types: [AttributeType?] = []
    var destinations: [EntityDescription?] = []
    var toMany: [ToMany] = []
    func add(
      _ name: String, _ slot: Int, _ kind: Column.Kind, _ type: AttributeType?,
      _ to: EntityDescription?, required: Bool = false
    ) {
      columns.append(Column(index: names.count, slot: slot, kind: kind, required: required))
      names.append(name)
      types.append(type)
      destinations.append(to)
    }
    for (slot, name) in entity.propertyNames.enumerated() {
      guard let place = places[name] else { continue }
      if let attribute = attributes[name] {
        guard case .column(_, let column) = place else { continue }
        add(
          column, slot, .attribute(ColumnValue.Conversion(attribute.type)), attribute.type, nil,
          required: !attribute.isOptional)
      } else if let relationship = relationships[name],
        let destination = model.entity(named: relationship.destination)
      {
        if case .column(let table, let column) = place {
          let entityColumn = schema.entityColumns["\(table).\(column)"]
          add(
            column, slot, .toOne(entityColumn: entityColumn.map { _ in columns.count + 1 }), nil,
            destination)
          if let entityColumn { add(entityColumn, slot, .toOneEntity, nil, nil) }
        } else {
          toMany.append(
            ToMany(
              slot: slot, name: name, place: place, destination: destination,
              destinationTable: schema.tableOfEntity[destination.name]!,
              destinationTableNumber: tableNumbers[schema.tableOfEntity[destination.name]!] ?? -1))
        }
      }
    }
    let root = schema.tableOfEntity[entity.name]!
    let tableColumns = schema.tables.first { $0.name == root }?.columns.map(\.name) ?? []
    selectColumns = tableColumns
    for index in columns.indices {
      columns[index].position = tableColumns.firstIndex(of: names[index]) ?? 0
    }
    self.columns = columns
    self.names = names
    self.types = types
    self.destinations = destinations
    destinationReferences = destinations.map { $0.map(Unmanaged.passUnretained) }
    self.toMany = toMany
    let quoted = names.map { SQLiteSchema.quoted($0) }
    select =
      "SELECT \(Self.selectList(tableColumns, prefix: "")) FROM \(SQLiteSchema.quoted(table)) "
      + "WHERE \"og_pk\" = ?"
    insert =
      "INSERT INTO \(SQLiteSchema.quoted(table)) "
      + "(\(([#""og_pk""#, #""og_entity""#] + quoted).joined(separator: ", "))) VALUES ("
      + Array(repeating: "?", count: columns.count + 2).joined(separator: ", ") + ")"
  }
}

extension EntityLayout {
  /// A select list of quoted columns, each after `prefix` (a table alias and a dot, or nothing).
  static func selectList(_ columns: [String], prefix: String) -> String {
    columns.map { prefix + SQLiteSchema.quoted($0) }.joined(separator: ", ")
  }
}

/// Values between the store's form and SQLite's (see ``SQLiteSchema`` for the table of types).
enum ColumnValue {
  /// A stored value as SQLite keeps it.
  static func sqlite(_ value: StoredValue?) -> SQLiteValue {
    (try? sqlite(value, lengthLimit: .max)) ?? .null
  }

  /// Why SQLite cannot keep a value as it is.
  enum Refusal: Error {
    /// NaN: SQLite would keep it as NULL.
    case nan
    /// A string or data value of this many bytes, beyond the limit.
    case tooLong(Int)
  }

  /// A stored value as SQLite keeps it, refusing NaN and a string or data value longer than
  /// `lengthLimit` bytes, in the one pass that converts it (per value of a save).
  @inline(__always)
  static func sqlite(_ value: StoredValue?, lengthLimit: Int) throws(Refusal) -> SQLiteValue {
    guard let value else { return .null }
    switch value {
    case .integer(let number): return .integer(number)
    case .double(let number):
      guard !number.isNaN else { throw .nan }
      return .real(number)
    case .decimal(let number):
      guard !number.isNaN else { throw .nan }
      return .text(number.description)
    case .string(let text):
      guard text.utf8.count <= lengthLimit else { throw .tooLong(text.utf8.count) }
      return .text(text)
    case .bool(let flag): return .integer(flag ? 1 : 0)
    case .date(let date):
      guard !date.timeIntervalSinceReferenceDate.isNaN else { throw .nan }
      return .real(date.timeIntervalSinceReferenceDate)
    case .data(let data):
      guard data.count <= lengthLimit else { throw .tooLong(data.count) }
      return .blob([UInt8](data))
    case .uuid(let uuid): return .blob(withUnsafeBytes(of: uuid.uuid) { Array($0) })
    case .url(let url):
      let text = url.absoluteString
      guard text.utf8.count <= lengthLimit else { throw .tooLong(text.utf8.count) }
      return .text(text)
    }
  }

  /// How a column's values become stored values: decided once per attribute type, when the store
  /// opens, not per value.
  enum Conversion {
    case string, url, decimal, bool, integer, double, date, uuid, data

    init(_ type: AttributeType) {
      switch type.name {
      case "string": self = .string
      case "url": self = .url
      case "decimal": self = .decimal
      case "bool": self = .bool
      case "int16", "int32", "int64", "int": self = .integer
      case "float", "double": self = .double
      case "date": self = .date
      case "uuid": self = .uuid
      default: self = .data  // data, transformable(…)
      }
    }
  }
}
