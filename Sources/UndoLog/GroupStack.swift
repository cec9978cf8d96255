/// A stack of closed undo groups, oldest first, that can also drop its oldest group in O(1).
///
/// Limits trim from the bottom while registration pushes on the top, so a plain array would move
/// every group on each trim. Dropped slots are left empty and compacted once they are half the
/// storage.
struct GroupStack {
  private var storage: [UndoGroup] = []
  private var head = 0
  private(set) var byteSize = 0

  var count: Int { storage.count - head }
  var isEmpty: Bool { storage.count == head }

  /// The groups, oldest first.
  var groups: ArraySlice<UndoGroup> { storage[head...] }

  /// The newest group.
  var last: UndoGroup? { isEmpty ? nil : storage[storage.count - 1] }

  mutating func push(_ group: UndoGroup) {
    byteSize += group.byteSize
    storage.append(group)
  }

  mutating func popLast() -> UndoGroup? {
    guard !isEmpty else { return nil }
    let group = storage.removeLast()
    byteSize -= group.byteSize
    if isEmpty { removeAll() }
    return group
  }

  /// Drops the oldest group and returns it.
  mutating func removeFirst() -> UndoGroup {
    precondition(!isEmpty, "GroupStack.removeFirst() on an empty stack")
    var group = UndoGroup()
    swap(&group, &storage[head])
    head += 1
    byteSize -= group.byteSize
    if isEmpty {
      removeAll()
    } else if head >= 16 && head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return group
  }

  mutating func removeAll() {
    storage.removeAll()
    head = 0
    byteSize = 0
  }

  /// Changes the newest group in place; does nothing on an empty stack.
  mutating func updateLast(_ body: (inout UndoGroup) -> Void) {
    guard !isEmpty else { return }
    let oldSize = storage[storage.count - 1].byteSize
    body(&storage[storage.count - 1])
    byteSize += storage[storage.count - 1].byteSize - oldSize
  }

  func contains(id: UInt64) -> Bool {
    groups.contains { $0.id == id }
  }

  /// Strips the steps acting on `target` (or their parts that do) and drops the groups left
  /// empty.
  mutating func removeSteps(withTarget target: AnyObject) {
    var kept: [UndoGroup] = []
    kept.reserveCapacity(count)
    for var group in groups {
      group.removeSteps(withTarget: target)
      if !group.isEmpty { kept.append(group) }
    }
    storage = kept
    head = 0
    byteSize = kept.reduce(0) { $0 + $1.byteSize }
  }
}
