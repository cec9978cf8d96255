import ObservedGraph
import UndoLog

// Each command checks everything it needs before it changes anything, so a command the outliner
// refuses leaves the outline and the undo log as they were. One that changes the graph names its
// undo group ("Undo Indent"); `run(_:)` then ends the user event.

extension Outliner {
  /// Carries out one command and ends its user event.
  ///
  /// - Returns: A line saying what was done.
  /// - Throws: `OutlinerError` when the command cannot be carried out; nothing was changed.
  func run(_ command: Command) throws -> String {
    defer { context.processPendingChanges() }  // one command, one undo group, one event
    switch command {
    case .add(let title, let parent): return try add(title, under: parent)
    case .rename(let path, let title): return try rename(path, to: title)
    case .indent(let path): return try indent(path)
    case .outdent(let path): return try outdent(path)
    case .up(let path): return try step(path, by: -1)
    case .down(let path): return try step(path, by: 1)
    case .move(let path, let parent, let position):
      return try move(path, under: parent, to: position)
    case .delete(let path): return try delete(path)
    case .undo:
      guard log.canUndo else { throw OutlinerError("there is nothing to undo") }
      let name = log.undoActionName
      try log.undo()
      return "Undo \(name)"
    case .redo:
      guard log.canRedo else { throw OutlinerError("there is nothing to redo") }
      let name = log.redoActionName
      try log.redo()
      return "Redo \(name)"
    case .save:
      guard context.hasChanges else { return "Nothing to save" }
      try context.save()
      return "Saved"
    case .show: return "Outline"
    case .help, .quit, .quitDiscarding: return ""
    }
  }

  private func add(_ title: String, under parentPath: NotePath?) throws -> String {
    let parent = try parentPath.map(note(at:)) ?? root
    let note = context.insert(Note.self)
    note.title = title
    parent.children.append(note)
    log.setActionName("Add")
    return "Added \(path(of: note)) \(quoted(title))"
  }

  private func rename(_ path: NotePath, to title: String) throws -> String {
    let note = try note(at: path)
    guard note.title != title else { return "\(path) is already \(quoted(title))" }
    let old = note.title
    note.title = title
    log.setActionName("Rename")
    return "Renamed \(path) \(quoted(old)) to \(quoted(title))"
  }

  private func indent(_ path: NotePath) throws -> String {
    let (note, parent, index) = try located(path)
    guard index > 0 else {
      throw OutlinerError("cannot indent \(path): there is no note above it to go under")
    }
    let above = parent.children[index - 1]
    above.children.append(note)  // inverse upkeep takes it out of `parent`
    log.setActionName("Indent")
    return "Indented \(path): now \(self.path(of: note)), under \(quoted(above.title))"
  }

  private func outdent(_ path: NotePath) throws -> String {
    let (note, parent, _) = try located(path)
    guard let grandparent = parent.parent else {
      throw OutlinerError("cannot outdent \(path): it is at the top level")
    }
    let index = grandparent.children.firstIndex { $0 === parent }! + 1
    try grandparent.mutableOrderedSet(forKey: "children").insert(note, at: index)
    log.setActionName("Outdent")
    return "Outdented \(path): now \(self.path(of: note))"
  }

  private func step(_ path: NotePath, by offset: Int) throws -> String {
    let (note, parent, index) = try located(path)
    let children = try parent.mutableOrderedSet(forKey: "children")
    guard children.indices.contains(index + offset) else {
      let edge = offset < 0 ? "first" : "last"
      throw OutlinerError("cannot move \(path) \(offset < 0 ? "up" : "down"): it is the \(edge)")
    }
    try children.move(from: index, to: index + offset)
    log.setActionName(offset < 0 ? "Move Up" : "Move Down")
    return "Moved \(path) \(offset < 0 ? "up" : "down"): now \(self.path(of: note))"
  }

  private func move(_ path: NotePath, under parentPath: NotePath?, to position: Int?) throws
    -> String
  {
    let (note, oldParent, index) = try located(path)
    let parent = try parentPath.map(note(at:)) ?? root
    var ancestor: Note? = parent
    while let current = ancestor {
      guard current !== note else {
        throw OutlinerError("cannot move \(path) under \(parentPath!): it would be inside itself")
      }
      ancestor = current.parent
    }
    let children = try parent.mutableOrderedSet(forKey: "children")
    let last = parent === oldParent ? children.count : children.count + 1
    let destination = (position ?? last) - 1
    guard destination < last else {
      let place = parentPath.map { "under \($0)" } ?? "at the top level"
      throw OutlinerError(
        "cannot move \(path) to position \(destination + 1) \(place): positions go from 1 to \(last)"
      )
    }
    if parent === oldParent {
      guard destination != index else { return "\(path) is there already" }
      try children.move(from: index, to: destination)
    } else {
      try children.insert(note, at: destination)
    }
    log.setActionName("Move")
    return "Moved \(path): now \(self.path(of: note))"
  }

  private func delete(_ path: NotePath) throws -> String {
    let note = try note(at: path)
    var descendants = 0
    func count(_ note: Note) {
      for child in note.children {
        descendants += 1
        count(child)
      }
    }
    count(note)
    let title = note.title
    try context.delete(note)  // the children cascade
    log.setActionName("Delete")
    let under =
      descendants == 0 ? "" : " and the \(Self.count(descendants, "note", "notes")) under it"
    return "Deleted \(path) \(quoted(title))\(under)"
  }

  /// The note at `path` with its parent and its index among the parent's children.
  private func located(_ path: NotePath) throws -> (note: Note, parent: Note, index: Int) {
    let note = try note(at: path)
    return (note, try self.note(at: path.parent), path.positions.last! - 1)
  }
}

/// A title in double quotes, as the outliner prints it in messages.
func quoted(_ title: String) -> String { "\"\(title)\"" }
