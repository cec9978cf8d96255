import Foundation
import PackagePlugin

/// Compiles the guides: runs GuideExtractor over README.md, every Docs/*.md and every article of
/// the DocC catalogs (Sources/<Module>/<Module>.docc, with its subfolders), and adds the Swift
/// files it writes to the target (GuideTests), so that `swift test` compiles the guides as they
/// are now and runs each one's first block.
@main
struct GuideCode: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let package = context.package.directoryURL
    let docs = package.appending(path: "Docs")
    let names = try FileManager.default.contentsOfDirectory(
      atPath: docs.path(percentEncoded: false)
    )
    .filter { $0.hasSuffix(".md") }.sorted()
    let guides =
      [package.appending(path: "README.md")] + names.map { docs.appending(path: $0) }
      + (try catalogArticles(in: package.appending(path: "Sources")))
    let output = context.pluginWorkDirectoryURL.appending(path: "Guides")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    var outputs = [output.appending(path: "GuideIndex.swift")]
    for guide in guides {
      // GuideExtractor names the files the same way: an article by its catalog and its name
      // (`ObservedGraph.docc/GettingStarted` is `ObservedGraph_docc_GettingStarted`).
      var name = guide.deletingPathExtension().lastPathComponent
      if let catalog = guide.pathComponents.last(where: { $0.hasSuffix(".docc") }) {
        name = catalog + "/" + name
      }
      name = String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
      // A fixed set of files per guide, so the list does not depend on what the guide says:
      // SwiftPM keeps the commands of a build tool plugin until the package changes.
      for number in 0..<4 {
        outputs.append(output.appending(path: "Guide_\(name)_\(number).swift"))
      }
      outputs.append(output.appending(path: "Guide_\(name)_First.swift"))
    }
    return [
      .buildCommand(
        displayName: "Extracting the Swift blocks of \(guides.count) guides",
        executable: try context.tool(named: "GuideExtractor").url,
        arguments: [output.path(percentEncoded: false)]
          + guides.map { $0.path(percentEncoded: false) },
        inputFiles: guides,
        outputFiles: outputs)
    ]
  }
}

/// The markdown files of every DocC catalog under `sources` (`<Module>/<Module>.docc/**/*.md`),
/// sorted by path.
private func catalogArticles(in sources: URL) throws -> [URL] {
  let files = FileManager.default
  var articles: [URL] = []
  let modules = try files.contentsOfDirectory(atPath: sources.path(percentEncoded: false)).sorted()
  for module in modules {
    let folder = sources.appending(path: module)
    let entries = (try? files.contentsOfDirectory(atPath: folder.path(percentEncoded: false))) ?? []
    for catalog in entries.sorted() where catalog.hasSuffix(".docc") {
      let root = folder.appending(path: catalog)
      let paths = files.subpaths(atPath: root.path(percentEncoded: false)) ?? []
      articles += paths.filter { $0.hasSuffix(".md") }.sorted().map { root.appending(path: $0) }
    }
  }
  return articles
}
