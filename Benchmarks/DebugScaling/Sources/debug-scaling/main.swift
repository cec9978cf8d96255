// Times a board import of 1 k, 10 k and 100 k cards (see `BoardImport`) in this process, the
// median of several runs of each size, and prints each 10 × step's ratio of times: a ratio near
// 10 says the import scales linearly; the target is at most 12.
//
//   debug-scaling                      1 k, 10 k and 100 k cards, 5 runs each
//   debug-scaling --quick              1 k and 10 k, 1 run each (CI: proves it builds and runs)
//   debug-scaling --runs 3 1000 2000   the given sizes, the given number of runs
import ObservedGraph

var sizes: [Int] = []
var runs = 5
var quick = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--quick":
    quick = true
  case "--runs":
    guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
      fatalError("--runs takes a positive number")
    }
    runs = value
  default:
    guard let size = Int(argument), size > 0 else {
      fatalError("unknown argument \(argument): give --quick, --runs N, or sizes")
    }
    sizes.append(size)
  }
}
if quick {
  runs = 1
  if sizes.isEmpty { sizes = [1_000, 10_000] }
}
if sizes.isEmpty { sizes = [1_000, 10_000, 100_000] }

#if DEBUG
  print("debug build: the library as an app's debug build has it")
#else
  print("not a debug build: this measures the release configuration, not what it is for")
#endif

func seconds(_ duration: Duration) -> Double {
  let (whole, fraction) = duration.components
  return Double(whole) + Double(fraction) / 1e18
}

func format(_ value: Double) -> String {
  let rounded = (value * 1_000).rounded() / 1_000
  return "\(rounded)"
}

let benchmark = try BoardImport()
var medians: [(size: Int, seconds: Double)] = []
for size in sizes {
  var times: [Double] = []
  for _ in 0..<runs {
    times.append(seconds(try benchmark.run(cards: size)))
  }
  times.sort()
  let median = times[times.count / 2]
  medians.append((size, median))
  print(
    "\(size) cards: median \(format(median)) s of \(runs) runs "
      + "(\(times.map(format).joined(separator: ", ")) s)")
}
for (previous, next) in zip(medians, medians.dropFirst()) {
  let ratio = next.seconds / previous.seconds
  let step = Double(next.size) / Double(previous.size)
  print(
    "\(previous.size) -> \(next.size) cards (\(format(step)) x): time x \(format(ratio))")
}
