import Testing

@testable import ObservedGraph

/// The invariant checks' whole-structure scans are on in this package's test process (see
/// `FullChecks`), so the tests that count on a scan to find a corruption mean something; they
/// are off in an app's process and in a dependent package's tests. What a debug build of an app
/// keeps — the checks of what each change touched — is checked here too.
@Suite("Full checks")
struct FullChecksTests {
  @Test func areOnInThisPackagesTestProcess() {
    #expect(FullChecks.isOn)
  }

  /// An exit test's process is this package's test executable again.
  @Test func areOnInAnExitTestsProcess() async {
    await #expect(processExitsWith: .success) {
      precondition(FullChecks.isOn, "full checks are off in an exit test")
    }
  }

  /// A process: the variable's value (nil when unset), its arguments, and whether full checks
  /// are on in it.
  struct Process: Sendable {
    let variable: String?
    let arguments: [String]
    let isOn: Bool
  }

  static let bundle = "/pkg/.build/debug/ObservedGraphPackageTests.xctest"
  static let app = "/app/.build/debug/MyApp"
  static let processes = [
    // This package's tests: on Linux, the executable; on macOS, the bundle given to XCTest and
    // to Swift Testing.
    Process(variable: nil, arguments: [bundle], isOn: true),
    Process(variable: nil, arguments: ["/usr/bin/xctest", "-XCTest", "All", bundle], isOn: true),
    Process(
      variable: nil,
      arguments: [
        "/usr/bin/swiftpm-testing-helper", "--test-bundle-path",
        bundle + "/Contents/MacOS/ObservedGraphPackageTests",
      ],
      isOn: true),
    // A dependent's tests, a dependent app, and names that only look alike.
    Process(variable: nil, arguments: ["/app/.build/debug/MyAppPackageTests.xctest"], isOn: false),
    Process(variable: nil, arguments: [app], isOn: false),
    Process(variable: nil, arguments: [app, "ObservedGraphPackageTests"], isOn: false),
    Process(
      variable: nil, arguments: ["/app/.build/debug/NotObservedGraphPackageTests.xctest"],
      isOn: false),
    // The variable turns them on anywhere, only with `1`.
    Process(variable: "1", arguments: [app], isOn: true),
    Process(variable: "true", arguments: [app], isOn: false),
    Process(variable: "", arguments: [app], isOn: false),
  ]

  /// The rule, given the variable and the process's arguments.
  @Test(arguments: processes)
  func rule(_ process: Process) {
    #expect(
      FullChecks.decide(variable: process.variable, arguments: process.arguments) == process.isOn,
      "\(process)")
  }

  #if DEBUG
    /// A change anywhere finds a corruption elsewhere in the graph: the scan of every object at
    /// the first of 64 changes.
    @Test func aChangeScansTheWholeGraphNowAndThen() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        let s = BookStore.scenario()
        // One-sided: the category does not list the book.
        try? s.books[0].setPrimitiveValue(s.science, forKey: "category")
        for price in 1...65 { s.books[2].price = Double(price) }
      }
      let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(text.contains("does not point back"), "standard error: \(text)")
    }
  #endif

  /// The check of the pairs a change named, always on: a pair one side of which disagrees traps,
  /// however the change's plan names it.
  @Test func aPairTheChangeNamedMustAgree() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      let s = BookStore.scenario()
      // The book points at Science, which does not list it.
      try? s.books[0].setPrimitiveValue(s.science, forKey: "category")
      let category = s.books[0].entity.propertiesByName["category"]!
      s.context.checkPairs(SingleEdit(PlannedEdit(.set(s.books[0], category, old: nil, new: nil))))
    }
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(text.contains("does not point back"), "standard error: \(text)")
  }

  @Test func aPairTheChangeLeftMustAgree() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      let s = BookStore.scenario()
      // The book points at nothing, but Fiction still lists it.
      try? s.books[0].setPrimitiveValue(nil, forKey: "category")
      let category = s.books[0].entity.propertiesByName["category"]!
      let edit = Edit.set(s.books[0], category, old: s.fiction, new: nil)
      s.context.checkPairs(SingleEdit(PlannedEdit(edit)))
    }
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(text.contains("does not hold it"), "standard error: \(text)")
  }

  @Test func aMemberTheChangeInsertedMustPointBack() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      let s = BookStore.scenario()
      // Science lists the book, which points at Fiction.
      let books = s.science.entity.propertiesByName["books"]!
      s.science.collection(books)!.insert(s.books[0])
      let edit = Edit.insert(s.science, books, objects: [s.books[0]], indexes: [])
      s.context.checkPairs(SingleEdit(PlannedEdit(edit)))
    }
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(text.contains("does not point back"), "standard error: \(text)")
  }

  /// What a healthy change names passes, for every kind of edit.
  @Test func agreeingPairsPass() throws {
    let s = BookStore.scenario()
    let category = s.books[0].entity.propertiesByName["category"]!
    let books = s.science.entity.propertiesByName["books"]!
    s.books[0].category = s.science
    var plan = EditList()
    plan.append(PlannedEdit(.set(s.books[0], category, old: s.fiction, new: s.science)))
    plan.append(PlannedEdit(.insert(s.science, books, objects: [s.books[0]], indexes: [])))
    plan.append(PlannedEdit(.remove(s.fiction, books, objects: [s.books[0]], indexes: [])))
    plan.append(PlannedEdit(.replace(s.fiction, books, old: [s.books[0]], new: [s.books[1]])))
    s.context.checkPairs(plan)
    try s.context.delete(s.books[1])
    s.context.checkPairs(SingleEdit(PlannedEdit(.lifecycle(s.books[1], .delete))))
  }
}
