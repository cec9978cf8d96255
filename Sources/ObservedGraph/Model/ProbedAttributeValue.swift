import Foundation

/// The attribute types whose typed getter reports a read without its key path.
///
/// While a typed key path is resolved (``KeyPathNames``, typed `observe`), an ``Attribute``
/// getter of one of these types records only its object and slot (benchmark row "typed attribute
/// read": the caller then makes no key path at a read). Whether the key path is the property's
/// own getter, and not a computed property of the same type that reads it, is then told by its
/// values: written into the field one after the other, each of ``probeValues`` must come back
/// through the key path unchanged (``FieldAccess/readsAlone(_:on:slot:)``). Other types
/// (transformable values, collections) keep reporting the getter's key path, which is compared
/// as it is.
///
/// The values are distinct and ordinary: empty and long strings, case, spaces, composed and
/// decomposed accents, negative and fractional numbers, and no value a computed property would
/// likely fail on (no extreme integer, NaN or infinity), since the test runs the key path's
/// getter on each.
@usableFromInline
protocol ProbedAttributeValue: AttributeValue {
  /// Distinct values of the type, in the order they are tried.
  static var probeValues: [Self] { get }
}

extension Optional: ProbedAttributeValue where Wrapped: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Self] { [nil] + Wrapped.probeValues.map { $0 } }
}

extension String: ProbedAttributeValue {
  @usableFromInline static var probeValues: [String] {
    [
      "Dune", "", "dune", "DUNE", " Dune ", "two words", "0", "-1", "caf\u{E9}",
      "cafe\u{301}", "\u{65E5}\u{672C}", "line\nbreak", String(repeating: "long title ", count: 30),
    ]
  }
}

extension Bool: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Bool] { [true, false] }
}

extension BinaryInteger where Self: ProbedAttributeValue {
  /// Small values of both signs: no overflow for a getter adding or multiplying a little.
  static var integerProbes: [Self] { [1, 2, 3, 7, 10, 12, 99, 100, 1001, 12345, 0, -1, -2, -100] }
}

extension Int16: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Int16] { integerProbes }
}

extension Int32: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Int32] { integerProbes }
}

extension Int64: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Int64] { integerProbes }
}

extension Int: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Int] { integerProbes }
}

extension BinaryFloatingPoint where Self: ProbedAttributeValue {
  /// Whole and fractional values of both signs, small and large.
  static var floatingProbes: [Self] {
    [1, 2, 0.5, 1.5, 2.5, 11.99, 12, 100, 0.001, 123456, 0, -1, -0.5, -2.5, -100]
  }
}

extension Float: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Float] { floatingProbes }
}

extension Double: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Double] { floatingProbes }
}

extension Decimal: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Decimal] {
    [1, 2, 12, 100, 12345, 0, -1, -100, Decimal(string: "0.5")!, Decimal(string: "11.99")!]
  }
}

extension Date: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Date] {
    [0, 1, 0.5, 86_400, 1_000_000_000, -1, -86_400].map(Date.init(timeIntervalSinceReferenceDate:))
  }
}

extension Data: ProbedAttributeValue {
  @usableFromInline static var probeValues: [Data] {
    [Data([1, 2, 3]), Data(), Data([0]), Data([255]), Data(repeating: 7, count: 100)]
  }
}

extension UUID: ProbedAttributeValue {
  @usableFromInline static var probeValues: [UUID] {
    [
      "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "00000000-0000-0000-0000-000000000000",
      "00000000-0000-0000-0000-000000000001",
    ].map { UUID(uuidString: $0)! }
  }
}

extension URL: ProbedAttributeValue {
  @usableFromInline static var probeValues: [URL] {
    ["https://example.com/a", "file:///tmp/b", "c", "https://example.com/path?q=1#f"].map {
      URL(string: $0)!
    }
  }
}
