import ObservedGraph

/// Typed attribute sets, with no observer and with one, and key-value coding by string key.
///
/// Every contender sets an `Int` field to a new value `setCount` times per round; the figure is
/// nanoseconds per set. Values change on every set so no contender can skip an equal value.
enum AttributeSetBench {
  static func run(_ config: BenchConfig) -> [Row] {
    let count = config.setCount
    let context = BenchModel.context()
    let item = context.insert(Item.self)
    let kvcItem = context.insert(Item.self)
    let observedItem = context.insert(Item.self)
    let sink = ChangeSink()
    let token = observedItem.observe(\.value, options: [.old, .new]) { _, change in
      sink.receive(old: change.oldValue, new: change.newValue)
    }
    let observable = ObservableItem()
    let observer = ObservableItemObserver(ObservableItem())
    let plain = PlainItem()
    let observableKVC = ObservableItem()
    let plainKVC = PlainItem()
    var base = 0
    func next() -> Int {
      base &+= count
      return base
    }
    let perSet = Double(count)
    let medians = Timing.interleaved(
      rounds: config.rounds,
      [
        ("ours", { Timing.nanoseconds { setTyped(item, count, next()) } / perSet }),
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
      ])
    let sets = (config.rounds + 1) * count
    precondition(observer.changes == sets, "graph-bench: the Observation peer missed changes")
    precondition(sink.changes == sets, "graph-bench: our observer missed changes")
    blackHole((sink.sum, token))
    blackHole((item.value, kvcItem.value, observable.value, plain.value))
    blackHole((observableKVC.value, plainKVC.value, context))

    var plainSet = Row(
      key: "attributeSet", title: "typed attribute set, no observer, no undo", unit: "ns/set")
    plainSet.ours = medians["ours"]
    plainSet.peers = [
      .observable: medians["observable"]!, .observableObserved: medians["observableObserved"]!,
      .plain: medians["plain"]!,
    ]
    plainSet.check(
      "vsObservable", "≤ 0.25 × @Observable set", plainSet.ratios[.observable], limit: 0.25)

    var observed = Row(
      key: "attributeSetObserved", title: "same with 1 observer getting old+new", unit: "ns/set")
    observed.ours = medians["oursObserved"]
    observed.peers = plainSet.peers
    observed.check(
      "vsObservableObserved", "≤ 0.5 × @Observable set with an observer",
      observed.ratios[.observableObserved], limit: 0.5)
    observed.note =
      "ours: item.observe(\\.value, options: [.old, .new]); the @Observable observer re-arms "
      + "withObservationTracking in onChange (it fires once per registration) and gets no values"

    var keyed = Row(key: "kvcSet", title: "KVC set by string key vs typed set", unit: "ns/set")
    keyed.ours = medians["oursKVC"]
    keyed.peers = [.observable: medians["observableKVC"]!, .plain: medians["plainKVC"]!]
    keyed.figures = [
      Row.Figure(key: "oursTyped", label: "ours typed set", value: medians["ours"], unit: "ns/set")
    ]
    keyed.check(
      "kvcOverTyped", "KVC ≤ 2 × typed set", medians["oursKVC"]! / medians["ours"]!, limit: 2)
    keyed.note =
      "peers set by key through a [String: (object, Any?) -> Void] table: lookup, cast, set"
    return [plainSet, observed, keyed]
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
