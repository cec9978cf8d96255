import Foundation

// How each of Foundation's predicate expressions converts to a fetch predicate node: the
// conformances `FetchPredicate.init(_:model:)` walks a `#Predicate` with. An expression type not
// listed here makes the conversion throw `invalidPredicate`, naming it.

// MARK: Values

extension PredicateExpressions.Variable: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    guard let bound = converter.bindings[key] else {
      throw converter.unsupported(self, "a variable from outside the predicate")
    }
    return bound
  }
}

extension PredicateExpressions.KeyPath: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    try converter.member(of: converter.node(of: root), keyPath: keyPath, source: self)
  }
}

extension PredicateExpressions.Value: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    if let range = value as? any RangeBounds {
      let (lower, upper, closed) = range.boundsAndClosed
      return .range(.constant(lower), .constant(upper), closed: closed)
    }
    return .constant(value)
  }
}

extension PredicateExpressions.NilLiteral: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .constant(nil)
  }
}

extension PredicateExpressions.ForcedUnwrap: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    try converter.node(of: inner)
  }
}

extension PredicateExpressions.OptionalFlatMap: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    let base = try converter.node(of: wrapped)
    let result = try converter.binding(variable.key, to: base).node(of: transform)
    switch result {
    case .predicate(let predicate):
      // A condition on the unwrapped value is nil, not false, when the value is nil.
      return .optionalPredicate(predicate, nonNil: try converter.expression(of: base))
    default:
      // A key path through nil is nil, as the Swift expression is.
      return result
    }
  }
}

extension PredicateExpressions.NilCoalesce: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    let value = try converter.node(of: lhs)
    let fallback = try converter.node(of: rhs)
    switch value {
    case .optionalPredicate(let predicate, let nonNil):
      let fallbackPredicate = try converter.predicate(of: fallback)
      return .predicate(
        FoundationPredicateConverter.or([
          FoundationPredicateConverter.and([
            FoundationPredicateConverter.isNotNil(nonNil), predicate,
          ]),
          FoundationPredicateConverter.and([
            FoundationPredicateConverter.isNil(nonNil), fallbackPredicate,
          ]),
        ]))
    case .constant(let constant):
      return FoundationPredicateConverter.flattened(constant) == nil ? fallback : value
    default:
      return .coalesce(try converter.expression(of: value), fallback: fallback)
    }
  }
}

// MARK: Comparisons

extension PredicateExpressions.Equal: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(try converter.compare(converter.node(of: lhs), .equal, converter.node(of: rhs)))
  }
}

extension PredicateExpressions.NotEqual: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(try converter.compare(converter.node(of: lhs), .notEqual, converter.node(of: rhs)))
  }
}

extension PredicateExpressions.Comparison: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    let fetchOperator: FetchComparison.Operator =
      switch op {
      case .lessThan: .lessThan
      case .lessThanOrEqual: .lessThanOrEqual
      case .greaterThan: .greaterThan
      case .greaterThanOrEqual: .greaterThanOrEqual
      @unknown default: throw converter.unsupported(self, "the operator \(op)")
      }
    return .predicate(
      try converter.compare(converter.node(of: lhs), fetchOperator, converter.node(of: rhs)))
  }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(
      FoundationPredicateConverter.and([
        try converter.predicate(of: converter.node(of: lhs)),
        try converter.predicate(of: converter.node(of: rhs)),
      ]))
  }
}

extension PredicateExpressions.Disjunction: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(
      FoundationPredicateConverter.or([
        try converter.predicate(of: converter.node(of: lhs)),
        try converter.predicate(of: converter.node(of: rhs)),
      ]))
  }
}

extension PredicateExpressions.Negation: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(.not(try converter.predicate(of: converter.node(of: wrapped))))
  }
}

extension PredicateExpressions.Conditional: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    guard Output.self == Bool.self else {
      throw converter.unsupported(self, "only a condition choosing between conditions")
    }
    let condition = try converter.predicate(of: converter.node(of: test))
    let whenTrue = try converter.predicate(of: converter.node(of: trueBranch))
    let whenFalse = try converter.predicate(of: converter.node(of: falseBranch))
    return .predicate(
      FoundationPredicateConverter.or([
        FoundationPredicateConverter.and([condition, whenTrue]),
        FoundationPredicateConverter.and([.not(condition), whenFalse]),
      ]))
  }
}

// MARK: Strings and collections

extension PredicateExpressions.CollectionContainsCollection: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    guard Base.Output.self == String.self else {
      throw converter.unsupported(self, "contains of a collection other than a string")
    }
    return .predicate(
      try converter.compare(converter.node(of: base), .contains, converter.node(of: other)))
  }
}

extension PredicateExpressions.SequenceStartsWith: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    guard Base.Output.self == String.self else {
      throw converter.unsupported(self, "starts(with:) of a sequence other than a string")
    }
    return .predicate(
      try converter.compare(converter.node(of: base), .beginsWith, converter.node(of: prefix)))
  }
}

extension PredicateExpressions.SequenceContains: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    let collection = try converter.node(of: sequence)
    let member = try converter.node(of: element)
    switch collection {
    case .path(_, _, true):
      // `$0.books.contains(x)` with `x` an object the predicate reads (a captured object does not
      // compile): `book.category.flatMap { $0.books.contains(book) }`.
      let left = try converter.expression(of: collection)
      return .predicate(
        .comparison(FetchComparison(left, .contains, try converter.expression(of: member))))
    case .constant(let value):
      guard let values = FoundationPredicateConverter.flattened(value) as? any Sequence else {
        throw converter.unsupported(self, "contains on a value that is not a sequence")
      }
      let elements = try values.map { try converter.constant($0) }
      return .predicate(try converter.compare(member, .in, .expression(.aggregate(elements))))
    default:
      throw converter.unsupported(
        self, "contains on a collection that is neither a to-many relationship nor a constant")
    }
  }
}

extension PredicateExpressions.SequenceContainsWhere: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(
      try converter.quantify(
        converter.node(of: sequence), variable: variable.key, test: test, modifier: .any,
        source: self))
  }
}

extension PredicateExpressions.SequenceAllSatisfy: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .predicate(
      try converter.quantify(
        converter.node(of: sequence), variable: variable.key, test: test, modifier: .all,
        source: self))
  }
}

// MARK: Ranges

extension PredicateExpressions.ClosedRange: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .range(try converter.node(of: lower), try converter.node(of: upper), closed: true)
  }
}

extension PredicateExpressions.Range: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    .range(try converter.node(of: lower), try converter.node(of: upper), closed: false)
  }
}

extension PredicateExpressions.RangeExpressionContains: FoundationPredicateConvertible {
  func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
    guard case .range(let lower, let upper, let closed) = try converter.node(of: range) else {
      throw converter.unsupported(
        self, "contains on a range that is not lower...upper or lower..<upper")
    }
    let value = try converter.node(of: element)
    if closed {
      let bounds = FetchExpression.aggregate([
        try converter.expression(of: lower), try converter.expression(of: upper),
      ])
      return .predicate(try converter.compare(value, .between, .expression(bounds)))
    }
    return .predicate(
      FoundationPredicateConverter.and([
        try converter.compare(value, .greaterThanOrEqual, lower),
        try converter.compare(value, .lessThan, upper),
      ]))
  }
}

#if canImport(Darwin)
  // Apple's Foundation only: swift-corelibs-foundation has no localized predicate expressions.
  extension PredicateExpressions.StringLocalizedStandardContains: FoundationPredicateConvertible {
    func fetchNode(_ converter: FoundationPredicateConverter) throws -> FoundationPredicateNode {
      .predicate(
        try converter.compare(
          converter.node(of: root), .contains, converter.node(of: other),
          options: [.caseInsensitive, .diacriticInsensitive]))
    }
  }
#endif
