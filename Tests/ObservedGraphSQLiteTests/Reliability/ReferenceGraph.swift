import Foundation
import ObservedGraph

/// A plain model of what the random-operation graph must look like, and of what undo and redo
/// must do to it: every property of every object as a cell of a dictionary.
///
/// Undo is modelled the way value steps behave. A group remembers, for each cell it changed, the
/// value the cell had before the group; undoing the group swaps those values with the current
/// ones (which the group then keeps for redo). A change the undo history does not record (a
/// primitive set outside brackets) therefore stays where undo does not reach it.
struct ReferenceGraph {
  /// One property of one object; `@live` for whether the object is in the graph.
  struct Slot: Hashable {
    let id: ObjectID
    let key: String
  }

  enum Cell: Hashable {
    /// Not there: the object was never inserted, or its insert was undone.
    case absent
    case live(Bool)
    case value(AnyHashable?)
    /// A relationship's members; in identifier order for an unordered one.
    case members([ObjectID])
  }

  struct Group {
    let serial: Int
    var cells: [Slot: Cell]
  }

  typealias Link = RandomModel.Link

  private(set) var cells: [Slot: Cell] = [:]
  /// The entity of every object ever inserted.
  private(set) var entity: [ObjectID: String] = [:]
  /// The objects whose `@live` cell is true.
  private var liveSet: Set<ObjectID> = []
  /// The cells the open group changed, with their values before it.
  private var journal: [Slot: Cell] = [:]
  /// Whether changes are recorded for undo now (off for primitive sets outside brackets).
  var recording = true
  private(set) var undoStack: [Group] = []
  private(set) var redoStack: [Group] = []
  private var nextSerial = 1
  /// How many times an object was taken from its previous owner.
  var steals = 0

  // MARK: Reading

  func live(_ id: ObjectID) -> Bool { liveSet.contains(id) }

  var liveObjects: [ObjectID] {
    liveSet.sorted { $0.key < $1.key }
  }

  func liveObjects(_ name: String) -> [ObjectID] {
    liveObjects.filter { entity[$0] == name }
  }

  func value(_ id: ObjectID, _ key: String) -> AnyHashable? {
    guard case .value(let value) = cells[Slot(id: id, key: key)] else { return nil }
    return value
  }

  func members(_ id: ObjectID, _ key: String) -> [ObjectID] {
    guard case .members(let members) = cells[Slot(id: id, key: key)] else { return [] }
    return members
  }

  func link(_ id: ObjectID, _ key: String) -> Link { RandomModel.links[entity[id]!]![key]! }

  /// Whether anything the undo history records changed since the last ``closeGroup()``.
  var groupChanged: Bool { !journal.isEmpty }

  // MARK: Writing

  private mutating func write(_ slot: Slot, _ cell: Cell) {
    let old = cells[slot] ?? .absent
    guard old != cell else { return }
    if recording, journal[slot] == nil {
      journal[slot] = old
      // As in the log: registering a change empties the redo stack at once.
      redoStack.removeAll()
    }
    put(slot, cell)
  }

  /// Stores a cell, keeping the set of live objects.
  private mutating func put(_ slot: Slot, _ cell: Cell) {
    if cell == .absent { cells[slot] = nil } else { cells[slot] = cell }
    if slot.key == "@live" {
      if cell == .live(true) { liveSet.insert(slot.id) } else { liveSet.remove(slot.id) }
    }
  }

  mutating func setValue(_ id: ObjectID, _ key: String, _ value: AnyHashable?) {
    write(Slot(id: id, key: key), .value(value))
  }

  private mutating func setMembers(_ id: ObjectID, _ key: String, _ members: [ObjectID]) {
    let list = link(id, key).ordered ? members : members.sorted { $0.key < $1.key }
    write(Slot(id: id, key: key), .members(list))
  }

  mutating func insert(_ id: ObjectID, entity name: String) {
    entity[id] = name
    write(Slot(id: id, key: "@live"), .live(true))
    for key in RandomModel.attributes(name) {
      setValue(id, key, RandomModel.values[name]![key]![0])
    }
    for key in RandomModel.relationships(name) { setMembers(id, key, []) }
  }

  // MARK: Relationships, with inverse upkeep

  private mutating func unlinkBack(_ target: ObjectID, _ inverse: String, from owner: ObjectID) {
    guard live(target) else { return }
    setMembers(target, inverse, members(target, inverse).filter { $0 != owner })
  }

  /// Makes `target`'s inverse hold `owner`, taking `target` from its previous owner.
  private mutating func linkBack(
    _ target: ObjectID, _ inverse: String, to owner: ObjectID, via key: String
  ) {
    guard live(target) else { return }
    let current = members(target, inverse)
    if link(target, inverse).toMany {
      if !current.contains(owner) { setMembers(target, inverse, current + [owner]) }
      return
    }
    let previous = current.first
    guard previous != owner else { return }
    if let previous, live(previous) {
      setMembers(previous, key, members(previous, key).filter { $0 != target })
      steals += 1
    }
    setMembers(target, inverse, [owner])
  }

  mutating func setToOne(_ owner: ObjectID, _ key: String, _ new: ObjectID?) {
    let old = members(owner, key).first
    guard old != new else { return }
    let inverse = link(owner, key).inverse
    if let old { unlinkBack(old, inverse, from: owner) }
    if let new { linkBack(new, inverse, to: owner, via: key) }
    setMembers(owner, key, new.map { [$0] } ?? [])
  }

  private func uniqued(_ objects: [ObjectID]) -> [ObjectID] {
    var seen = Set<ObjectID>()
    return objects.filter { seen.insert($0).inserted }
  }

  /// Inserts members into a to-many relationship (at `index` in an ordered one; members already
  /// there move to it).
  mutating func insert(
    _ objects: [ObjectID], into owner: ObjectID, _ key: String, at index: Int?
  ) {
    let current = members(owner, key)
    let link = link(owner, key)
    if link.ordered, let index, objects.contains(where: current.contains) {
      var list = current.filter { !objects.contains($0) }
      list.insert(contentsOf: uniqued(objects), at: min(index, list.count))
      replace(owner, key, with: list)
      return
    }
    let added = uniqued(objects).filter { !current.contains($0) }
    guard !added.isEmpty else { return }
    var list = current
    list.insert(
      contentsOf: added, at: link.ordered ? min(index ?? current.count, current.count) : 0)
    setMembers(owner, key, list)
    for member in added { linkBack(member, link.inverse, to: owner, via: key) }
  }

  mutating func remove(_ objects: [ObjectID], from owner: ObjectID, _ key: String) {
    let current = members(owner, key)
    let removed = uniqued(objects).filter { current.contains($0) }
    guard !removed.isEmpty else { return }
    setMembers(owner, key, current.filter { !removed.contains($0) })
    for member in removed { unlinkBack(member, link(owner, key).inverse, from: owner) }
  }

  mutating func replace(_ owner: ObjectID, _ key: String, with objects: [ObjectID]) {
    let old = members(owner, key)
    let new = uniqued(objects)
    setMembers(owner, key, new)
    let inverse = link(owner, key).inverse
    for member in old where !new.contains(member) { unlinkBack(member, inverse, from: owner) }
    for member in new where !old.contains(member) {
      linkBack(member, inverse, to: owner, via: key)
    }
  }

  /// The objects a delete of `root` takes with it (cascades), or nil when a deny rule refuses.
  func doomed(by root: ObjectID) -> [ObjectID]? {
    var doomed: [ObjectID] = []
    var seen = Set<ObjectID>()
    var stack = [root]
    while let next = stack.popLast() {
      guard live(next), seen.insert(next).inserted else { continue }
      doomed.append(next)
      for (key, link) in RandomModel.links[entity[next]!]! where link.rule == .cascade {
        stack += members(next, key)
      }
    }
    for victim in doomed {
      for (key, link) in RandomModel.links[entity[victim]!]! where link.rule == .deny {
        if members(victim, key).contains(where: { live($0) && !seen.contains($0) }) {
          return nil
        }
      }
    }
    return doomed
  }

  /// Applies a delete with its rules; returns the objects deleted, or nil when a deny rule
  /// refuses (and nothing changes).
  mutating func delete(_ root: ObjectID) -> [ObjectID]? {
    guard let doomed = doomed(by: root) else { return nil }
    for victim in doomed where live(victim) {
      for key in RandomModel.relationships(entity[victim]!) {
        let link = link(victim, key)
        if link.rule != .noAction {
          for member in members(victim, key) where live(member) && member != victim {
            setMembers(member, link.inverse, members(member, link.inverse).filter { $0 != victim })
          }
        }
        setMembers(victim, key, [])
      }
      write(Slot(id: victim, key: "@live"), .live(false))
    }
    return doomed
  }

  /// The cells where `actual` and `expected` differ, for failure messages.
  static func difference(_ actual: [Slot: Cell], _ expected: [Slot: Cell]) -> String {
    let slots = Set(actual.keys).union(expected.keys).filter { actual[$0] != expected[$0] }
      .sorted { ($0.id.key, $0.key) < ($1.id.key, $1.key) }
    return slots.prefix(6).map {
      "\($0.id).\($0.key): \(actual[$0] ?? .absent) vs \(expected[$0] ?? .absent)"
    }.joined(separator: "; ")
  }

  // MARK: Undo

  /// Ends the open group: returns whether it recorded anything (and so joined the undo stack,
  /// emptying the redo stack).
  @discardableResult
  mutating func closeGroup() -> Bool {
    defer { journal = [:] }
    guard !journal.isEmpty else { return false }
    undoStack.append(Group(serial: nextSerial, cells: journal))
    nextSerial += 1
    redoStack.removeAll()
    return true
  }

  /// Applies a group's cells, returning the group that takes them back: only the cells that
  /// change, as a replayed step records nothing for a value already in place (a primitive set
  /// outside brackets may have put it there), and a group with nothing in it is dropped.
  private mutating func swap(_ group: Group) -> Group? {
    var inverse = Group(serial: group.serial, cells: [:])
    for (slot, cell) in group.cells {
      let current = cells[slot] ?? .absent
      guard current != cell else { continue }
      inverse.cells[slot] = current
      put(slot, cell)
    }
    return inverse.cells.isEmpty ? nil : inverse
  }

  mutating func undo() {
    precondition(journal.isEmpty, "undo with an open group")
    guard let group = undoStack.popLast() else { return }
    if let inverse = swap(group) { redoStack.append(inverse) }
  }

  mutating func redo() {
    precondition(journal.isEmpty, "redo with an open group")
    guard let group = redoStack.popLast() else { return }
    if let inverse = swap(group) { undoStack.append(inverse) }
  }

  /// Adds a group that changes nothing to the redo stack (or the undo stack): an undo that found
  /// every value in place left one there. (Whether such a group stays is not checked: the log
  /// keeps it when its steps were replayed through the path, which the reference does not model.)
  mutating func keepEmptyGroup(onRedoStack: Bool, serial: Int) {
    if onRedoStack {
      redoStack.append(Group(serial: serial, cells: [:]))
    } else {
      undoStack.append(Group(serial: serial, cells: [:]))
    }
  }

  /// Whether no group of the undo history (nor the open one) changed this property of the object.
  func isOutsideHistory(_ id: ObjectID, _ key: String) -> Bool {
    let slot = Slot(id: id, key: key)
    return journal[slot] == nil && !undoStack.contains { $0.cells[slot] != nil }
      && !redoStack.contains { $0.cells[slot] != nil }
  }

  /// The serial of the newest undo group (0 at the base): what a checkpoint names.
  var checkpointSerial: Int { undoStack.last?.serial ?? 0 }

  /// Forgets the undo history, as a rollback, a reset or a new log does.
  mutating func clearHistory() {
    journal = [:]
    undoStack.removeAll()
    redoStack.removeAll()
  }

  /// Puts every cell back to `saved` (a rollback, a reset, a reopened file) and forgets the undo
  /// history. With no history left, the cells of objects not in the graph are of no more use
  /// (a reference to one needs only its identifier and entity): they go, so that a long run
  /// keeps only what it uses.
  mutating func restore(_ saved: [Slot: Cell]) {
    liveSet = []
    for (slot, cell) in saved where slot.key == "@live" && cell == .live(true) {
      liveSet.insert(slot.id)
    }
    cells = saved.filter { liveSet.contains($0.key.id) }
    clearHistory()
  }
}
