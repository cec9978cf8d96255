import Foundation
import Testing

/// The outline in its SQLite file: what `save` wrote comes back when the file is opened again,
/// what was not saved does not, and a file that is no outline is refused without being changed.
@Suite struct OutlinerFileTests {
  typealias Step = OutlinerTests.Step

  @Test func saveAndReopen() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("notes.sqlite")
    try OutlinerTests.expectSession(
      on: file, opening: "New outline notes.sqlite\n(no notes)",
      [
        Step(
          "add Work",
          """
          Added 1 "Work"
          1 Work
          observed: inserted "Work"; updated top (children)
          """),
        Step(
          "add under 1 Call Bob",
          """
          Added 1.1 "Call Bob"
          1 Work
            1.1 Call Bob
          observed: inserted "Call Bob"; updated "Work" (children)
          """),
        Step(
          "add Home",
          """
          Added 2 "Home"
          1 Work
            1.1 Call Bob
          2 Home
          observed: inserted "Home"; updated top (children)
          """),
        Step(
          "save",
          """
          Saved
          1 Work
            1.1 Call Bob
          2 Home
          """),
        Step(
          "rename 1 Office",
          """
          Renamed 1 "Work" to "Office"
          1 Office
            1.1 Call Bob
          2 Home
          observed: updated "Office" (title)
          """),
        Step("quit"),
      ], ending: OutlinerTests.dropped)

    // The rename was not saved. The history is not kept in the file: nothing to undo at first.
    try OutlinerTests.expectSession(
      on: file, opening: "Opened notes.sqlite\n1 Work\n  1.1 Call Bob\n2 Home",
      [
        Step("undo"),
        Step(
          "indent 2",
          """
          Indented 2: now 1.2, under "Work"
          1 Work
            1.1 Call Bob
            1.2 Home
          observed: updated top (children), "Work" (children), "Home" (parent)
          """),
        Step(
          "add under 1.2 Garden",
          """
          Added 1.2.1 "Garden"
          1 Work
            1.1 Call Bob
            1.2 Home
              1.2.1 Garden
          observed: inserted "Garden"; updated "Home" (children)
          """),
        Step(
          "up 1.2",
          """
          Moved 1.2 up: now 1.1
          1 Work
            1.1 Home
              1.1.1 Garden
            1.2 Call Bob
          observed: updated "Work" (children)
          """),
        Step(
          "save",
          """
          Saved
          1 Work
            1.1 Home
              1.1.1 Garden
            1.2 Call Bob
          """),
        // Undo goes on after a save; the undone move is a change again, and it is not saved.
        Step(
          "undo",
          """
          Undo Move Up
          1 Work
            1.1 Call Bob
            1.2 Home
              1.2.1 Garden
          observed: updated "Work" (children)
          """),
      ], ending: OutlinerTests.dropped, errors: ["there is nothing to undo"], status: 1)

    try OutlinerTests.expectSession(
      on: file,
      opening: "Opened notes.sqlite\n1 Work\n  1.1 Home\n    1.1.1 Garden\n  1.2 Call Bob",
      [
        Step(
          "save",
          """
          Nothing to save
          1 Work
            1.1 Home
              1.1.1 Garden
            1.2 Call Bob
          """),
        Step(
          "delete 1.1",
          """
          Deleted 1.1 "Home" and the 1 note under it
          1 Work
            1.1 Call Bob
          observed: updated "Work" (children); deleted "Home", "Garden"
          """),
        Step(
          "save",
          """
          Saved
          1 Work
            1.1 Call Bob
          """),
      ])

    // The delete cascaded in the file too: its children are gone, not left at the top level.
    try OutlinerTests.expectSession(
      on: file, opening: "Opened notes.sqlite\n1 Work\n  1.1 Call Bob", [])
  }

  /// A file that is not an outline (here, text) is refused with a message and left as it was.
  @Test func notAnOutline() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("notes.txt")
    let text = Data("Buy milk\nCall Bob\n".utf8)
    try text.write(to: file)
    let output = try OutlinerProcess.run("add Work\nsave\n", file: file)
    #expect(output.standardOutput == "")
    #expect(output.standardError.hasPrefix("outliner: cannot open \(file.path): "))
    #expect(output.standardError.hasSuffix("\n"))
    #expect(output.standardError.split(separator: "\n").count == 1)
    #expect(output.status == 1)
    #expect(try Data(contentsOf: file) == text)
  }
}
