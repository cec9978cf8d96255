// swift-tools-version: 6.0
import PackageDescription

// An app's view of the library in a debug build: a package that depends on it (by path), as an
// app does, so the library is built with the settings a dependent gets. Run it in debug, the
// configuration it measures: `swift run --package-path Benchmarks/DebugScaling debug-scaling`
// (add `--quick` for CI's small sizes, which time nothing worth quoting).
let package = Package(
  name: "DebugScaling",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(name: "ObservedGraph", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "debug-scaling",
      dependencies: [
        .product(name: "ObservedGraph", package: "ObservedGraph"),
        .product(name: "UndoLog", package: "ObservedGraph"),
      ],
      swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
    )
  ]
)
