#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// The one switch of the invariant checks' whole-structure scans, for both library modules.
///
/// Builds with `OBSERVEDGRAPH_INVARIANTS` (every debug build, a dependent app's included) check
/// after each change what that change touched: the objects and pairs of related objects it named,
/// the undo log's flags, counts and the ids of its newest groups, a collection's count beside its
/// index. Those checks cost what the change touched, so a debug build scales as a release build
/// does. The scans of a whole structure — every registered object, every dirty or pending object,
/// the steps of a group and every group of the undo history, every member of a collection, every
/// fetched result, the graph after each save, rollback and refresh — run only while `isOn`: with
/// them, bulk work in a debug build grows with the square of its size.
///
/// `isOn` is decided once per process, at its first use, and is true when either holds:
/// - The environment variable `OBSERVEDGRAPH_FULL_CHECKS` is `1` (`.ci/run` exports it; an app
///   may set it to have its own debug runs scanned).
/// - The process is this package's own test process. SwiftPM links every test target of a
///   package into one product named after the package, `ObservedGraphPackageTests.xctest`: on
///   Linux that is the executable (the first argument), on macOS the bundle whose path is passed
///   to `xctest` or to `swiftpm-testing-helper --test-bundle-path`. Exit tests run the same
///   executable. A dependent package's test process is named after that package, and an app is
///   its own executable: neither turns the scans on.
///
/// The tests need no setup of their own, which Swift Testing could not give them: it has no hook
/// that runs before every suite, and the suites make their contexts and logs directly. A `let`
/// keeps every context and log of a process on one rule. Xcode names a package's test bundles
/// after their targets: a scheme that runs them there sets the variable.
package enum FullChecks {
  /// Whether the whole-structure scans run in this process (in builds with
  /// `OBSERVEDGRAPH_INVARIANTS`; without it there are no checks at all).
  package static let isOn = decide(
    variable: getenv(variableName).map { String(cString: $0) }, arguments: CommandLine.arguments)

  /// The environment variable that turns the scans on when it is `1`.
  package static let variableName = "OBSERVEDGRAPH_FULL_CHECKS"

  /// The product SwiftPM builds of this package's test targets, as a path component.
  package static let testProductName = "ObservedGraphPackageTests.xctest"

  /// The rule of `isOn`, given the variable's value (nil when unset) and the process's arguments.
  package static func decide(variable: String?, arguments: [String]) -> Bool {
    variable == "1"
      || arguments.contains { argument in
        argument.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains {
          $0 == testProductName
        }
      }
  }
}
