import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// The quiet cascade delete (`ObjectContext.deleteQuietly`): a delete whose objects nothing hears
/// applies and records without plans, and leaves the graph, the change tracking, the events and
/// the undo steps exactly as the whole path does.
@Suite struct QuietDeleteTests {
  /// One world (see ``PathWorld``): a forest of nodes, and what a user can see of it.
  private final class World: PathWorld {
    let nodes: [TreeNode]

    init(participates: Bool, reference: Bool) {
      let context = ObjectContext(
        model: Trees.model, participatesInSwiftObservation: participates)
      nodes = (0..<40).map { index in
        let node = context.insert(TreeNode.self)
        node.label = "n\(index)"
        node.weight = index
        return node
      }
      // Four trees: node i hangs under node (i - 1) / 3 of its tree.
      for (index, node) in nodes.enumerated() where index % 10 != 0 {
        node.parent = nodes[index - index % 10 + (index % 10 - 1) / 3]
      }
      super.init(context: context, reference: reference)
    }

    /// What a user can see of every node, and of the context.
    var state: [String] {
      nodes.map { node in
        let committed = (try? node.committedValues()) ?? [:]
        let committedParent = (committed["parent"] as? TreeNode)?.label ?? "-"
        let committedChildren =
          (committed["children"] as? Set<TreeNode>).map { $0.map(\.label).sorted() } ?? []
        return "\(node.label) w\(node.weight) deleted:\(node.isDeleted) "
          + "parent:\(node.parent?.label ?? "-") children:\(node.children.map(\.label).sorted()) "
          + "changed:\(node.changedValues().keys.sorted()) committed:\(committed.keys.sorted()) "
          + "\(committedParent) \(committedChildren)"
      } + ["\(context.hasChanges)", "\(context.undoLog?.undoCount ?? -1)"]
    }
  }

  /// A seeded sequence of deletes (of leaves and of whole subtrees), relationship sets, attribute
  /// sets, events, saves, observers coming and going, undo logs, undo and redo, on a context where
  /// deletes may be quiet and on one where a tap sends them down the whole path: the state, the
  /// events and what observers heard agree after every step.
  @Test(arguments: [false, true])
  func quietDeletesMatchTheWholePath(participates: Bool) throws {
    let worlds = [
      World(participates: participates, reference: false),
      World(participates: participates, reference: true),
    ]
    for world in worlds { world.context.undoLog = UndoLog() }
    var random = SplitMix64(seed: SplitMix64.seed(fallback: 0xDE1E7E))
    for step in 0..<3_000 {
      let choice = random.below(100)
      let index = random.below(40)
      let other = random.below(41)
      for world in worlds {
        let node = world.nodes[index]
        let context = world.context
        switch choice {
        case 0..<18:
          if node.isLive { try context.delete(node) }
        case 18..<30:
          guard node.isLive else { break }
          let parent = other == 40 ? nil : world.nodes[other]
          if parent?.isLive ?? true { node.parent = parent }
        case 30..<38:
          if node.isLive { node.weight = step }
        case 38..<46: context.processPendingChanges()
        case 46..<50: try context.save()
        case 50..<55:
          world.tokens.append(
            node.observe(\.parent, options: [.old, .new]) { [unowned world] object, change in
              world.heard.append(
                "\(object.label) \(change.oldValue??.label ?? "-")→\(change.newValue??.label ?? "-")"
              )
            })
        case 55..<62:
          if !world.tokens.isEmpty { world.tokens.removeFirst().invalidate() }
        case 62..<64:
          context.undoLog = context.undoLog == nil ? UndoLog() : nil
        default:
          guard let log = context.undoLog else { break }
          context.processPendingChanges()
          if choice % 3 == 0 && log.canRedo {
            try log.redo()
          } else if log.canUndo {
            try log.undo()
          }
        }
      }
      #expect(worlds[0].events == worlds[1].events, "step \(step)")
      #expect(worlds[0].heard == worlds[1].heard, "step \(step)")
      #expect(worlds[0].state == worlds[1].state, "step \(step)")
      guard worlds[0].state == worlds[1].state else { return }
    }
  }

  @Test func aQuietDeleteRecordsTheStepsOfTheWholePath() throws {
    let quiet = World(participates: false, reference: false)
    let reference = World(participates: false, reference: true)
    var described: [[String]] = []
    for world in [quiet, reference] {
      try world.context.save()
      let log = UndoLog()
      world.context.undoLog = log
      try world.context.delete(world.nodes[1])  // n1 and its subtree: n4, n5, n6
      world.context.processPendingChanges()
      let steps = try log.history().undoGroups[0].steps.compactMap { $0 as? GraphUndoStep }
      described.append(steps.map(\.description))
      #expect(world.nodes[1].isDeleted && world.nodes[4].isDeleted && !world.nodes[2].isDeleted)
      #expect(world.nodes[0].children.map(\.label).sorted() == ["n2", "n3"])
    }
    #expect(described[0] == described[1])
    #expect(described[0].count == 4)
  }
}
