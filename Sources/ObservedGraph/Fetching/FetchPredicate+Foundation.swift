import Foundation

extension FetchPredicate {
  /// Converts a Foundation `#Predicate` on a model class into a fetch predicate.
  ///
  /// Each member access of the predicate becomes a key path named by the model
  /// (`$0.category?.name` becomes `category.name`), captured values become constants, and the
  /// operators become comparisons:
  ///
  /// | `#Predicate` | fetch predicate |
  /// |---|---|
  /// | `==`, `!=`, `<`, `<=`, `>`, `>=` | the same operator |
  /// | `&&`, `\|\|`, `!`, `c ? a : b` (of conditions) | `AND`, `OR`, `NOT`, `(c AND a) OR (NOT c AND b)` |
  /// | `$0.subtitle == nil`, `$0.category?.name`, `$0.subtitle!` | nil tests, key paths through to-one relationships |
  /// | `($0.subtitle ?? "x") == "x"`, `$0.flag ?? false` | `(subtitle != nil AND subtitle == "x") OR subtitle == nil`, `flag == TRUE` (the fallback's comparison of two constants is answered at once) |
  /// | `$0.title.contains("x")`, `$0.title.starts(with: "x")` | `CONTAINS`, `BEGINSWITH` |
  /// | `$0.title.isEmpty` | `title == ""` |
  /// | `$0.books.contains { $0.price > 5 }`, `$0.books.allSatisfy { … }` | `ANY books.price > 5`, `ALL …` |
  /// | `$0.books.count`, `$0.books.isEmpty` | `books.@count`, `books.@count == 0` |
  /// | `$0.objectID == id`, `$0.objectID != id` | `SELF == <id>`, `SELF != <id>` |
  /// | `$0.category?.objectID == id`, `$0.category == nil` | `category == <id>`, `category == nil` |
  /// | `ids.contains($0.objectID)` (an array or set of ``ObjectID``s) | `SELF IN {<id>, …}` |
  /// | `$0.books.contains { $0.objectID == id }` | `ANY books == <id>` |
  /// | `[1, 2].contains($0.x)`, `(1...5).contains($0.x)`, `(1..<5).contains($0.x)` | `x IN {1, 2}`, `x BETWEEN {1, 5}`, `x >= 1 AND x < 5` |
  /// | `$0.title.localizedStandardContains("x")` (Apple platforms) | `title CONTAINS[cd] "x"` |
  ///
  /// A managed object is neither `Sendable` nor `Codable`, so a `#Predicate` cannot capture one
  /// (`$0.category == fiction` does not compile): it captures the object's ``ObjectID`` instead,
  /// and comparing identifiers compares the objects. `objectID` is recognised by its key path;
  /// anything read from it (`$0.objectID.key`) throws, and so does a property returning it.
  ///
  /// A closure given to `contains(where:)` or `allSatisfy` must be one that distributes over the
  /// members: comparisons of a property of the member joined with `||` under `contains(where:)`,
  /// with `&&` under `allSatisfy`, and negated (`!`) freely. Anything else — arithmetic, string
  /// methods other than those above, casts, subscripts, `&&` inside `contains(where:)` (that needs a
  /// `SUBQUERY`) — throws.
  ///
  /// The result follows ``FetchPredicate``'s semantics, which agree with the Swift predicate's on
  /// the values a model holds, with these exceptions: a forced unwrap (`$0.subtitle!`) of nil is
  /// an error in Swift and a comparison with nil here; a key path through a to-many relationship
  /// and then a nil to-one (`$0.books.contains { $0.category?.name == nil }`) skips the member here.
  ///
  /// ```swift
  /// let limit = 12.0
  /// let cheap = try FetchPredicate(
  ///   #Predicate<Book> { $0.price < limit && $0.category?.name == "Fiction" }, model: model)
  /// print(cheap)  // price < 12.0 AND category.name == "Fiction"
  /// let fictionID = fiction.objectID
  /// let inFiction = try FetchPredicate(
  ///   #Predicate<Book> { $0.category?.objectID == fictionID }, model: model)
  /// print(inFiction)  // category == CAST("og://…/BookCategory/1", "ObjectID")
  /// ```
  /// - Parameters:
  ///   - predicate: The predicate, whose input is a class of the model.
  ///   - model: The model holding the class's entity.
  /// - Throws: ``ObjectGraphError/Kind/unknownEntity`` when the model has no entity for the
  ///   class; ``ObjectGraphError/Kind/invalidPredicate`` naming the entity and the expression when
  ///   the predicate uses something a fetch predicate cannot express, a key path that is not a
  ///   modelled property, or `objectID` used other than whole.
  /// - Complexity: O(n) in the size of the predicate. Each key path is resolved once per process
  ///   (by reading it on a scratch object) and then taken from a cache.
  public init<Input: ManagedObject>(_ predicate: Predicate<Input>, model: ObjectModel) throws {
    guard let entity = model.entity(for: Input.self) else {
      throw ObjectGraphError(
        .unknownEntity, entity: Input.entityName,
        reason: "the model has no entity for the class \(Input.self) of the predicate's input")
    }
    var converter = FoundationPredicateConverter(entity: entity)
    converter.bindings[predicate.variable.key] = .path("", entity: entity, toMany: false)
    self = try converter.predicate(of: converter.node(of: predicate.expression))
  }

  /// Converts a Foundation `#Predicate` with the model of `context`; see ``init(_:model:)``.
  init<Input: ManagedObject>(_ predicate: Predicate<Input>, context: ObjectContext) throws {
    try self.init(predicate, model: context.model)
  }
}

// MARK: - The converter

/// What part of a Foundation predicate expression converts to.
indirect enum FoundationPredicateNode {
  /// A condition.
  case predicate(FetchPredicate)
  /// An optional condition, from `flatMap` on an optional: nil when `nonNil` is nil.
  case optionalPredicate(FetchPredicate, nonNil: FetchExpression)
  /// A key path from the tested object ("" for the object itself); `entity` is the entity of the
  /// object or objects it reaches, nil for an attribute.
  case path(String, entity: EntityDescription?, toMany: Bool)
  /// `objectID` of the object at a key path ("" for the tested object) of `entity`: the object
  /// itself, which only `==`, `!=` and membership in a list of identifiers compare.
  case objectID(String, entity: EntityDescription)
  /// An expression with nothing more to read through, such as `books.@count`.
  case expression(FetchExpression)
  /// A Swift value.
  case constant(Any?)
  /// `value ?? fallback`.
  case coalesce(FetchExpression, fallback: FoundationPredicateNode)
  /// `lower...upper` or `lower..<upper`.
  case range(FoundationPredicateNode, FoundationPredicateNode, closed: Bool)
}

/// A Foundation predicate expression that converts to a node.
protocol FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode
}

/// Converts Foundation predicate expressions to fetch predicates for objects of `entity`.
struct FoundationPredicateConverter {
  /// The entity of the predicate's input, named in errors.
  let entity: EntityDescription
  /// What each variable in scope stands for.
  var bindings: [PredicateExpressions.VariableID: FoundationPredicateNode] = [:]
  /// Placeholders for the members of the collections being quantified, innermost last.
  var quantifiedDepth = 0

  init(entity: EntityDescription) {
    self.entity = entity
  }

  func node(of expression: Any) throws -> FoundationPredicateNode {
    guard let convertible = expression as? any FoundationPredicateConvertible else {
      throw unsupported(expression)
    }
    return try convertible.fetchNode(self)
  }

  /// A converter with a variable bound.
  func binding(_ key: PredicateExpressions.VariableID, to node: FoundationPredicateNode)
    -> FoundationPredicateConverter
  {
    var copy = self
    copy.bindings[key] = node
    return copy
  }

  // MARK: Errors

  func unsupported(_ expression: Any, _ detail: String? = nil) -> ObjectGraphError {
    let name = Self.shortName(of: expression)
    return ObjectGraphError(
      .invalidPredicate, entity: entity.name, value: name,
      reason: "the #Predicate on \(entity.name) uses \(name)"
        + (detail.map { " (\($0))" } ?? "") + ", which a fetch predicate cannot express")
  }

  /// What a fetch predicate can do with `objectID`, for errors.
  static let objectIDUse =
    "(an object identifier is compared whole, with == or !=, or found in a list with contains)"

  func invalid(_ reason: String, value: String? = nil) -> ObjectGraphError {
    ObjectGraphError(
      .invalidPredicate, entity: entity.name, value: value,
      reason: "the #Predicate on \(entity.name): \(reason)")
  }

  /// `PredicateExpressions.Arithmetic` for a value of `PredicateExpressions.Arithmetic<…>`.
  static func shortName(of expression: Any) -> String {
    let full = String(reflecting: type(of: expression))
    let generic = full.firstIndex(of: "<").map { String(full[..<$0]) } ?? full
    let parts = generic.split(separator: ".")
    return parts.suffix(2).joined(separator: ".")
  }

  // MARK: Nodes to expressions and predicates

  func expression(of node: FoundationPredicateNode) throws -> FetchExpression {
    switch node {
    case .path("", _, _), .objectID("", _): return .evaluatedObject
    case .path(let path, _, _), .objectID(let path, _): return .keyPath(path)
    case .expression(let expression): return expression
    case .constant(let value): return try constant(value)
    case .predicate, .optionalPredicate:
      throw invalid("a condition used as a value (compare it with true or false instead)")
    case .coalesce: throw invalid("?? used where only a comparison can take it")
    case .range: throw invalid("a range used other than with contains")
    }
  }

  func constant(_ value: Any?) throws -> FetchExpression {
    guard let value = Self.flattened(value) else { return .null }
    if let object = value as? ManagedObject { return .object(object.objectID) }
    if let argument = value as? any FetchArgument { return argument.fetchExpression }
    throw invalid(
      "\(ObjectGraphError.describe(value)) is not a value a fetch predicate can compare",
      value: ObjectGraphError.describe(value))
  }

  /// The value inside however many optionals, or nil.
  static func flattened(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? any OptionalFlattening { return optional.flattenedValue }
    return value
  }

  func predicate(of node: FoundationPredicateNode) throws -> FetchPredicate {
    switch node {
    case .predicate(let predicate): return predicate
    case .constant(let value):
      guard let bool = Self.flattened(value) as? Bool else {
        throw invalid("\(String(describing: value)) is not a condition")
      }
      return .constant(bool)
    case .path(let path, nil, false) where !path.isEmpty:
      // A Bool attribute.
      return .comparison(FetchComparison(.keyPath(path), .equal, .constant(.bool(true))))
    case .coalesce(let value, let fallback):
      // `flag ?? fallback`
      let fallbackPredicate = try predicate(of: fallback)
      let isTrue = FetchPredicate.comparison(FetchComparison(value, .equal, .constant(.bool(true))))
      return Self.or([isTrue, Self.and([Self.isNil(value), fallbackPredicate])])
    case .optionalPredicate(let predicate, _):
      // Only `??` and comparisons take an optional condition; the type checker allows nothing
      // else.
      return predicate
    default:
      throw invalid("\(try expression(of: node)) is not a condition")
    }
  }

  static func isNil(_ expression: FetchExpression) -> FetchPredicate {
    .comparison(FetchComparison(expression, .equal, .null))
  }

  static func isNotNil(_ expression: FetchExpression) -> FetchPredicate {
    .comparison(FetchComparison(expression, .notEqual, .null))
  }

  /// `AND` of the parts, leaving out `TRUEPREDICATE`s and flattening nested `AND`s.
  static func and(_ parts: [FetchPredicate]) -> FetchPredicate {
    var kept: [FetchPredicate] = []
    for part in parts {
      switch part {
      case .constant(true): continue
      case .constant(false): return .constant(false)
      case .and(let inner): kept += inner
      default: kept.append(part)
      }
    }
    return kept.count == 1 ? kept[0] : .and(kept)
  }

  /// `OR` of the parts, leaving out `FALSEPREDICATE`s and flattening nested `OR`s.
  static func or(_ parts: [FetchPredicate]) -> FetchPredicate {
    var kept: [FetchPredicate] = []
    for part in parts {
      switch part {
      case .constant(false): continue
      case .constant(true): return .constant(true)
      case .or(let inner): kept += inner
      default: kept.append(part)
      }
    }
    return kept.count == 1 ? kept[0] : .or(kept)
  }

  // MARK: Comparisons

  /// `lhs op rhs`, with `??` on either side expanded into its two cases.
  func compare(
    _ lhs: FoundationPredicateNode, _ op: FetchComparison.Operator, _ rhs: FoundationPredicateNode,
    options: FetchComparison.Options = []
  ) throws -> FetchPredicate {
    if case .coalesce(let value, let fallback) = lhs {
      return Self.or([
        Self.and([Self.isNotNil(value), try compare(.expression(value), op, rhs, options: options)]
        ),
        Self.and([Self.isNil(value), try compare(fallback, op, rhs, options: options)]),
      ])
    }
    if case .coalesce(let value, let fallback) = rhs {
      return Self.or([
        Self.and([Self.isNotNil(value), try compare(lhs, op, .expression(value), options: options)]
        ),
        Self.and([Self.isNil(value), try compare(lhs, op, fallback, options: options)]),
      ])
    }
    if op == .equal || op == .notEqual, let condition = try conditionComparison(lhs, rhs) {
      return op == .equal ? condition : .not(condition)
    }
    for side in [lhs, rhs] {
      if case .objectID = side, ![.equal, .notEqual, .in].contains(op) {
        throw invalid("objectID compared with \(op) \(Self.objectIDUse)", value: "objectID")
      }
      if case .path(let path, _, true) = side {
        throw invalid(
          "the to-many relationship \(path) compared as a whole (use contains, allSatisfy, count "
            + "or isEmpty)", value: path)
      }
    }
    let (left, right) = (try expression(of: lhs), try expression(of: rhs))
    if options.isEmpty, case .constant(let a) = left, case .constant(let b) = right,
      let folded = Self.fold(a, op, b)
    {
      return .constant(folded)
    }
    return .comparison(FetchComparison(left, op, right, options: options))
  }

  /// A comparison of two constants (the fallback of `??` with the other side), answered now as
  /// evaluating it would: nil equals only nil, and values that do not order are not ordered.
  private static func fold(
    _ a: StoredValue?, _ op: FetchComparison.Operator, _ b: StoredValue?
  ) -> Bool? {
    let (x, y) = (a.map(FetchValue.stored), b.map(FetchValue.stored))
    let order = FetchArithmetic.order(x, y, [])
    switch op {
    case .equal: return FetchArithmetic.equal(x, y, [])
    case .notEqual: return !FetchArithmetic.equal(x, y, [])
    case .lessThan: return order == .orderedAscending
    case .lessThanOrEqual: return order == .orderedAscending || order == .orderedSame
    case .greaterThan: return order == .orderedDescending
    case .greaterThanOrEqual: return order == .orderedDescending || order == .orderedSame
    default: return nil
    }
  }

  /// `condition == true` and the like: a comparison of a condition with a constant, or nil when
  /// neither side is a condition.
  private func conditionComparison(_ lhs: FoundationPredicateNode, _ rhs: FoundationPredicateNode)
    throws -> FetchPredicate?
  {
    func condition(_ node: FoundationPredicateNode) -> (FetchPredicate, FetchExpression?)? {
      switch node {
      case .predicate(let predicate): return (predicate, nil)
      case .optionalPredicate(let predicate, let nonNil): return (predicate, nonNil)
      default: return nil
      }
    }
    guard let (predicate, nonNil) = condition(lhs) ?? condition(rhs) else { return nil }
    let other = condition(lhs) == nil ? lhs : rhs
    guard case .constant(let value) = other, condition(other) == nil else {
      throw invalid("two conditions compared with each other")
    }
    switch Self.flattened(value) {
    case let bool as Bool:
      let matches = bool ? predicate : .not(predicate)
      return nonNil.map { Self.and([Self.isNotNil($0), matches]) } ?? matches
    case nil:
      guard let nonNil else { return .constant(false) }
      return Self.isNil(nonNil)
    default: throw invalid("a condition compared with \(String(describing: value))")
    }
  }

  // MARK: Key paths

  /// The node for reading `keyPath` from the value `base` stands for.
  func member(of base: FoundationPredicateNode, keyPath: AnyKeyPath, source: Any)
    throws -> FoundationPredicateNode
  {
    switch base {
    case .constant(let value):
      // A captured value: read now.
      guard let value = Self.flattened(value) else { return .constant(nil) }
      guard let read = value[keyPath: keyPath] else {
        throw unsupported(
          source, "\(KeyPathNames.describe(keyPath)) read on \(ObjectGraphError.describe(value))")
      }
      return .constant(read)
    case .path(let path, _, true):
      if let collection = type(of: keyPath).rootType as? any ToManyKeyPaths.Type {
        if keyPath == collection.countKeyPath { return .expression(.keyPath(path + ".@count")) }
        if keyPath == collection.isEmptyKeyPath {
          return .predicate(
            .comparison(
              FetchComparison(.keyPath(path + ".@count"), .equal, .constant(.integer(0)))))
        }
      }
      throw invalid(
        "\(KeyPathNames.describe(keyPath)) on the to-many relationship \(path) (only count and "
          + "isEmpty are supported)", value: KeyPathNames.describe(keyPath))
    case .path(let path, let entity?, false):
      if ObjectIDKeyPath.isObjectID(keyPath) { return .objectID(path, entity: entity) }
      let names = try KeyPathNames.names(of: keyPath, in: entity, singleStep: true)
      let name = names[0]
      let joined = path.isEmpty ? name : path + "." + name
      guard let property = entity.propertiesByName[name] else {
        throw invalid("no property \(name) in \(entity.name)", value: name)
      }
      if property.isRelationship {
        return .path(joined, entity: property.destination, toMany: property.isToMany)
      }
      return .path(joined, entity: nil, toMany: false)
    case .path(let path, nil, false):
      // A key path on an attribute's value: only `isEmpty` of a string has a fetch form.
      if keyPath == \String.isEmpty {
        return .predicate(
          .comparison(FetchComparison(.keyPath(path), .equal, .constant(.string("")))))
      }
      throw invalid(
        "\(KeyPathNames.describe(keyPath)) on the attribute \(path) (only isEmpty of a string "
          + "is supported)", value: KeyPathNames.describe(keyPath))
    case .objectID:
      throw invalid(
        "\(KeyPathNames.describe(keyPath)) read on objectID \(Self.objectIDUse)",
        value: KeyPathNames.describe(keyPath))
    default:
      throw unsupported(
        source, "\(KeyPathNames.describe(keyPath)) read on an expression that is not a key path")
    }
  }

  // MARK: Quantifiers

  /// The placeholder key path standing for the member of the collection quantified at `depth`.
  static func placeholder(_ depth: Int) -> String { "\u{1}member\(depth)" }

  /// `collection.contains(where: test)` (`.any`) or `collection.allSatisfy(test)` (`.all`).
  func quantify(
    _ collection: FoundationPredicateNode, variable: PredicateExpressions.VariableID,
    test: Any, modifier: FetchComparison.Modifier, source: Any
  ) throws -> FetchPredicate {
    guard case .path(let path, let memberEntity, true) = collection else {
      throw unsupported(
        source, "contains(where:) and allSatisfy are supported on to-many relationships only")
    }
    let placeholder = Self.placeholder(quantifiedDepth)
    var inner = binding(variable, to: .path(placeholder, entity: memberEntity, toMany: false))
    inner.quantifiedDepth += 1
    let body = try inner.predicate(of: inner.node(of: test))
    return try distribute(body, modifier, placeholder: placeholder, path: path, source: source)
  }

  /// The body quantified over the members: `ANY` distributes over `OR`, `ALL` over `AND`, and a
  /// negation swaps them.
  private func distribute(
    _ body: FetchPredicate, _ modifier: FetchComparison.Modifier, placeholder: String,
    path: String, source: Any
  ) throws -> FetchPredicate {
    switch (body, modifier) {
    case (.or(let parts), .any), (.and(let parts), .all):
      let quantified = try parts.map {
        try distribute($0, modifier, placeholder: placeholder, path: path, source: source)
      }
      return modifier == .any ? Self.or(quantified) : Self.and(quantified)
    case (.not(let inner), _):
      let swapped: FetchComparison.Modifier = modifier == .any ? .all : .any
      return .not(
        try distribute(inner, swapped, placeholder: placeholder, path: path, source: source))
    case (.comparison(let comparison), _):
      return .comparison(
        try quantified(comparison, modifier, placeholder: placeholder, path: path, source: source))
    case (.and, _):
      throw unsupported(source, "&& inside contains(where:) needs a SUBQUERY")
    case (.or, _):
      throw unsupported(source, "|| inside allSatisfy needs a SUBQUERY")
    case (.constant, _):
      throw unsupported(source, "the closure does not test its member")
    }
  }

  private func quantified(
    _ comparison: FetchComparison, _ modifier: FetchComparison.Modifier, placeholder: String,
    path: String, source: Any
  ) throws -> FetchComparison {
    func mentions(_ expression: FetchExpression) -> Bool {
      switch expression {
      case .keyPath(let keyPath):
        return keyPath == placeholder || keyPath.hasPrefix(placeholder + ".")
      case .aggregate(let elements): return elements.contains(where: mentions)
      default: return false
      }
    }
    var comparison = comparison
    if mentions(comparison.right) && !mentions(comparison.left) {
      let flipped: FetchComparison.Operator? =
        switch comparison.operator {
        case .equal: .equal
        case .notEqual: .notEqual
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        default: nil
        }
      guard let flipped, comparison.modifier == .direct else {
        throw unsupported(source, "the member is on the right of \(comparison.operator)")
      }
      comparison = FetchComparison(
        comparison.right, flipped, comparison.left, options: comparison.options)
    }
    guard case .keyPath(let keyPath) = comparison.left, mentions(comparison.left),
      !mentions(comparison.right)
    else {
      throw unsupported(
        source, "each comparison in the closure must test one property of the member")
    }
    guard comparison.modifier == .direct || comparison.modifier == modifier else {
      throw unsupported(source, "contains(where:) and allSatisfy nested in each other")
    }
    let rest = keyPath.dropFirst(placeholder.count)
    guard !rest.contains("@") else {
      throw unsupported(source, "count or isEmpty of each member's to-many relationship")
    }
    comparison.left = .keyPath(path + rest)
    comparison.modifier = modifier
    return comparison
  }
}

// MARK: - Helpers for generic values

/// Optionals, for flattening `Any` holding nested optionals.
protocol OptionalFlattening {
  var flattenedValue: Any? { get }
}

extension Optional: OptionalFlattening {
  var flattenedValue: Any? {
    switch self {
    case .none: return nil
    case .some(let wrapped): return FoundationPredicateConverter.flattened(wrapped)
    }
  }
}

/// The collection types of to-many relationships, with the key paths of their `count` and
/// `isEmpty` (a `#Predicate` reads `$0.books.count` as the key path `\Set<Book>.count`).
protocol ToManyKeyPaths {
  static var countKeyPath: AnyKeyPath { get }
  static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Set: ToManyKeyPaths {
  static var countKeyPath: AnyKeyPath { \Set<Element>.count }
  static var isEmptyKeyPath: AnyKeyPath { \Set<Element>.isEmpty }
}

extension Array: ToManyKeyPaths {
  static var countKeyPath: AnyKeyPath { \[Element].count }
  static var isEmptyKeyPath: AnyKeyPath { \[Element].isEmpty }
}

/// `lower...upper` and `lower..<upper` held in a captured value.
protocol RangeBounds {
  var boundsAndClosed: (lower: Any, upper: Any, closed: Bool) { get }
}

extension ClosedRange: RangeBounds {
  var boundsAndClosed: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, true) }
}

extension Range: RangeBounds {
  var boundsAndClosed: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, false) }
}
