import Foundation
import ObservedGraph
import ObservedGraphSQLite
import UndoLog

/// The editor's state: the outline's file, the context every command changes, the undo log, and
/// what the context reported since the last command.
///
/// Every command is one user event: it changes the graph, names its undo group, and ends with
/// `processPendingChanges()`, which closes the group and posts one objects-did-change event.
final class Outliner {
  let container: PersistentContainer
  let context: ObjectContext
  let log = UndoLog()
  /// The hidden note whose children are the top level; it is never shown, moved or deleted.
  let root: Note
  /// The events the context posted since the last `takeObserved()`.
  private var heard: [ObjectsDidChange] = []
  private var subscription: ObservationToken?

  /// Opens the outline in the SQLite file at `url`, making the file when it is new, and saving a
  /// root note into it when it has none.
  ///
  /// - Throws: What `SQLiteStore` throws for a file that is not an outline: not a database, a
  ///   store of another model.
  init(url: URL) throws {
    let model = try ObjectModel(types: [Note.self])
    container = PersistentContainer(store: try SQLiteStore(url: url, model: model))
    context = container.viewContext
    // The root is the parentless note without a title (a command cannot make one); the fetch
    // gives the parentless notes in identifier order.
    let parentless = try context.fetch(
      FetchRequest<Note>(matching: try FetchPredicate(format: "parent == nil")))
    let found = parentless.first { $0.title.isEmpty }
    root = found ?? context.insert(Note.self)
    // A file written by another program may hold other parentless notes: they go at the top
    // level, after the notes already there.
    for note in parentless where note !== root { root.children.append(note) }
    if context.hasChanges { try context.save() }
    context.processPendingChanges()  // opening is not an edit: nothing to undo, nothing heard
    context.undoLog = log
    subscription = context.onObjectsDidChange { [unowned self] event in heard.append(event) }
  }

  /// Releases the file.
  func close() throws {
    subscription?.invalidate()
    try container.store.close()
  }

  /// The events heard since the last call, in the order they were posted.
  func takeObserved() -> [ObjectsDidChange] {
    defer { heard = [] }
    return heard
  }

  /// The notes the user sees, in the order they are printed, each with its path.
  func numberedNotes() -> [(path: NotePath, note: Note)] {
    var result: [(path: NotePath, note: Note)] = []
    func visit(_ note: Note, at path: NotePath) {
      for (index, child) in note.children.enumerated() {
        let childPath = path.appending(index + 1)
        result.append((childPath, child))
        visit(child, at: childPath)
      }
    }
    visit(root, at: NotePath(positions: []))
    return result
  }

  /// The note at `path`.
  ///
  /// - Throws: `OutlinerError` naming the first position that has no note.
  func note(at path: NotePath) throws -> Note {
    var note = root
    for (depth, position) in path.positions.enumerated() {
      let children = note.children
      guard position <= children.count else {
        let prefix = NotePath(positions: Array(path.positions[..<depth]))
        let owner = depth == 0 ? "the top level has" : "note \(prefix) has"
        throw OutlinerError(
          "there is no note \(path): \(owner) \(Self.count(children.count, "note", "notes"))")
      }
      note = children[position - 1]
    }
    return note
  }

  /// The path of a note that is in the outline.
  func path(of note: Note) -> NotePath {
    var positions: [Int] = []
    var current = note
    while let parent = current.parent {
      positions.append((parent.children.firstIndex { $0 === current } ?? 0) + 1)
      current = parent
    }
    return NotePath(positions: positions.reversed())
  }

  /// "1 note", "3 notes".
  static func count(_ count: Int, _ singular: String, _ plural: String) -> String {
    "\(count) \(count == 1 ? singular : plural)"
  }
}
