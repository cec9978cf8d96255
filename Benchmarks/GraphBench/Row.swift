/// One row of the results table: our figure, each peer's, the ratios and the targets.
struct Row {
  /// Whether the row was measured, or why not.
  enum Status: Equatable {
    case measured
    case pending(String)
    case notBuilt
  }

  /// A peer implementation that did the same work.
  enum Peer: String, CaseIterable {
    case observable
    case observableObserved
    case plain
    case grdb
    case sqliteC

    var label: String {
      switch self {
      case .observable: "@Observable"
      case .observableObserved: "@Observable+withObservationTracking"
      case .plain: "plain @inline(never) accessor"
      case .grdb: "GRDB 7.10.0"
      case .sqliteC: "raw SQLite C API"
      }
    }
  }

  /// A further figure of the row (a second size, a bytes count, a path variant).
  struct Figure {
    let key: String
    let label: String
    let value: Double?
    let unit: String
  }

  /// A target of DESIGN.md and whether this run met it.
  struct Check {
    let key: String
    let target: String
    let value: Double?
    let met: Bool?
  }

  let key: String
  let title: String
  let unit: String
  var status = Status.measured
  var ours: Double?
  var peers: [Peer: Double] = [:]
  var figures: [Figure] = []
  var checks: [Check] = []
  var note: String?

  init(key: String, title: String, unit: String) {
    self.key = key
    self.title = title
    self.unit = unit
  }

  /// Our figure divided by each peer's.
  var ratios: [Peer: Double] {
    guard let ours else { return [:] }
    return peers.filter { $0.value > 0 }.mapValues { ours / $0 }
  }

  /// Adds a check `value ≤ limit` (or `≥` when `atLeast`).
  mutating func check(
    _ key: String, _ target: String, _ value: Double?, limit: Double, atLeast: Bool = false
  ) {
    let met = value.map { atLeast ? $0 >= limit : $0 <= limit }
    checks.append(Check(key: key, target: target, value: value, met: met))
  }

  static func pending(_ key: String, _ title: String, unit: String, needs: String) -> Row {
    var row = Row(key: key, title: title, unit: unit)
    row.status = .pending("needs \(needs)")
    return row
  }

  static func notBuilt(_ key: String, _ title: String, unit: String) -> Row {
    var row = Row(key: key, title: title, unit: unit)
    row.status = .notBuilt
    return row
  }
}
