import ObservedGraph
import UndoLog

// Live results: the Heat's roster, by name, kept current as the league changes. Each user event
// (one `processPendingChanges()`) that changes the roster delivers one change, which says where
// players were inserted, removed, moved and updated in place: what a table view needs.

extension LeagueExample {
  /// Follows the Heat's players through an insert, a rename that moves a player, a departure
  /// through the many-to-many relationship, an edit in place, a delete, and the undo of that
  /// delete.
  func followLiveResults() throws {
    beginStep("Live results: the Heat's players by last name, through five edits and an undo")
    let roster = try FetchedResults(
      context: context,
      request: FetchRequest<Player>(
        matching: try FetchPredicate(format: "ANY teams.name == %@", "Miami Heat"),
        sortedBy: LeagueExample.byName))
    printRoster(roster)
    let token = roster.onChange { [say] change in
      for line in Self.describe(change) { say("   change: \(line)") }
    }
    defer { token.invalidate() }
    let heat = try team("Miami Heat")

    edit("Alonzo Mourning joins, his names entered the wrong way round") {
      let mourning = context.insert(Player.self)
      mourning.firstName = "Mourning"
      mourning.lastName = "Alonzo"
      mourning.teams = [heat]
    }
    try edit("His names are corrected: he moves") {
      let mourning = try player("Mourning Alonzo")
      (mourning.firstName, mourning.lastName) = ("Alonzo", "Mourning")
    }
    try edit("Ray Allen leaves the Heat (removed from heat.players; his teams follow)") {
      heat.players.remove(try player("Ray Allen"))
    }
    say("   Ray Allen's teams now: \(try player("Ray Allen").teams.map(\.name).sorted())")
    try edit("Dwyane Wade's email changes: updated in place") {
      try player("Dwyane Wade").email = "wade@example.com"
    }
    try edit("LeBron James is deleted") {
      try context.delete(try player("LeBron James"))
      undoLog.setActionName("Delete LeBron James")
    }
    printRoster(roster)
    say("")
    say("   undo \"\(undoLog.undoActionName)\":")
    try undoLog.undo()
    context.processPendingChanges()
    printRoster(roster)
    let lebron = try player("LeBron James")
    say(
      "   LeBron James is back on: \(lebron.teams.map(\.name).sorted()), deleted \(lebron.isDeleted)"
    )
  }

  /// Makes one edit as one user event, announced by `title`; the roster prints its change.
  private func edit(_ title: String, _ body: () throws -> Void) rethrows {
    say("")
    say("   \(title):")
    try body()
    context.processPendingChanges()
  }

  /// Prints the roster with each player's index.
  private func printRoster(_ roster: FetchedResults<Player>) {
    let entries = roster.objects.enumerated().map { "\($0.offset) \($0.element.fullName)" }
    say("   roster: \(entries.joined(separator: ", "))")
  }

  /// One line per removal, insertion, move and update of a change, by index.
  static func describe(_ change: FetchedResults<Player>.Change) -> [String] {
    var lines: [String] = []
    for removal in change.difference.removals {
      guard case .remove(let offset, let player, nil) = removal else { continue }
      lines.append("removed \(player.fullName) at \(offset)")
    }
    for insertion in change.difference.insertions {
      guard case .insert(let offset, let player, let from) = insertion else { continue }
      lines.append(
        from.map { "moved \(player.fullName) from \($0) to \(offset)" }
          ?? "inserted \(player.fullName) at \(offset)")
    }
    for (offset, player) in zip(change.updatedOffsets, change.updated) {
      lines.append("updated \(player.fullName) at \(offset)")
    }
    return lines
  }
}
