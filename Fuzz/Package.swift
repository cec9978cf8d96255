// swift-tools-version: 6.0
import Foundation
import PackageDescription

// Fuzz targets for the library, built with libFuzzer by Scripts/fuzz.sh:
//
//   swift build --package-path Fuzz --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address
//
// The library is the package one folder up; its identity is the name of that folder, whatever a
// clone calls it.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent
let strictness: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
  name: "ObservedGraphFuzz",
  platforms: [.macOS(.v14)],
  dependencies: [.package(path: "..")],
  targets: [
    .target(
      name: "FuzzSupport",
      dependencies: [
        .product(name: "ObservedGraph", package: library),
        .product(name: "ObservedGraphSQLite", package: library),
      ],
      swiftSettings: strictness),
    // A predicate's text: parsed, printed and parsed again, checked against a model, and
    // fetched from an SQLite store and from memory, which must agree.
    .executableTarget(
      name: "FuzzPredicate", dependencies: ["FuzzSupport"], swiftSettings: strictness),
    // A file's bytes: opened as a store, read and written; refused untouched when it is no
    // store.
    .executableTarget(
      name: "FuzzStoreFile", dependencies: ["FuzzSupport", "CFuzzSQLite"],
      swiftSettings: strictness),
    // The system's SQLite, which the store-file target asks whether a file is consistent.
    .systemLibrary(name: "CFuzzSQLite", pkgConfig: "sqlite3"),
  ]
)
