import Foundation
import Testing

@testable import outliner

/// What the user types wrong: each bad line prints one error, changes nothing and records no undo
/// group, and the session goes on.
@Suite struct OutlinerInputTests {
  static let setup = ["add Work", "add under 1 Call Bob", "add Home"]

  /// What the three setup commands print.
  static let setupPrinted = """
    New outline notes.sqlite
    (no notes)
    Added 1 "Work"
    1 Work
    observed: inserted "Work"; updated top (children)
    Added 1.1 "Call Bob"
    1 Work
      1.1 Call Bob
    observed: inserted "Call Bob"; updated "Work" (children)
    Added 2 "Home"
    1 Work
      1.1 Call Bob
    2 Home
    observed: inserted "Home"; updated top (children)

    """

  /// After the bad line, `undo` takes back the last setup command: the bad line left no group.
  static let undonePrinted = """
    Undo Add
    1 Work
      1.1 Call Bob
    observed: updated top (children); deleted "Home"
    Warning: the input ended with unsaved changes; they are dropped (save keeps them)

    """

  @Test(arguments: [
    ("bogus", "unknown command 'bogus' (type help for the list)"),
    ("rename 3 X", "there is no note 3: the top level has 2 notes"),
    ("rename 1.2 X", "there is no note 1.2: note 1 has 1 note"),
    ("rename 1.1.1 X", "there is no note 1.1.1: note 1.1 has 0 notes"),
    ("rename 2.1.1 X", "there is no note 2.1.1: note 2 has 0 notes"),
    ("delete 0", "'0' is not a note's number (write it like 2 or 1.3)"),
    ("delete 1..2", "'1..2' is not a note's number (write it like 2 or 1.3)"),
    ("delete -1", "'-1' is not a note's number (write it like 2 or 1.3)"),
    ("delete +1", "'+1' is not a note's number (write it like 2 or 1.3)"),
    ("delete 1.", "'1.' is not a note's number (write it like 2 or 1.3)"),
    (
      "delete 99999999999999999999",
      "'99999999999999999999' is not a note's number (write it like 2 or 1.3)"
    ),
    ("delete \u{661}", "'\u{661}' is not a note's number (write it like 2 or 1.3)"),
    ("delete 1 2", "usage: delete PATH"),
    ("delete", "usage: delete PATH"),
    ("rename 1", "usage: rename PATH TITLE (a note needs a title)"),
    ("rename 1   ", "usage: rename PATH TITLE (a note needs a title)"),
    ("add", "usage: add TITLE (a note needs a title)"),
    ("add under 1", "usage: add under PATH TITLE (a note needs a title)"),
    ("add under x Title", "'x' is not a note's number (write it like 2 or 1.3)"),
    ("add under 5 Title", "there is no note 5: the top level has 2 notes"),
    ("indent 1", "cannot indent 1: there is no note above it to go under"),
    ("indent 1.1", "cannot indent 1.1: there is no note above it to go under"),
    ("outdent 2", "cannot outdent 2: it is at the top level"),
    ("up 1", "cannot move 1 up: it is the first"),
    ("down 2", "cannot move 2 down: it is the last"),
    ("down 1.1", "cannot move 1.1 down: it is the last"),
    ("move 1 to 1", "cannot move 1 under 1: it would be inside itself"),
    ("move 1 to 1.1", "cannot move 1 under 1.1: it would be inside itself"),
    ("move 1 to top 3", "cannot move 1 to position 3 at the top level: positions go from 1 to 2"),
    ("move 2 to 1 3", "cannot move 2 to position 3 under 1: positions go from 1 to 2"),
    ("move 1 to 2 0", "'0' is not a position (1 is the first)"),
    ("move 1 to 2 first", "'first' is not a position (1 is the first)"),
    ("move 1 to 2 1 1", "usage: move PATH to PARENT [N]"),
    ("move 1 2", "usage: move PATH to PARENT [N]"),
    ("move 1 to", "usage: move PATH to PARENT [N]"),
    ("move 1 to nowhere", "'nowhere' is not a note's number (write it like 2 or 1.3)"),
    ("move 1 to 3", "there is no note 3: the top level has 2 notes"),
    ("show all", "usage: show"),
    ("undo 2", "usage: undo"),
  ])
  func badLine(line: String, error: String) throws {
    let folder = try TemporaryFolder()
    let script = (Self.setup + [line, "undo"]).map { $0 + "\n" }.joined()
    let output = try OutlinerProcess.run(script, file: folder.file("notes.sqlite"))
    #expect(output.standardError == "error: \(error)\n")
    #expect(output.standardOutput == Self.setupPrinted + Self.undonePrinted)
    #expect(output.status == 1)  // piped: a failed command makes the run fail at its end
  }

  /// Blank lines and `#` comments are skipped; `quit!` ends the session before later lines,
  /// dropping the unsaved changes.
  @Test func commentsAndQuit() throws {
    let folder = try TemporaryFolder()
    let script = "\n   \n# a comment\nadd Work\n  # indented comment\nquit!\nadd Home\n"
    let output = try OutlinerProcess.run(script, file: folder.file("notes.sqlite"))
    #expect(
      output.standardOutput == """
        New outline notes.sqlite
        (no notes)
        Added 1 "Work"
        1 Work
        observed: inserted "Work"; updated top (children)
        Unsaved changes dropped

        """)
    #expect(output.standardError == "")
    #expect(output.status == 0)
  }

  /// Piped, `quit` with unsaved changes is refused with an error and the session goes on; after
  /// `save` it leaves, and the lines after it are not read. The run fails for the refused `quit`.
  @Test func quitWithUnsavedChangesIsRefused() throws {
    let folder = try TemporaryFolder()
    let script = "add Work\nquit\nsave\nquit\nadd Home\n"
    let output = try OutlinerProcess.run(script, file: folder.file("notes.sqlite"))
    #expect(
      output.standardOutput == """
        New outline notes.sqlite
        (no notes)
        Added 1 "Work"
        1 Work
        observed: inserted "Work"; updated top (children)
        Saved
        1 Work

        """)
    #expect(
      output.standardError
        == "error: there are unsaved changes: 'save' keeps them, 'quit!' leaves without them\n")
    #expect(output.status == 1)
    // What was saved is in the file; the line after the second quit was not run.
    let reopened = try OutlinerProcess.run("quit\n", file: folder.file("notes.sqlite"))
    #expect(reopened.standardOutput == "Opened notes.sqlite\n1 Work\n")
    #expect(reopened.standardError == "")
    #expect(reopened.status == 0)
  }

  /// `quit!` (and `exit!`) with nothing unsaved leaves without a word; the end of input with
  /// nothing unsaved prints no warning.
  @Test func quitDiscardingWithNothingUnsaved() throws {
    let folder = try TemporaryFolder()
    for (number, ending) in ["quit!\nadd Home\n", "exit!\nadd Home\n", ""].enumerated() {
      let output = try OutlinerProcess.run(
        "add Work\nsave\n" + ending, file: folder.file("notes-\(number).sqlite"))
      #expect(
        output.standardOutput == """
          New outline notes-\(number).sqlite
          (no notes)
          Added 1 "Work"
          1 Work
          observed: inserted "Work"; updated top (children)
          Saved
          1 Work

          """)
      #expect(output.standardError == "")
      #expect(output.status == 0)
    }
  }

  /// On a terminal, `quit` with unsaved changes asks: `c` goes back to the prompt, an answer
  /// that is none of the three asks again, `s` saves and leaves; then `quit` leaves at once, `d`
  /// drops the changes, and ^D with unsaved changes warns.
  @Test func quitOnATerminalAsks() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("notes.sqlite")
    let question = "Save the changes to notes.sqlite before quitting? (s)ave, (d)iscard, (c)ancel: "
    let saved = try OutlinerProcess.runOnTerminal("add Work\nquit\nc\nquit\nx\ns\n", file: file)
    #expect(
      saved.standardOutput == """
        New outline notes.sqlite
        (no notes)
        Type help for the commands.
        > Added 1 "Work"
        1 Work
        observed: inserted "Work"; updated top (children)
        > \(question)> \(question)\(question)Saved

        """)
    #expect(saved.standardError == "")
    #expect(saved.status == 0)

    let dropped = try OutlinerProcess.runOnTerminal("add Home\nquit\nd\n", file: file)
    #expect(
      dropped.standardOutput == """
        Opened notes.sqlite
        1 Work
        Type help for the commands.
        > Added 2 "Home"
        1 Work
        2 Home
        observed: inserted "Home"; updated top (children)
        > \(question)Unsaved changes dropped

        """)
    #expect(dropped.status == 0)

    let ended = try OutlinerProcess.runOnTerminal("add Home\n\u{4}", file: file)
    #expect(
      ended.standardOutput == """
        Opened notes.sqlite
        1 Work
        Type help for the commands.
        > Added 2 "Home"
        1 Work
        2 Home
        observed: inserted "Home"; updated top (children)
        >\u{20}
        Warning: the input ended with unsaved changes; they are dropped (save keeps them)

        """)
    #expect(ended.status == 0)
  }

  /// The answers to the question a terminal asks before `quit` drops unsaved changes.
  @Test func quitAnswers() {
    #expect(QuitAnswer("s") == .save)
    #expect(QuitAnswer(" Save ") == .save)
    #expect(QuitAnswer("d") == .discard)
    #expect(QuitAnswer("DISCARD") == .discard)
    #expect(QuitAnswer("c") == .cancel)
    #expect(QuitAnswer("cancel") == .cancel)
    #expect(QuitAnswer("") == .cancel)
    #expect(QuitAnswer("yes") == nil)
    #expect(QuitAnswer("sd") == nil)
  }

  /// `help` lists every command and prints no tree.
  @Test func help() throws {
    let folder = try TemporaryFolder()
    let output = try OutlinerProcess.run("help\n", file: folder.file("notes.sqlite"))
    let lines = output.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.first == "New outline notes.sqlite")
    #expect(lines.dropFirst().first == "(no notes)")
    #expect(lines.dropFirst(2).first?.hasPrefix("Commands") == true)
    for usage in [
      "add TITLE", "add under PATH TITLE", "rename PATH TITLE", "indent PATH", "outdent PATH",
      "up PATH, down PATH", "move PATH to PARENT [N]", "delete PATH", "undo, redo", "save", "show",
      "help", "quit", "quit!",
    ] {
      #expect(lines.contains { $0.hasPrefix("  \(usage) ") }, "help lacks \(usage)")
    }
    #expect(!lines.contains { $0.hasPrefix("1 ") || $0 == "Outline" })
    #expect(output.status == 0)
  }

  /// Without a file the outliner prints its usage and fails, reading none of its input (more
  /// than a pipe holds, here); `--help` prints the usage with the commands.
  @Test func usage() throws {
    let unread = String(repeating: "add Work\n", count: 20_000)
    let bare = try OutlinerProcess.run(unread, arguments: [])
    #expect(bare.standardOutput == "")
    #expect(
      bare.standardError
        == "usage: outliner FILE.sqlite  (opens the outline in FILE, making it when new)\n")
    #expect(bare.status == 2)
    let help = try OutlinerProcess.run("", arguments: ["--help"])
    #expect(help.standardOutput.hasPrefix("usage: outliner FILE.sqlite"))
    #expect(help.standardOutput.contains("  move PATH to PARENT [N] "))
    #expect(help.standardError == "")
    #expect(help.status == 0)
  }
}
