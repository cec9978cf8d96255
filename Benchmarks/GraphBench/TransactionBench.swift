import ObservedGraph
import UndoLog

/// Transactions against the same edits made outside one: 10,000 objects each set once, 1,000
/// relationship edits on distinct objects, one old+new observer per object, an undo log. Outside:
/// the edits, then one `processPendingChanges()`. Ours against ours: no peer has transactions on
/// an observed graph.
enum TransactionBench {
  /// One measured world: the objects, their observers (held), the context.
  private struct World {
    let context: ObjectContext
    let items: [Item]
    let children: [Child]
    let parents: [Parent]
    let tokens: [ObservationToken]
    var heard = 0
  }

  private static func makeWorld(items itemCount: Int, edits: Int) -> World {
    let context = BenchModel.quietContext()
    let items = (0..<itemCount).map { index in
      let item = context.insert(Item.self)
      item.value = index
      return item
    }
    let parents = (0..<max(1, edits / 10)).map { _ in context.insert(Parent.self) }
    let children = (0..<edits).map { _ in context.insert(Child.self) }
    context.processPendingChanges()
    var tokens: [ObservationToken] = []
    let counter = Counter()
    for item in items {
      tokens.append(item.observe(\.value, options: [.old, .new]) { _, _ in counter.count += 1 })
    }
    for child in children {
      tokens.append(
        try! child.observe(keyPath: "parent", options: [.old, .new]) { _ in counter.count += 1 })
    }
    context.undoLog = UndoLog()
    return World(
      context: context, items: items, children: children, parents: parents, tokens: tokens)
  }

  private final class Counter { var count = 0 }

  /// The edits: each item set once, each child given a parent.
  private static func edit(_ world: World) {
    for (index, item) in world.items.enumerated() { item.value = index &+ 1_000_000 }
    for (index, child) in world.children.enumerated() {
      child.parent = world.parents[index % world.parents.count]
    }
  }

  private struct Thrown: Error {}

  static func run(_ config: BenchConfig) -> [Row] {
    let itemCount = config.profile ? 2_000 : config.quick ? 2_000 : 10_000
    let edits = config.profile ? 200 : config.quick ? 200 : 1_000
    let rounds = config.profile ? 1 : config.quick ? 3 : 9
    let medians = Timing.interleaved(
      rounds: rounds,
      [
        (
          "outside",
          {
            let world = makeWorld(items: itemCount, edits: edits)
            let time = Timing.nanoseconds {
              edit(world)
              world.context.processPendingChanges()
            }
            blackHole(world)
            return time
          }
        ),
        (
          "committed",
          {
            let world = makeWorld(items: itemCount, edits: edits)
            let time = Timing.nanoseconds { world.context.transaction { edit(world) } }
            precondition(world.context.undoLog?.undoCount == 1, "graph-bench: no undo group")
            blackHole(world)
            return time
          }
        ),
        (
          "thrown",
          {
            let world = makeWorld(items: itemCount, edits: edits)
            let time = Timing.nanoseconds {
              try? world.context.transaction { () throws -> Void in
                edit(world)
                throw Thrown()
              }
            }
            precondition(world.items[0].value == 0, "graph-bench: the throw took nothing back")
            blackHole(world)
            return time
          }
        ),
      ])
    let outside = medians["outside"]!
    let title =
      "\(BenchConfig.short(itemCount)) sets and \(BenchConfig.short(edits)) relationship edits, "
      + "one observer per object, undo on"
    var committed = Row(
      key: "transaction", title: "a transaction of \(title), ÷ the same edits outside one",
      unit: "ratio")
    committed.ours = medians["committed"]! / outside
    committed.figures = [
      Row.Figure(
        key: "transactionMs", label: "in a transaction", value: medians["committed"]! / 1e6,
        unit: "ms"),
      Row.Figure(key: "outsideMs", label: "outside", value: outside / 1e6, unit: "ms"),
    ]
    committed.check("vsOutside", "≤ 1.25 × the edits outside", committed.ours, limit: 1.25)
    var thrown = Row(
      key: "transactionThrown",
      title: "a thrown transaction of \(title) (edits, throw, take-back), ÷ the edits outside one",
      unit: "ratio")
    thrown.ours = medians["thrown"]! / outside
    thrown.figures = [
      Row.Figure(
        key: "thrownMs", label: "thrown transaction", value: medians["thrown"]! / 1e6, unit: "ms"),
      Row.Figure(key: "outsideMs", label: "outside", value: outside / 1e6, unit: "ms"),
    ]
    thrown.check("vsOutside", "≤ 1 × the edits outside", thrown.ours, limit: 1)
    return [committed, thrown]
  }
}
