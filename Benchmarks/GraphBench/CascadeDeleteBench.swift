import ObservedGraph
import UndoLog

/// Cascade delete of a tree of `treeSize` nodes (each node has up to 10 children), timed against
/// building the same tree: insert every node and set its `parent` (the inverse keeps `children`).
/// Our tree is saved (untimed) between build and delete; then an undo log is attached, the delete
/// (with `processPendingChanges()`, closing its undo group) is timed, and its undo. Our context has
/// participation off; every node is read through a typed getter once after the build (untimed),
/// before it is saved and deleted.
enum CascadeDeleteBench {
  static let fanOut = 10

  static func run(_ config: BenchConfig) -> Row {
    let size = config.treeSize
    let medians = Timing.interleavedFigures(
      rounds: config.treeRounds,
      [
        ("ours", { ours(size) }),
        ("observable", { observable(size) }),
        ("plain", { plain(size) }),
      ])
    let sizeLabel = BenchConfig.short(size)
    var row = Row(
      key: "cascadeDelete",
      title: "cascade delete of a \(sizeLabel)-object tree ÷ time to build it", unit: "ratio")
    func ratio(_ name: String) -> Double { medians[name + "Delete"]! / medians[name + "Build"]! }
    row.ours = ratio("ours")
    row.peers = [.observable: ratio("observable"), .plain: ratio("plain")]
    row.figures = ["ours", "observable", "plain"].flatMap { name in
      [
        Row.Figure(
          key: name + "Build", label: "\(name) build",
          value: medians[name + "Build"].map { $0 / 1e6 },
          unit: "ms"),
        Row.Figure(
          key: name + "Delete", label: "\(name) delete",
          value: medians[name + "Delete"].map { $0 / 1e6 }, unit: "ms"),
      ]
    }
    row.figures.append(
      Row.Figure(
        key: "oursUndo", label: "ours undo of the delete",
        value: medians["oursUndo"].map { $0 / 1e6 },
        unit: "ms"))
    row.check(
      "buildVsObservable", "our build ≤ 2 × @Observable build",
      medians["oursBuild"]! / medians["observableBuild"]!, limit: 2)
    row.check(
      "deleteVsObservable", "our delete ≤ 2 × @Observable delete",
      medians["oursDelete"]! / medians["observableDelete"]!, limit: 2)
    row.check(
      "undoOverBuild", "our undo of the delete ≤ 2 × our build",
      medians["oursUndo"]! / medians["oursBuild"]!, limit: 2)
    if config.quick { row.note = "--quick: the tree has \(sizeLabel) objects, not 100k" }
    return row
  }

  /// Builds and deletes one tree; returns the nanoseconds of each.
  static func ours(_ size: Int) -> [String: Double] {
    let context = BenchModel.quietContext()
    var nodes: [Node] = []
    nodes.reserveCapacity(size)
    let build = Timing.nanoseconds { buildOurs(context, size, into: &nodes) }
    for node in nodes { _ = node.value }
    let delete: Double
    let undo: Double
    do {
      // Saved first (untimed): deleting saved objects is the common case. The undo log is
      // attached after the build, so the build is the plain baseline and the delete records.
      try context.save()
      let log = UndoLog()
      context.undoLog = log
      delete = try Timing.nanoseconds {
        try context.delete(nodes[0])
        context.processPendingChanges()
      }
      precondition(nodes[size - 1].isDeleted, "graph-bench: the cascade did not reach the leaves")
      undo = try Timing.nanoseconds { try log.undo() }
      precondition(
        !nodes[size - 1].isDeleted && nodes[size - 1].parent != nil,
        "graph-bench: undo did not restore the leaves")
    } catch {
      fatalError("graph-bench: \(error)")
    }
    blackHole(context)
    return ["oursBuild": build, "oursDelete": delete, "oursUndo": undo]
  }

  @inline(never)
  static func buildOurs(_ context: ObjectContext, _ size: Int, into nodes: inout [Node]) {
    nodes.append(context.insert(Node.self))
    for index in 1..<size {
      let node = context.insert(Node.self)
      node.parent = nodes[(index - 1) / fanOut]
      nodes.append(node)
    }
  }

  static func observable(_ size: Int) -> [String: Double] {
    peer(ObservableNode.self, size, name: "observable")
  }

  static func plain(_ size: Int) -> [String: Double] {
    peer(PlainNode.self, size, name: "plain")
  }

  /// Builds a tree of a peer's nodes and deletes it; specialized per peer, so both are measured
  /// as if written out by hand.
  private static func peer<Node: PeerTreeNode>(_ type: Node.Type, _ size: Int, name: String)
    -> [String: Double]
  {
    var nodes: [Node] = []
    nodes.reserveCapacity(size)
    let build = Timing.nanoseconds {
      nodes.append(Node())
      for index in 1..<size {
        let node = Node()
        nodes[(index - 1) / fanOut].add(node)
        nodes.append(node)
      }
    }
    let delete = Timing.nanoseconds { nodes[0].deleteSubtree() }
    precondition(nodes[size - 1].isDeleted, "graph-bench: the peer delete missed leaves")
    return ["\(name)Build": build, "\(name)Delete": delete]
  }
}
