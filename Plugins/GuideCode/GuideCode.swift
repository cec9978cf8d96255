import Foundation
import PackagePlugin

/// Compiles the guides: runs GuideExtractor over README.md and every Docs/*.md, and adds the
/// Swift files it writes to the target (GuideTests), so that `swift test` compiles the guides as
/// they are now and runs each one's first block.
@main
struct GuideCode: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let package = context.package.directoryURL
    let docs = package.appending(path: "Docs")
    let names = try FileManager.default.contentsOfDirectory(
      atPath: docs.path(percentEncoded: false)
    )
    .filter { $0.hasSuffix(".md") }.sorted()
    let guides = [package.appending(path: "README.md")] + names.map { docs.appending(path: $0) }
    let output = context.pluginWorkDirectoryURL.appending(path: "Guides")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    var outputs = [output.appending(path: "GuideIndex.swift")]
    for guide in guides {
      let name = String(
        guide.deletingPathExtension().lastPathComponent.map {
          $0.isLetter || $0.isNumber ? $0 : "_"
        })
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
