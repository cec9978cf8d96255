import Foundation
import Testing

/// One seeded run of random operations on a graph in an SQLite file, checked against a reference
/// model after every step; see `RandomOperations` and Docs/Reliability.md.
///
/// `OBSERVEDGRAPH_RANDOM_SEED` replays a run (decimal, or hexadecimal after `0x`);
/// `OBSERVEDGRAPH_RANDOM_STEPS` sets its length: 1,000 by default, so that `swift test` stays
/// short; `.ci/run` runs the same seed for 10,000.
@Suite struct SQLiteRandomOperationTests {
  @Test func randomOperationsAgainstAReference() throws {
    let seed = RandomGenerator.number(
      fromEnvironment: "OBSERVEDGRAPH_RANDOM_SEED", fallback: 9)
    let steps = Int(
      RandomGenerator.number(fromEnvironment: "OBSERVEDGRAPH_RANDOM_STEPS", fallback: 1_000))
    let start = ContinuousClock.now
    let run = try RandomOperations(seed: seed)
    run.run(steps: steps)
    let elapsed = ContinuousClock.now - start
    run.tally["steal"] = run.reference.steals
    // Every kind of operation shows up in a run of CI's length (shorter runs, as the default
    // one and the one under the sanitizers, may miss some).
    if run.failures == 0 && steps >= 10_000 {
      for kind in [
        "delete", "cascading delete", "denied delete", "no-action delete leaving references",
        "steal", "equal set", "primitive set outside brackets", "explicit group", "nested group",
        "undo to checkpoint", "rollback", "reset", "reopen", "refresh into a fault",
        "whole-history check", "replay check", "fetch finding something", "fetch finding nothing",
      ] {
        #expect(run.tally[kind, default: 0] > 0, "never saw a \(kind) — seed \(seed)")
      }
    }
    print(
      "RandomOperations: seed \(seed), \(steps) steps in \(elapsed), "
        + "\(run.reference.entity.count) objects, "
        + run.tally.keys.sorted().map { "\($0): \(run.tally[$0]!)" }.joined(separator: ", "))
  }
}
