import Foundation

/// Prints the rows as text for people or as one JSON object for scripts.
struct Report {
  let machine: Machine
  let config: BenchConfig
  let rows: [Row]

  // MARK: Text

  func printText() {
    print("graph-bench — \(config.quick ? "--quick (smaller sizes, CI)" : "full run")")
    print(
      "machine: \(machine.processors) processors (nproc), \(machine.cpuModel ?? "CPU model n/a")")
    print("load average at start: \(machine.loadAverage ?? "n/a")")
    print("peers: ours ÷ peer is printed after each peer figure")
    for row in rows {
      print("")
      print("\(row.title) [\(row.unit)]")
      switch row.status {
      case .notBuilt:
        print("  not built yet")
        continue
      case .pending(let reason):
        print("  ours: pending: \(reason)")
      case .measured:
        break
      }
      var parts: [String] = []
      if let ours = row.ours { parts.append("ours \(Self.format(ours))") }
      let ratios = row.ratios
      for peer in Row.Peer.allCases {
        guard let value = row.peers[peer] else { continue }
        let ratio = ratios[peer].map { " (\(Self.format($0))×)" } ?? ""
        parts.append("\(peer.label) \(Self.format(value))\(ratio)")
      }
      if !parts.isEmpty { print("  " + parts.joined(separator: " | ")) }
      for figure in row.figures {
        print("  \(figure.label): \(figure.value.map(Self.format) ?? "n/a") \(figure.unit)")
      }
      for check in row.checks {
        print("  target \(check.target): \(Self.verdict(check))")
      }
      if let note = row.note { print("  note: \(note)") }
    }
  }

  static func verdict(_ check: Row.Check) -> String {
    guard let value = check.value, let met = check.met else { return "pending" }
    return "\(format(value)) — \(met ? "met" : "MISSED")"
  }

  static func format(_ value: Double) -> String {
    guard value.isFinite else { return "n/a" }
    let magnitude = abs(value)
    if magnitude >= 1e6 { return String(format: "%.2f M", value / 1e6) }
    if magnitude >= 1000 { return String(format: "%.0f", value) }
    if magnitude >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
  }

  // MARK: JSON

  func printJSON() {
    let object: [String: Any] = [
      "machine": [
        "processors": machine.processors,
        "cpuModel": machine.cpuModel.map { $0 as Any } ?? NSNull(),
        "loadAverage": machine.loadAverage.map { $0 as Any } ?? NSNull(),
      ],
      "mode": config.quick ? "quick" : "full",
      "rows": Dictionary(uniqueKeysWithValues: rows.map { ($0.key, json($0)) }),
    ]
    do {
      let data = try JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
      print(String(decoding: data, as: UTF8.self))
    } catch {
      fatalError("graph-bench: cannot encode the results: \(error)")
    }
  }

  private func json(_ row: Row) -> [String: Any] {
    let status: String
    switch row.status {
    case .measured: status = "measured"
    case .pending(let reason): status = "pending: \(reason)"
    case .notBuilt: status = "not built yet"
    }
    var object: [String: Any] = [
      "title": row.title, "unit": row.unit, "status": status, "ours": Self.number(row.ours),
      "note": row.note.map { $0 as Any } ?? NSNull(),
    ]
    let ratios = row.ratios
    var ratioObject: [String: Any] = [:]
    for peer in Row.Peer.allCases {
      object[peer.rawValue] = Self.number(row.peers[peer])
      ratioObject[peer.rawValue] = Self.number(ratios[peer])
    }
    object["oursOver"] = ratioObject
    object["figures"] = Dictionary(
      uniqueKeysWithValues: row.figures.map {
        ($0.key, ["value": Self.number($0.value), "unit": $0.unit] as [String: Any])
      })
    object["targets"] = Dictionary(
      uniqueKeysWithValues: row.checks.map {
        (
          $0.key,
          [
            "target": $0.target, "value": Self.number($0.value), "met": $0.met ?? NSNull(),
          ] as [String: Any]
        )
      })
    return object
  }

  private static func number(_ value: Double?) -> Any {
    guard let value, value.isFinite else { return NSNull() }
    return value
  }
}
