import Foundation
import ObservedGraph
import ObservedGraphSQLite
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
        Step("quit!", "Unsaved changes dropped"),
      ])

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

/// The outliner's model as another program declares it, to write files the outliner then opens.
final class Note: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "parent", deleteRule: .cascade, ordered: true) var children: [Note]
  @Relationship(inverse: "children") var parent: Note?
}

/// A model that is not the outliner's.
final class Chore: ManagedObject {
  @Attribute var title: String = ""
}

extension OutlinerFileTests {
  /// Makes a store at `url` with the classes' model, lets `fill` insert objects, and saves.
  static func write(
    _ url: URL, types: [ManagedObject.Type], _ fill: (ObjectContext) -> Void
  ) throws {
    let store = try SQLiteStore(url: url, model: try ObjectModel(types: types))
    let container = PersistentContainer(store: store)
    fill(container.viewContext)
    try container.viewContext.save()
    try store.close()
  }

  /// Notes another program saved without the outliner's root: every parentless note is shown at
  /// the top level, in the order they were inserted, and the root the outliner adds is saved.
  @Test func notesWithoutRoot() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("notes.sqlite")
    try Self.write(file, types: [Note.self]) { context in
      let work = context.insert(Note.self)
      work.title = "Work"
      let call = context.insert(Note.self)
      call.title = "Call Bob"
      call.parent = work
      let home = context.insert(Note.self)
      home.title = "Home"
    }
    let opened = "Opened notes.sqlite\n1 Work\n  1.1 Call Bob\n2 Home"
    try OutlinerTests.expectSession(
      on: file, opening: opened,
      [
        Step(
          "show",
          """
          Outline
          1 Work
            1.1 Call Bob
          2 Home
          """)
      ])
    try OutlinerTests.expectSession(
      on: file, opening: opened,
      [
        Step(
          "up 2",
          """
          Moved 2 up: now 1
          1 Home
          2 Work
            2.1 Call Bob
          observed: updated top (children)
          """),
        Step(
          "save",
          """
          Saved
          1 Home
          2 Work
            2.1 Call Bob
          """),
      ])
    try OutlinerTests.expectSession(
      on: file, opening: "Opened notes.sqlite\n1 Home\n2 Work\n  2.1 Call Bob", [])
  }

  /// A store of another model is refused, naming the difference, and left as it was.
  @Test func anotherModel() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("chores.sqlite")
    try Self.write(file, types: [Chore.self]) { context in
      context.insert(Chore.self).title = "Sweep"
    }
    let before = try Data(contentsOf: file)
    let output = try OutlinerProcess.run("add Work\nsave\n", file: file)
    #expect(output.standardOutput == "")
    #expect(output.standardError.hasPrefix("outliner: cannot open \(file.path): "))
    #expect(output.standardError.contains("Note"))
    #expect(output.status == 1)
    #expect(try Data(contentsOf: file) == before)
  }
}
