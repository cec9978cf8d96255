import Foundation

/// One line the user typed, parsed.
enum Command: Equatable {
  /// A new note, last among the children of the note at `parent`, or at the top level.
  case add(title: String, parent: NotePath?)
  case rename(NotePath, to: String)
  /// Makes the note the last child of the sibling above it.
  case indent(NotePath)
  /// Moves the note out of its parent, to just after it.
  case outdent(NotePath)
  case up(NotePath)
  case down(NotePath)
  /// Moves the note under `parent` (nil: the top level), to `position` (from 1; nil: last).
  case move(NotePath, parent: NotePath?, position: Int?)
  case delete(NotePath)
  case undo
  case redo
  case save
  case show
  case help
  /// Leaves; with unsaved changes it asks first (on a terminal) or refuses (piped).
  case quit
  /// Leaves, dropping unsaved changes (`quit!`).
  case quitDiscarding

  /// What `help` prints.
  static let helpText = """
    Commands (PATH is a note's number in the tree, such as 2 or 1.3.2):
      add TITLE                    add a note at the end of the top level
      add under PATH TITLE         add a note as the last child of PATH
      rename PATH TITLE            change a note's title
      indent PATH                  make a note the last child of the note above it
      outdent PATH                 move a note out of its parent, to just after it
      up PATH, down PATH           move a note before or after its neighbour
      move PATH to PARENT [N]      move a note under PARENT (a PATH, or top), at position N
                                   (from 1; last when left out)
      delete PATH                  delete a note and everything under it
      undo, redo                   take back the last command, or do it again
      save                         write the outline to its file
      show                         print the tree
      help                         print this list
      quit                         leave; with unsaved changes, ask first to save them
                                   (piped: refuse, and go on)
      quit!                        leave, dropping unsaved changes
    """

  /// Reads one line; blank lines and lines starting with `#` are nil.
  ///
  /// - Throws: `OutlinerError` saying what is wrong with the line.
  init?(parsing line: String) throws {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
    var words = Words(trimmed)
    let verb = words.next()!
    switch verb.lowercased() {
    case "add":
      if words.peek()?.lowercased() == "under" {
        _ = words.next()
        let parent = try words.path(usage: "add under PATH TITLE")
        self = .add(title: try words.title(usage: "add under PATH TITLE"), parent: parent)
      } else {
        self = .add(title: try words.title(usage: "add TITLE"), parent: nil)
      }
    case "rename":
      let path = try words.path(usage: "rename PATH TITLE")
      self = .rename(path, to: try words.title(usage: "rename PATH TITLE"))
    case "indent": self = .indent(try words.onlyPath(usage: "indent PATH"))
    case "outdent": self = .outdent(try words.onlyPath(usage: "outdent PATH"))
    case "up": self = .up(try words.onlyPath(usage: "up PATH"))
    case "down": self = .down(try words.onlyPath(usage: "down PATH"))
    case "move":
      let usage = "move PATH to PARENT [N]"
      let path = try words.path(usage: usage)
      guard words.next()?.lowercased() == "to" else { throw OutlinerError("usage: \(usage)") }
      guard let target = words.next() else { throw OutlinerError("usage: \(usage)") }
      var parent: NotePath?
      if target.lowercased() != "top" {
        guard let path = NotePath(target) else { throw Self.notAPath(target) }
        parent = path
      }
      var position: Int?
      if let word = words.next() {
        guard word.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(word), number >= 1
        else { throw OutlinerError("'\(word)' is not a position (1 is the first)") }
        position = number
      }
      try words.end(usage: usage)
      self = .move(path, parent: parent, position: position)
    case "delete": self = .delete(try words.onlyPath(usage: "delete PATH"))
    case "undo":
      try words.end(usage: "undo")
      self = .undo
    case "redo":
      try words.end(usage: "redo")
      self = .redo
    case "save":
      try words.end(usage: "save")
      self = .save
    case "show":
      try words.end(usage: "show")
      self = .show
    case "help", "?": self = .help
    case "quit", "exit":
      try words.end(usage: "quit")
      self = .quit
    case "quit!", "exit!":
      try words.end(usage: "quit!")
      self = .quitDiscarding
    default: throw OutlinerError("unknown command '\(verb)' (type help for the list)")
    }
  }

  static func notAPath(_ word: String) -> OutlinerError {
    OutlinerError("'\(word)' is not a note's number (write it like 2 or 1.3)")
  }
}

/// The words of a line, taken from the front; a title is the rest of the line as typed.
private struct Words {
  private var rest: Substring

  init(_ line: String) { rest = Substring(line) }

  mutating func next() -> String? {
    rest = rest.drop { $0.isWhitespace }
    guard !rest.isEmpty else { return nil }
    let word = rest.prefix { !$0.isWhitespace }
    rest = rest.dropFirst(word.count)
    return String(word)
  }

  func peek() -> String? {
    var copy = self
    return copy.next()
  }

  mutating func path(usage: String) throws -> NotePath {
    guard let word = next() else { throw OutlinerError("usage: \(usage)") }
    guard let path = NotePath(word) else { throw Command.notAPath(word) }
    return path
  }

  mutating func onlyPath(usage: String) throws -> NotePath {
    let path = try path(usage: usage)
    try end(usage: usage)
    return path
  }

  mutating func title(usage: String) throws -> String {
    let title = rest.trimmingCharacters(in: .whitespaces)
    guard !title.isEmpty else { throw OutlinerError("usage: \(usage) (a note needs a title)") }
    rest = ""
    return title
  }

  func end(usage: String) throws {
    guard rest.allSatisfy(\.isWhitespace) else { throw OutlinerError("usage: \(usage)") }
  }
}
