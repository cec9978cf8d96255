import Foundation
import ObservedGraph

// The SQLite file: reopened, it gives objects back lazily. The store's SQL trace shows what each
// read costs: a fetch is one query, a to-many fault one query when first used, and the to-one
// faults it leaves are loaded together, in one query, when the first of them is read.

extension InventoryExample {
  /// Reopens the file with the SQL trace on, fetches the locations, and fires the faults they
  /// lead to, printing the statements each read runs.
  func reopenAndFireFaults() throws {
    beginStep("Reopen the file with the SQL trace on; fire the faults one read at a time")
    let trace = TraceLines()
    try reopen(trace: trace)
    let locations = try fetch("Location")
    say("   fetching the locations by label runs:")
    printSQL(trace)
    guard let office = locations.first else { throw MissingObject(description: "no location") }
    let wasFault = office.isFault
    let name = try office.value(forKey: "label") as? String ?? ""
    say("   \(name) came back as a fault holding its values: isFault \(wasFault)")
    say("   reading its label ran \(trace.take().count) statements")
    let inventories = try office.value(forKey: "inventories") as? Set<ManagedObject> ?? []
    say("   its inventories are a to-many fault; counting them (\(inventories.count)) runs:")
    printSQL(trace)
    // By count: reading a count's own attribute loads nothing more.
    let sorted = try inventories.sorted {
      try $0.value(forKey: "count") as? Int16 ?? 0 < $1.value(forKey: "count") as? Int16 ?? 0
    }
    guard let first = sorted.first, let asset = try first.value(forKey: "asset") as? ManagedObject
    else { throw MissingObject(description: "no count with an asset") }
    say("   reading the counts ran \(trace.take().count) statements")
    say("   the asset of the first count is a fault: isFault \(asset.isFault)")
    let assetLabel = try asset.value(forKey: "label") as? String ?? ""
    say("   reading its label (\(assetLabel)) loads the waiting assets in one query:")
    printSQL(trace)
    let rest = try sorted.dropFirst().map { try label(of: $0, at: "asset") }
    say(
      "   the other assets (\(rest.joined(separator: ", "))) ran \(trace.take().count) statements")
    try printStock()
    say("   printing the whole stock ran:")
    printSQL(trace)
  }

  /// Reopens the file (the trace as `OBSERVEDGRAPH_SQL_DEBUG` says) and counts what it holds.
  func reopenAndCount() throws {
    beginStep("Reopen the file and count what it holds")
    try reopen()
    let reader = container.newContext()
    for entity in ["Asset", "Inventory", "Location"] {
      let count = try reader.count(
        for: FetchRequest<ManagedObject>(entityName: entity, predicate: nil))
      say("   \(entity): \(count)")
    }
    try printStock(in: reader)
  }

  /// Prints the statements the trace collected since it was last read, without their times.
  private func printSQL(_ trace: TraceLines) {
    for line in trace.take() { say("      \(line)") }
  }
}
