import Foundation
import ObservedGraph
import ObservedGraphSQLite

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

  /// Makes a file as the previous version of the app did (model 1.0.0), then opens it with the
  /// current model through a plan of both versions: the open migrates it in place.
  func openPreviousVersion() throws {
    beginStep("Open a file the previous model version made (InventoryV1.json, version 1.0.0)")
    let url = folder.appendingPathComponent("InventoryV1.sqlite")
    try Self.makePreviousVersionFile(at: url)
    say("   version 1.0.0 called an asset's label `name`, and its counts had no date")
    for asset in try openMigrated(url) { say("   \(asset)") }
  }

  /// A file of model version 1.0.0 with a stapler counted 7 times at the front desk, as the
  /// previous version of the app saved it.
  static func makePreviousVersionFile(at url: URL) throws {
    let store = try SQLiteStore(url: url, model: try previousModel())
    let context = PersistentContainer(store: store).viewContext
    let stapler = try context.insertObject(forEntityName: "Asset")
    try stapler.setValue("Stapler", forKey: "name")
    let desk = try context.insertObject(forEntityName: "Location")
    try desk.setValue("Front Desk", forKey: "label")
    let count = try context.insertObject(forEntityName: "Inventory")
    try count.setValue(7, forKey: "count")
    try count.setValue(stapler, forKey: "asset")
    try count.setValue(desk, forKey: "location")
    try context.save()
    try store.close()
  }

  /// Opens a file of either version with the current model, migrating a version 1.0.0 file, and
  /// describes each asset and its counts; the store is closed again.
  func openMigrated(_ url: URL) throws -> [String] {
    let plan = try MigrationPlan(versions: [try Self.previousModel(), model])
    let stages = try plan.validate(against: url).map(\.description)
    say(
      "   a dry run of the plan: \(stages.isEmpty ? "nothing to migrate" : "migrates to \(stages.joined(separator: ", "))")"
    )
    var options = SQLiteStore.Options()
    options.migrationPlan = plan
    let store = try SQLiteStore(url: url, model: model, options: options)
    defer { try? store.close() }
    say("   opened: the file is now version \(store.metadata["modelVersion"] ?? "?")")
    let reader = PersistentContainer(store: store).newContext()
    let assets = try reader.fetch(
      FetchRequest<ManagedObject>(entityName: "Asset", sortDescriptors: [FetchSort("label")]))
    return try assets.map { asset in
      let counts = try (asset.value(forKey: "inventories") as? Set<ManagedObject> ?? [])
        .map { try describe($0) }.sorted()
      return
        "\(try asset.value(forKey: "label") as? String ?? ""): \(counts.joined(separator: "; "))"
    }
  }

  /// Prints the statements the trace collected since it was last read, without their times.
  private func printSQL(_ trace: TraceLines) {
    for line in trace.take() { say("      \(line)") }
  }
}
