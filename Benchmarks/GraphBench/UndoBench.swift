import ObservedGraph
import UndoLog

/// Undo recording, undo and redo of attribute steps, in contexts with participation off; our
/// objects are read through their typed getter once before they are measured.
enum UndoBench {
  /// Items the recorded steps are spread over (round robin), so the log holds a graph's history.
  static let itemCount = 1_000

  /// Typed attribute sets with an undo log attached, timed against the same peers as the plain
  /// set, and the bytes one scalar step keeps: the log's own `byteSize` and the heap growth
  /// (`mallinfo2`) across recording, both divided by the steps recorded.
  static func recordingRow(_ config: BenchConfig) -> Row {
    let count = config.setCount
    let perSet = Double(count)
    let observable = ObservableItem()
    let plain = PlainItem()
    var base = 0
    func next() -> Int {
      base &+= count
      return base
    }
    var logBytes: [Double] = []
    var heapBytes: [Double] = []
    let medians = Timing.interleaved(
      rounds: config.rounds,
      [
        (
          "ours",
          {
            let context = BenchModel.quietContext()
            let log = UndoLog()
            context.undoLog = log
            let item = context.insert(Item.self)
            _ = item.value
            context.processPendingChanges()
            let start = next()
            var elapsed = 0.0
            let (heap, _) = MemoryStats.heapGrowth {
              elapsed = Timing.nanoseconds {
                AttributeSetBench.setTypedRecording(item, count, start)
              }
              context.processPendingChanges()
            }
            logBytes.append(Double(log.byteSize) / perSet)
            if let heap { heapBytes.append(Double(heap) / perSet) }
            blackHole((context, item))
            return elapsed / perSet
          }
        ),
        (
          "observable",
          {
            Timing.nanoseconds { AttributeSetBench.setObservable(observable, count, next()) }
              / perSet
          }
        ),
        (
          "plain",
          { Timing.nanoseconds { AttributeSetBench.setPlain(plain, count, next()) } / perSet }
        ),
      ])
    blackHole((observable.value, plain.value))

    var row = Row(
      key: "attributeSetUndo", title: "typed attribute set, participation off, undo recording on",
      unit: "ns/set")
    row.ours = medians["ours"]
    row.peers = [.observable: medians["observable"]!, .plain: medians["plain"]!]
    let logPerStep = Timing.median(logBytes)
    let heapPerStep = heapBytes.isEmpty ? nil : Timing.median(heapBytes)
    row.figures = [
      Row.Figure(
        key: "logBytesPerStep", label: "undo log byteSize per step", value: logPerStep,
        unit: "bytes/step"),
      Row.Figure(
        key: "heapBytesPerStep", label: "heap growth (mallinfo2) per step", value: heapPerStep,
        unit: "bytes/step"),
    ]
    row.check("vsObservable", "≤ 0.5 × @Observable set", row.ratios[.observable], limit: 0.5)
    row.check(
      "bytesPerStep", "≤ 48 B heap per scalar undo step (heap growth; log byteSize if n/a)",
      heapPerStep ?? logPerStep, limit: 48)
    row.note =
      "\(BenchConfig.short(count)) sets of one Int attribute in one undo group (one event), "
      + "fresh context and log each round"
    return row
  }

  /// Undo and redo of `undoSteps` attribute steps recorded in one group, in steps per second.
  static func replayRow(_ config: BenchConfig) -> Row {
    let steps = config.undoSteps
    let medians = Timing.interleavedFigures(
      rounds: config.profile ? 1 : config.quick ? 2 : 3, [("ours", { replay(steps) })])
    var row = Row(
      key: "undoRedo", title: "undo, redo of \(BenchConfig.short(steps)) attribute steps",
      unit: "steps/s")
    let undoRate = Double(steps) / (medians["undo"]! / 1e9)
    let redoRate = Double(steps) / (medians["redo"]! / 1e9)
    row.ours = min(undoRate, redoRate)
    row.figures = [
      Row.Figure(key: "undo", label: "undo", value: undoRate, unit: "steps/s"),
      Row.Figure(key: "redo", label: "redo", value: redoRate, unit: "steps/s"),
      Row.Figure(
        key: "record", label: "recording (typed sets)",
        value: Double(steps) / (medians["record"]! / 1e9),
        unit: "steps/s"),
    ]
    row.check("undo", "undo ≥ 10 M steps/s", undoRate, limit: 10e6, atLeast: true)
    row.check("redo", "redo ≥ 10 M steps/s", redoRate, limit: 10e6, atLeast: true)
    row.note =
      "ours is the slower direction; one group of \(BenchConfig.short(steps)) sets over "
      + "\(itemCount) items, one undo() and one redo() call; participation off; no peer has undo"
    return row
  }

  /// Records `steps` sets in one group, then undoes and redoes it; returns the nanoseconds of each.
  static func replay(_ steps: Int) -> [String: Double] {
    let context = BenchModel.quietContext()
    let items = (0..<itemCount).map { _ in context.insert(Item.self) }
    for item in items { _ = item.value }
    do {
      try context.save()
      let log = UndoLog()
      context.undoLog = log
      let record = Timing.nanoseconds { spread(items, steps) }
      context.processPendingChanges()
      let undo = try Timing.nanoseconds { try log.undo() }
      precondition(items.allSatisfy { $0.value == 0 }, "graph-bench: undo did not restore values")
      let redo = try Timing.nanoseconds { try log.redo() }
      precondition(items[(steps - 1) % itemCount].value == steps, "graph-bench: redo failed")
      blackHole(context)
      return ["record": record, "undo": undo, "redo": redo]
    } catch {
      fatalError("graph-bench: \(error)")
    }
  }

  @inline(never)
  static func spread(_ items: [Item], _ steps: Int) {
    for step in 1...steps { items[(step - 1) % items.count].value = step }
  }
}
