import Foundation
import ObservedGraph
import ObservedGraphSQLite

/// The example's state: the model read from `Inventory.json`, a container on an SQLite file in a
/// temporary folder, and a step counter for the output.
///
/// Every object is a plain `ManagedObject`: no class is declared for any entity, so each value is
/// read and written by key, as in the seed's "generic instances of NSManagedObject".
final class InventoryExample {
  /// Where each line of output goes: `print` in the program, an array in the tests.
  let say: (String) -> Void
  let model: ObjectModel
  /// The folder of the store's file, removed by ``finish()``.
  let folder: URL
  /// The container on the file; ``reopen(trace:)`` replaces it with one on a new store.
  private(set) var container: PersistentContainer
  private var stepNumber = 0

  /// Reads the model file and opens a store in a new SQLite file in a temporary folder.
  init(say: @escaping (String) -> Void) throws {
    self.say = say
    model = try ObjectModel(
      entities: try Self.loadEntities(), fetchRequestTemplates: [], version: "2.0.0")
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("inventory-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    container = PersistentContainer(
      store: try SQLiteStore(url: folder.appendingPathComponent("Inventory.sqlite"), model: model))
  }

  /// The model file shipped with the example (`Inventory.json`, version 2.0.0; or, for the
  /// previous version, `InventoryV1.json`), decoded into entity descriptions.
  static func loadEntities(file: String = "Inventory") throws -> [EntityDescription] {
    guard let url = Bundle.module.url(forResource: file, withExtension: "json") else {
      throw CocoaError(.fileNoSuchFile)
    }
    return try JSONDecoder().decode([EntityDescription].self, from: Data(contentsOf: url))
  }

  /// The previous version of the model, 1.0.0: an asset's `label` was its `name`, and a count
  /// had no `date`.
  static func previousModel() throws -> ObjectModel {
    try ObjectModel(
      entities: try loadEntities(file: "InventoryV1"), fetchRequestTemplates: [], version: "1.0.0")
  }

  /// The store's file.
  var storeURL: URL { folder.appendingPathComponent("Inventory.sqlite") }

  /// The context the steps change.
  var context: ObjectContext { container.viewContext }

  /// Runs every step of the example, in order, and removes the file at the end.
  func run() throws {
    say("ObservedGraph Inventory example: \(model)")
    describeModel()
    try insertStock()
    try save()
    try reopenAndFireFaults()
    try refuseBadInput()
    try deleteOneCount()
    try deleteAsset()
    try deleteLocation()
    try save()
    try reopenAndCount()
    try openPreviousVersion()
    try finish()
  }

  /// Closes the store and removes its folder.
  func finish() throws {
    beginStep("Close the store and remove its folder")
    try container.store.close()
    try FileManager.default.removeItem(at: folder)
    say("   removed: \(!FileManager.default.fileExists(atPath: folder.path))")
  }

  /// Closes the store and opens the file again in a new store, with the SQL trace going to
  /// `trace` (or, when nil, where `OBSERVEDGRAPH_SQL_DEBUG` says).
  func reopen(trace: TraceLines? = nil) throws {
    try container.store.close()
    var options = SQLiteStore.Options()
    if let trace { options.sqlTrace = { trace.append("SQL: \($0.statement)") } }
    container = PersistentContainer(
      store: try SQLiteStore(url: storeURL, model: model, options: options))
    trace?.removeAll()  // opening the store ran statements of its own
  }

  /// Prints the heading of the next step, numbered in the order the steps run.
  func beginStep(_ title: String) {
    context.processPendingChanges()
    stepNumber += 1
    say("")
    say("\(stepNumber). \(title)")
  }
}

/// Trace lines collected for printing (the store's trace may be called from any thread): each
/// statement without its time, so that the output is the same on every run.
final class TraceLines: @unchecked Sendable {
  // @unchecked Sendable: the lock guards `lines`.
  private let lock = NSLock()
  private var lines: [String] = []

  func append(_ line: String) { lock.withLock { lines.append(line) } }
  func removeAll() { lock.withLock { lines.removeAll() } }

  /// The lines so far; then forgets them.
  func take() -> [String] {
    lock.withLock {
      defer { lines.removeAll() }
      return lines
    }
  }
}
