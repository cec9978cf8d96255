// Turns the Swift code blocks of the guides (Docs/*.md, README.md, and the DocC catalogs'
// articles) into Swift sources that the GuideTests target compiles, so that a guide whose code
// stops compiling fails the build.
//
//   GuideExtractor <output directory> <guide.md>...
//
// For each guide it writes `Guide_<Name>.swift` and `Guide_<Name>_First.swift`, and for all of
// them `GuideIndex.swift`:
//
// - Every ```swift block of a guide, in order, is one program: its `import`s go to the top of the
//   file, its type and function declarations to file scope (`fileprivate`, so that guides may
//   each declare a `Book`), and its statements and functions into `guide_<Name>()`, one scope for the whole
//   guide, so a block may use what an earlier block declared.
// - A block marked ```swift program starts a new program, in a file of its own, which the blocks
//   after it continue: for a complete example that declares again what an earlier one did.
// - The guide's first compiled block is also written alone, with only its own imports and
//   declarations, into `guide_<Name>_first()`: the tests run it, so the first block of a guide is
//   a program a reader can paste and run.
// - A block marked ```swift no-compile is not compiled (a manifest fragment, a sketch); every other
//   fence needs a language (```sh, ```text, ```json, …): an unmarked fence stops the tool, so no
//   block is skipped silently.
//
// `#sourceLocation` points each line back at its guide, so an error names the guide and its line.
// SwiftPM keeps the plugin's commands, with the list of guides, until the package changes: after
// removing or renaming a guide, `touch Package.swift`.
import Foundation

struct Block {
  var line: Int  // 1-based line of the block's first code line in the guide
  var lines: [String]
  var compiles: Bool
  var startsProgram: Bool
}

struct Guide {
  var name: String
  var path: String
  var blocks: [Block] = []
  var otherBlocks = 0  // blocks in another language (sh, text, json, …)
}

struct Failure: Error, CustomStringConvertible {
  var description: String
}

/// The fenced code blocks of a markdown file.
func parse(_ path: String) throws -> Guide {
  let text = try String(contentsOfFile: path, encoding: .utf8)
  let url = URL(fileURLWithPath: path)
  var name = url.deletingPathExtension().lastPathComponent
  // A DocC article is named with its catalog, since a catalog may have a GettingStarted.md as
  // Docs/ does: `ObservedGraph.docc/GettingStarted` (the GuideCode plugin names its files so).
  if let catalog = url.pathComponents.last(where: { $0.hasSuffix(".docc") }) {
    name = catalog + "/" + name
  }
  var guide = Guide(name: name, path: path)
  var current: (block: Block, indent: Int, isSwift: Bool)?
  for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    let trimmed = line.drop { $0 == " " }
    let indent = line.count - trimmed.count
    if var open = current {
      if trimmed.hasPrefix("```") && trimmed.allSatisfy({ $0 == "`" || $0 == " " }) {
        if open.isSwift { guide.blocks.append(open.block) } else { guide.otherBlocks += 1 }
        current = nil
      } else {
        open.block.lines.append(String(line.dropFirst(min(indent, open.indent))))
        current = open
      }
      continue
    }
    guard trimmed.hasPrefix("```") else { continue }
    let info = trimmed.dropFirst(3).split(separator: " ").map(String.init)
    guard let language = info.first else {
      throw Failure(
        description: "\(path):\(index + 1): a code block without a language; write ```swift, "
          + "```swift no-compile, ```sh, ```text, …")
    }
    let attributes = Set(info.dropFirst())
    if language == "swift" {
      guard attributes.isSubset(of: ["no-compile", "program"]) else {
        throw Failure(
          description: "\(path):\(index + 1): unknown attributes \(attributes.sorted()) of a "
            + "swift block; the known ones are no-compile and program")
      }
    }
    let block = Block(
      line: index + 2, lines: [], compiles: !attributes.contains("no-compile"),
      startsProgram: attributes.contains("program"))
    current = (block, indent, language == "swift")
  }
  if current != nil { throw Failure(description: "\(path): a code block is not closed") }
  return guide
}

/// One top-level item of a block: an import, a declaration or a statement, with its lines.
struct Item {
  enum Kind { case importLine, declaration, statement }
  var kind: Kind
  var line: Int
  var lines: [String]
}

/// Declarations that go to file scope. A function stays where it is, a local function that may
/// use the program's variables, as a top-level function of a program may; one marked `@Test`
/// goes to file scope, where Swift Testing finds it.
let declarationWords: Set<String> = [
  "class", "struct", "enum", "extension", "protocol", "actor", "typealias",
]
let modifierWords: Set<String> = [
  "final", "private", "fileprivate", "internal", "public", "open", "nonisolated", "indirect",
]

/// Splits a block into its top-level items: an item starts at a line without indentation that
/// does not close a bracket; an attribute on a line of its own joins the next line.
func items(of block: Block) -> [Item] {
  var result: [Item] = []
  var pending: [String] = []  // comments and attributes waiting for their item
  var pendingLine = 0
  for (offset, line) in block.lines.enumerated() {
    let number = block.line + offset
    if let last = result.last, isOpenComment(last), pending.isEmpty {
      result[result.count - 1].lines.append(line)
      continue
    }
    let atMargin = !line.isEmpty && !line.hasPrefix(" ")
    let closes =
      line.hasPrefix("}") || line.hasPrefix(")") || line.hasPrefix("]")
      || line.hasPrefix(".")
    let attributeOnly = line.hasPrefix("@") && !line.contains(" ")
    if atMargin && (line.hasPrefix("//") || attributeOnly) {
      if pending.isEmpty { pendingLine = number }
      pending.append(line)
      continue
    }
    guard atMargin && !closes else {
      if !pending.isEmpty || result.isEmpty {
        if pending.isEmpty { pendingLine = number }
        pending.append(line)
      } else {
        result[result.count - 1].lines.append(line)
      }
      continue
    }
    var words = line.split(separator: " ").map(String.init)
    while let first = words.first, first.hasPrefix("@") || modifierWords.contains(first) {
      words.removeFirst()
    }
    let kind: Item.Kind
    if words.first == "import" {
      kind = .importLine
    } else if let first = words.first, declarationWords.contains(first) {
      kind = .declaration
    } else if words.first == "func", (pending + [line]).contains(where: { $0.hasPrefix("@Test") }) {
      kind = .declaration
    } else {
      kind = .statement
    }
    result.append(
      Item(kind: kind, line: pending.isEmpty ? number : pendingLine, lines: pending + [line]))
    pending = []
  }
  if !pending.isEmpty {
    if result.isEmpty {
      result.append(Item(kind: .statement, line: pendingLine, lines: pending))
    } else {
      result[result.count - 1].lines += pending
    }
  }
  return result
}

func isOpenComment(_ item: Item) -> Bool {
  let text = item.lines.joined(separator: "\n")
  return text.components(separatedBy: "/*").count > text.components(separatedBy: "*/").count
}

/// A declaration made file-private, so that two guides may declare the same name; `@Test`
/// functions stay internal, as Swift Testing needs.
func filePrivate(_ lines: [String]) -> [String] {
  guard !lines.contains(where: { $0.hasPrefix("@Test") }) else { return lines }
  var lines = lines
  guard
    let index = lines.firstIndex(where: {
      !$0.hasPrefix("//") && !($0.hasPrefix("@") && !$0.contains(" "))
    })
  else { return lines }
  var words = lines[index].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
  var position = 0
  while position < words.count, words[position].hasPrefix("@") { position += 1 }
  if position < words.count, words[position] == "extension" { return lines }
  if position < words.count,
    ["private", "fileprivate", "public", "internal", "open"].contains(words[position])
  {
    return lines
  }
  words.insert("fileprivate", at: position)
  lines[index] = words.joined(separator: " ")
  return lines
}

/// The names a top-level `let` or `var` statement binds (`let a = …`, `let (a, b) = …`).
func boundNames(_ item: Item) -> [String] {
  guard item.kind == .statement, let first = item.lines.first(where: { !$0.hasPrefix("//") })
  else { return [] }
  let words = first.split(separator: " ", maxSplits: 2).map(String.init)
  guard words.count >= 2, words[0] == "let" || words[0] == "var" else { return [] }
  var pattern = words[1]
  if pattern.hasPrefix("(") {
    if let close = first.firstIndex(of: ")"), let open = first.firstIndex(of: "(") {
      pattern = String(first[first.index(after: open)..<close])
    }
    return pattern.split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces).split(separator: ":").first.map(String.init) ?? ""
    }.filter { $0 != "_" && !$0.isEmpty }
  }
  let name = pattern.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
  return name.isEmpty || name == "_" ? [] : [String(name)]
}

func identifier(_ name: String) -> String {
  String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
}

/// The Swift source of some blocks of a guide: imports, declarations, then one function.
func source(of blocks: [Block], guide: Guide, function: String) -> String {
  var imports: [String] = []
  var declarations: [String] = []
  var statements: [String] = []
  var names: [String] = []
  let file = guide.path
  func location(_ line: Int) -> String { "#sourceLocation(file: \"\(file)\", line: \(line))" }
  for block in blocks where block.compiles {
    for item in items(of: block) {
      switch item.kind {
      case .importLine:
        for line in item.lines where !imports.contains(line) && !line.hasPrefix("//") {
          imports.append(line)
        }
      case .declaration:
        declarations += [location(item.line)] + filePrivate(item.lines)
      case .statement:
        statements += [location(item.line)] + item.lines
        for name in boundNames(item) where !names.contains(name) { names.append(name) }
      }
    }
  }
  var text = "// Generated by GuideExtractor from \(file): do not edit.\n"
  text += imports.joined(separator: "\n") + "\n\n"
  if !declarations.isEmpty {
    text += declarations.joined(separator: "\n") + "\n#sourceLocation()\n"
  }
  text += "func \(function)() async throws {\n"
  if !statements.isEmpty {
    text += statements.joined(separator: "\n") + "\n#sourceLocation()\n"
  }
  // Top-level names of a program are globals, which the compiler does not ask to be used; here
  // they are locals of a function, used once so that a guide need not use each.
  for name in names { text += "  _ = \(name)\n" }
  text += "}\n"
  return text
}

/// The files written for each guide's programs: the plugin declares them before they exist.
let programCount = 4

func run() throws {
  let arguments = CommandLine.arguments.dropFirst()
  guard let output = arguments.first else {
    throw Failure(description: "usage: GuideExtractor <output directory> <guide.md>...")
  }
  let guides = try arguments.dropFirst().map(parse)
  // `#sourceLocation` gives each line the `#fileID` `GuideTests/<file name>`: two guides with one
  // file name (Docs/X.md and an article X.md of a catalog) would make the compiler warn.
  let byFileName = Dictionary(grouping: guides) { URL(fileURLWithPath: $0.path).lastPathComponent }
  for (fileName, same) in byFileName.sorted(by: { $0.key < $1.key }) where same.count > 1 {
    throw Failure(
      description: "\(same.map(\.path).joined(separator: " and ")) share the file name "
        + "\(fileName); rename one (the compiled code names each line by its file name)")
  }
  var index = "// Generated by GuideExtractor: do not edit.\n\n"
  index +=
    "/// The guides whose Swift blocks this target compiles, with the function that runs each\n"
  index += "/// guide's first block and the count of its blocks.\n"
  index += "enum GuideIndex {\n"
  index += "  struct Entry: Sendable {\n"
  index += "    let name: String\n    let path: String\n    let compiled: Int\n"
  index += "    let marked: Int\n    let otherLanguages: Int\n"
  index += "    let firstBlock: (@Sendable () async throws -> Void)?\n"
  index += "    let programs: [@Sendable () async throws -> Void]\n  }\n"
  index += "  static let guides: [Entry] = [\n"
  for guide in guides {
    let name = identifier(guide.name)
    let compiled = guide.blocks.filter(\.compiles)
    // The guide's programs: a block marked `program` starts a new one.
    var programs: [[Block]] = [[]]
    for block in guide.blocks {
      if block.startsProgram { programs.append([]) }
      programs[programs.count - 1].append(block)
    }
    guard programs.count <= programCount else {
      throw Failure(
        description: "\(guide.path): \(programs.count) programs; a guide may have "
          + "\(programCount), the first and \(programCount - 1) blocks marked program")
    }
    for number in 0..<programCount {
      let blocks = number < programs.count ? programs[number] : []
      let program = source(of: blocks, guide: guide, function: "guide_\(name)_\(number)")
      try program.write(
        toFile: "\(output)/Guide_\(name)_\(number).swift", atomically: true, encoding: .utf8)
    }
    let functions = programs.indices.map { "guide_\(name)_\($0)" }.joined(separator: ", ")
    let first = source(of: Array(compiled.prefix(1)), guide: guide, function: "guide_\(name)_first")
    try first.write(
      toFile: "\(output)/Guide_\(name)_First.swift", atomically: true, encoding: .utf8)
    let hasCode = !compiled.isEmpty
    index += "    Entry(\n"
    index +=
      "      name: \"\(guide.name)\", path: \"\(guide.path)\", compiled: \(compiled.count),\n"
    index += "      marked: \(guide.blocks.count - compiled.count), "
    index += "otherLanguages: \(guide.otherBlocks),\n"
    index += "      firstBlock: \(hasCode ? "guide_\(name)_first" : "nil"),\n"
    index += "      programs: [\(functions)]),\n"
  }
  index += "  ]\n}\n"
  try index.write(toFile: "\(output)/GuideIndex.swift", atomically: true, encoding: .utf8)
}

do {
  try run()
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(1)
}
