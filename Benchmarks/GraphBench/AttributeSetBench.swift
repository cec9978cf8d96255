import ObservedGraph

/// Typed attribute sets, with no observer and with one, key-value coding by string key, and
/// typed reads.
///
/// Every set contender sets an `Int` field to a new value `setCount` times per round; the figure is
/// nanoseconds per set. Values change on every set so no contender can skip an equal value. Every
/// read contender reads the field `setCount` times per round and sums it; the figure is nanoseconds
/// per read.
///
/// Our objects are read through their typed getter once before they are measured, as an app does.
/// The rows kept from before the context option measure in a context with participation off; the
/// tracked set and the read measure in the default one (participation on), where that first read
/// made the object's registrar, so each read reports to it and each set tells it.
enum AttributeSetBench {
  static func run(_ config: BenchConfig) -> [Row] {
    let count = config.setCount
    let context = BenchModel.quietContext()
    let item = context.insert(Item.self)
    let kvcItem = context.insert(Item.self)
    let observedItem = context.insert(Item.self)
    let participating = BenchModel.participatingContext()
    let trackedItem = participating.insert(Item.self)
    let readItem = participating.insert(Item.self)
    for object in [item, kvcItem, observedItem, trackedItem, readItem] { _ = object.value }
    let sink = ChangeSink()
    let token = observedItem.observe(\.value, options: [.old, .new]) { _, change in
      sink.receive(old: change.oldValue, new: change.newValue)
    }
    let observable = ObservableItem()
    let observer = ObservableItemObserver(ObservableItem())
    let plain = PlainItem()
    let observableKVC = ObservableItem()
    let plainKVC = PlainItem()
    let observableRead = ObservableItem()
    let plainRead = PlainItem()
    readItem.value = 1
    observableRead.value = 1
    plainRead.setValue(1)
    var base = 0
    func next() -> Int {
      base &+= count
      return base
    }
    var readSums: [String: Int] = [:]
    func read(_ name: String, _ loop: () -> Int) -> Double {
      var sum = 0
      let elapsed = Timing.nanoseconds { sum = loop() }
      readSums[name] = sum
      return elapsed / Double(count)
    }
    let perSet = Double(count)
    let medians = Timing.interleaved(
      rounds: config.rounds,
      [
        ("ours", { Timing.nanoseconds { setTyped(item, count, next()) } / perSet }),
        (
          "oursTracked",
          { Timing.nanoseconds { setTypedTracked(trackedItem, count, next()) } / perSet }
        ),
        (
          "oursObserved",
          { Timing.nanoseconds { setTypedObserved(observedItem, count, next()) } / perSet }
        ),
        (
          "observable", { Timing.nanoseconds { setObservable(observable, count, next()) } / perSet }
        ),
        (
          "observableObserved",
          { Timing.nanoseconds { setObservable(observer.item, count, next()) } / perSet }
        ),
        ("plain", { Timing.nanoseconds { setPlain(plain, count, next()) } / perSet }),
        (
          "oursKVC",
          { Timing.nanoseconds { setByKey(kvcItem, count, next()) } / perSet }
        ),
        (
          "observableKVC",
          { Timing.nanoseconds { setByKey(observableKVC, count, next()) } / perSet }
        ),
        ("plainKVC", { Timing.nanoseconds { setByKey(plainKVC, count, next()) } / perSet }),
        ("oursRead", { read("oursRead") { readTyped(readItem, count) } }),
        ("observableRead", { read("observableRead") { readObservable(observableRead, count) } }),
        ("plainRead", { read("plainRead") { readPlain(plainRead, count) } }),
      ])
    let sets = (config.rounds + 1) * count
    precondition(observer.changes == sets, "graph-bench: the Observation peer missed changes")
    precondition(sink.changes == sets, "graph-bench: our observer missed changes")
    precondition(
      readSums.count == 3 && readSums.values.allSatisfy { $0 == count },
      "graph-bench: a read loop summed the wrong values")
    blackHole((sink.sum, token, readSums))
    blackHole((item.value, kvcItem.value, trackedItem.value, observable.value, plain.value))
    blackHole((observableKVC.value, plainKVC.value, context, participating))

    let setPeers: [Row.Peer: Double] = [
      .observable: medians["observable"]!, .observableObserved: medians["observableObserved"]!,
      .plain: medians["plain"]!,
    ]
    /// A row of one of our figures beside its peers, with its target against `@Observable`.
    func row(
      _ key: String, _ title: String, unit: String = "ns/set", ours: String,
      peers: [Row.Peer: Double], target: String, limit: Double, note: String? = nil
    ) -> Row {
      var row = Row(key: key, title: title, unit: unit)
      row.ours = medians[ours]
      row.peers = peers
      row.check("vsObservable", target, row.ratios[.observable], limit: limit)
      row.note = note
      return row
    }

    let plainSet = row(
      "attributeSet", "typed attribute set, participation off, no observer, no undo",
      ours: "ours", peers: setPeers, target: "≤ 0.25 × @Observable set", limit: 0.25)
    let tracked = row(
      "attributeSetTracked", "typed attribute set, participation on (registrar told of every set)",
      ours: "oursTracked", peers: setPeers, target: "≤ 1.1 × @Observable set", limit: 1.1,
      note: "default context; the object was read once first, so it has a registrar and nothing "
        + "else observes it")
    let typedRead = row(
      "typedRead", "typed attribute read, participation on", unit: "ns/read", ours: "oursRead",
      peers: [.observable: medians["observableRead"]!, .plain: medians["plainRead"]!],
      target: "≤ 1 × @Observable get", limit: 1,
      note: "each loop reads the Int field and sums it; ours and @Observable report every read "
        + "to their registrar, outside any withObservationTracking")
    let observed = row(
      "attributeSetObserved", "typed attribute set, participation off, 1 observer getting old+new",
      ours: "oursObserved", peers: setPeers,
      target: "≤ 0.5 × @Observable set (without an observer)", limit: 0.5,
      note: "ours: item.observe(\\.value, options: [.old, .new]); the @Observable observer "
        + "re-arms withObservationTracking in onChange (it fires once per registration) and "
        + "gets no values")
    var keyed = row(
      "kvcSet", "KVC set by string key, participation off", ours: "oursKVC",
      peers: [.observable: medians["observableKVC"]!, .plain: medians["plainKVC"]!],
      target: "≤ 1 × by-name closure table on @Observable", limit: 1,
      note: "peers set by key through a [String: (object, Any?) -> Void] table: lookup, cast, set")
    keyed.figures = [
      Row.Figure(key: "oursTyped", label: "ours typed set", value: medians["ours"], unit: "ns/set"),
      Row.Figure(
        key: "kvcOverTyped", label: "ours KVC set ÷ ours typed set",
        value: medians["oursKVC"]! / medians["ours"]!, unit: "×"),
    ]
    return [plainSet, tracked, typedRead, observed, keyed]
  }

  @inline(never)
  static func setTyped(_ item: Item, _ count: Int, _ base: Int) {
    for index in 0..<count { item.value = base &+ index }
  }

  /// The loop of ``setTyped(_:_:_:)``, counting down so the compiler does not merge the two and a
  /// profiler can tell the rows apart.
  @inline(never)
  static func setTypedObserved(_ item: Item, _ count: Int, _ base: Int) {
    for index in (0..<count).reversed() { item.value = base &+ index }
  }

  /// The loop of ``setTyped(_:_:_:)`` for the participation-on row, counting the values down so
  /// the compiler does not merge the two and a profiler can tell the rows apart.
  @inline(never)
  static func setTypedTracked(_ item: Item, _ count: Int, _ base: Int) {
    for index in 0..<count { item.value = base &- index }
  }

  /// The loop again for the undo-recording row, in steps of two over twice the range.
  @inline(never)
  static func setTypedRecording(_ item: Item, _ count: Int, _ base: Int) {
    for index in stride(from: 0, to: 2 &* count, by: 2) { item.value = base &+ index }
  }

  @inline(never)
  static func setObservable(_ item: ObservableItem, _ count: Int, _ base: Int) {
    for index in 0..<count { item.value = base &+ index }
  }

  @inline(never)
  static func setPlain(_ item: PlainItem, _ count: Int, _ base: Int) {
    for index in 0..<count { item.setValue(base &+ index) }
  }

  /// Reads `item.value` `count` times through the typed getter and returns the sum.
  @inline(never)
  static func readTyped(_ item: Item, _ count: Int) -> Int {
    var sum = 0
    for _ in 0..<count { sum &+= item.value }
    return sum
  }

  @inline(never)
  static func readObservable(_ item: ObservableItem, _ count: Int) -> Int {
    var sum = 0
    for _ in 0..<count { sum &+= item.value }
    return sum
  }

  /// The plain peer's read loop; the running sum goes through the getter (see
  /// ``PlainItem/value(adding:)``).
  @inline(never)
  static func readPlain(_ item: PlainItem, _ count: Int) -> Int {
    var sum = 0
    for _ in 0..<count { sum = item.value(adding: sum) }
    return sum
  }

  @inline(never)
  static func setByKey(_ item: Item, _ count: Int, _ base: Int) {
    do {
      for index in 0..<count { try item.setValue(base &+ index, forKey: "value") }
    } catch {
      fatalError("graph-bench: \(error)")
    }
  }

  @inline(never)
  static func setByKey(_ item: ObservableItem, _ count: Int, _ base: Int) {
    for index in 0..<count { KeyedSetters.set(item, base &+ index, forKey: "value") }
  }

  @inline(never)
  static func setByKey(_ item: PlainItem, _ count: Int, _ base: Int) {
    for index in 0..<count { KeyedSetters.set(item, base &+ index, forKey: "value") }
  }
}

/// Receives our observer's changes: counts them and sums the new values.
final class ChangeSink {
  var changes = 0
  var sum = 0

  func receive(old: Int?, new: Int?) {
    changes += 1
    sum &+= (new ?? 0) &- (old ?? 0)
  }
}

/// The peers' set-by-name: a table from key to a setter that casts the value.
enum KeyedSetters {
  static let observable: [String: @Sendable (ObservableItem, Any?) -> Void] = [
    "value": { item, value in item.value = value as! Int },
    "title": { item, value in item.title = value as! String },
  ]
  static let plain: [String: @Sendable (PlainItem, Any?) -> Void] = [
    "value": { item, value in item.setValue(value as! Int) },
    "title": { item, value in item.title = value as! String },
  ]

  @inline(never)
  static func set(_ item: ObservableItem, _ value: Any?, forKey key: String) {
    guard let setter = observable[key] else { fatalError("graph-bench: no key \(key)") }
    setter(item, value)
  }

  @inline(never)
  static func set(_ item: PlainItem, _ value: Any?, forKey key: String) {
    guard let setter = plain[key] else { fatalError("graph-bench: no key \(key)") }
    setter(item, value)
  }
}
