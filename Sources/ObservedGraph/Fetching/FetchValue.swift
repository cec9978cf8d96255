import Foundation

/// One value met while evaluating a predicate: an attribute value in stored form, or an object by
/// its identifier.
enum FetchValue: Hashable {
  case stored(StoredValue)
  case object(ObjectID)

  /// A value read by key-value coding: an object, or a value of one of the attribute types.
  init?(reading value: Any) {
    if let object = value as? ManagedObject {
      self = .object(object.objectID)
      return
    }
    switch (value as? any FetchArgument)?.fetchExpression {
    case .constant(let stored?): self = .stored(stored)
    case .object(let id): self = .object(id)
    default: return nil
    }
  }
}

/// What an expression yields for one object: one value (nil for none), or a collection (a to-many
/// key path, a list).
enum FetchOperand: Equatable {
  case one(FetchValue?)
  case many([FetchValue?])
}

// MARK: Reading key paths

extension ManagedObject {
  /// The value of a predicate key path on this object: the one place evaluation reads objects.
  ///
  /// Each key is read with ``value(forKey:)`` (so faults are fulfilled, reads are tracked, and
  /// `value(forUndefinedKey:)` overrides answer keys the model does not have). Whether the result
  /// is one value or a collection follows from the model: a to-many step makes it a collection of
  /// the values reached from every member (objects reached twice count once; values of the last
  /// key, nil included, all stay). A to-one step through nil reaches nothing: the result is nil,
  /// or an empty collection after a to-many step. A collection operator (`@count`, `@sum`,
  /// `@avg`, `@min`, `@max`) reduces the collection so far.
  ///
  /// - Throws: ``ObjectGraphError`` `unknownKey` (no such key, empty component, an attribute in
  ///   the middle), `notToMany` (a collection operator after no to-many step), `wrongType` (a
  ///   value of no attribute type, `@sum` of non-numbers).
  func fetchOperand(atKeyPath keyPath: String) throws -> FetchOperand {
    let keys = try keyPathComponents(keyPath)
    var objects: [ManagedObject] = [self]
    var entity: EntityDescription? = self.entity  // the entity of `objects`, known from the model
    var many = false
    for (position, key) in keys.enumerated() {
      if key.hasPrefix("@") {
        return .one(try reduce(objects, many: many, keys: keys, at: position, keyPath: keyPath))
      }
      let isLast = position == keys.count - 1
      let property =
        entity?.propertiesByName[key]
        ?? objects.lazy.compactMap { $0.entity.propertiesByName[key] }.first
      if let property, !property.isRelationship {
        guard isLast else {
          throw ObjectGraphError(
            .unknownKey, entity: property.owner.name, key: keyPath, value: key,
            reason: "'\(key)' in key path '\(ObjectGraphError.shorten(keyPath))' is an attribute, "
              + "so the path cannot go on")
        }
      }
      if isLast && property?.isRelationship != true {
        let values = try objects.map { object -> FetchValue? in
          let value = try object.value(forKey: key)
          // An attribute's value in its stored form (a transformable value as its JSON).
          if let property, let stored = property.storedValue(of: unboxed(value)) {
            return FetchValue.stored(stored)
          }
          return try fetchValue(value, keyPath: keyPath)
        }
        return many ? .many(values) : .one(values.first ?? nil)
      }
      var next: [ManagedObject] = []
      var seen = Set<ObjectIdentifier>()
      for object in objects {
        let members: [ManagedObject]
        switch try object.value(forKey: key) {
        case let set as Set<ManagedObject>:
          members = Array(set)
          many = true
        case let list as [ManagedObject]:
          members = list
          many = true
        case let member as ManagedObject: members = [member]
        case let value where unboxed(value) == nil: members = []
        default:
          throw ObjectGraphError(
            .unknownKey, entity: object.entity.name, key: keyPath, value: key,
            reason: "'\(key)' in key path '\(ObjectGraphError.shorten(keyPath))' is not a "
              + "relationship, so the path cannot go on")
        }
        for member in members where seen.insert(ObjectIdentifier(member)).inserted {
          next.append(member)
        }
      }
      many = many || property?.isToMany == true
      entity = property?.destination
      objects = next
    }
    let values = objects.map { FetchValue.object($0.objectID) }
    return many ? .many(values) : .one(values.first)
  }

  /// A value read at the end of a key path as a ``FetchValue``.
  private func fetchValue(_ value: Any?, keyPath: String) throws -> FetchValue? {
    guard let value = unboxed(value) else { return nil }
    guard let converted = FetchValue(reading: value) else {
      throw ObjectGraphError(
        .wrongType, entity: entity.name, key: keyPath, value: ObjectGraphError.describe(value),
        reason: "\(ObjectGraphError.describe(value)) at '\(ObjectGraphError.shorten(keyPath))' "
          + "is not a value a predicate can compare")
    }
    return converted
  }

  /// The result of the collection operator `keys[position]` applied to `items`.
  private func reduce(
    _ members: [ManagedObject], many: Bool, keys: [String], at position: Int, keyPath: String
  ) throws -> FetchValue? {
    let name = keys[position]
    guard many else {
      throw ObjectGraphError(
        .notToMany, entity: entity.name, key: keyPath, value: name,
        reason: "\(name) in key path '\(ObjectGraphError.shorten(keyPath))' needs a to-many "
          + "relationship before it")
    }
    let rest = keys[(position + 1)...].joined(separator: ".")
    if name == "@count" {
      guard rest.isEmpty else {
        throw ObjectGraphError(
          .unknownKey, entity: entity.name, key: keyPath, value: rest,
          reason: "nothing may follow @count in key path '\(ObjectGraphError.shorten(keyPath))'")
      }
      return .stored(.integer(Int64(members.count)))
    }
    guard PredicateSyntax.collectionOperators.contains(String(name.dropFirst())), !rest.isEmpty
    else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: keyPath, value: name,
        reason: "\(name) in key path '\(ObjectGraphError.shorten(keyPath))' is not @count, or "
          + "@sum, @avg, @min or @max followed by a key")
    }
    var values: [StoredValue] = []
    for member in members {
      let operand: FetchOperand
      do {
        operand = try member.fetchOperand(atKeyPath: rest)
      } catch let error as ObjectGraphError {
        // Name the whole key path, as written.
        throw ObjectGraphError(
          error.kind.code, entity: error.entity, key: keyPath, value: error.value,
          reason: error.reason)
      }
      switch operand {
      case .one(.stored(let value)?): values.append(value)
      case .many(let list):
        for case .stored(let value)? in list { values.append(value) }
      default: break
      }
    }
    let result: StoredValue?? =
      switch name {
      case "@sum": FetchArithmetic.sum(values)
      case "@avg": FetchArithmetic.average(values)
      case "@min": FetchArithmetic.extreme(values, keepingFirst: .orderedAscending)
      default: FetchArithmetic.extreme(values, keepingFirst: .orderedDescending)
      }
    guard let result else {
      throw ObjectGraphError(
        .wrongType, entity: entity.name, key: keyPath, value: rest,
        reason: "\(name) in key path '\(ObjectGraphError.shorten(keyPath))' needs numbers"
          + (name == "@min" || name == "@max" ? ", strings or dates" : ""))
    }
    return result.map { .stored($0) }
  }
}

// MARK: Comparing values

/// How predicate values compare: Swift's semantics for strings, numbers by value across integer,
/// double and decimal, dates by time; other kinds only for equality.
enum FetchArithmetic {
  /// A number of any of the three stored kinds.
  enum Number {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    init?(_ value: StoredValue) {
      switch value {
      case .integer(let number): self = .integer(number)
      case .double(let number): self = .double(number)
      case .decimal(let number): self = .decimal(number)
      default: return nil
      }
    }

    var double: Double {
      switch self {
      case .integer(let number): Double(number)
      case .double(let number): number
      case .decimal(let number): NSDecimalNumber(decimal: number).doubleValue
      }
    }

    var decimal: Decimal {
      switch self {
      case .integer(let number): Decimal(number)
      // Foundation's `Decimal(_: Double)` traps on an infinity.
      case .double(let number): number.isFinite ? Decimal(number) : .nan
      case .decimal(let number): number
      }
    }
  }

  /// The order of two numbers by value; nil when one is not a number (NaN).
  static func compare(_ lhs: Number, _ rhs: Number) -> ComparisonResult? {
    switch (lhs, rhs) {
    case (.integer(let a), .integer(let b)): return order(a, b)
    case (.integer(let a), .double(let b)): return compare(a, b)
    case (.double(let a), .integer(let b)): return compare(b, a).map(reversed)
    case (.decimal(let a), .integer(let b)): return order(a, Decimal(b))
    case (.integer(let a), .decimal(let b)): return order(Decimal(a), b)
    case (.decimal(let a), .decimal(let b)):
      return a.isNaN || b.isNaN ? nil : order(a, b)
    default:
      let (a, b) = (lhs.double, rhs.double)
      return a.isNaN || b.isNaN ? nil : order(a, b)
    }
  }

  /// An integer and a double compared exactly (no rounding of the integer).
  private static func compare(_ integer: Int64, _ double: Double) -> ComparisonResult? {
    if double.isNaN { return nil }
    if double >= 0x1p63 { return .orderedAscending }
    if double < -0x1p63 { return .orderedDescending }
    let whole = double.rounded(.down)
    let wholeInteger = Int64(whole)
    if integer != wholeInteger { return order(integer, wholeInteger) }
    return double > whole ? .orderedAscending : .orderedSame
  }

  private static func reversed(_ result: ComparisonResult) -> ComparisonResult {
    switch result {
    case .orderedAscending: .orderedDescending
    case .orderedDescending: .orderedAscending
    case .orderedSame: .orderedSame
    }
  }

  static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
  }

  /// A string folded as the options ask.
  static func fold(_ text: String, _ options: FetchComparison.Options) -> String {
    guard !options.isEmpty else { return text }
    var folding: String.CompareOptions = []
    if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
    if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
    return text.folding(options: folding, locale: nil)
  }

  /// Whether two values are equal: nil equals only nil.
  static func equal(_ lhs: FetchValue?, _ rhs: FetchValue?, _ options: FetchComparison.Options)
    -> Bool
  {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    guard case .stored(let a) = lhs, case .stored(let b) = rhs else { return lhs == rhs }
    if case .string(let x) = a, case .string(let y) = b {
      return fold(x, options) == fold(y, options)
    }
    if let x = Number(a), let y = Number(b) { return compare(x, y) == .orderedSame }
    return a == b
  }

  /// The order of two values: numbers, strings and dates; nil for nil and other kinds.
  static func order(_ lhs: FetchValue?, _ rhs: FetchValue?, _ options: FetchComparison.Options)
    -> ComparisonResult?
  {
    guard case .stored(let a)? = lhs, case .stored(let b)? = rhs else { return nil }
    return order(a, b, options)
  }

  static func order(_ a: StoredValue, _ b: StoredValue, _ options: FetchComparison.Options)
    -> ComparisonResult?
  {
    switch (a, b) {
    case (.string(let x), .string(let y)): return order(fold(x, options), fold(y, options))
    case (.date(let x), .date(let y)):
      // A date whose interval is NaN orders with nothing, as NaN does.
      let (a, b) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
      return a.isNaN || b.isNaN ? nil : order(a, b)
    default:
      guard let x = Number(a), let y = Number(b) else { return nil }
      return compare(x, y)
    }
  }

  /// The sum of numbers: an integer while all are integers and it fits, a decimal when one is a
  /// decimal, else a double; 0 for none. nil (the outer optional) when a value is not a number.
  static func sum(_ values: [StoredValue]) -> StoredValue?? {
    var numbers: [Number] = []
    for value in values {
      guard let number = Number(value) else { return nil }
      numbers.append(number)
    }
    if numbers.contains(where: { if case .decimal = $0 { true } else { false } }) {
      return .some(.decimal(numbers.reduce(Decimal(0)) { $0 + $1.decimal }))
    }
    var integer: Int64? = 0
    for number in numbers {
      guard case .integer(let part) = number, let total = integer else {
        integer = nil
        break
      }
      let (result, overflow) = total.addingReportingOverflow(part)
      integer = overflow ? nil : result
    }
    if let integer { return .some(.integer(integer)) }
    return .some(.double(numbers.reduce(0) { $0 + $1.double }))
  }

  /// The mean of numbers (a decimal for decimals, else a double); nil inside for none.
  static func average(_ values: [StoredValue]) -> StoredValue?? {
    guard let total = sum(values) else { return nil }
    guard !values.isEmpty else { return .some(nil) }
    if case .decimal(let decimal)? = total {
      return .some(.decimal(decimal / Decimal(values.count)))
    }
    return .some(.double((total.flatMap(Number.init)?.double ?? 0) / Double(values.count)))
  }

  /// The least (`.orderedAscending`) or greatest value, NaN skipped; nil inside for none, nil when
  /// two values do not order (they are not numbers, strings or dates).
  static func extreme(_ values: [StoredValue], keepingFirst wanted: ComparisonResult)
    -> StoredValue??
  {
    // NaN orders with nothing: it is skipped, as nil values are.
    let values = values.filter { value in
      switch value {
      case .double(let number): !number.isNaN
      case .decimal(let number): !number.isNaN
      default: true
      }
    }
    guard var best = values.first else { return .some(nil) }
    for value in values {
      guard let result = order(value, best, []) else { return nil }
      if result == wanted { best = value }
    }
    return .some(best)
  }
}
