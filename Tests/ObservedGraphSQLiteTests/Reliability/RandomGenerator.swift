import Foundation

/// SplitMix64: a small generator whose whole run follows from its seed.
struct RandomGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<bound`.
  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  /// True `percent` times in a hundred.
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  mutating func pick<Element>(_ elements: [Element]) -> Element? {
    elements.isEmpty ? nil : elements[below(elements.count)]
  }

  /// A number given by an environment variable (decimal, or hexadecimal after `0x`), or `fallback`.
  static func number(fromEnvironment name: String, fallback: UInt64) -> UInt64 {
    guard let text = ProcessInfo.processInfo.environment[name] else { return fallback }
    if text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) { return value }
    return UInt64(text) ?? fallback
  }
}
