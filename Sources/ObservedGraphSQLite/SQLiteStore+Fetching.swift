import CSQLite
import Foundation
import ObservedGraph

/// Fetching from the file: predicates and sorts translated to SQL where SQLite can give the
/// library's semantics, the rest left to the context.
///
/// What is translated:
/// - comparisons of an attribute of the entity, or of an object reached through to-one
///   relationships (`category.name`, as a subquery), with constants of the attribute's own kind:
///   numbers, dates and Booleans with every operator, `BETWEEN` and `IN`; strings with every
///   operator, compared by functions the store registers with SQLite, which call the library's
///   own comparisons (so `==` is Swift's canonical equivalence, and `[c]`, `[d]`, `LIKE`,
///   `MATCHES` mean what they mean in memory); UUIDs, data and URLs with `==` and `!=`;
///   comparisons with nil; a to-one (or `SELF`) compared with an object or found in a list of
///   objects (`SELF IN {…}`);
/// - `AND`, `OR`, `NOT` of translated parts; an `AND` whose parts are not all translated keeps
///   the translated ones in SQL and the context tests the rest;
/// - sort keys on such attributes, strings through collations that call
///   ``FetchSort/Comparison-swift.enum/compare(_:_:)``.
///
/// - `ANY`, `ALL`, `NONE` over one attribute of a to-many's members (`ANY books.price < 5`) or
///   over the members compared with objects (`ANY books == <id>`), and `@count` of a to-many
///   compared with a number, as subqueries.
///
/// Left to the context: decimals (stored as text), other collection operators, longer to-many
/// key paths, and constants of another kind than their attribute.
extension SQLiteStore {
  /// Counts the objects of a fetch with `SELECT COUNT(*)` when its predicate translates whole;
  /// nil otherwise.
  ///
  /// - Parameter request: What is counted.
  /// - Returns: The number of matching rows, or nil when the context must count.
  /// - Throws: ``SQLiteError`` when the query fails, or `ObjectGraphError.Kind.notToMany` for a
  ///   sort key path through a to-many relationship (as a sort in memory throws).
  /// - Complexity: One query.
  public func count(_ request: StoreFetch) throws -> Int? {
    _ = try connection.openHandle(for: nil)
    guard let layout = layouts[request.entity.name] ?? anyLayout(of: request.entity) else {
      return 0
    }
    for sort in request.sortDescriptors { try refuseToManySteps(sort, of: request.entity) }
    var query = SQLQuery(store: self)
    let (conditions, exact) = self.conditions(request, layout, &query)
    guard exact else { return nil }
    var sql = "SELECT \(#"t."og_pk""#) FROM \(SQLiteSchema.quoted(layout.table)) AS t"
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    if request.fetchLimit > 0 || request.fetchOffset > 0 {
      sql += " LIMIT ? OFFSET ?"
      query.arguments += [
        .integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1),
        .integer(Int64(request.fetchOffset)),
      ]
    }
    var count = 0
    try connection.statement("SELECT COUNT(*) FROM (\(sql))").forEachRow(query.arguments) { row in
      count = Int(row.integer(at: 0) ?? 0)
    }
    return count
  }

  /// The conditions of a fetch's rows (its entities, its predicate as far as it translates), and
  /// whether they are the whole predicate. With `only`, the rows must be of its entity, also in
  /// a table no other entity shares.
  private func conditions(
    _ request: StoreFetch, _ layout: EntityLayout, only: EntityLayout? = nil,
    _ query: inout SQLQuery
  ) -> (conditions: [String], exact: Bool) {
    var conditions: [String] = []
    let ids = request.entities.compactMap { layouts[$0.name]?.entityID }
    guard !ids.isEmpty else { return (["0"], true) }
    // The table's rows are all wanted when it holds no other entity: no condition then.
    let inTable = layouts.values.filter { $0.table == layout.table }.map(\.entityID)
    if let only {
      conditions.append("t.\"og_entity\" = \(only.entityID)")
    } else if Set(inTable) != Set(ids) {
      conditions.append(
        "t.\"og_entity\" IN (\(ids.map(String.init).joined(separator: ", ")))")
    }
    guard let predicate = request.predicate else { return (conditions, true) }
    let (sql, exact) = query.translate(predicate, entity: request.entity, alias: "t")
    if let sql { conditions.append(sql) }
    return (conditions, exact)
  }

  /// Gives the objects of a fetch, translated to one SQL query as far as it goes (see above).
  ///
  /// - Parameters:
  ///   - request: What is wanted.
  ///   - loader: Where the rows go, in order.
  /// - Returns: Whether the query applied all of the fetch (predicate, sort, offset and limit),
  ///   so that the objects given are exactly the answer.
  /// - Throws: ``SQLiteError`` when the query fails, what `loader` throws for a value that does
  ///   not fit the model, or `ObjectGraphError.Kind.notToMany` for a sort key path through a
  ///   to-many relationship (as a sort in memory throws).
  /// - Complexity: One query; O(*n*) in the rows read.
  public func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool {
    _ = try connection.openHandle(for: nil)
    guard let layout = layouts[request.entity.name] ?? anyLayout(of: request.entity) else {
      return true
    }
    // A fetch of one entity checks each row's entity in the query and reads every row with the
    // entity's layout: its `og_entity` is neither selected nor read (a constant stands in its
    // place), a column and a call into SQLite fewer per row. A row of another entity id (another
    // program's) is still left out, and never read with a layout whose columns are not its table's.
    let only = request.entities.count == 1 ? layouts[request.entities[0].name] : nil
    var query = SQLQuery(store: self)
    let (conditions, exact) = self.conditions(request, layout, only: only, &query)
    var complete = exact
    let window = request.fetchLimit > 0 || request.fetchOffset > 0
    var orders: [String] = []
    // String columns sorted by their bytes, to check row by row (see `SQLQuery.order`).
    var bytewise: [String] = []
    for sort in request.sortDescriptors {
      guard
        let order = query.order(
          sort, entity: request.entity, alias: "t",
          bytewise: exact && !window && request.loadsValues)
      else {
        // Not translated: a to-many step is refused here, as the context refuses it in memory
        // (whether or not it has two objects to compare).
        for sort in request.sortDescriptors { try refuseToManySteps(sort, of: request.entity) }
        complete = false
        break
      }
      orders.append(order.sql)
      if let column = order.bytewiseColumn { bytewise.append(column) }
    }
    let selected = request.loadsValues ? layout.selectColumns : ["og_pk", "og_entity"]
    let checked = bytewise.compactMap { selected.firstIndex(of: $0) }
    let selectList = selected.map { column in
      if let only, column == "og_entity" { return "\(only.entityID) AS \"og_entity\"" }
      return "t." + SQLiteSchema.quoted(column)
    }
    var sql =
      "SELECT \(selectList.joined(separator: ", ")) FROM \(SQLiteSchema.quoted(layout.table)) AS t"
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    if complete {
      // Without sort keys and without a window the order is left to SQLite, which may then use an
      // index for the predicate; the context puts the objects in key order.
      if !orders.isEmpty || window {
        sql += " ORDER BY " + (orders + [#"t."og_pk""#]).joined(separator: ", ")
      }
      if window {
        sql += " LIMIT ? OFFSET ?"
        query.arguments += [
          .integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1),
          .integer(Int64(request.fetchOffset)),
        ]
      }
    }
    var inSwiftOrder = true
    let loadsValues = request.loadsValues
    // The checked columns as bits, when they all have one (select positions below 64).
    let checkedBits = checked.reduce(UInt64(0)) { $1 < 64 ? $0 | 1 << UInt64($1) : $0 }
    let checksWhileLoading = loadsValues && !checked.isEmpty && checked.allSatisfy { $0 < 64 }
    let fixed = only.map(Unmanaged.passUnretained)
    let table = layout.tableNumber
    try connection.statement(sql).forEachRow(query.arguments) { row in
      if inSwiftOrder && checksWhileLoading {
        if try !loadRow(
          row, inTable: table, into: loader, checkingASCII: checkedBits, fixed: fixed)
        {
          inSwiftOrder = false
        }
        return
      }
      if inSwiftOrder {
        for index in checked where !row.isASCIIText(at: index) { inSwiftOrder = false }
      }
      if loadsValues {
        try loadRow(row, inTable: table, into: loader, fixed: fixed)
      } else if let (key, rowLayout) = object(of: row, inTable: table, fixed: fixed) {
        loader.appendObject(rowLayout.entity, key: key)
      }
    }
    // A string beyond ASCII in a column sorted by bytes: the objects go in Swift's order.
    if !inSwiftOrder { try loader.sortObjects(by: request.sortDescriptors) }
    return complete
  }

  /// Throws `ObjectGraphError.Kind.notToMany` for a sort key path that goes through a to-many
  /// relationship, the error a sort in memory throws: such a key has no single value to order
  /// by.
  func refuseToManySteps(_ sort: FetchSort, of entity: EntityDescription) throws {
    var current: EntityDescription? = entity
    for key in sort.keyPath.split(separator: ".", omittingEmptySubsequences: false) {
      guard let step = current,
        let relationship = step.allRelationships.first(where: { $0.name == key })
      else { return }
      if relationship.isToMany {
        throw ObjectGraphError(
          .notToMany, entity: entity.name, key: sort.keyPath,
          reason: "a sort key path cannot go through a to-many relationship: \(sort.keyPath) has "
            + "no single value")
      }
      current = model.entity(named: relationship.destination)
    }
  }

  /// A layout of the table of an abstract entity: the layout of any concrete entity in it.
  private func anyLayout(of entity: EntityDescription) -> EntityLayout? {
    guard let table = schema.tableOfEntity[entity.name] else { return nil }
    return layouts.values.first { $0.table == table }
  }
}

/// The SQL of one fetch's predicate and sorts, with the values it binds.
struct SQLQuery {
  let store: SQLiteStore
  var arguments: [SQLiteValue] = []
  private var aliases = 0

  init(store: SQLiteStore) {
    self.store = store
  }

  // MARK: Predicates

  /// A predicate as SQL on the rows of `alias` (objects of `entity`), and whether the SQL is the
  /// whole predicate. An `AND` keeps its translated parts; anything else is all or nothing.
  mutating func translate(_ predicate: FetchPredicate, entity: EntityDescription, alias: String)
    -> (sql: String?, exact: Bool)
  {
    if case .and(let parts) = predicate {
      var translated: [String] = []
      var exact = true
      for part in parts {
        let (sql, partExact) = translate(part, entity: entity, alias: alias)
        if let sql { translated.append(sql) }
        exact = exact && partExact
      }
      return (translated.isEmpty ? nil : "(" + translated.joined(separator: " AND ") + ")", exact)
    }
    let saved = arguments
    guard let sql = whole(predicate, entity: entity, alias: alias) else {
      arguments = saved
      return (nil, false)
    }
    return (sql, true)
  }

  /// A predicate translated whole, or nil.
  private mutating func whole(
    _ predicate: FetchPredicate, entity: EntityDescription, alias: String
  ) -> String? {
    switch predicate {
    case .constant(let value): return value ? "1" : "0"
    case .and(let parts), .or(let parts):
      var translated: [String] = []
      for part in parts {
        guard let sql = whole(part, entity: entity, alias: alias) else { return nil }
        translated.append(sql)
      }
      guard !translated.isEmpty else {
        if case .and = predicate { return "1" } else { return "0" }
      }
      let joiner: String
      if case .and = predicate { joiner = " AND " } else { joiner = " OR " }
      return "(" + translated.joined(separator: joiner) + ")"
    case .not(let inner):
      // A comparison with NULL is NULL in SQL where it is false in memory: NOT must see false.
      return whole(inner, entity: entity, alias: alias).map { "NOT COALESCE(\($0), 0)" }
    case .comparison(let comparison):
      return self.comparison(comparison, entity: entity, alias: alias)
    }
  }

  /// A comparison of a key path with a constant, or nil.
  private mutating func comparison(
    _ comparison: FetchComparison, entity: EntityDescription, alias: String
  ) -> String? {
    var comparison = comparison
    if comparison.modifier == .direct, Self.readsTheRow(comparison.right),
      !Self.readsTheRow(comparison.left), let flipped = Self.flipped(comparison)
    {
      comparison = flipped
    }
    let keys: [String]
    switch comparison.left {
    case .keyPath(let path):
      keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    case .evaluatedObject:
      keys = []
    default:
      return nil
    }
    guard !keys.contains(where: \.isEmpty) else { return nil }
    if comparison.modifier != .direct {
      return quantified(keys, comparison, entity: entity, alias: alias)
    }
    if keys.count == 2, keys[1] == "@count" {
      return count(keys[0], comparison, entity: entity, alias: alias)
    }
    guard !keys.contains(where: { $0.hasPrefix("@") }) else { return nil }
    return path(keys[...], comparison, entity: entity, alias: alias)
  }

  /// `ANY`, `ALL` or `NONE` over the values of one attribute of a to-many's members
  /// (`ANY books.price < 5`), or over the members themselves compared with objects
  /// (`ANY books == <id>`, `ANY books IN {…}`), as `EXISTS` subqueries. A member whose value is
  /// nil meets the comparison as nil does in memory.
  private mutating func quantified(
    _ keys: [String], _ comparison: FetchComparison, entity: EntityDescription, alias: String
  ) -> String? {
    guard keys.count == 1 || (keys.count == 2 && !keys[1].hasPrefix("@")),
      let (source, member, destination) = members(keys[0], entity: entity, alias: alias),
      keys.count == 1 || destination.allAttributes.contains(where: { $0.name == keys[1] })
    else { return nil }
    var direct = comparison
    direct.modifier = .direct
    let saved = arguments
    guard
      let condition = keys.count == 1
        ? object(#"\#(member)."og_pk""#, direct)
        : path(keys[1...], direct, entity: destination, alias: member)
    else {
      arguments = saved
      return nil
    }
    switch comparison.modifier {
    case .any: return "EXISTS (SELECT 1 \(source) AND \(condition))"
    case .none: return "NOT EXISTS (SELECT 1 \(source) AND \(condition))"
    case .all: return "NOT EXISTS (SELECT 1 \(source) AND NOT COALESCE(\(condition), 0))"
    case .direct: return nil
    }
  }

  /// `books.@count` compared with a number.
  private mutating func count(
    _ key: String, _ comparison: FetchComparison, entity: EntityDescription, alias: String
  ) -> String? {
    guard let sql = Self.numeric(comparison.operator),
      case .constant(let value?) = comparison.right,
      let (source, _, _) = members(key, entity: entity, alias: alias)
    else { return nil }
    switch value {
    case .integer(let number): arguments.append(.integer(number))
    case .double(let number) where !number.isNaN: arguments.append(.real(number))
    default: return nil
    }
    return "((SELECT COUNT(*) \(source)) \(sql) ?)"
  }

  /// The `FROM … WHERE …` of the members of a to-many relationship of the rows of `alias` (to
  /// which a condition joins with `AND`), the members' alias, and their entity.
  private mutating func members(_ key: String, entity: EntityDescription, alias: String) -> (
    String, String, EntityDescription
  )? {
    guard let place = store.schema.places[entity.name]?[key],
      let relationship = entity.allRelationships.first(where: { $0.name == key }),
      relationship.isToMany,
      let destination = store.model.entity(named: relationship.destination),
      let table = store.schema.tableOfEntity[destination.name]
    else { return nil }
    aliases += 1
    let member = "m\(aliases)"
    let quotedTable = SQLiteSchema.quoted(table)
    switch place {
    case .inverseColumn(_, let column, _):
      let source =
        "FROM \(quotedTable) AS \(member) WHERE \(member).\(SQLiteSchema.quoted(column)) = "
        + "\(alias).\"og_pk\""
      return (source, member, destination)
    case .join(let joinTable, let owner, let memberColumn, _):
      let join = "j\(aliases)"
      let source =
        "FROM \(SQLiteSchema.quoted(joinTable)) AS \(join) JOIN \(quotedTable) AS \(member) ON "
        + "\(member).\"og_pk\" = \(join).\(SQLiteSchema.quoted(memberColumn)) WHERE "
        + "\(join).\(SQLiteSchema.quoted(owner)) = \(alias).\"og_pk\""
      return (source, member, destination)
    case .column, .notStored:
      return nil
    }
  }

  /// Whether an expression reads the row tested: a key path or `SELF`.
  private static func readsTheRow(_ expression: FetchExpression) -> Bool {
    switch expression {
    case .keyPath, .evaluatedObject: true
    default: false
    }
  }

  /// A comparison with its sides swapped (`3 < price` is `price > 3`).
  private static func flipped(_ comparison: FetchComparison) -> FetchComparison? {
    var flipped = comparison
    flipped.left = comparison.right
    flipped.right = comparison.left
    switch comparison.operator {
    case .equal, .notEqual: break
    case .lessThan: flipped.operator = .greaterThan
    case .lessThanOrEqual: flipped.operator = .greaterThanOrEqual
    case .greaterThan: flipped.operator = .lessThan
    case .greaterThanOrEqual: flipped.operator = .lessThanOrEqual
    default: return nil
    }
    return flipped
  }

  /// The comparison of the value at the end of a key path, from the rows of `alias`: to-one
  /// steps become subqueries, through which a nil link makes the value nil.
  private mutating func path(
    _ keys: ArraySlice<String>, _ comparison: FetchComparison, entity: EntityDescription,
    alias: String
  ) -> String? {
    guard let key = keys.first else {
      // `SELF` compared with an object.
      return object(#"\#(alias)."og_pk""#, comparison)
    }
    guard let place = store.schema.places[entity.name]?[key],
      case .column(_, let column) = place
    else { return nil }
    let qualified = "\(alias).\(SQLiteSchema.quoted(column))"
    if let attribute = entity.allAttributes.first(where: { $0.name == key }) {
      guard keys.count == 1 else { return nil }
      return value(qualified, ColumnValue.Conversion(attribute.type), comparison)
    }
    guard let relationship = entity.allRelationships.first(where: { $0.name == key }),
      !relationship.isToMany,
      let destination = store.model.entity(named: relationship.destination),
      let table = store.schema.tableOfEntity[destination.name]
    else { return nil }
    if keys.count == 1 { return object(qualified, comparison) }
    // Through the link: the related row meets the rest, or the link is nil and nil meets it.
    aliases += 1
    let inner = "r\(aliases)"
    let saved = arguments
    guard let rest = path(keys.dropFirst(), comparison, entity: destination, alias: inner) else {
      arguments = saved
      return nil
    }
    let subquery =
      "\(qualified) IN (SELECT \(inner).\"og_pk\" FROM \(SQLiteSchema.quoted(table)) AS \(inner) "
      + "WHERE \(rest))"
    guard let nilMatches = Self.nilMatches(comparison) else { return nil }
    return nilMatches ? "(\(qualified) IS NULL OR \(subquery))" : subquery
  }

  /// Whether a nil value meets the comparison (as the library evaluates it); nil when that
  /// depends on more than the value.
  private static func nilMatches(_ comparison: FetchComparison) -> Bool? {
    switch (comparison.operator, comparison.right) {
    case (.in, .aggregate(let values)):
      return values.contains { if case .constant(nil) = $0 { true } else { false } }
    case (.between, _), (.in, _): return false
    case (_, .constant(let value)): return try? comparison.test(nil, value)
    case (.equal, .object): return false
    case (.notEqual, .object): return true
    default: return nil
    }
  }

  /// A to-one column (or the row's key) compared with an object or nil, or found in a list of
  /// them (`SELF IN {…}`).
  private mutating func object(_ column: String, _ comparison: FetchComparison) -> String? {
    switch (comparison.operator, comparison.right) {
    case (.in, .aggregate(let elements)):
      var keys: [Int64] = []
      var orNull = ""
      for element in elements {
        switch element {
        case .object(let id) where id.storeIdentifier == store.identifier: keys.append(id.key)
        case .constant(nil): orNull = " OR \(column) IS NULL"
        default: return nil
        }
      }
      guard !keys.isEmpty else { return orNull.isEmpty ? "0" : "(\(column) IS NULL)" }
      arguments += keys.map { .integer($0) }
      let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
      return "(\(column) IN (\(marks))\(orNull))"
    case (.equal, .object(let id)) where id.storeIdentifier == store.identifier:
      arguments.append(.integer(id.key))
      return "\(column) IS ?"
    case (.notEqual, .object(let id)) where id.storeIdentifier == store.identifier:
      arguments.append(.integer(id.key))
      return "\(column) IS NOT ?"
    case (.equal, .constant(nil)): return "\(column) IS NULL"
    case (.notEqual, .constant(nil)): return "\(column) IS NOT NULL"
    default: return nil
    }
  }

  /// An attribute column compared with a constant, a list or two bounds of its own kind.
  private mutating func value(
    _ column: String, _ conversion: ColumnValue.Conversion, _ comparison: FetchComparison
  ) -> String? {
    let op = comparison.operator
    switch (op, comparison.right) {
    case (.equal, .constant(nil)): return "\(column) IS NULL"
    case (.notEqual, .constant(nil)): return "\(column) IS NOT NULL"
    case (_, .constant(nil)): return "0"
    case (.between, .aggregate(let bounds)):
      guard bounds.count == 2, case .constant(let low?) = bounds[0],
        case .constant(let high?) = bounds[1],
        let lower = scalar(column, conversion, comparison, .greaterThanOrEqual, low),
        let upper = scalar(column, conversion, comparison, .lessThanOrEqual, high)
      else { return nil }
      return "(\(lower) AND \(upper))"
    case (.in, .aggregate(let values)):
      var parts: [String] = []
      for element in values {
        guard case .constant(let value) = element else { return nil }
        if let value {
          guard let part = scalar(column, conversion, comparison, .equal, value) else {
            return nil
          }
          parts.append(part)
        } else {
          parts.append("\(column) IS NULL")
        }
      }
      return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
    case (.between, _), (.in, _): return nil
    case (_, .constant(let value?)):
      return scalar(column, conversion, comparison, op, value)
    default: return nil
    }
  }

  /// An attribute column compared with one value of its kind by one operator; a NULL column
  /// meets `!=` and nothing else, as nil does in memory.
  private mutating func scalar(
    _ column: String, _ conversion: ColumnValue.Conversion, _ comparison: FetchComparison,
    _ op: FetchComparison.Operator, _ value: StoredValue
  ) -> String? {
    let orNull = op == .notEqual ? " OR \(column) IS NULL" : ""
    switch (conversion, value) {
    case (.integer, .integer(let number)), (.double, .integer(let number)):
      guard let sql = Self.numeric(op) else { return nil }
      arguments.append(.integer(number))
      return "(\(column) \(sql) ?\(orNull))"
    case (.integer, .double(let number)), (.double, .double(let number)):
      guard !number.isNaN, let sql = Self.numeric(op) else { return nil }
      arguments.append(.real(number))
      return "(\(column) \(sql) ?\(orNull))"
    case (.date, .date(let date)):
      // A NaN interval would bind as NULL; memory compares it (false but for `!=`).
      guard !date.timeIntervalSinceReferenceDate.isNaN, let sql = Self.numeric(op) else {
        return nil
      }
      arguments.append(.real(date.timeIntervalSinceReferenceDate))
      return "(\(column) \(sql) ?\(orNull))"
    case (.bool, .bool(let flag)):
      guard let sql = Self.numeric(op) else { return nil }
      arguments.append(.integer(flag ? 1 : 0))
      return "(\(column) \(sql) ?\(orNull))"
    case (.string, .string(let text)):
      // The library's own comparison, called by SQLite: Swift's semantics, options included.
      arguments.append(.text(text))
      return "(og_test('\(op.rawValue)', \(comparison.options.rawValue), \(column), ?) = 1"
        + "\(orNull))"
    case (.uuid, .uuid), (.data, .data), (.url, .url):
      guard op == .equal || op == .notEqual else { return nil }
      arguments.append(ColumnValue.sqlite(value))
      return "(\(column) \(op == .equal ? "=" : "!=") ?\(orNull))"
    default:
      return nil
    }
  }

  /// The SQL operator of a numeric comparison.
  private static func numeric(_ op: FetchComparison.Operator) -> String? {
    switch op {
    case .equal: "="
    case .notEqual: "!="
    case .lessThan: "<"
    case .lessThanOrEqual: "<="
    case .greaterThan: ">"
    case .greaterThanOrEqual: ">="
    default: nil
    }
  }

  // MARK: Sorts

  /// A sort key as an `ORDER BY` term on the rows of `alias`, or nil.
  ///
  /// Strings sort through the collation of the sort's comparison, a call from SQLite into Swift per
  /// comparison — except, when `bytewise` allows it, a ``FetchSort/Comparison-swift.enum/swift``
  /// sort on a string column of the row itself: that one sorts by the strings' bytes (SQLite's own
  /// `BINARY` order, as fast as SQL sorts go), which is Swift's order while the strings are ASCII,
  /// and the term names the column (`bytewiseColumn`) so that the rows can be checked. `bytewise`
  /// is for fetches whose order can still be fixed in memory: no limit and no offset.
  mutating func order(
    _ sort: FetchSort, entity: EntityDescription, alias: String, bytewise: Bool = false
  ) -> (sql: String, bytewiseColumn: String?)? {
    let keys = sort.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard let (expression, isString) = sortValue(keys[...], entity: entity, alias: alias) else {
      return nil
    }
    let direction = sort.ascending ? " ASC" : " DESC"
    guard isString else { return (expression + direction, nil) }
    if bytewise, sort.comparison == .swift, keys.count == 1,
      case .column(_, let column)? = store.schema.places[entity.name]?[keys[0]]
    {
      return (expression + direction, column)
    }
    return (expression + " COLLATE \(SQLiteFunctions.collation(sort.comparison))" + direction, nil)
  }

  /// The value a sort key orders by: a column, or a subquery through to-one links.
  private mutating func sortValue(
    _ keys: ArraySlice<String>, entity: EntityDescription, alias: String
  ) -> (sql: String, isString: Bool)? {
    guard let key = keys.first, let place = store.schema.places[entity.name]?[key],
      case .column(_, let column) = place
    else { return nil }
    let qualified = "\(alias).\(SQLiteSchema.quoted(column))"
    if let attribute = entity.allAttributes.first(where: { $0.name == key }) {
      guard keys.count == 1 else { return nil }
      switch ColumnValue.Conversion(attribute.type) {
      case .integer, .double, .date, .bool: return (qualified, false)
      case .string: return (qualified, true)
      case .decimal, .uuid, .data, .url: return nil
      }
    }
    guard let relationship = entity.allRelationships.first(where: { $0.name == key }),
      !relationship.isToMany,
      let destination = store.model.entity(named: relationship.destination),
      let table = store.schema.tableOfEntity[destination.name]
    else { return nil }
    guard keys.count > 1 else { return nil }
    aliases += 1
    let inner = "s\(aliases)"
    guard let rest = sortValue(keys.dropFirst(), entity: destination, alias: inner) else {
      return nil
    }
    let subquery =
      "(SELECT \(rest.sql) FROM \(SQLiteSchema.quoted(table)) AS \(inner) WHERE "
      + "\(inner).\"og_pk\" = \(qualified))"
    return (subquery, rest.isString)
  }
}
