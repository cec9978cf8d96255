import Foundation
import Testing

/// The guides' code: the GuideCode plugin turns the Swift blocks of README.md, Docs/*.md and the
/// DocC catalogs' articles into sources of this target, so a block that stops compiling fails the
/// build, with the guide's file and line in the error. These tests run what the blocks do.
@Suite struct GuideTests {
  /// Each guide's first Swift block is a whole program: it runs alone, with only its own imports
  /// and declarations, and finishes without throwing.
  @Test(arguments: GuideIndex.guides.filter { $0.firstBlock != nil }.map(\.name))
  func firstBlockRuns(guide: String) async throws {
    let entry = try #require(GuideIndex.guides.first { $0.name == guide })
    let run = try #require(entry.firstBlock)
    defer {
      if guide == "SQLiteStore" { removeStore(named: "Library.sqlite") }
      if guide == "ChangingYourModel" { removeStore(named: "Notes.sqlite") }
      if guide == "ObservedGraphSQLite.docc/ObservedGraphSQLite" {
        removeStore(named: "Shelf.sqlite")
      }
    }
    try await run()
  }

  /// Guides whose every block runs, in order: no block waits for events forever (UndoLog's
  /// first program does), and each needs only what the guide declares (Fetching's fetched
  /// property is shown on a class it does not declare). `Guide:n` runs the n-th program of a
  /// guide, from 0; a block marked `program` starts the next. One at a time: README and
  /// GettingStarted save to the same file.
  static let runnable = [
    "README", "Observing", "Relationships", "Testing", "ComingFromCoreData", "Architecture",
    "UndoLog:1", "UndoLog:2", "GettingStarted", "ObservedGraph.docc/FirstSteps",
    "ObservedGraph.docc/ObservingChanges", "ObservedGraph.docc/UndoAndRedo",
  ]

  @Test(.serialized, arguments: runnable)
  func programsRun(_ name: String) async throws {
    let parts = name.split(separator: ":").map(String.init)
    let entry = try #require(GuideIndex.guides.first { $0.name == parts[0] })
    defer {
      if ["README", "GettingStarted"].contains(entry.name) { removeStore(named: "Books.sqlite") }
    }
    if parts.count == 2 {
      let number = try #require(Int(parts[1]))
      try #require(number < entry.programs.count)
      try await entry.programs[number]()
    } else {
      for program in entry.programs { try await program() }
    }
  }

  /// The guides that must have a first Swift block a reader can run.
  static let guidesWithCode = [
    "README", "GettingStarted", "Observing", "Relationships", "UndoLog", "SQLiteStore",
    "Fetching", "Testing", "ComingFromCoreData", "Architecture", "ChangingYourModel",
  ]

  @Test(arguments: guidesWithCode)
  func guideHasCode(guide: String) throws {
    let entry = try #require(
      GuideIndex.guides.first { $0.name == guide }, "no guide \(guide).md was extracted")
    #expect(entry.compiled > 0, "\(entry.path) has no Swift block that compiles")
  }

  /// Every guide in Docs/ and every article of the DocC catalogs (named with its catalog) is
  /// extracted, and the counts are what the report prints.
  @Test func everyGuideIsExtracted() throws {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appending(path: "../..").standardized
    let files = FileManager.default
    let names = try files.contentsOfDirectory(
      atPath: package.appending(path: "Docs").path(percentEncoded: false)
    )
    .filter { $0.hasSuffix(".md") }.map { String($0.dropLast(3)) }
    let sources = package.appending(path: "Sources")
    var articles: [String] = []
    for module in try files.contentsOfDirectory(atPath: sources.path(percentEncoded: false)) {
      let catalog = "\(module).docc"
      let root = sources.appending(path: module).appending(path: catalog)
      for path in files.subpaths(atPath: root.path(percentEncoded: false)) ?? []
      where path.hasSuffix(".md") {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        articles.append("\(catalog)/\(name)")
      }
    }
    #expect(articles.count >= 6)
    #expect(Set(GuideIndex.guides.map(\.name)) == Set(names + ["README"] + articles))
    for entry in GuideIndex.guides {
      print(
        "\(entry.name): \(entry.compiled) Swift blocks compiled, \(entry.marked) marked "
          + "no-compile, \(entry.otherLanguages) in other languages")
    }
  }
}

/// Removes a store file a guide makes in the temporary folder, with SQLite's companion files.
private func removeStore(named name: String) {
  let folder = FileManager.default.temporaryDirectory
  for suffix in ["", "-wal", "-shm"] {
    try? FileManager.default.removeItem(at: folder.appending(path: name + suffix))
  }
}
