import Foundation

// `outliner FILE.sqlite`: a terminal editor of a tree of notes kept in an SQLite file. It reads
// one command a line from standard input, on a terminal with a prompt, or piped from a script;
// after each command it prints what it did, the numbered tree, and what the context observed.
// Errors go to standard error and the session goes on; piped, the exit status is 1 when a command
// failed.

/// Writes lines to standard output at once (unbuffered, so the order with errors is kept).
func write(_ lines: [String], newline: Bool = true) {
  let text = lines.joined(separator: "\n") + (newline ? "\n" : "")
  FileHandle.standardOutput.write(Data(text.utf8))
}

func writeError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

let usage = "usage: outliner FILE.sqlite  (opens the outline in FILE, making it when new)"

func open(_ path: String) -> Outliner {
  let url = URL(fileURLWithPath: path)
  let isNew = !FileManager.default.fileExists(atPath: url.path)
  do {
    let outliner = try Outliner(url: url)
    write(["\(isNew ? "New outline" : "Opened") \(url.lastPathComponent)"] + outliner.treeLines())
    return outliner
  } catch {
    writeError("outliner: cannot open \(path): \(error)")
    exit(1)
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--help"] || arguments == ["-h"] {
  write([usage, "", Command.helpText])
  exit(0)
}
guard arguments.count == 1 else {
  writeError(usage)
  exit(2)
}

/// Reads and runs commands until `quit` or the end of input, then closes the file.
///
/// The outline is a local, so it and its objects are released before the program exits.
/// - Returns: The exit status.
func session(on path: String) -> Int32 {
  let interactive = standardInputIsTerminal()
  let outliner = open(path)
  if interactive { write(["Type help for the commands."]) }
  var failures = 0
  while true {
    if interactive { write(["> "], newline: false) }
    guard let line = readLine() else {
      if interactive { write([""]) }  // end the prompt's line after ^D
      break
    }
    let before = outliner.labels()
    do {
      guard let command = try Command(parsing: line) else { continue }
      if command == .quit { break }
      if command == .help {
        write([Command.helpText])
        continue
      }
      var output = [try outliner.run(command)] + outliner.treeLines()
      if let observed = outliner.observedLine(outliner.takeObserved(), before: before) {
        output.append(observed)
      }
      write(output)
    } catch {
      failures += 1
      writeError("error: \(error)")
    }
  }
  if outliner.context.hasChanges { write(["Unsaved changes dropped (save keeps them)"]) }
  do {
    try outliner.close()
  } catch {
    writeError("outliner: \(error)")
    failures += 1
  }
  return !interactive && failures > 0 ? 1 : 0
}

exit(session(on: arguments[0]))
