// swift-tools-version: 6.0
import PackageDescription

// `OBSERVEDGRAPH_INVARIANTS` turns on invariant checks after every mutation (inverses agree, undo
// groups balanced, registration consistent). It is on in every debug build, a dependent app's too
// (what `swift test` and an app's debug run use), and off in release builds (what the benchmark
// measures). Its checks cost what a change touched, so a debug build scales as a release build
// does; the scans of whole structures (the graph, the undo history, a collection, fetched results)
// run only while `FullChecks.isOn` (Sources/UndoLog/FullChecks.swift): in this package's own test
// process, or with `OBSERVEDGRAPH_FULL_CHECKS=1`.
let invariants: SwiftSetting = .define("OBSERVEDGRAPH_INVARIANTS", .when(configuration: .debug))
let strictness: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
  name: "ObservedGraph",
  // Observation, Duration, ContinuousClock and AsyncStream need these releases on Apple platforms.
  platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
  products: [
    .library(name: "ObservedGraph", targets: ["ObservedGraph"]),
    .library(name: "UndoLog", targets: ["UndoLog"]),
    .library(name: "ObservedGraphSQLite", targets: ["ObservedGraphSQLite"]),
    .executable(name: "bookstore", targets: ["bookstore"]),
    .executable(name: "inventory", targets: ["inventory"]),
    .executable(name: "league", targets: ["league"]),
    .executable(name: "outliner", targets: ["outliner"]),
  ],
  targets: [
    .target(name: "UndoLog", swiftSettings: strictness + [invariants]),
    .target(
      name: "ObservedGraph",
      dependencies: ["UndoLog"],
      swiftSettings: strictness + [invariants]
    ),
    // The system's SQLite (the one prerequisite beside the toolchain on Linux); the core module
    // never imports it.
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    .target(
      name: "ObservedGraphSQLite",
      dependencies: ["ObservedGraph", "CSQLite"],
      swiftSettings: strictness
    ),
    .executableTarget(
      name: "bookstore",
      dependencies: ["ObservedGraph", "UndoLog", "ObservedGraphSQLite"],
      path: "Examples/BookStore",
      swiftSettings: strictness
    ),
    // Seed 004's Inventory: generic objects from a model kept as JSON (a resource), in SQLite.
    .executableTarget(
      name: "inventory",
      dependencies: ["ObservedGraph", "ObservedGraphSQLite"],
      path: "Examples/Inventory",
      exclude: ["README.md"],
      resources: [.copy("Inventory.json"), .copy("InventoryV1.json")],
      swiftSettings: strictness
    ),
    // Seed 001's League Manager: inheritance, many-to-many, a fetched property, live results,
    // fetch request templates, validation at save, and SQLite.
    .executableTarget(
      name: "league",
      dependencies: ["ObservedGraph", "UndoLog", "ObservedGraphSQLite"],
      path: "Examples/League",
      exclude: ["README.md"],
      swiftSettings: strictness
    ),
    .executableTarget(
      name: "outliner",
      dependencies: ["ObservedGraph", "UndoLog", "ObservedGraphSQLite"],
      path: "Examples/Outliner",
      exclude: ["README.md"],
      swiftSettings: strictness
    ),
    // Drives the `outliner` binary through pipes; depending on it builds it beside the tests.
    .testTarget(
      name: "OutlinerTests",
      dependencies: ["outliner", "ObservedGraph", "ObservedGraphSQLite"],
      swiftSettings: strictness
    ),
    .testTarget(
      name: "UndoLogTests",
      dependencies: ["UndoLog"],
      swiftSettings: strictness
    ),
    .testTarget(
      name: "ObservedGraphSQLiteTests",
      dependencies: ["ObservedGraphSQLite"],
      swiftSettings: strictness
    ),
    // Runs each example's steps and compares what they print, line by line.
    .testTarget(
      name: "ExamplesTests",
      dependencies: ["inventory", "league", "bookstore", "ObservedGraph", "ObservedGraphSQLite"],
      swiftSettings: strictness
    ),
    .testTarget(
      name: "ObservedGraphTests",
      dependencies: ["ObservedGraph", "UndoLog"],
      swiftSettings: strictness
    ),
    // The guides' Swift blocks (README.md, Docs/*.md), extracted by the GuideCode plugin at
    // build time and compiled here; the tests run each guide's first block.
    .executableTarget(name: "GuideExtractor", swiftSettings: strictness),
    .plugin(name: "GuideCode", capability: .buildTool(), dependencies: ["GuideExtractor"]),
    .testTarget(
      name: "GuideTests",
      dependencies: ["ObservedGraph", "UndoLog", "ObservedGraphSQLite"],
      swiftSettings: strictness,
      plugins: ["GuideCode"]
    ),
  ]
)
