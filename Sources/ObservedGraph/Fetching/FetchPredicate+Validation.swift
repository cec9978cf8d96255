import Foundation

extension FetchPredicate {
  /// Checks the predicate against the entity of the objects it will test: every key exists, key
  /// paths go through relationships, quantifiers have a to-many key path, and constants can be
  /// compared with the values they meet.
  ///
  /// Check a predicate once, before a fetch, to learn of mistakes that evaluation would meet only
  /// on some objects (or never, on an empty store). Variables are not checked; substitute them
  /// first to check their values. An error about one key of a path names the entity that lacks
  /// or holds it (`BookCategory` for `category.nmae`), an error about the comparison the entity
  /// given here; each names the key path as written and the offending component or value.
  ///
  /// ```swift
  /// let wrong = try FetchPredicate(format: "price == 'abc'")
  /// try wrong.validate(for: bookEntity)
  /// // throws wrongType: Book.price: price is a double attribute; it cannot be compared with "abc" (a string)
  /// ```
  /// - Parameter entity: The entity of the objects to test.
  /// - Throws: ``ObjectGraphError``: `unknownKey` for a key the entity does not have, or an
  ///   attribute in the middle of a key path; `notToMany` for `ANY`/`ALL`/`NONE` or a collection
  ///   operator with no to-many relationship before it; `wrongType` for a constant of a type the
  ///   attribute cannot hold, a string operator on a non-string, an ordering of values without an
  ///   order; `invalidPredicate` for a to-many key path compared directly, `BETWEEN` without two
  ///   bounds, `IN` without a collection.
  /// - Complexity: O(n) in the size of the predicate.
  public func validate(for entity: EntityDescription) throws {
    switch self {
    case .constant: return
    case .comparison(let comparison): try comparison.validate(for: entity)
    case .and(let parts), .or(let parts):
      for part in parts { try part.validate(for: entity) }
    case .not(let inner): try inner.validate(for: entity)
    }
  }

  /// Throws ``ObjectGraphError/Kind/otherStore`` for an object of the predicate (a `%@`
  /// argument, an ``ObjectID`` captured by a `#Predicate`) that belongs to another store than
  /// `store`: no object of the store it is fetched from could be that object, so the answer would
  /// say nothing (`SELF != <id>` would hold for every object).
  ///
  /// - Parameters:
  ///   - store: The identifier of the store of the context that fetches.
  ///   - entity: The entity fetched, named in the error.
  func checkObjects(belongTo store: UUID, fetching entity: EntityDescription) throws {
    switch self {
    case .constant: return
    case .comparison(let comparison):
      for side in [comparison.left, comparison.right] {
        guard let foreign = side.objects.first(where: { $0.storeIdentifier != store }) else {
          continue
        }
        let key: String
        switch (comparison.left, comparison.right) {
        case (.keyPath(let path), _), (_, .keyPath(let path)): key = path
        case (.evaluatedObject, _), (_, .evaluatedObject): key = "SELF"
        default: key = comparison.keyName
        }
        throw ObjectGraphError(
          .otherStore, entity: entity.name, key: key, value: foreign.description,
          reason: "the predicate compares \(key) with \(foreign), an object of store "
            + "\(foreign.storeIdentifier), not of this context's store \(store)")
      }
    case .and(let parts), .or(let parts):
      for part in parts { try part.checkObjects(belongTo: store, fetching: entity) }
    case .not(let inner): try inner.checkObjects(belongTo: store, fetching: entity)
    }
  }
}

extension FetchExpression {
  /// The identifiers of the objects the expression holds, in a list too.
  var objects: [ObjectID] {
    switch self {
    case .object(let id): [id]
    case .aggregate(let elements): elements.flatMap(\.objects)
    default: []
    }
  }
}

/// What an expression yields, known from the model alone.
struct FetchShape {
  /// The kind of value, for type checks.
  enum Kind {
    case string, number, bool, date, data, uuid, url, transformable
    case object(EntityDescription)
    case objectNamed(String)

    init(_ type: AttributeType) {
      switch type.kind {
      case .string: self = .string
      case .bool: self = .bool
      case .int16, .int32, .int64, .int, .float, .double, .decimal: self = .number
      case .date: self = .date
      case .data: self = .data
      case .uuid: self = .uuid
      case .url: self = .url
      case .transformable: self = .transformable
      }
    }

    init(_ value: StoredValue) {
      switch value {
      case .string: self = .string
      case .integer, .double, .decimal: self = .number
      case .bool: self = .bool
      case .date: self = .date
      case .data: self = .data
      case .uuid: self = .uuid
      case .url: self = .url
      }
    }

    var isOrderable: Bool {
      switch self {
      case .string, .number, .date: true
      default: false
      }
    }

    var name: String {
      switch self {
      case .string: "a string"
      case .number: "a number"
      case .bool: "a Boolean"
      case .date: "a date"
      case .data: "data"
      case .uuid: "a UUID"
      case .url: "a URL"
      case .transformable: "a transformable value"
      case .object(let entity): "a \(entity.name) object"
      case .objectNamed(let name): "a \(name) object"
      }
    }

    /// Whether values of the two kinds can be compared (equal or not).
    func isComparable(with other: Kind) -> Bool {
      switch (self, other) {
      case (.string, .string), (.number, .number), (.bool, .bool), (.date, .date), (.data, .data),
        (.uuid, .uuid), (.url, .url):
        return true
      case (.transformable, _), (_, .transformable): return true
      case (.object(let a), .object(let b)): return a.isKind(of: b) || b.isKind(of: a)
      case (.object(let entity), .objectNamed(let name)),
        (.objectNamed(let name), .object(let entity)):
        return Self.family(of: entity).contains(name)
      case (.objectNamed, .objectNamed): return true
      default: return false
      }
    }

    /// The names of an entity, its ancestors and its descendants: the entities an object compared
    /// with it may have.
    private static func family(of entity: EntityDescription) -> Set<String> {
      var names: Set<String> = []
      var ancestor = entity.parent
      while let current = ancestor {
        names.insert(current.name)
        ancestor = current.parent
      }
      var pending = [entity]
      while let current = pending.popLast() {
        names.insert(current.name)
        pending += current.subentities
      }
      return names
    }
  }

  /// The kind of each value; nil when unknown (a variable) or for the constant nil.
  var kind: Kind?
  /// Whether the expression is a collection: a to-many key path or a list.
  var isCollection = false
  /// A list's elements.
  var elements: [FetchShape]?
  /// The entity holding the last key of a key path.
  var owner: EntityDescription?
  /// What the expression is, for messages: `price is a double attribute`, `"abc" (a string)`.
  var text: String
}

extension FetchComparison {
  /// Checks the comparison against `entity`; see ``FetchPredicate/validate(for:)``.
  func validate(for entity: EntityDescription) throws {
    let left = try FetchComparison.shape(of: left, in: entity)
    let right = try FetchComparison.shape(of: right, in: entity)
    func error(_ code: ObjectGraphError.Kind.Code, _ reason: String, value: String? = nil)
      -> ObjectGraphError
    {
      ObjectGraphError(code, entity: entity.name, key: keyName, value: value, reason: reason)
    }
    if modifier != .direct {
      guard left.isCollection else {
        throw error(
          .notToMany,
          "\(modifier.rawValue) needs a to-many key path on its left; \(left.text), one value")
      }
    } else if left.isCollection && `operator` != .contains {
      throw error(
        .invalidPredicate,
        "\(left.text), a collection: quantify it with ANY, ALL or NONE, or reduce it with @count, "
          + "@sum, @avg, @min or @max")
    }
    if right.isCollection && right.elements == nil && `operator` != .in {
      throw error(
        .invalidPredicate, "\(right.text), a collection, may stand on the right of IN only")
    }
    if right.elements != nil && `operator` != .in && `operator` != .between {
      throw error(
        .invalidPredicate, "the list \(right.text) may stand on the right of IN or BETWEEN only")
    }
    func mismatch(_ a: FetchShape, _ b: FetchShape) -> ObjectGraphError {
      error(
        .wrongType, "\(a.text); it cannot be compared with \(b.text)",
        value: b.owner == nil ? b.text : a.text)
    }
    func check(_ a: FetchShape, _ b: FetchShape) throws {
      guard let x = a.kind, let y = b.kind else { return }
      guard x.isComparable(with: y) else { throw mismatch(a, b) }
    }
    switch `operator` {
    case .in:
      if let elements = right.elements {
        for element in elements { try check(left, element) }
      } else if right.isCollection || right.kind == nil {
        try check(left, right)
      } else if case .string = right.kind {
        try check(left, right)  // a substring test
      } else {
        throw error(
          .invalidPredicate,
          "IN needs a list, a to-many key path or a string on its right, not "
            + right.text)
      }
    case .between:
      if let elements = right.elements, elements.count != 2 {
        throw error(.invalidPredicate, "BETWEEN needs two bounds {low, high}, not \(right.text)")
      }
      if right.elements == nil, right.kind != nil {
        throw error(.invalidPredicate, "BETWEEN needs two bounds {low, high}, not \(right.text)")
      }
      try checkOrderable(left, error)
      for element in right.elements ?? [] {
        if element.isCollection {
          throw error(.invalidPredicate, "a bound of BETWEEN is one value, not \(element.text)")
        }
        try checkOrderable(element, error)
        try check(left, element)
      }
    case .contains where left.isCollection:
      try check(left, right)
    case .beginsWith, .endsWith, .contains, .like, .matches:
      for side in [left, right] {
        if let kind = side.kind, !kind.isComparable(with: .string) {
          throw error(
            .wrongType, "\(`operator`.rawValue) compares strings; \(side.text)", value: side.text)
        }
      }
      if `operator` == .matches, case .constant(.string(let pattern)?) = self.right {
        do {
          _ = try Regex(pattern)
        } catch {
          throw ObjectGraphError(
            .invalidPredicate, entity: entity.name, key: keyName, value: right.text,
            reason: "\(right.text) is not a regular expression: \(error)")
        }
      }
    case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
      try checkOrderable(left, error)
      try checkOrderable(right, error)
      try check(left, right)
    case .equal, .notEqual:
      try check(left, right)
    }
  }

  private func checkOrderable(
    _ shape: FetchShape, _ error: (ObjectGraphError.Kind.Code, String, String?) -> ObjectGraphError
  ) throws {
    if let kind = shape.kind, !kind.isOrderable {
      throw error(
        .wrongType, "\(shape.text), has no order for \(`operator`.rawValue)", shape.text)
    }
  }

  /// What `expression` yields for objects of `entity`.
  static func shape(of expression: FetchExpression, in entity: EntityDescription) throws
    -> FetchShape
  {
    switch expression {
    case .constant(nil): return FetchShape(text: "nil")
    case .constant(let value?):
      let kind = FetchShape.Kind(value)
      return FetchShape(kind: kind, text: "\(expression) (\(kind.name))")
    case .object(let id): return FetchShape(kind: .objectNamed(id.entityName), text: id.description)
    case .variable: return FetchShape(text: expression.description)
    case .evaluatedObject: return FetchShape(kind: .object(entity), text: "SELF")
    case .aggregate(let list):
      let elements = try list.map { try shape(of: $0, in: entity) }
      return FetchShape(isCollection: true, elements: elements, text: expression.description)
    case .keyPath(let path): return try shape(ofKeyPath: path, in: entity)
    }
  }

  /// What a key path yields for objects of `entity`, following it through the model.
  static func shape(ofKeyPath path: String, in root: EntityDescription) throws -> FetchShape {
    let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    var entity = root
    var holder = root  // the entity holding the previous key
    var many = false
    // Shortened once: shortening counts the path's characters, which for each of a long path's
    // components made checking it quadratic in its length.
    let shortPath = ObjectGraphError.shorten(path)
    for (position, key) in keys.enumerated() {
      let place = "component \(position + 1) of key path '\(shortPath)'"
      guard !key.isEmpty else {
        throw ObjectGraphError(
          .unknownKey, entity: entity.name, key: path, value: key,
          reason: "\(place) is empty")
      }
      if key.hasPrefix("@") {
        return try collectionOperator(
          key, keys: keys, at: position, path: path, in: entity, holder: holder, many: many)
      }
      guard let property = entity.propertiesByName[key] else {
        throw ObjectGraphError(
          .unknownKey, entity: entity.name, key: path, value: key,
          reason: "\(entity.name) has no property '\(ObjectGraphError.shorten(key))' (\(place))")
      }
      let isLast = position == keys.count - 1
      if let type = property.attributeType {
        guard isLast else {
          throw ObjectGraphError(
            .unknownKey, entity: entity.name, key: path, value: key,
            reason: "'\(key)' in key path '\(ObjectGraphError.shorten(path))' is an attribute, so "
              + "the path cannot go on (\(place))")
        }
        return FetchShape(
          kind: FetchShape.Kind(type), isCollection: many, owner: entity,
          text: "\(path) is a\(type.name.first.map { "aeiou".contains($0) } == true ? "n" : "") "
            + "\(type.name) attribute")
      }
      many = many || property.isToMany
      holder = entity
      entity = property.destination!
      if isLast {
        return FetchShape(
          kind: .object(entity), isCollection: many, owner: entity,
          text: "\(path) is a relationship to \(entity.name)")
      }
    }
    return FetchShape(kind: .object(entity), owner: entity, text: path)
  }

  /// The shape of `@count`, `@sum`, … at `keys[position]`.
  private static func collectionOperator(
    _ key: String, keys: [String], at position: Int, path: String, in entity: EntityDescription,
    holder: EntityDescription, many: Bool
  ) throws -> FetchShape {
    let name = String(key.dropFirst())
    guard PredicateSyntax.collectionOperators.contains(name) else {
      throw ObjectGraphError(
        .unknownKey, entity: holder.name, key: path, value: key,
        reason: "\(key) in key path '\(ObjectGraphError.shorten(path))' is not @count, @sum, "
          + "@avg, @min or @max")
    }
    guard many else {
      throw ObjectGraphError(
        .notToMany, entity: holder.name, key: path, value: key,
        reason: "\(key) in key path '\(ObjectGraphError.shorten(path))' needs a to-many "
          + "relationship before it; \(position == 0 ? "there is none" : "'\(keys[position - 1])' is not one")"
      )
    }
    let rest = keys[(position + 1)...].joined(separator: ".")
    if name == "count" {
      guard rest.isEmpty else {
        throw ObjectGraphError(
          .unknownKey, entity: entity.name, key: path, value: rest,
          reason: "nothing may follow @count in key path '\(ObjectGraphError.shorten(path))'")
      }
      return FetchShape(kind: .number, owner: entity, text: "\(path) is a number")
    }
    guard !rest.isEmpty else {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: path, value: key,
        reason: "\(key) in key path '\(ObjectGraphError.shorten(path))' needs a key after it")
    }
    let member = try shape(ofKeyPath: rest, in: entity)
    let numeric = name == "sum" || name == "avg"
    guard let kind = member.kind, kind.isOrderable, !numeric || kind.isComparable(with: .number)
    else {
      throw ObjectGraphError(
        .wrongType, entity: member.owner?.name ?? entity.name, key: path, value: rest,
        reason: "\(key) needs \(numeric ? "numbers" : "numbers, strings or dates"); \(member.text)")
    }
    let owner = member.owner ?? entity
    return FetchShape(kind: kind, owner: owner, text: "\(path) is \(kind.name)")
  }
}
