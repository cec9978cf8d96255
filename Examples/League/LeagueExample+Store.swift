import Foundation
import ObservedGraph
import ObservedGraphSQLite

// The SQLite file: a save that validation refuses (the seed's length rule and required
// relationship) leaves everything as it was; the save that follows writes the many-to-many
// relationship as rows of its join table; reopened, the file answers the model's templates, and
// a team's players come back as a fault that one query fulfils.

extension LeagueExample {
  /// Adds a player whose last name is empty while Glenn Robinson has had no team since the Bucks
  /// were deleted, and tries to save: both are refused, in one error, and nothing changes.
  func refuseInvalidSave() throws {
    beginStep("Save to League.sqlite: validation refuses it, and nothing changes")
    let shaquille = context.insert(Player.self)
    shaquille.firstName = "Shaquille"
    shaquille.teams = [try team("Miami Heat")]
    say("   Shaquille joins the Heat, his last name left empty; Glenn Robinson has no team")
    let pending = pendingCounts
    do {
      try context.save()
      say("   saved")
    } catch let error as ObjectGraphError {
      let errors = error.underlying.isEmpty ? [error] : error.underlying
      say("   save refused: \(error.kind), \(errors.count) errors:")
      for line in errors.map({ "\($0.kind): \($0)" }).sorted() { say("      \(line)") }
    }
    say(
      "   still pending, as before the save: \(pendingCounts) (same: \(pendingCounts == pending))")
    say(
      "   Glenn Robinson's teams: \(try player("Glenn Robinson").teams.map(\.name)), "
        + "Shaquille's last name: \"\(shaquille.lastName)\"")
    let reader = container.newContext()
    say("   players in the file: \(try reader.count(for: FetchRequest<Player>()))")
  }

  /// Gives Shaquille his last name and Glenn Robinson a team, saves, and prints the rows the save
  /// wrote to the many-to-many relationship's join table, with the names their keys stand for.
  func fixAndSave() throws {
    beginStep("Fix both and save: the join table of Player.teams gets a row per player and team")
    let shaquille = try context.fetch(
      FetchRequest<Player>(matching: try FetchPredicate(format: "firstName == 'Shaquille'")))
    for player in shaquille { player.lastName = "O'Neal" }
    try player("Glenn Robinson").teams = [try team("Boston Celtics")]
    _ = trace.take()
    try context.save()
    let statements = trace.take().filter { $0.contains(#"INSERT INTO "og_join_Player_teams""#) }
    // Each new pair is among the members of both sides; the store writes it once, from the side
    // the save reaches first, in that side's column order.
    var rows: Set<[Int]> = []
    for statement in statements {
      let keys = try Self.boundKeys(of: statement)
      rows.insert(statement.contains(#"("target", "source")"#) ? keys.reversed() : keys)
    }
    say(
      "   \(statements.count) INSERT statements into og_join_Player_teams, \(rows.count) rows "
        + "[source (Player), target (Team)]:")
    var names: [String: String] = [:]
    for object in context.registeredObjects {
      let name = (object as? Player)?.fullName ?? (object as? Team)?.name ?? "?"
      names["\(object.objectID.entityName) \(object.objectID.key)"] = name
    }
    for row in rows.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
      let player = names["Player \(row[0])"] ?? "?"
      let team = names["Team \(row[1])"] ?? "?"
      say("      \(row): \(player) plays for \(team)")
    }
  }

  /// Closes the file and opens it again in a new container; fetches through the templates, then
  /// reads a team's players: a to-many fault that one query over the join table fulfils.
  func reopenAndFireFaults() throws {
    beginStep(
      "Reopen the file in a new container: templates fetch from it, relationships are faults")
    try store.close()
    let reopened = PersistentContainer(
      store: try SQLiteStore(url: Self.storeURL(in: folder), model: model, options: traceOptions))
    self.reopened = reopened
    let reader = reopened.viewContext
    _ = trace.take()  // opening the store ran statements of its own
    let red = try model.fetchRequestFromTemplate(
      withName: "TeamsInColor", substitutionVariables: ["color": "Red"], as: Team.self)
    let redTeams = try reader.fetch(red)
    say("   TeamsInColor, $color = \"Red\": \(redTeams.map(\.name)), in one query:")
    printSQL()
    let green = try reader.fetch(
      model.fetchRequestFromTemplate(withName: "GreenTeams", as: Team.self))
    let wasFault = green.first?.isFault == true
    say("   GreenTeams: \(green.map(\.name)), in one query:")
    printSQL()
    guard let celtics = green.first else { throw MissingObject(description: "no green team") }
    say("   \(celtics.name) came back as a fault holding its values: isFault \(wasFault)")
    say("   reading its name fulfilled it from those values: isFault \(celtics.isFault)")
    let players = celtics.players
    say("   its players are a to-many fault; reading them (\(players.count)) runs:")
    printSQL()
    say("   they are \(players.names); reading them again ran \(trace.take().count) statements")
    guard let ray = players.first(where: { $0.fullName == "Ray Allen" }) else {
      throw MissingObject(description: "Ray Allen is not on the Celtics")
    }
    say("   Ray Allen's teams, from his side of the join table: \(ray.teams.map(\.name).sorted())")
    printSQL()
    say("   every player's teams, by a plain fetch of the reopened file:")
    for player in try reader.fetch(FetchRequest<Player>(matching: nil, sortedBy: Self.byName)) {
      say("      \(player.fullName): \(player.teams.map(\.name).sorted().joined(separator: ", "))")
    }
    _ = trace.take()
  }

  /// Inserted, updated and deleted objects the context holds.
  private var pendingCounts: String {
    "\(context.insertedObjects.count) inserted, \(context.updatedObjects.count) updated, "
      + "\(context.deletedObjects.count) deleted"
  }

  /// Prints the statements the trace collected since it was last read, without their times.
  private func printSQL() {
    for line in trace.take() { say("      \(line)") }
  }

  /// The keys a join row's `INSERT` bound, from its trace line: `… [12, 3]` gives `[12, 3]`.
  static func boundKeys(of line: String) throws -> [Int] {
    guard let open = line.range(of: " [", options: .backwards), line.hasSuffix("]") else {
      throw MissingObject(description: "no bound values in \(line)")
    }
    let values = line[open.upperBound..<line.index(before: line.endIndex)]
    return values.split(separator: ",").compactMap {
      Int($0.trimmingCharacters(in: .whitespaces))
    }
  }
}
