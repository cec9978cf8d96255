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
/// `quit` with unsaved changes asks what to do with them on a terminal, and is refused when the
/// commands are piped (a script says `save` or `quit!`); the end of input with unsaved changes
/// drops them with a warning. The outline is a local, so it and its objects are released before
/// the program exits.
/// - Returns: The exit status.
func session(on path: String) -> Int32 {
  let interactive = standardInputIsTerminal()
  let outliner = open(path)
  let fileName = URL(fileURLWithPath: path).lastPathComponent
  if interactive { write(["Type help for the commands."]) }
  var failures = 0
  var quitting = false
  reading: while !quitting {
    if interactive { write(["> "], newline: false) }
    guard let line = readLine() else {
      if interactive { write([""]) }  // end the prompt's line after ^D
      if outliner.context.hasChanges {
        write(["Warning: the input ended with unsaved changes; they are dropped (save keeps them)"])
      }
      break
    }
    let before = outliner.labels()
    do {
      guard let command = try Command(parsing: line) else { continue }
      switch command {
      case .help:
        write([Command.helpText])
        continue reading
      case .quitDiscarding:
        if outliner.context.hasChanges { write(["Unsaved changes dropped"]) }
        quitting = true
        continue reading
      case .quit:
        quitting = try quit(outliner, fileName: fileName, interactive: interactive)
        continue reading
      default: break
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
  do {
    try outliner.close()
  } catch {
    writeError("outliner: \(error)")
    failures += 1
  }
  return !interactive && failures > 0 ? 1 : 0
}

/// Whether `quit` leaves: at once without unsaved changes; with them, on a terminal, after the
/// user's answer (saving first, or dropping them), and never when the commands are piped.
/// - Throws: `OutlinerError` when piped with unsaved changes, or the save's error.
func quit(_ outliner: Outliner, fileName: String, interactive: Bool) throws -> Bool {
  guard outliner.context.hasChanges else { return true }
  guard interactive else {
    throw OutlinerError(
      "there are unsaved changes: 'save' keeps them, 'quit!' leaves without them")
  }
  switch askBeforeQuitting(fileName) {
  case .save:
    write([try outliner.run(.save)])
    return true
  case .discard:
    write(["Unsaved changes dropped"])
    return true
  case .cancel:
    return false
  }
}

/// Asks on the terminal what to do with unsaved changes, until the answer is one of the three;
/// the end of input cancels.
func askBeforeQuitting(_ fileName: String) -> QuitAnswer {
  while true {
    write(
      ["Save the changes to \(fileName) before quitting? (s)ave, (d)iscard, (c)ancel: "],
      newline: false)
    guard let line = readLine() else {
      write([""])
      return .cancel
    }
    if let answer = QuitAnswer(line) { return answer }
  }
}

exit(session(on: arguments[0]))
