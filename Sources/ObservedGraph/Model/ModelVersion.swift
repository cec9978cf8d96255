/// The version identifier of a model: three numbers, ordered as software versions are (`1.2.0` is
/// before `1.10.0`), as SwiftData's `Schema.Version`.
///
/// A store keeps the identifier of the model that made its file, and a ``MigrationPlan`` lists an
/// app's model versions in this order. Two versions are the same only when their three numbers
/// are: the identifier, not the ``ObjectModel/versionHash``, says which version a file is, since
/// two versions that differ only in defaults, delete rules or indexes share a hash.
///
/// ```swift
/// let v2 = ModelVersion(2, 0, 0)
/// let same: ModelVersion = "2.0.0"
/// print(v2 < ModelVersion(10, 0, 0))   // true
/// ```
public struct ModelVersion: Hashable, Comparable, Sendable, CustomStringConvertible,
  LosslessStringConvertible, ExpressibleByStringLiteral, Codable
{
  /// The first number.
  public var major: Int
  /// The second number.
  public var minor: Int
  /// The third number.
  public var patch: Int

  /// A version of three numbers.
  ///
  /// - Parameters:
  ///   - major: The first number.
  ///   - minor: The second number.
  ///   - patch: The third number.
  public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  /// Reads `1`, `1.2` or `1.2.3` (numbers that are not negative); nil for any other text.
  ///
  /// - Parameter description: The text.
  public init?(_ description: String) {
    let parts = description.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var numbers: [Int] = []
    for part in parts {
      guard !part.isEmpty, part.allSatisfy(\.isASCII), let number = Int(part), number >= 0
      else { return nil }
      numbers.append(number)
    }
    self.init(numbers[0], numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0)
  }

  /// A version written as a literal, `"1.2.0"`; a literal that is not a version stops the program
  /// (it is a mistake in the app's code, not in its data).
  ///
  /// - Parameter value: The literal.
  public init(stringLiteral value: String) {
    guard let version = Self(value) else {
      preconditionFailure("ObservedGraph: \"\(value)\" is not a model version such as \"1.2.0\"")
    }
    self = version
  }

  /// `1.2.0`.
  public var description: String { "\(major).\(minor).\(patch)" }

  /// Ordered by the first number, then the second, then the third.
  public static func < (lhs: ModelVersion, rhs: ModelVersion) -> Bool {
    (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
  }

  /// Written as its text, `"1.2.0"`.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }

  /// Reads the text ``encode(to:)`` writes.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for text that is not a version.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let version = Self(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\"\(text)\" is not a model version such as \"1.2.0\"")
    }
    self = version
  }
}
