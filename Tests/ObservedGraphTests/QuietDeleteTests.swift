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

  /// The quiet delete records one step for the whole cascade, holding the changes the path
  /// records in one step per deleted object, in the same order.
  @Test func aQuietDeleteRecordsTheChangesOfTheWholePath() throws {
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
    #expect(described[0].count == 1)
    #expect(described[1].count == 4)
    #expect(described[0].joined(separator: "; ") == described[1].joined(separator: "; "))
    #expect(described[0][0].hasPrefix("TreeNode#5 #3 to-one; TreeNode#6 #3 to-one"))
  }

  /// The batch undo of a quiet delete hands its edits to the recorder, which records its redo as
  /// one step holding the changes the path records for the same undo (one step per object), each
  /// with the tracking state its slot had before the undo; the redo records the undo again so.
  @Test func theUndoOfAQuietDeleteRecordsTheChangesOfTheWholePath() throws {
    /// The changes of a group's steps, with their tracking states, in order; the store named by
    /// its place only (each world has a store of its own).
    func encoded(_ steps: [any UndoStep]) throws -> String {
      let changes = steps.compactMap { $0 as? GraphUndoStep }.flatMap(\.changes.list)
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      return String(decoding: try encoder.encode(changes), as: UTF8.self).replacingOccurrences(
        of: #"og:\\/\\/[0-9A-F-]+"#, with: "og://store", options: .regularExpression)
    }
    var redoSteps: [String] = []
    var undoSteps: [String] = []
    var counts: [[Int]] = []
    for world in [
      World(participates: false, reference: false), World(participates: false, reference: true),
    ] {
      try world.context.save()
      // n5's parent goes away and comes back: tracked as changed, its committed value n1.
      world.nodes[5].parent = world.nodes[2]
      world.nodes[5].parent = world.nodes[1]
      world.context.processPendingChanges()
      let log = UndoLog()
      world.context.undoLog = log
      try world.context.delete(world.nodes[1])  // n1 and its subtree: n4, n5, n6
      world.context.processPendingChanges()
      try log.undo()
      let redo = try log.history().redoGroups[0].steps
      redoSteps.append(try encoded(redo))
      try log.redo()
      let undo = try log.history().undoGroups[0].steps
      undoSteps.append(try encoded(undo))
      counts.append([redo.count, undo.count])
      #expect(world.nodes[1].isDeleted && world.nodes[5].isDeleted)
    }
    #expect(counts == [[1, 1], [4, 4]])
    #expect(redoSteps[0] == redoSteps[1])
    #expect(undoSteps[0] == undoSteps[1])
    #expect(redoSteps[0].contains("changedFrom"))
  }

  /// Undo and redo of a quiet delete are one batch each (one step in the log) and leave what the
  /// path leaves — values, both sides, change tracking, events and the objects' lifecycle — with
  /// saves between the delete, its undo and its redo (a saved deletion comes back as an insert).
  @Test(arguments: [false, true])
  func undoAndRedoOfAQuietDeleteMatchThePathAcrossSaves(participates: Bool) throws {
    var states: [[[String]]] = []
    var stepCounts: [[Int]] = []
    for world in [
      World(participates: participates, reference: false),
      World(participates: participates, reference: true),
    ] {
      let context = world.context
      let log = UndoLog()
      var seen: [[String]] = []
      var counts: [Int] = []
      try context.save()
      context.undoLog = log
      try context.delete(world.nodes[1])
      try context.delete(world.nodes[13])  // a leaf: its parent n14 keeps living
      context.processPendingChanges()
      seen.append(world.state)
      try context.save()
      seen.append(world.state + ["\(world.nodes[4].context == nil)"])
      try log.undo()
      counts.append(try log.history().redoGroups[0].steps.count)
      seen.append(world.state + ["\(world.nodes[4].isInserted) \(world.nodes[13].isInserted)"])
      try log.undo()
      seen.append(world.state)
      try context.save()
      try log.redo()
      counts.append(try log.history().undoGroups[0].steps.count)
      seen.append(world.state)
      try log.redo()
      seen.append(world.state)
      try log.undo()
      try log.undo()
      seen.append(world.state)
      seen.append(world.events)
      states.append(seen)
      stepCounts.append(counts)
    }
    #expect(states[0] == states[1])
    // Two deletes: one step each when quiet, one per deleted object on the path.
    #expect(stepCounts[0] == [2, 2])
    #expect(stepCounts[1] == [5, 5])
    #expect(states[0][2].last == "true true")
    #expect(
      states[0][3][1].hasPrefix("n1 w1 deleted:false parent:n0 children:[\"n4\", \"n5\", \"n6\"]"))
  }

  /// An observer that arrives between a quiet delete and its undo hears the undo as it would
  /// on the path: the step's objects take the path then.
  @Test func anObserverAddedAfterTheDeleteHearsItsUndo() throws {
    var heard: [[String]] = []
    var states: [[String]] = []
    for world in [
      World(participates: false, reference: false), World(participates: false, reference: true),
    ] {
      let log = UndoLog()
      world.context.undoLog = log
      try world.context.delete(world.nodes[2])
      world.context.processPendingChanges()
      world.tokens.append(
        world.nodes[0].observe(\.children, options: [.old, .new]) { [unowned world] _, change in
          world.heard.append(
            "\((change.oldValue ?? []).map(\.label).sorted())→"
              + "\((change.newValue ?? []).map(\.label).sorted())")
        })
      try log.undo()
      try log.redo()
      heard.append(world.heard)
      states.append(world.state)
    }
    #expect(heard[0] == heard[1])
    #expect(heard[0] == [#"[]→["n2"]"#, #"["n2"]→[]"#])
    #expect(states[0] == states[1])
  }

  /// An archived quiet delete is restored as the path's changes and undone by the path.
  @Test func anArchivedQuietDeleteIsRestoredAndUndone() throws {
    let world = World(participates: false, reference: false)
    let context = world.context
    try context.save()
    let before = world.state.dropLast()
    let log = UndoLog()
    context.undoLog = log
    try context.delete(world.nodes[1])
    context.processPendingChanges()
    let json = try JSONEncoder().encode(try log.history())
    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
    let restored = UndoLog()
    try restored.restore(try decoder.decode(UndoLog.History.self, from: json))
    context.undoLog = restored
    #expect(world.nodes[5].isDeleted)
    try restored.undo()
    #expect(world.state.dropLast() == before)
    #expect(try restored.history().redoGroups[0].steps.count == 1)
  }

  /// Removing the actions of one deleted object takes the whole quiet delete's step.
  @Test func removingTheActionsOfADeletedObjectTakesTheStep() throws {
    let world = World(participates: false, reference: false)
    let log = UndoLog()
    world.context.undoLog = log
    world.nodes[20].weight = 7
    world.context.processPendingChanges()
    try world.context.delete(world.nodes[1])
    world.context.processPendingChanges()
    #expect(log.undoCount == 2)
    log.removeAllActions(withTarget: world.nodes[30])
    #expect(log.undoCount == 2)
    log.removeAllActions(withTarget: world.nodes[5])
    #expect(log.undoCount == 1)
    try log.undo()
    #expect(world.nodes[20].weight == 20 && world.nodes[5].isDeleted)
  }
}
