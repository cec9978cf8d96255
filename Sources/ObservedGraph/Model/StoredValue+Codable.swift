import Foundation

/// The archived form of a stored value: an object with one key naming the case.
///
/// ```json
/// {"integer": 3}   {"double": 12.5}   {"double": "nan"}   {"decimal": "12.34"}
/// {"string": "Dune"}   {"bool": true}   {"date": 7200.5}   {"data": "AQID"}
/// {"uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}   {"url": "https://example.com"}
/// ```
///
/// Dates are seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`), decimals their exact
/// text (`NaN` for `Decimal.nan`), data base 64; doubles and date intervals that JSON cannot
/// write (`nan`, `inf`, `-inf`) are written as text: `{"date": "inf"}`.
/// Every value decodes to an equal value.
extension StoredValue: Codable {
  private enum CodingKeys: String, CodingKey {
    case integer, double, decimal, string, bool, date, data, uuid, url
  }

  /// Writes the value as an object with one key naming its case.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(StoredValue.integer(3))   // {"integer":3}
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .integer(let value): try container.encode(value, forKey: .integer)
    case .double(let value): try Self.encode(value, forKey: .double, in: &container)
    case .decimal(let value): try container.encode(value.description, forKey: .decimal)
    case .string(let value): try container.encode(value, forKey: .string)
    case .bool(let value): try container.encode(value, forKey: .bool)
    case .date(let value):
      try Self.encode(value.timeIntervalSinceReferenceDate, forKey: .date, in: &container)
    case .data(let value): try container.encode(value.base64EncodedString(), forKey: .data)
    case .uuid(let value): try container.encode(value.uuidString, forKey: .uuid)
    case .url(let value): try container.encode(value.absoluteString, forKey: .url)
    }
  }

  /// Reads a value written by ``encode(to:)``.
  ///
  /// ```swift
  /// let value = try JSONDecoder().decode(StoredValue.self, from: Data(#"{"bool":true}"#.utf8))
  /// ```
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when the object has no known case key or its value does not parse.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard let key = container.allKeys.first, container.allKeys.count == 1 else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "a stored value is an object with exactly one of the keys "
            + "integer, double, decimal, string, bool, date, data, uuid, url"))
    }
    func corrupt(_ text: String) -> DecodingError {
      DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "'\(text)' is not a valid \(key.rawValue)")
    }
    switch key {
    case .integer: self = .integer(try container.decode(Int64.self, forKey: key))
    case .double: self = .double(try Self.decodeNumber(forKey: key, in: container))
    case .decimal:
      let text = try container.decode(String.self, forKey: key)
      if text == "NaN" {  // what `Decimal.nan.description` writes; `Decimal(string:)` refuses it
        self = .decimal(.nan)
        return
      }
      // `Decimal(string:)` reads the longest number it can find at the start: `12abc` is 12.
      guard Self.isDecimalNumber(text),
        let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
      else {
        throw corrupt(text)
      }
      self = .decimal(value)
    case .string: self = .string(try container.decode(String.self, forKey: key))
    case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
    case .date:
      self = .date(
        Date(timeIntervalSinceReferenceDate: try Self.decodeNumber(forKey: key, in: container)))
    case .data:
      let text = try container.decode(String.self, forKey: key)
      guard let value = Data(base64Encoded: text) else { throw corrupt(text) }
      self = .data(value)
    case .uuid:
      let text = try container.decode(String.self, forKey: key)
      guard let value = UUID(uuidString: text) else { throw corrupt(text) }
      self = .uuid(value)
    case .url:
      let text = try container.decode(String.self, forKey: key)
      guard let value = URL(string: text) else { throw corrupt(text) }
      self = .url(value)
    }
  }

  /// Writes a double, or the text `nan`, `inf` or `-inf` for one JSON cannot write.
  private static func encode(
    _ number: Double, forKey key: CodingKeys, in container: inout KeyedEncodingContainer<CodingKeys>
  ) throws {
    if number.isFinite {
      try container.encode(number, forKey: key)
    } else {
      try container.encode(number.isNaN ? "nan" : (number < 0 ? "-inf" : "inf"), forKey: key)
    }
  }

  /// Reads a double written by ``encode(_:forKey:in:)``.
  private static func decodeNumber(
    forKey key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
  ) throws -> Double {
    if let number = try? container.decode(Double.self, forKey: key) { return number }
    let text = try container.decode(String.self, forKey: key)
    switch text {
    case "nan": return .nan
    case "inf": return .infinity
    case "-inf": return -.infinity
    default:
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "'\(text)' is not a valid \(key.rawValue)")
    }
  }

  /// Whether `text` is a whole decimal number: an optional sign, digits with an optional
  /// fraction, and an optional exponent (`-12.5`, `.5`, `1e-3`).
  private static func isDecimalNumber(_ text: String) -> Bool {
    var rest = text.utf8[...]
    func skipSign() {
      if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") {
        rest = rest.dropFirst()
      }
    }
    func skipDigits() -> Int {
      let count = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
      rest = rest.dropFirst(count)
      return count
    }
    skipSign()
    var digits = skipDigits()
    if rest.first == UInt8(ascii: ".") {
      rest = rest.dropFirst()
      digits += skipDigits()
    }
    guard digits > 0 else { return false }
    if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
      rest = rest.dropFirst()
      skipSign()
      guard skipDigits() > 0 else { return false }
    }
    return rest.isEmpty
  }
}
