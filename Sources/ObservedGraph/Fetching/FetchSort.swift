import Foundation

/// One key of a fetch's order, as Core Data's `NSSortDescriptor`: a key path, a direction and,
/// for strings, how they compare.
///
/// ```swift
/// let byPrice = FetchSort("price")
/// let byTitle = FetchSort("title", ascending: false, comparison: .localizedStandard)
/// let byCategory = FetchSort("category.name")
/// ```
///
/// Values order as Swift orders them: nil first, then numbers by value (integers, doubles and
/// decimals together), strings as ``Comparison-swift.enum`` says, dates by time, `false` before
/// `true`, and UUIDs, data and URLs by their bytes or text. Values of different kinds (a model
/// never gives them in one attribute) order by kind. A key path may go through to-one
/// relationships; a to-many step is refused (`FetchSort("books.price")` has no single value).
/// Objects whose keys all compare equal keep the order of their identifiers, so a fetch's order
/// is the same in memory and in a store.
public struct FetchSort: Hashable, Sendable, Codable, CustomStringConvertible {
  /// How strings compare.
  public enum Comparison: Hashable, Sendable, Codable {
    /// Swift's `<` on `String`: canonically equivalent strings are equal, others order by
    /// their Unicode scalars (what `SortDescriptor` does for strings on Linux).
    case swift
    /// Foundation's `localizedCompare(_:)`.
    case localized
    /// Foundation's `localizedStandardCompare(_:)`, as the Finder sorts names: case-insensitive,
    /// numbers by value ("a2" before "a10"); `SortDescriptor`'s default on Apple platforms.
    case localizedStandard

    /// The order of two strings under this comparison: what a fetch sorts by, in memory and in a
    /// store (which calls it to sort the same way).
    ///
    /// ```swift
    /// FetchSort.Comparison.localizedStandard.compare("a2", "a10")   // .orderedAscending
    /// FetchSort.Comparison.swift.compare("a2", "a10")               // .orderedDescending
    /// ```
    /// - Parameters:
    ///   - a: A string.
    ///   - b: Another string.
    /// - Returns: Their order.
    public func compare(_ a: String, _ b: String) -> ComparisonResult {
      switch self {
      case .swift: FetchArithmetic.order(a, b)
      case .localized: a.localizedCompare(b)
      case .localizedStandard: a.localizedStandardCompare(b)
      }
    }
  }

  /// The key path whose values order the objects, such as `"title"` or `"category.name"`.
  public var keyPath: String
  /// Whether smaller values come first.
  public var ascending: Bool
  /// How strings compare.
  public var comparison: Comparison

  /// Creates a sort key.
  ///
  /// ```swift
  /// FetchSort("title", comparison: .localizedStandard)
  /// ```
  /// - Parameters:
  ///   - keyPath: The key path whose values order the objects.
  ///   - ascending: Whether smaller values come first.
  ///   - comparison: How strings compare.
  public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .swift) {
    self.keyPath = keyPath
    self.ascending = ascending
    self.comparison = comparison
  }

  /// The key path, its direction and, when not ``Comparison-swift.enum/swift``, its comparison,
  /// such as `title ascending localizedStandard`.
  public var description: String {
    let direction = ascending ? "ascending" : "descending"
    switch comparison {
    case .swift: return "\(keyPath) \(direction)"
    case .localized: return "\(keyPath) \(direction) localized"
    case .localizedStandard: return "\(keyPath) \(direction) localizedStandard"
    }
  }

  /// The order of two objects by this key alone.
  ///
  /// - Throws: What reading the key path throws (an unknown key, a to-many step).
  func compare(_ a: ManagedObject, _ b: ManagedObject) throws -> ComparisonResult {
    let order = Self.compare(try value(of: a), try value(of: b), comparison)
    guard !ascending else { return order }
    switch order {
    case .orderedAscending: return .orderedDescending
    case .orderedDescending: return .orderedAscending
    case .orderedSame: return .orderedSame
    }
  }

  /// The value an object has for the key path: nil, or one value.
  func value(of object: ManagedObject) throws -> FetchValue? {
    switch try object.fetchOperand(atKeyPath: keyPath) {
    case .one(let value): return value
    case .many:
      throw ObjectGraphError(
        .notToMany, entity: object.entity.name, key: keyPath,
        reason: "a sort key path cannot go through a to-many relationship: \(keyPath) has no "
          + "single value")
    }
  }

  /// The order of two values as a sort key orders them (ascending).
  static func compare(_ a: FetchValue?, _ b: FetchValue?, _ comparison: Comparison)
    -> ComparisonResult
  {
    switch (a, b) {
    case (nil, nil): return .orderedSame
    case (nil, _): return .orderedAscending
    case (_, nil): return .orderedDescending
    case (.object(let x)?, .object(let y)?):
      return FetchArithmetic.order(x.key, y.key)
    case (.object?, .stored?): return .orderedDescending
    case (.stored?, .object?): return .orderedAscending
    case (.stored(let x)?, .stored(let y)?):
      return compare(x, y, comparison)
    }
  }

  /// The order of two stored values (ascending).
  static func compare(_ a: StoredValue, _ b: StoredValue, _ comparison: Comparison)
    -> ComparisonResult
  {
    if let x = FetchArithmetic.Number(a), let y = FetchArithmetic.Number(b) {
      // NaN after every number, as SQLite keeps it (it stores NaN as NULL, which sorts first:
      // a store never holds it).
      return FetchArithmetic.compare(x, y)
        ?? FetchArithmetic.order(x.double.isNaN ? 1 : 0, y.double.isNaN ? 1 : 0)
    }
    switch (a, b) {
    case (.string(let x), .string(let y)): return comparison.compare(x, y)
    case (.date(let x), .date(let y)):
      // A date whose interval is NaN after every other, as NaN after every number.
      let (a, b) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
      guard !a.isNaN, !b.isNaN else {
        return FetchArithmetic.order(a.isNaN ? 1 : 0, b.isNaN ? 1 : 0)
      }
      return FetchArithmetic.order(a, b)
    case (.bool(let x), .bool(let y)): return FetchArithmetic.order(x ? 1 : 0, y ? 1 : 0)
    case (.uuid(let x), .uuid(let y)):
      return bytes(of: x).lexicographicallyPrecedes(bytes(of: y))
        ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
    case (.data(let x), .data(let y)):
      return x.lexicographicallyPrecedes(y)
        ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
    case (.url(let x), .url(let y)):
      return FetchArithmetic.order(x.absoluteString, y.absoluteString)
    default: return FetchArithmetic.order(rank(a), rank(b))
    }
  }

  private static func bytes(of uuid: UUID) -> [UInt8] {
    withUnsafeBytes(of: uuid.uuid) { Array($0) }
  }

  /// The order of kinds that are not compared with each other.
  private static func rank(_ value: StoredValue) -> Int {
    switch value {
    case .integer, .double, .decimal: 0
    case .string: 1
    case .bool: 2
    case .date: 3
    case .data: 4
    case .uuid: 5
    case .url: 6
    }
  }
}

extension Array where Element == FetchSort {
  /// The order of two objects by these keys, then by their identifiers' keys.
  func compare(_ a: ManagedObject, _ b: ManagedObject) throws -> ComparisonResult {
    for sort in self {
      let order = try sort.compare(a, b)
      if order != .orderedSame { return order }
    }
    return FetchArithmetic.order(a.objectKey, b.objectKey)
  }
}
