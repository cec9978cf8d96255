import Observation

/// The Swift `Observation` peer: the same fields as ``Item``, in an `@Observable` class.
@Observable
final class ObservableItem {
  var value = 0
  var title = ""
}

/// The physical reference: a plain stored property behind a setter and a getter that are never
/// inlined.
final class PlainItem {
  private(set) var value = 0
  var title = ""

  @inline(never)
  func setValue(_ newValue: Int) { value = newValue }

  /// The getter of the read row: `value` plus the loop's running sum. A getter without an argument
  /// is seen to only read, so the optimizer calls it once and multiplies; passing the sum through
  /// makes every iteration call it, and the addition is the one the loop would do itself.
  @inline(never)
  func value(adding sum: Int) -> Int { value &+ sum }
}

/// Keeps an observer registered on ``ObservableItem/value`` through `withObservationTracking`,
/// re-arming it after every change (the tracking fires once per registration).
final class ObservableItemObserver: @unchecked Sendable {
  // @unchecked Sendable: `onChange` must be `@Sendable`, but the benchmark runs on one thread and
  // the observer only touches the item and the counter from it.
  let item: ObservableItem
  var changes = 0

  init(_ item: ObservableItem) {
    self.item = item
    arm()
  }

  private func arm() {
    withObservationTracking {
      blackHole(item.value)
    } onChange: { [self] in
      changes += 1
      arm()
    }
  }
}

/// The `Observation` peer of ``Parent``: a set of children whose `parent` it keeps.
@Observable
final class ObservableParent {
  var children: Set<ObservableChild> = []

  /// Adds `child`, taking it from its previous parent: the same inverse upkeep as ours.
  func add(_ child: ObservableChild) {
    if let previous = child.parent {
      if previous === self { return }
      previous.children.remove(child)
    }
    child.parent = self
    children.insert(child)
  }
}

/// The `Observation` peer of ``Child``.
@Observable
final class ObservableChild: Hashable {
  var parent: ObservableParent?

  static func == (lhs: ObservableChild, rhs: ObservableChild) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The plain peer of ``Parent``; `add` is never inlined.
final class PlainParent {
  var children: Set<PlainChild> = []

  @inline(never)
  func add(_ child: PlainChild) {
    if let previous = child.parent {
      if previous === self { return }
      previous.children.remove(child)
    }
    child.parent = self
    children.insert(child)
  }
}

/// The plain peer of ``Child``.
final class PlainChild: Hashable {
  var parent: PlainParent?

  static func == (lhs: PlainChild, rhs: PlainChild) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The `Observation` peer of ``Node``: a tree whose delete walks the subtree and detaches it.
@Observable
final class ObservableNode {
  var value = 0
  var children: [ObservableNode] = []
  var parent: ObservableNode?
  var isDeleted = false

  func add(_ child: ObservableNode) {
    child.parent = self
    children.append(child)
  }

  /// Marks the subtree deleted and clears both sides of every link in it.
  func deleteSubtree() {
    var stack = [self]
    while let node = stack.popLast() {
      stack += node.children
      node.children = []
      node.parent = nil
      node.isDeleted = true
    }
  }
}

/// The plain peer of ``Node``.
final class PlainNode {
  var value = 0
  var children: [PlainNode] = []
  var parent: PlainNode?
  var isDeleted = false

  @inline(never)
  func add(_ child: PlainNode) {
    child.parent = self
    children.append(child)
  }

  @inline(never)
  func deleteSubtree() {
    var stack = [self]
    while let node = stack.popLast() {
      stack += node.children
      node.children = []
      node.parent = nil
      node.isDeleted = true
    }
  }
}

/// What the cascade-delete row needs of a peer's tree node.
protocol PeerTreeNode: AnyObject {
  init()
  func add(_ child: Self)
  func deleteSubtree()
  var isDeleted: Bool { get }
}

extension ObservableNode: PeerTreeNode {}
extension PlainNode: PeerTreeNode {}
