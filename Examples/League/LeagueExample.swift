import Foundation
import ObservedGraph
import ObservedGraphSQLite
import UndoLog

/// The example's state: the League model with its fetch request templates, a container on an
/// SQLite file in a temporary folder, its context with an undo log, and a step counter for the
/// output.
///
/// The steps edit the league in the context (nothing reaches the file until the first save, so
/// fetches answer from the context's unsaved objects), then save, reopen the file in a new
/// container and read it back. Steps find their objects by name, the way a reader would.
final class LeagueExample {
  /// Where each line of output goes: `print` in the program, an array in the tests.
  let say: (String) -> Void
  let model: ObjectModel
  /// The folder of the store's file, removed by ``finish()``.
  let folder: URL
  /// The store on the file, and the container the edits are made in.
  let store: SQLiteStore
  let container: PersistentContainer
  /// The container on the same file opened again by ``reopen()``, or nil before.
  var reopened: PersistentContainer?
  /// What the stores' SQL trace wrote since it was last read.
  let trace = TraceLines()
  let undoLog = UndoLog()
  private var stepNumber = 0

  /// Players in the seed's order: by last name, then first name.
  static let byName = [FetchSort("lastName"), FetchSort("firstName")]

  /// Builds the model from the classes and the templates, and a container on a new SQLite file
  /// in a temporary folder whose context records every change for undo.
  init(say: @escaping (String) -> Void) throws {
    self.say = say
    model = try ObjectModel(
      types: [Person.self, Player.self, Team.self], fetchRequestTemplates: Self.templates)
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("league-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    store = try SQLiteStore(
      url: Self.storeURL(in: folder), model: model, options: Self.options(trace))
    container = PersistentContainer(store: store)
    container.viewContext.undoLog = undoLog
  }

  /// Store options whose SQL trace goes to `trace`.
  static func options(_ trace: TraceLines) -> SQLiteStore.Options {
    var options = SQLiteStore.Options()
    options.sqlTrace = { trace.append("SQL: \($0.statement)") }
    return options
  }

  /// Store options whose SQL trace goes to ``trace``.
  var traceOptions: SQLiteStore.Options { Self.options(trace) }

  /// The store's file in `folder`.
  static func storeURL(in folder: URL) -> URL { folder.appendingPathComponent("League.sqlite") }

  /// The context the steps edit.
  var context: ObjectContext { container.viewContext }

  /// Runs every step of the example, in order, and removes the file at the end.
  func run() throws {
    say("ObservedGraph League Manager example: \(model)")
    try runEdits()
    try runStore()
    try finish()
  }

  /// The steps that edit the league before anything is saved.
  func runEdits() throws {
    describeModel()
    refuseAbstractPerson()
    try insertLeague()
    try fetchSorted()
    try readWPlayers()
    try followLiveResults()
    try deleteTeam()
  }

  /// The steps that save the league, refused first by validation, and read the file back.
  func runStore() throws {
    try refuseInvalidSave()
    try fixAndSave()
    try reopenAndFireFaults()
  }

  /// Closes the stores and removes their folder.
  func finish() throws {
    beginStep("Close the stores and remove their folder")
    if !store.isClosed { try store.close() }
    try reopened?.store.close()
    try FileManager.default.removeItem(at: folder)
    say("   removed: \(!FileManager.default.fileExists(atPath: folder.path))")
  }

  /// The teams, by name.
  var teams: [Team] {
    (try? context.fetch(FetchRequest<Team>(matching: nil, sortedBy: [FetchSort("name")]))) ?? []
  }

  /// The team named `name`.
  /// - Throws: ``MissingObject`` when there is none.
  func team(_ name: String) throws -> Team {
    guard let team = teams.first(where: { $0.name == name }) else {
      throw MissingObject(description: "no team named \(name)")
    }
    return team
  }

  /// The player, not deleted, with the full name `name`.
  /// - Throws: ``MissingObject`` when there is none.
  func player(_ name: String) throws -> Player {
    let players = try context.fetch(FetchRequest<Player>())
    guard let player = players.first(where: { $0.fullName == name }) else {
      throw MissingObject(description: "no player named \(name)")
    }
    return player
  }

  /// Prints the heading of the next step, numbered in the order the steps run.
  func beginStep(_ title: String) {
    // Each step is one user event: what the previous step did becomes one undo group.
    context.processPendingChanges()
    stepNumber += 1
    say("")
    say("\(stepNumber). \(title)")
  }
}

extension Collection<Player> {
  /// The players' full names by last name, then first name, joined with commas.
  var names: String {
    sorted { ($0.lastName, $0.firstName) < ($1.lastName, $1.firstName) }
      .map(\.fullName).joined(separator: ", ")
  }
}

/// Trace lines collected for printing (the store's trace may be called from any thread).
final class TraceLines: @unchecked Sendable {
  // @unchecked Sendable: the lock guards `lines`.
  private let lock = NSLock()
  private var lines: [String] = []

  func append(_ line: String) { lock.withLock { lines.append(line) } }

  /// The lines so far; then forgets them.
  func take() -> [String] {
    lock.withLock {
      defer { lines.removeAll() }
      return lines
    }
  }
}

/// A step asked for an object that is not there: the example's own mistake, reported as an
/// error so that a test fails instead of stopping.
struct MissingObject: Error, CustomStringConvertible {
  let description: String
}
