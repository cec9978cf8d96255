// swift-tools-version: 6.0
import PackageDescription

// The benchmark: its own package, so that the library's Package.swift keeps zero dependencies.
// It measures the library (by path) against Swift's `@Observable`, a plain class, GRDB and the
// raw SQLite C API in one run. Run it with `swift run -c release --package-path Benchmarks
// graph-bench` (add `--quick` for CI's small sizes).
let package = Package(
  name: "GraphBench",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(name: "ObservedGraph", path: ".."),
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
  ],
  targets: [
    // The system's SQLite, for the raw C API peer.
    .systemLibrary(
      name: "BenchSQLite",
      path: "BenchSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    .executableTarget(
      name: "graph-bench",
      dependencies: [
        .product(name: "ObservedGraph", package: "ObservedGraph"),
        .product(name: "UndoLog", package: "ObservedGraph"),
        .product(name: "ObservedGraphSQLite", package: "ObservedGraph"),
        "BenchSQLite",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "GraphBench",
      swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
    ),
  ]
)
