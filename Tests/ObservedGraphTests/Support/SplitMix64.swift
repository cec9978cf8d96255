import Foundation

/// A small, fast, deterministic random number generator (Steele, Lea and Flood's SplitMix64), so a
/// random test replays exactly from its seed.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// The seed named by the environment variable `name` (decimal or `0x` hex), else `fallback`.
  static func seed(fromEnvironment name: String = "OBSERVEDGRAPH_SEED", fallback: UInt64)
    -> UInt64
  {
    guard let text = ProcessInfo.processInfo.environment[name] else { return fallback }
    if text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) { return value }
    return UInt64(text) ?? fallback
  }
}

extension SplitMix64 {
  /// A random index below `bound` (which must be positive).
  mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

  /// true with probability `percent` / 100.
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  /// A random element, or nil for an empty collection.
  mutating func pick<C: Collection>(_ elements: C) -> C.Element? {
    elements.randomElement(using: &self)
  }
}

/// One step of a test that runs the same seeded sequence in two worlds: what kind of operation
/// (a percentile), on which of the scenario's three books, with which small number.
struct WorldStep {
  let choice: Int
  let index: Int
  let number: Int

  /// The step's position in the sequence.
  let step: Int

  /// Draws a step: the choice below 100, the book below 3, the number below `numbers`.
  init(_ step: Int, _ random: inout SplitMix64, numbers: Int) {
    self.step = step
    choice = random.below(100)
    index = random.below(3)
    number = random.below(numbers)
  }

  /// Runs `count` seeded steps: each is drawn once and run in every world in turn, then `check`
  /// compares the worlds; the run ends early when it returns false.
  static func run<World>(
    _ count: Int, seed: UInt64, numbers: Int, in worlds: [World],
    _ body: (World, WorldStep) throws -> Void, check: (WorldStep) -> Bool
  ) rethrows {
    var random = SplitMix64(seed: SplitMix64.seed(fallback: seed))
    for step in 0..<count {
      let draw = WorldStep(step, &random, numbers: numbers)
      for world in worlds { try body(world, draw) }
      guard check(draw) else { return }
    }
  }
}
