import ObservedGraph

/// To-many inserts with inverse upkeep: the cost of one insert into a parent that already holds
/// 1 k children, and into one that holds 1 M; O(1) inserts make the two the same.
///
/// Each round inserts `insertBatch` new children (created beforehand, untimed) one at a time. The
/// small parent is fresh each round; the large one is built once (untimed) and grows by one batch
/// per round, which does not change its size class. Our families live in contexts with
/// participation off, and every object of ours is read through a typed getter once before it is
/// measured.
enum ToManyInsertBench {
  static func run(_ config: BenchConfig) -> Row {
    let small = config.smallChildren
    let large = config.largeChildren
    let batch = config.insertBatch
    let perInsert = Double(batch)

    let oursLarge = OursFamily(prefix: large)
    let oursLargeToOne = OursFamily(prefix: large)
    let observableLarge = ObservableFamily(prefix: large)
    let plainLarge = PlainFamily(prefix: large)

    let medians = Timing.interleaved(
      rounds: config.rounds,
      [
        ("oursSmall", { OursFamily(prefix: small).timeInserts(batch, toOne: false) / perInsert }),
        ("oursLarge", { oursLarge.timeInserts(batch, toOne: false) / perInsert }),
        ("observableSmall", { ObservableFamily(prefix: small).timeInserts(batch) / perInsert }),
        ("observableLarge", { observableLarge.timeInserts(batch) / perInsert }),
        ("plainSmall", { PlainFamily(prefix: small).timeInserts(batch) / perInsert }),
        ("plainLarge", { plainLarge.timeInserts(batch) / perInsert }),
        (
          "oursToOneSmall",
          { OursFamily(prefix: small).timeInserts(batch, toOne: true) / perInsert }
        ),
        ("oursToOneLarge", { oursLargeToOne.timeInserts(batch, toOne: true) / perInsert }),
      ])
    blackHole((oursLarge, oursLargeToOne, observableLarge, plainLarge))

    let smallLabel = BenchConfig.short(small)
    let largeLabel = BenchConfig.short(large)
    var row = Row(
      key: "toManyInsert",
      title: "to-many insert with inverse upkeep: per insert at \(largeLabel) ÷ at \(smallLabel)",
      unit: "ratio")
    row.ours = medians["oursLarge"]! / medians["oursSmall"]!
    row.peers = [
      .observable: medians["observableLarge"]! / medians["observableSmall"]!,
      .plain: medians["plainLarge"]! / medians["plainSmall"]!,
    ]
    func figure(_ key: String, _ label: String) -> Row.Figure {
      Row.Figure(key: key, label: label, value: medians[key], unit: "ns/insert")
    }
    row.figures = [
      figure("oursSmall", "ours mutableSet(forKey:).insert at \(smallLabel)"),
      figure("oursLarge", "ours mutableSet(forKey:).insert at \(largeLabel)"),
      figure("oursToOneSmall", "ours child.parent = parent at \(smallLabel)"),
      figure("oursToOneLarge", "ours child.parent = parent at \(largeLabel)"),
      figure("observableSmall", "@Observable at \(smallLabel)"),
      figure("observableLarge", "@Observable at \(largeLabel)"),
      figure("plainSmall", "plain at \(smallLabel)"),
      figure("plainLarge", "plain at \(largeLabel)"),
    ]
    row.figures.append(
      Row.Figure(
        key: "oursToOneGrowth",
        label: "ours child.parent = parent at \(largeLabel) ÷ at \(smallLabel)",
        value: medians["oursToOneLarge"]! / medians["oursToOneSmall"]!, unit: "ratio"))
    row.check(
      "largeVsObservable", "ours per insert at 1 M ≤ 1 × @Observable (hand-kept inverse) at 1 M",
      medians["oursLarge"]! / medians["observableLarge"]!, limit: 1)
    row.check(
      "growthVsObservable", "growth (1 M ÷ 1 k) ≤ @Observable's growth (ours ÷ peer ≤ 1)",
      row.ratios[.observable], limit: 1)
    if config.quick { row.note = "--quick: the large size is \(largeLabel), not 1M" }
    return row
  }
}

/// One of our parents with `prefix` children, added in one `formUnion` (untimed).
final class OursFamily {
  let context = BenchModel.quietContext()
  let parent: Parent
  let children: MutableObjectSet

  init(prefix: Int) {
    parent = context.insert(Parent.self)
    _ = parent.children
    do {
      children = try parent.mutableSet(forKey: "children")
      let members = (0..<prefix).map { _ in context.insert(Child.self) }
      for member in members { _ = member.value }
      try children.formUnion(members)
    } catch {
      fatalError("graph-bench: \(error)")
    }
  }

  /// Inserts `count` new children one at a time, through the to-many proxy or by setting each
  /// child's to-one `parent`; returns the nanoseconds the inserts took.
  func timeInserts(_ count: Int, toOne: Bool) -> Double {
    let batch = (0..<count).map { _ in context.insert(Child.self) }
    for child in batch { _ = child.value }
    return Timing.nanoseconds {
      if toOne {
        Self.setParents(batch, parent)
      } else {
        Self.insertAll(batch, into: children)
      }
    }
  }

  @inline(never)
  static func insertAll(_ batch: [Child], into children: MutableObjectSet) {
    do {
      for child in batch { try children.insert(child) }
    } catch {
      fatalError("graph-bench: \(error)")
    }
  }

  @inline(never)
  static func setParents(_ batch: [Child], _ parent: Parent) {
    for child in batch { child.parent = parent }
  }
}

/// The `@Observable` peer family.
final class ObservableFamily {
  let parent = ObservableParent()

  init(prefix: Int) {
    for _ in 0..<prefix { parent.add(ObservableChild()) }
  }

  func timeInserts(_ count: Int) -> Double {
    let batch = (0..<count).map { _ in ObservableChild() }
    return Timing.nanoseconds { Self.insertAll(batch, into: parent) }
  }

  @inline(never)
  static func insertAll(_ batch: [ObservableChild], into parent: ObservableParent) {
    for child in batch { parent.add(child) }
  }
}

/// The plain peer family.
final class PlainFamily {
  let parent = PlainParent()

  init(prefix: Int) {
    for _ in 0..<prefix { parent.add(PlainChild()) }
  }

  func timeInserts(_ count: Int) -> Double {
    let batch = (0..<count).map { _ in PlainChild() }
    return Timing.nanoseconds { Self.insertAll(batch, into: parent) }
  }

  @inline(never)
  static func insertAll(_ batch: [PlainChild], into parent: PlainParent) {
    for child in batch { parent.add(child) }
  }
}
