import ObservedGraph

// What the outliner prints after a command: the tree, numbered, and one line with what the
// context's objects-did-change events reported. Both depend only on the outline, never on
// identifiers or addresses, so a script's output is the same on every run.

extension Outliner {
  /// The notes' labels and their place in the printed order, to name the objects an event
  /// reports: taken before a command (for the notes it deletes) and after (for the others).
  typealias Labels = [ObjectID: (order: Int, label: String)]

  /// The tree, one note a line, indented two spaces a level: `1.2 Title`.
  func treeLines() -> [String] {
    let notes = numberedNotes()
    guard !notes.isEmpty else { return ["(no notes)"] }
    return notes.map { path, note in
      String(repeating: "  ", count: path.positions.count - 1) + "\(path) \(note.title)"
    }
  }

  /// Every note's label, the root's being `top`.
  func labels() -> Labels {
    var labels: Labels = [root.objectID: (0, "top")]
    for (order, entry) in numberedNotes().enumerated() {
      labels[entry.note.objectID] = (order + 1, quoted(entry.note.title))
    }
    return labels
  }

  /// One line for the events heard during a command, or nil when they report nothing:
  /// `observed: inserted "Milk"; updated top (children), "Home" (title); deleted "Old"`.
  ///
  /// - Parameters:
  ///   - events: What the context posted.
  ///   - before: The labels taken before the command.
  func observedLine(_ events: [ObjectsDidChange], before: Labels) -> String? {
    let after = labels()
    var inserted = Set<ObjectID>()
    var updated: [ObjectID: Set<String>] = [:]
    var deleted = Set<ObjectID>()
    var refreshed = Set<ObjectID>()
    for event in events {
      inserted.formUnion(event.inserted)
      updated.merge(event.updated) { $0.union($1) }
      deleted.formUnion(event.deleted)
      refreshed.formUnion(event.refreshed)
    }
    // In the printed order; an object neither list knows (none should be) last, by identifier.
    func names(_ ids: some Collection<ObjectID>, from labels: Labels) -> [(ObjectID, String)] {
      ids.map { id in (id, labels[id]?.label ?? id.description) }
        .sorted { left, right in
          let (a, b) = (labels[left.0]?.order ?? .max, labels[right.0]?.order ?? .max)
          return a != b ? a < b : left.1 < right.1
        }
    }
    var parts: [String] = []
    if !inserted.isEmpty {
      parts.append("inserted " + names(inserted, from: after).map(\.1).joined(separator: ", "))
    }
    if !updated.isEmpty {
      let entries = names(updated.keys, from: after).map { id, name in
        "\(name) (\(updated[id]!.sorted().joined(separator: ", ")))"
      }
      parts.append("updated " + entries.joined(separator: ", "))
    }
    if !deleted.isEmpty {
      parts.append("deleted " + names(deleted, from: before).map(\.1).joined(separator: ", "))
    }
    if !refreshed.isEmpty {
      parts.append("refreshed " + Self.count(refreshed.count, "note", "notes"))
    }
    return parts.isEmpty ? nil : "observed: " + parts.joined(separator: "; ")
  }
}
