import Foundation
import Testing

/// One seeded run of random operations on a graph in an SQLite file, checked against a reference
/// model after every step; see `RandomOperations` and Docs/Reliability.md.
///
/// `OBSERVEDGRAPH_RANDOM_SEED` replays a run (decimal, or hexadecimal after `0x`);
/// `OBSERVEDGRAPH_RANDOM_STEPS` sets its length (10,000 by default).
@Suite struct SQLiteRandomOperationTests {
  @Test func randomOperationsAgainstAReference() throws {
    let seed = RandomGenerator.number(
      fromEnvironment: "OBSERVEDGRAPH_RANDOM_SEED", fallback: 9)
    let steps = Int(
      RandomGenerator.number(fromEnvironment: "OBSERVEDGRAPH_RANDOM_STEPS", fallback: 10_000))
    let start = ContinuousClock.now
    let run = try RandomOperations(seed: seed)
    run.run(steps: steps)
    let elapsed = ContinuousClock.now - start
    run.tally["steal"] = run.reference.steals
    if run.failures == 0 {
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

  /// Seed 0x5EED5A172026 stops at step 2,694 (a save): after a reset, a bin was deleted under
  /// its no-action rule (loading its notes with their rows); after the save of the deletion, two
  /// of those notes read their `bin` as nil, where the no-action rule leaves them naming the
  /// deleted bin (as a note loaded after the bin left memory does).
  @Test(
    .disabled(
      Comment(
        rawValue: "library bug: after the save of a deletion under a no-action rule, objects "
          + "loaded with the deleted object's to-many read their to-one naming it as nil (seed "
          + "0x5EED5A172026, step 2694)")))
  func noActionReferenceReadsNilAfterTheSaveOfTheDeletion() throws {
    let run = try RandomOperations(seed: 0x5EED_5A17_2026)
    run.run(steps: 2_694)
    #expect(run.failures == 0)
  }

  /// Seed 12 stops at step 3,317: `undo(to:)` a checkpoint two groups down leaves one group on
  /// the redo stack where the reference, which finds that one of the two groups changes nothing
  /// when undone, expects none.
  @Test(
    .disabled(
      Comment(
        rawValue: "open: undo(to:) leaves a group that changes nothing on the redo stack where "
          + "undo() leaves none (seed 12, step 3317); not yet analysed")))
  func undoToACheckpointAndGroupsThatChangeNothing() throws {
    let run = try RandomOperations(seed: 12)
    run.run(steps: 3_317)
    #expect(run.failures == 0)
  }

  /// Seed 18 stops the program at step 567 (a rollback): the rollback puts a deleted note back
  /// into a bin's notes, and the context's invariant check stops the program ("RBin#2.notes holds
  /// RNote#10, which is deleted"). Seed 24 meets it too, at a folder's notes.
  @Test(
    .disabled(
      Comment(
        rawValue: "library bug: rollback() restores a to-many's saved members including one "
          + "that is deleted, after undo and redo across saves (seed 18, step 567; it stops the "
          + "program)")))
  func rollbackPutsADeletedMemberBack() throws {
    let run = try RandomOperations(seed: 18)
    run.run(steps: 567)
    #expect(run.failures == 0)
  }
}
