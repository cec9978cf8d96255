import ObservedGraph

/// Live fetched results absorbing one edit: an attribute set that moves one object to a random
/// place in the sort order, then `processPendingChanges()`, timed together, in a result of 100 k
/// objects and in one of 1 k. Updating in place (binary search on kept sort values, one removal
/// and one insertion) instead of fetching and sorting again makes the two close; what grows with
/// the size is the array shift of the moved object.
///
/// Each round times `edits` edits one at a time in each size (built once, untimed) and takes the
/// median. The objects live in contexts with participation off; a change handler counts the
/// deliveries so none is skipped. No peer does live results.
enum LiveResultsBench {
  /// The benchmark's object: a rank to sort by.
  final class Ranked: ManagedObject {
    @Attribute var rank: Int = 0
  }

  static let model: ObjectModel = {
    do {
      return try ObjectModel(types: [Ranked.self])
    } catch {
      fatalError("graph-bench: the live results model is invalid: \(error)")
    }
  }()

  /// A context of `count` ranked objects (even ranks) and live results of those with a rank of
  /// 0 or more, by rank.
  final class Fixture {
    let context = ObjectContext(model: model, participatesInSwiftObservation: false)
    let objects: [Ranked]
    let results: FetchedResults<Ranked>
    var delivered = 0
    private var token: ObservationToken?
    private var random = SplitMix(seed: 0x5EED)

    init(count: Int) {
      var objects: [Ranked] = []
      objects.reserveCapacity(count)
      for index in 0..<count {
        let object = context.insert(Ranked.self)
        object.rank = 2 * index
        objects.append(object)
      }
      context.processPendingChanges()
      self.objects = objects
      do {
        results = try FetchedResults(
          context: context,
          request: FetchRequest<Ranked>(
            matching: try FetchPredicate(format: "rank >= 0"), sortedBy: [FetchSort("rank")]))
      } catch {
        fatalError("graph-bench: live results could not fetch: \(error)")
      }
      token = results.onChange { [unowned self] _ in delivered += 1 }
    }

    /// Times `edits` edits, each moving a random object to a random odd rank; returns the median
    /// nanoseconds of one.
    func timeEdits(_ edits: Int) -> Double {
      let count = objects.count
      var samples: [Double] = []
      samples.reserveCapacity(edits)
      let before = delivered
      for _ in 0..<edits {
        let object = objects[Int(random.next() % UInt64(count))]
        let rank = 2 * Int(random.next() % UInt64(count)) + 1
        guard object.rank != rank else { continue }  // an equal value is no edit
        samples.append(
          Timing.nanoseconds {
            object.rank = rank
            context.processPendingChanges()
          })
      }
      precondition(delivered - before == samples.count, "graph-bench: live results missed an edit")
      return Timing.median(samples)
    }
  }

  /// A small deterministic generator (SplitMix64), so every run edits the same objects.
  struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func run(_ config: BenchConfig) -> Row {
    let small = 1_000
    let large = config.profile ? 20_000 : 100_000
    let edits = config.profile ? 50 : 500
    let smallFixture = Fixture(count: small)
    let largeFixture = Fixture(count: large)
    let medians = Timing.interleaved(
      rounds: config.rounds,
      [
        ("small", { smallFixture.timeEdits(edits) }),
        ("large", { largeFixture.timeEdits(edits) }),
      ])
    blackHole((smallFixture, largeFixture))

    let smallLabel = BenchConfig.short(small)
    let largeLabel = BenchConfig.short(large)
    var row = Row(
      key: "liveResults",
      title: "live results absorbing one edit that moves an object: at \(largeLabel) ÷ at "
        + "\(smallLabel)",
      unit: "ratio")
    let ratio = medians["large"]! / medians["small"]!
    row.ours = ratio
    row.figures = [
      Row.Figure(
        key: "small", label: "set + processPendingChanges at \(smallLabel)",
        value: medians["small"], unit: "ns/edit"),
      Row.Figure(
        key: "large", label: "set + processPendingChanges at \(largeLabel)",
        value: medians["large"], unit: "ns/edit"),
    ]
    row.check("growth", "per edit at 100 k ≤ 10 × at 1 k", ratio, limit: 10)
    row.note =
      "predicate rank >= 0, sorted by rank; each edit moves a random object to a random place; "
      + "median of \(edits) edits per round; no peer does live results"
      + (config.profile ? "; --profile: the large size is \(largeLabel)" : "")
    return row
  }
}
