import Foundation

extension FetchPredicate {
  /// Whether `object` satisfies the predicate, with values read by key-value coding.
  ///
  /// Values compare with Swift's semantics, as the ``FetchPredicate`` documentation describes:
  /// strings by canonical equivalence, numbers by value across types, dates by time, objects by
  /// identity; nil equals only nil. `AND` and `OR` stop at the first part that decides.
  ///
  /// ```swift
  /// let cheap = try FetchPredicate(format: "price < 12 AND category.name == 'Fiction'")
  /// let books = allBooks.filter { (try? cheap.evaluate(with: $0)) == true }
  /// ```
  /// - Parameter object: The object to test.
  /// - Returns: true when the object satisfies the predicate.
  /// - Throws: ``ObjectGraphError``: `unknownKey` for a key the object's entity does not have,
  ///   `notToMany` for `ANY`/`ALL`/`NONE` or a collection operator without a to-many key path,
  ///   `invalidPredicate` for a to-many key path compared directly, a variable never substituted,
  ///   `BETWEEN` without two bounds, `IN` without a collection or an invalid `MATCHES` pattern;
  ///   the errors of ``ManagedObject/value(forKey:)``.
  /// - Complexity: O(n) in the size of the predicate times the values its key paths reach.
  public func evaluate(with object: ManagedObject) throws -> Bool {
    switch self {
    case .constant(let value): return value
    case .comparison(let comparison): return try comparison.evaluate(with: object)
    case .and(let parts):
      for part in parts where try !part.evaluate(with: object) { return false }
      return true
    case .or(let parts):
      for part in parts where try part.evaluate(with: object) { return true }
      return false
    case .not(let inner): return try !inner.evaluate(with: object)
    }
  }

  /// Whether `object` satisfies the predicate once its variables are replaced.
  ///
  /// ```swift
  /// let template = try FetchPredicate(format: "price < $limit")
  /// let cheap = try template.evaluate(with: book, substitutionVariables: ["limit": 12])
  /// ```
  /// - Parameters:
  ///   - object: The object to test.
  ///   - variables: Values by variable name (without the `$`).
  /// - Returns: true when the object satisfies the predicate.
  /// - Throws: The errors of ``evaluate(with:)``.
  /// - Complexity: That of ``substituting(_:)`` and ``evaluate(with:)``.
  public func evaluate(
    with object: ManagedObject, substitutionVariables variables: [String: any FetchArgument]
  ) throws -> Bool {
    try substituting(variables).evaluate(with: object)
  }
}

extension FetchComparison {
  /// Whether `object` satisfies the comparison.
  func evaluate(with object: ManagedObject) throws -> Bool {
    let left = try operand(left, of: object)
    let right = try operand(right, of: object)
    guard modifier != .direct else { return try test(left, right, object) }
    guard case .many(let elements) = left else {
      throw ObjectGraphError(
        .notToMany, entity: object.entity.name, key: keyName,
        reason: "\(modifier.rawValue) needs a to-many key path or a list on its left; "
          + "'\(ObjectGraphError.shorten(self.left.description))' is one value")
    }
    for element in elements {
      let result = try test(.one(element), right, object)
      switch modifier {
      case .all where !result: return false
      case .any where result: return true
      case .none where result: return false
      default: continue
      }
    }
    return modifier != .any
  }

  /// The key path the comparison reads, for error messages; its description when there is none.
  var keyName: String {
    if case .keyPath(let path) = left { return path }
    if case .keyPath(let path) = right { return path }
    return left.description
  }

  private func invalid(_ object: ManagedObject?, _ reason: String) -> ObjectGraphError {
    ObjectGraphError(
      .invalidPredicate, entity: object?.entity.name ?? "", key: keyName,
      reason: "\(ObjectGraphError.shorten(description)): \(reason)")
  }

  /// The value of an expression for `object`.
  private func operand(_ expression: FetchExpression, of object: ManagedObject) throws
    -> FetchOperand
  {
    switch expression {
    case .keyPath(let path): return try object.fetchOperand(atKeyPath: path)
    case .constant(let value): return .one(value.map(FetchValue.stored))
    case .object(let id): return .one(.object(id))
    case .evaluatedObject: return .one(.object(object.objectID))
    case .variable(let name):
      throw invalid(object, "the variable $\(name) was not substituted")
    case .aggregate(let elements):
      var values: [FetchValue?] = []
      for element in elements {
        switch try operand(element, of: object) {
        case .one(let value): values.append(value)
        case .many(let list): values += list
        }
      }
      return .many(values)
    }
  }

  /// The operator applied to two operands, the modifier dealt with.
  private func test(_ left: FetchOperand, _ right: FetchOperand, _ object: ManagedObject) throws
    -> Bool
  {
    switch (`operator`, left, right) {
    case (.in, .one(let value), .many(let list)):
      return list.contains { FetchArithmetic.equal(value, $0, options) }
    case (.in, .one(let value), .one(let text)):
      guard let text else { return false }
      guard case .stored(.string) = text else {
        throw invalid(object, "IN needs a list, a to-many key path or a string on its right")
      }
      return FetchStrings.test(.contains, text, value, options)
    case (.contains, .many(let list), .one(let value)):
      return list.contains { FetchArithmetic.equal($0, value, options) }
    case (.between, .one(let value), .many(let bounds)):
      guard bounds.count == 2 else {
        throw invalid(object, "BETWEEN needs two bounds {low, high}, not \(bounds.count)")
      }
      guard let low = FetchArithmetic.order(value, bounds[0], options),
        let high = FetchArithmetic.order(value, bounds[1], options)
      else { return false }
      return low != .orderedAscending && high != .orderedDescending
    case (.between, .one, .one):
      throw invalid(object, "BETWEEN needs two bounds {low, high} on its right")
    case (_, .one(let a), .one(let b)):
      return try scalar(a, b, object)
    default:
      throw invalid(
        object,
        "a to-many key path or a list must be quantified with ANY, ALL or NONE, reduced with "
          + "@count, @sum, @avg, @min or @max, or stand on the right of IN or the left of CONTAINS")
    }
  }

  /// Whether two single values meet the comparison's operator and options, its modifier aside,
  /// exactly as a fetch tests them: for a store that evaluates comparisons itself.
  ///
  /// ```swift
  /// let starts = FetchComparison(.keyPath("title"), .beginsWith, .constant(nil), options: .caseInsensitive)
  /// try starts.test(.string("Émile"), .string("é"))   // false: [c] folds case, not accents
  /// ```
  /// - Parameters:
  ///   - left: The left value; nil for none.
  ///   - right: The right value; nil for none.
  /// - Returns: The result of the operator (for `BETWEEN` and `IN`, which need a list, false).
  /// - Throws: ``ObjectGraphError/Kind/invalidPredicate`` for a `MATCHES` pattern that is not a
  ///   regular expression.
  public func test(_ left: StoredValue?, _ right: StoredValue?) throws -> Bool {
    guard `operator` != .between, `operator` != .in else { return false }
    return try scalar(left.map(FetchValue.stored), right.map(FetchValue.stored), nil)
  }

  /// The operator applied to two single values.
  private func scalar(_ a: FetchValue?, _ b: FetchValue?, _ object: ManagedObject?) throws -> Bool {
    switch `operator` {
    case .equal: return FetchArithmetic.equal(a, b, options)
    case .notEqual: return !FetchArithmetic.equal(a, b, options)
    case .lessThan: return FetchArithmetic.order(a, b, options) == .orderedAscending
    case .lessThanOrEqual:
      return [.orderedAscending, .orderedSame].contains(FetchArithmetic.order(a, b, options))
    case .greaterThan: return FetchArithmetic.order(a, b, options) == .orderedDescending
    case .greaterThanOrEqual:
      return [.orderedDescending, .orderedSame].contains(FetchArithmetic.order(a, b, options))
    case .matches:
      guard case .stored(.string(let text))? = a, case .stored(.string(let pattern))? = b else {
        return false
      }
      do {
        return try FetchStrings.matches(text, pattern, options)
      } catch {
        throw invalid(
          object,
          "\(FetchExpression.constant(.string(pattern))) is not a regular "
            + "expression: \(error)")
      }
    default: return FetchStrings.test(`operator`, a, b, options)
    }
  }
}

/// The string operators.
enum FetchStrings {
  /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` on two values: false unless both are strings.
  /// Matching works on whole characters, as Swift's `String` does.
  static func test(
    _ op: FetchComparison.Operator, _ a: FetchValue?, _ b: FetchValue?,
    _ options: FetchComparison.Options
  ) -> Bool {
    guard case .stored(.string(let x))? = a, case .stored(.string(let y))? = b else {
      return false
    }
    let text = Array(FetchArithmetic.fold(x, options))
    let other = Array(FetchArithmetic.fold(y, options))
    switch op {
    case .beginsWith: return text.starts(with: other)
    case .endsWith: return text.reversed().starts(with: other.reversed())
    case .contains: return contains(text, other)
    case .like: return like(text[...], other[...])
    default: return false
    }
  }

  /// Whether `needle` occurs in `haystack` (an empty needle does).
  static func contains(_ haystack: [Character], _ needle: [Character]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    guard !needle.isEmpty else { return true }
    for start in 0...(haystack.count - needle.count)
    where haystack[start..<(start + needle.count)].elementsEqual(needle) {
      return true
    }
    return false
  }

  /// Whether `text` matches the `LIKE` pattern: `*` any run of characters, `?` exactly one, `\`
  /// makes the next character literal. Backtracks only to the last `*`, so it is O(n·m).
  static func like(_ text: ArraySlice<Character>, _ pattern: ArraySlice<Character>) -> Bool {
    // The pattern as tokens: nil is `*`, "?" wildcard flagged separately.
    enum Piece: Equatable {
      case any
      case one
      case literal(Character)
    }
    var pieces: [Piece] = []
    var index = pattern.startIndex
    while index < pattern.endIndex {
      let character = pattern[index]
      if character == "\\", index + 1 < pattern.endIndex {
        pieces.append(.literal(pattern[index + 1]))
        index += 2
        continue
      }
      pieces.append(character == "*" ? .any : character == "?" ? .one : .literal(character))
      index += 1
    }
    let characters = Array(text)
    var t = 0
    var p = 0
    var star: (piece: Int, text: Int)?
    while t < characters.count {
      if p < pieces.count, pieces[p] == .one || pieces[p] == .literal(characters[t]) {
        t += 1
        p += 1
      } else if p < pieces.count, pieces[p] == .any {
        star = (p, t)
        p += 1
      } else if let last = star {
        star = (last.piece, last.text + 1)
        p = last.piece + 1
        t = last.text + 1
      } else {
        return false
      }
    }
    while p < pieces.count, pieces[p] == .any { p += 1 }
    return p == pieces.count
  }

  /// Whether the whole of `text` matches the regular expression `pattern`.
  static func matches(_ text: String, _ pattern: String, _ options: FetchComparison.Options) throws
    -> Bool
  {
    var text = text
    var pattern = pattern
    if options.contains(.diacriticInsensitive) {
      text = FetchArithmetic.fold(text, .diacriticInsensitive)
      pattern = FetchArithmetic.fold(pattern, .diacriticInsensitive)
    }
    var regex = try Regex(pattern)
    if options.contains(.caseInsensitive) { regex = regex.ignoresCase() }
    return try regex.wholeMatch(in: text) != nil
  }
}
