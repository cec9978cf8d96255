import Foundation

/// Sizes and repetitions of one run: the full run of DESIGN.md, or `--quick` for CI.
struct BenchConfig {
  /// The groups of rows, in the order they run; `--only=` picks some (for profiling one path).
  static let groups = [
    "memory", "attributes", "undoRecording", "undoReplay", "toMany", "cascade", "store", "live",
    "migration", "transaction",
  ]

  let quick: Bool
  /// `--profile`: tiny sizes and one round, for running under callgrind.
  let profile: Bool
  let json: Bool
  let groups: Set<String>

  init(arguments: [String]) {
    var quick = false
    var profile = false
    var json = false
    var groups = Set(Self.groups)
    for argument in arguments.dropFirst() {
      if argument == "--quick" {
        quick = true
      } else if argument == "--profile" {
        quick = true
        profile = true
      } else if argument == "--json" {
        json = true
      } else if argument.hasPrefix("--only=") {
        groups = Set(argument.dropFirst("--only=".count).split(separator: ",").map(String.init))
        let unknown = groups.subtracting(Self.groups)
        if !unknown.isEmpty {
          Self.stop("unknown groups \(unknown.sorted().joined(separator: ", "))")
        }
      } else if argument == "--help" || argument == "-h" {
        print(Self.usage)
        exit(0)
      } else {
        Self.stop("unknown argument \(argument)")
      }
    }
    self.quick = quick
    self.profile = profile
    self.json = json
    self.groups = groups
  }

  /// What the command line takes, printed for `--help` and after a mistake.
  static let usage = """
    usage: graph-bench [--quick] [--profile] [--json] [--only=group,group…]
      --quick     small sizes and fewer rounds (CI)
      --profile   tiny sizes and one round, for running under valgrind
      --json      one JSON object instead of the table
      --only=     run only these groups: \(groups.joined(separator: ", "))
    """

  /// Ends the run after a mistake on the command line: says what it was, and how to call.
  private static func stop(_ mistake: String) -> Never {
    FileHandle.standardError.write(Data("graph-bench: \(mistake)\n\(usage)\n".utf8))
    exit(2)
  }

  /// Whether the group of rows runs in this run.
  func runs(_ group: String) -> Bool { groups.contains(group) }

  /// Interleaved rounds of the per-operation rows.
  var rounds: Int { profile ? 1 : quick ? 3 : 7 }
  /// Attribute sets per contender per round.
  var setCount: Int { profile ? 20_000 : quick ? 100_000 : 1_000_000 }
  /// The small and the large to-many size.
  var smallChildren: Int { 1_000 }
  var largeChildren: Int { profile ? 20_000 : quick ? 100_000 : 1_000_000 }
  /// Inserts timed at each to-many size per round.
  var insertBatch: Int { 1_000 }
  /// Objects in the cascade-delete tree, and its rounds.
  var treeSize: Int { profile ? 2_000 : quick ? 10_000 : 100_000 }
  var treeRounds: Int { profile ? 1 : quick ? 2 : 5 }
  /// Objects in the memory row's graph.
  var memoryObjects: Int { profile ? 20_000 : quick ? 100_000 : 1_000_000 }
  /// Attribute steps recorded, undone and redone.
  var undoSteps: Int { profile ? 20_000 : quick ? 100_000 : 1_000_000 }

  /// A count for row titles: "1M", "100k", "1k".
  static func short(_ count: Int) -> String {
    if count >= 1_000_000, count.isMultiple(of: 1_000_000) { return "\(count / 1_000_000)M" }
    if count >= 1_000, count.isMultiple(of: 1_000) { return "\(count / 1_000)k" }
    return "\(count)"
  }
}
