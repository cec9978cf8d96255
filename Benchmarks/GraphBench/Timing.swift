/// Timing helpers: one clock, a sink the optimizer cannot see through, and medians.
enum Timing {
  static let clock = ContinuousClock()

  /// Runs `body` once and returns the elapsed time in nanoseconds.
  static func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = clock.now
    try body()
    return (clock.now - start).nanoseconds
  }

  /// The median of `samples` (the mean of the two middle values for an even count).
  static func median(_ samples: [Double]) -> Double {
    precondition(!samples.isEmpty, "graph-bench: no samples")
    let sorted = samples.sorted()
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2)
      ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
  }

  /// Runs each contender once to warm up, then `rounds` rounds in which every contender runs once
  /// in turn (ours, peer, peer, …), and returns each contender's median.
  ///
  /// Interleaving spreads any change of machine load over all contenders alike.
  static func interleaved(
    rounds: Int, _ contenders: [(String, () -> Double)]
  ) -> [String: Double] {
    interleavedFigures(rounds: rounds, contenders.map { name, run in (name, { [name: run()] }) })
  }

  /// Like ``interleaved(rounds:_:)`` for contenders that measure several figures per run (say
  /// build and delete); each returns its figures by name, and each name gets its median.
  static func interleavedFigures(
    rounds: Int, _ contenders: [(String, () -> [String: Double])]
  ) -> [String: Double] {
    for (_, run) in contenders { blackHole(run()) }
    var samples: [String: [Double]] = [:]
    for _ in 0..<rounds {
      for (_, run) in contenders {
        for (figure, value) in run() { samples[figure, default: []].append(value) }
      }
    }
    return samples.mapValues(median)
  }
}

extension Duration {
  /// The duration in nanoseconds.
  var nanoseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}

/// Consumes a value so the optimizer must compute it; the call is never inlined.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
