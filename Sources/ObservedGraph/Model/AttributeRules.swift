import Foundation

/// Rules an attribute's value must follow when its object is saved: a numeric range, a length,
/// a regular-expression pattern (Core Data's minimum and maximum value, minimum and maximum
/// length, and regular expression).
///
/// `save()` checks them for every inserted and updated object, after the non-optional check: a
/// nil value of an optional attribute follows every rule. Each broken rule is an
/// ``ObjectGraphError`` naming the entity, the key and the value, and a save reports all of them
/// in one error.
///
/// ```swift
/// AttributeDescription(
///   name: "price", type: .double, defaultValue: 0.0,
///   rules: AttributeRules(minimum: 0, maximum: 1_000))
/// AttributeDescription(
///   name: "isbn", type: .string, isOptional: true,
///   rules: AttributeRules(minimumLength: 10, maximumLength: 13, pattern: "[0-9X-]+"))
/// ```
///
/// With classes, override ``ManagedObject/rules(forKey:)``. The model checks the rules when it is
/// built: a range on a non-numeric attribute, a length on something else than a string or data, a
/// pattern on something else than a string, a minimum above its maximum, or a pattern that does
/// not compile throws ``ObjectGraphError/Kind/invalidRule``. Rules change no stored data, so they
/// are not part of the model's ``ObjectModel/versionHash``.
public struct AttributeRules: Hashable, Sendable, Codable {
  /// The smallest value allowed (numeric attributes: integers, `float`, `double`, `decimal`).
  public var minimum: Double?
  /// The largest value allowed (numeric attributes).
  public var maximum: Double?
  /// The fewest characters of a string, or bytes of data.
  public var minimumLength: Int?
  /// The most characters of a string, or bytes of data.
  public var maximumLength: Int?
  /// A regular expression (ICU syntax, as `NSRegularExpression`) the whole string must match.
  public var pattern: String?

  /// Creates rules; the ones left nil do not apply.
  ///
  /// ```swift
  /// AttributeRules(minimum: 1, maximum: 5)
  /// ```
  /// - Parameters:
  ///   - minimum: The smallest value allowed.
  ///   - maximum: The largest value allowed.
  ///   - minimumLength: The fewest characters (or bytes).
  ///   - maximumLength: The most characters (or bytes).
  ///   - pattern: A regular expression the whole string must match.
  public init(
    minimum: Double? = nil, maximum: Double? = nil, minimumLength: Int? = nil,
    maximumLength: Int? = nil, pattern: String? = nil
  ) {
    self.minimum = minimum
    self.maximum = maximum
    self.minimumLength = minimumLength
    self.maximumLength = maximumLength
    self.pattern = pattern
  }

  /// Whether no rule applies.
  public var isEmpty: Bool {
    minimum == nil && maximum == nil && minimumLength == nil && maximumLength == nil
      && pattern == nil
  }
}

/// An attribute's rules, checked against its type and compiled when the model is built.
final class CheckedRules: @unchecked Sendable {
  // @unchecked Sendable: immutable after the model is built; NSRegularExpression is thread-safe
  // for matching.
  let rules: AttributeRules
  let expression: NSRegularExpression?

  /// Checks that the rules fit the attribute's type; nil when there are none.
  init?(_ attribute: AttributeDescription, entity: String) throws {
    let rules = attribute.rules
    guard !rules.isEmpty else { return nil }
    func refuse(_ reason: String) -> ObjectGraphError {
      ObjectGraphError(
        .invalidRule, entity: entity, key: attribute.name, value: "\(rules)",
        reason:
          "the rules of \(entity).\(attribute.name) (\(attribute.type)) are invalid: \(reason)")
    }
    let name = attribute.type.name
    let isNumber = ["int16", "int32", "int64", "int", "float", "double", "decimal"].contains(name)
    if rules.minimum != nil || rules.maximum != nil, !isNumber {
      throw refuse("a minimum or maximum needs a numeric type")
    }
    if rules.minimumLength != nil || rules.maximumLength != nil, name != "string", name != "data" {
      throw refuse("a length needs a string or data")
    }
    if rules.pattern != nil, name != "string" { throw refuse("a pattern needs a string") }
    if let minimum = rules.minimum, let maximum = rules.maximum, minimum > maximum {
      throw refuse("the minimum \(minimum) is above the maximum \(maximum)")
    }
    if let minimum = rules.minimumLength, minimum < 0 { throw refuse("a length is negative") }
    if let maximum = rules.maximumLength, maximum < 0 { throw refuse("a length is negative") }
    if let minimum = rules.minimumLength, let maximum = rules.maximumLength, minimum > maximum {
      throw refuse("the minimum length \(minimum) is above the maximum length \(maximum)")
    }
    if let pattern = rules.pattern {
      do {
        expression = try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z")
      } catch {
        throw refuse("the pattern \(pattern) does not compile")
      }
    } else {
      expression = nil
    }
    self.rules = rules
  }

  /// The broken rules of a held value of the attribute, as errors naming `entity` (the object's
  /// own entity, as the other validation errors do, not the one declaring the attribute).
  func violations(of held: Any, stored: StoredValue?, property: Property, entity: String)
    -> [ObjectGraphError]
  {
    var errors: [ObjectGraphError] = []
    let key = property.name
    let shown = ObjectGraphError.describe(held)
    func error(_ kind: ObjectGraphError.Kind, _ reason: String) {
      errors.append(
        ObjectGraphError(kind, entity: entity, key: key, value: shown, reason: reason))
    }
    let number: Double? =
      switch stored {
      case .integer(let value): Double(value)
      case .double(let value): value
      case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
      default: nil
      }
    if let number {
      if let minimum = rules.minimum, number < minimum {
        error(.valueTooSmall, "\(key) is \(shown), less than its minimum \(minimum)")
      }
      if let maximum = rules.maximum, number > maximum {
        error(.valueTooLarge, "\(key) is \(shown), more than its maximum \(maximum)")
      }
    }
    let length: Int? =
      switch stored {
      case .string(let text): text.count
      case .data(let data): data.count
      default: nil
      }
    if let length {
      if let minimum = rules.minimumLength, length < minimum {
        error(.tooShort, "\(key) has \(length) characters or bytes, fewer than \(minimum)")
      }
      if let maximum = rules.maximumLength, length > maximum {
        error(.tooLong, "\(key) has \(length) characters or bytes, more than \(maximum)")
      }
    }
    if let expression, case .string(let text) = stored {
      let range = NSRange(text.startIndex..., in: text)
      if expression.firstMatch(in: text, range: range) == nil {
        error(.patternMismatch, "\(key) is \(shown), which does not match \(rules.pattern ?? "")")
      }
    }
    return errors
  }
}
