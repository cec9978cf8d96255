import ObservedGraph
import UndoLog

/// The example's state: a context on the League model with an undo log, and a step counter for
/// the output.
///
/// The league lives in memory (`Examples/Inventory` shows a store); steps find their objects by
/// name, the way a reader would.
final class LeagueExample {
  /// Where each line of output goes: `print` in the program, an array in the tests.
  let say: (String) -> Void
  let model: ObjectModel
  let context: ObjectContext
  let undoLog = UndoLog()
  private var stepNumber = 0

  /// Players in the seed's order: by last name, then first name.
  static let byName = [FetchSort("lastName"), FetchSort("firstName")]

  /// Builds the model from the classes and a context that records every change for undo.
  init(say: @escaping (String) -> Void) throws {
    self.say = say
    model = try ObjectModel(types: [Person.self, Player.self, Team.self])
    context = ObjectContext(model: model)
    context.undoLog = undoLog
  }

  /// Runs every step of the example, in order.
  func run() throws {
    say("ObservedGraph League Manager example: \(model)")
    describeModel()
    refuseAbstractPerson()
    try insertLeague()
    try fetchSorted()
    try readWPlayers()
    try followLiveResults()
    try deleteTeam()
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

/// A step asked for an object that is not there: the example's own mistake, reported as an
/// error so that a test fails instead of stopping.
struct MissingObject: Error, CustomStringConvertible {
  let description: String
}
