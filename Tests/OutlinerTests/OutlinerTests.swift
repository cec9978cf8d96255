import Foundation
import Testing

/// The `outliner` example, driven through its binary: a script piped to its standard input, and
/// what it prints after each command compared exactly, line by line.
@Suite struct OutlinerTests {
  /// A command and what the outliner prints for it (empty for a refused command, which prints
  /// only on standard error).
  struct Step {
    let command: String
    let printed: String

    init(_ command: String, _ printed: String = "") {
      self.command = command
      self.printed = printed
    }
  }

  /// Runs the steps as one piped script on `file` and checks standard output, standard error and
  /// the exit status exactly.
  static func expectSession(
    on file: URL, opening: String, _ steps: [Step], ending: String = "",
    errors: [String] = [], status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let script = steps.map { $0.command + "\n" }.joined()
    let output = try OutlinerProcess.run(script, file: file)
    let printed = ([opening] + steps.map(\.printed) + [ending]).filter { !$0.isEmpty }
    #expect(
      output.standardOutput == printed.map { $0 + "\n" }.joined(), sourceLocation: sourceLocation)
    #expect(
      output.standardError == errors.map { "error: \($0)\n" }.joined(),
      sourceLocation: sourceLocation)
    #expect(output.status == status, sourceLocation: sourceLocation)
  }

  /// What the end of input with unsaved changes prints.
  static let dropped =
    "Warning: the input ended with unsaved changes; they are dropped (save keeps them)"

  @Test func editing() throws {
    let folder = try TemporaryFolder()
    try Self.expectSession(
      on: folder.file("notes.sqlite"), opening: "New outline notes.sqlite\n(no notes)",
      [
        Step(
          "add Work",
          """
          Added 1 "Work"
          1 Work
          observed: inserted "Work"; updated top (children)
          """),
        Step(
          "add Home",
          """
          Added 2 "Home"
          1 Work
          2 Home
          observed: inserted "Home"; updated top (children)
          """),
        Step(
          "add under 1 Call Bob",
          """
          Added 1.1 "Call Bob"
          1 Work
            1.1 Call Bob
          2 Home
          observed: inserted "Call Bob"; updated "Work" (children)
          """),
        Step(
          "add under 1 Write report",
          """
          Added 1.2 "Write report"
          1 Work
            1.1 Call Bob
            1.2 Write report
          2 Home
          observed: inserted "Write report"; updated "Work" (children)
          """),
        Step(
          "add under 2 Groceries",
          """
          Added 2.1 "Groceries"
          1 Work
            1.1 Call Bob
            1.2 Write report
          2 Home
            2.1 Groceries
          observed: inserted "Groceries"; updated "Home" (children)
          """),
        Step(
          "ADD UNDER 2.1   Milk  ",
          """
          Added 2.1.1 "Milk"
          1 Work
            1.1 Call Bob
            1.2 Write report
          2 Home
            2.1 Groceries
              2.1.1 Milk
          observed: inserted "Milk"; updated "Groceries" (children)
          """),
        Step(
          "rename 1.1 Call Alice",
          """
          Renamed 1.1 "Call Bob" to "Call Alice"
          1 Work
            1.1 Call Alice
            1.2 Write report
          2 Home
            2.1 Groceries
              2.1.1 Milk
          observed: updated "Call Alice" (title)
          """),
        Step(
          "rename 1.1 Call Alice",
          """
          1.1 is already "Call Alice"
          1 Work
            1.1 Call Alice
            1.2 Write report
          2 Home
            2.1 Groceries
              2.1.1 Milk
          """),
        Step(
          "indent 1.2",
          """
          Indented 1.2: now 1.1.1, under "Call Alice"
          1 Work
            1.1 Call Alice
              1.1.1 Write report
          2 Home
            2.1 Groceries
              2.1.1 Milk
          observed: updated "Work" (children), "Call Alice" (children), "Write report" (parent)
          """),
        Step(
          "outdent 1.1.1",
          """
          Outdented 1.1.1: now 1.2
          1 Work
            1.1 Call Alice
            1.2 Write report
          2 Home
            2.1 Groceries
              2.1.1 Milk
          observed: updated "Work" (children), "Call Alice" (children), "Write report" (parent)
          """),
        Step(
          "down 1.1",
          """
          Moved 1.1 down: now 1.2
          1 Work
            1.1 Write report
            1.2 Call Alice
          2 Home
            2.1 Groceries
              2.1.1 Milk
          observed: updated "Work" (children)
          """),
        Step(
          "up 1.2",
          """
          Moved 1.2 up: now 1.1
          1 Work
            1.1 Call Alice
            1.2 Write report
          2 Home
            2.1 Groceries
              2.1.1 Milk
          observed: updated "Work" (children)
          """),
        Step(
          "move 2.1 to 1 1",
          """
          Moved 2.1: now 1.1
          1 Work
            1.1 Groceries
              1.1.1 Milk
            1.2 Call Alice
            1.3 Write report
          2 Home
          observed: updated "Work" (children), "Groceries" (parent), "Home" (children)
          """),
        Step(
          "move 1.1 to 1 3",
          """
          Moved 1.1: now 1.3
          1 Work
            1.1 Call Alice
            1.2 Write report
            1.3 Groceries
              1.3.1 Milk
          2 Home
          observed: updated "Work" (children)
          """),
        Step(
          "move 1.3 to 1 3",
          """
          1.3 is there already
          1 Work
            1.1 Call Alice
            1.2 Write report
            1.3 Groceries
              1.3.1 Milk
          2 Home
          """),
        Step(
          "move 1.3 to top",
          """
          Moved 1.3: now 3
          1 Work
            1.1 Call Alice
            1.2 Write report
          2 Home
          3 Groceries
            3.1 Milk
          observed: updated top (children), "Work" (children), "Groceries" (parent)
          """),
        Step(
          "indent 2",
          """
          Indented 2: now 1.3, under "Work"
          1 Work
            1.1 Call Alice
            1.2 Write report
            1.3 Home
          2 Groceries
            2.1 Milk
          observed: updated top (children), "Work" (children), "Home" (parent)
          """),
        Step(
          "delete 1",
          """
          Deleted 1 "Work" and the 3 notes under it
          1 Groceries
            1.1 Milk
          observed: updated top (children); deleted "Work", "Call Alice", "Write report", "Home"
          """),
        Step(
          "delete 1.1",
          """
          Deleted 1.1 "Milk"
          1 Groceries
          observed: updated "Groceries" (children); deleted "Milk"
          """),
        Step(
          "show",
          """
          Outline
          1 Groceries
          """),
      ], ending: Self.dropped)
  }

  @Test func undoAndRedo() throws {
    let folder = try TemporaryFolder()
    try Self.expectSession(
      on: folder.file("notes.sqlite"), opening: "New outline notes.sqlite\n(no notes)",
      [
        Step("undo"),
        Step(
          "add Work",
          """
          Added 1 "Work"
          1 Work
          observed: inserted "Work"; updated top (children)
          """),
        Step(
          "add Home",
          """
          Added 2 "Home"
          1 Work
          2 Home
          observed: inserted "Home"; updated top (children)
          """),
        Step(
          "add under 2 Groceries",
          """
          Added 2.1 "Groceries"
          1 Work
          2 Home
            2.1 Groceries
          observed: inserted "Groceries"; updated "Home" (children)
          """),
        Step(
          "rename 1 Office",
          """
          Renamed 1 "Work" to "Office"
          1 Office
          2 Home
            2.1 Groceries
          observed: updated "Office" (title)
          """),
        Step(
          "indent 2",
          """
          Indented 2: now 1.1, under "Office"
          1 Office
            1.1 Home
              1.1.1 Groceries
          observed: updated top (children), "Office" (children), "Home" (parent)
          """),
        Step(
          "undo",
          """
          Undo Indent
          1 Office
          2 Home
            2.1 Groceries
          observed: updated top (children), "Office" (children), "Home" (parent)
          """),
        Step(
          "undo",
          """
          Undo Rename
          1 Work
          2 Home
            2.1 Groceries
          observed: updated "Work" (title)
          """),
        Step(
          "redo",
          """
          Redo Rename
          1 Office
          2 Home
            2.1 Groceries
          observed: updated "Office" (title)
          """),
        Step(
          "redo",
          """
          Redo Indent
          1 Office
            1.1 Home
              1.1.1 Groceries
          observed: updated top (children), "Office" (children), "Home" (parent)
          """),
        Step("redo"),
        Step(
          "delete 1",
          """
          Deleted 1 "Office" and the 2 notes under it
          (no notes)
          observed: updated top (children); deleted "Office", "Home", "Groceries"
          """),
        Step(
          "undo",
          """
          Undo Delete
          1 Office
            1.1 Home
              1.1.1 Groceries
          observed: inserted "Office", "Home", "Groceries"; updated top (children)
          """),
        Step(
          "add Shed",
          """
          Added 2 "Shed"
          1 Office
            1.1 Home
              1.1.1 Groceries
          2 Shed
          observed: inserted "Shed"; updated top (children)
          """),
        // A new command after an undo: the undone delete cannot be redone any more.
        Step("redo"),
        Step(
          "undo",
          """
          Undo Add
          1 Office
            1.1 Home
              1.1.1 Groceries
          observed: updated top (children); deleted "Shed"
          """),
        Step(
          "undo",
          """
          Undo Indent
          1 Office
          2 Home
            2.1 Groceries
          observed: updated top (children), "Office" (children), "Home" (parent)
          """),
      ], ending: Self.dropped,
      errors: ["there is nothing to undo", "there is nothing to redo", "there is nothing to redo"],
      status: 1)
  }
}
