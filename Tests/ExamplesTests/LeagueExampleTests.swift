import Foundation
import ObservedGraph
import Testing

@testable import league

@Suite struct LeagueExampleTests {
  /// The whole run, line by line: the model and its templates, the abstract entity's error, the
  /// teams, the sorted fetches (two through the templates), wPlayers before and after a refresh,
  /// each change of the live results, the save validation refuses, the join table's rows, and the
  /// reopened file's queries and faults.
  @Test func transcript() throws {
    let lines = Lines()
    let example = try LeagueExample(say: lines.say)
    try example.run()
    expectTranscript(lines.all, Self.expected)
  }

  /// The league the edits leave, read from the objects rather than from the output.
  @Test func leagueAfterTheEdits() throws {
    let example = try LeagueExample(say: { _ in })
    defer { try? example.finish() }
    try example.runEdits()
    let heat = try example.team("Miami Heat")
    #expect(
      heat.players.names
        == "Chris Bosh, LeBron James, Alonzo Mourning, Dwyane Wade, Antoine Walker, Tyson Warner")
    let ray = try example.player("Ray Allen")
    #expect(Set(ray.teams.map(\.name)) == ["Boston Celtics"])
    #expect(try example.team("Boston Celtics").players.contains(ray))
    let lebron = try example.player("LeBron James")
    #expect(!lebron.isDeleted && lebron.teams == [heat])
    let robinson = try example.player("Glenn Robinson")
    #expect(robinson.teams.isEmpty && !robinson.isDeleted)
    #expect(example.teams.map(\.name) == ["Boston Celtics", "Miami Heat"])
    let wPlayers = try heat.value(forKey: "wPlayers") as? [ManagedObject] ?? []
    #expect(
      wPlayers.compactMap { ($0 as? Player)?.fullName } == [
        "Dwyane Wade", "Antoine Walker", "Tyson Warner",
      ])

    // Undoing the last step brings the Bucks back, with both their players.
    example.context.processPendingChanges()
    try example.undoLog.undo()
    example.context.processPendingChanges()
    let bucks = try example.team("Milwaukee Bucks")
    #expect(bucks.players == [ray, robinson])
    #expect(Set(ray.teams.map(\.name)) == ["Boston Celtics", "Milwaukee Bucks"])
  }

  /// The refused save changes nothing; the one that follows writes the league, and a new
  /// container on the file reads it back, through the templates too. The folder is removed.
  @Test func fileAfterTheSaves() throws {
    let example = try LeagueExample(say: { _ in })
    try example.runEdits()
    try example.refuseInvalidSave()
    #expect(example.context.hasChanges)
    #expect(try example.player("Glenn Robinson").teams.isEmpty)
    try example.fixAndSave()
    #expect(!example.context.hasChanges)
    try example.reopenAndFireFaults()
    let reader = try #require(example.reopened).newContext()
    let players = try reader.fetch(
      FetchRequest<Player>(matching: nil, sortedBy: LeagueExample.byName))
    #expect(players.count == 11)
    let pairs = players.flatMap { player in player.teams.map { "\(player.fullName)/\($0.name)" } }
    #expect(pairs.count == 11)
    #expect(pairs.contains("Glenn Robinson/Boston Celtics"))
    #expect(pairs.contains("Shaquille O'Neal/Miami Heat"))
    #expect(!pairs.contains { $0.hasSuffix("Milwaukee Bucks") })
    let red = try example.model.fetchRequestFromTemplate(
      withName: "TeamsInColor", substitutionVariables: ["color": "Red"], as: Team.self)
    let heat = try reader.fetch(red)
    #expect(heat.map(\.name) == ["Miami Heat"])
    #expect(heat.first?.players.count == 7)
    try example.finish()
    #expect(!FileManager.default.fileExists(atPath: example.folder.path))
  }

  static let expected = #"""
    ObservedGraph League Manager example: ObjectModel(Person, Player, Team)

    1. The model: Person (abstract) -> Player, and Team; two fetch request templates
       Person (abstract): firstName, lastName, email, dateOfBirth
       Player (parent Person): teams; inherits firstName, lastName, email, dateOfBirth
       Team: name, uniformColor, players
          fetched property wPlayers: Player where lastName BEGINSWITH "W" AND ANY teams == $FETCH_SOURCE
       fetch request template GreenTeams: Team where uniformColor == "Green"
       fetch request template TeamsInColor: Team where uniformColor == $color (variables $color)

    2. Insert a Person by name: it is abstract
       abstractEntity: Person is abstract; insert one of its sub-entities (Player)

    3. Insert three teams and their players (Ray Allen plays for all three)
       [Boston Celtics, Green] Ray Allen, Kevin Garnett, Paul Pierce
       [Miami Heat, Red] Ray Allen, Chris Bosh, LeBron James, Dwyane Wade, Tyson Warner
       [Milwaukee Bucks, Green] Ray Allen, Glenn Robinson
       Ray Allen's teams: Boston Celtics, Miami Heat, Milwaukee Bucks
       Dwyane Wade's email, set through the Heat: heat@example.com

    4. Fetch, sorted: every Person, teams from the templates, players on several teams
       Person by last name: Ray Allen, Chris Bosh, Kevin Garnett, LeBron James, Paul Pierce, Glenn Robinson, Dwyane Wade, Tyson Warner
       their entity: Player
       template GreenTeams: Boston Celtics, Milwaukee Bucks
       template TeamsInColor, $color = "Red" (uniformColor == "Red"): Miami Heat
       teams.@count > 1: Ray Allen
       #Predicate, last name descending: ["Tyson Warner", "Dwyane Wade"]

    5. The fetched property wPlayers of the Heat
          Dwyane Wade
          Tyson Warner
       Antoine Walker joins the Heat; wPlayers is kept until the team is refreshed:
          Dwyane Wade
          Tyson Warner
       after refresh(heat, mergeChanges: true):
          Dwyane Wade
          Antoine Walker
          Tyson Warner

    6. Live results: the Heat's players by last name, through five edits and an undo
       roster: 0 Ray Allen, 1 Chris Bosh, 2 LeBron James, 3 Dwyane Wade, 4 Antoine Walker, 5 Tyson Warner

       Alonzo Mourning joins, his names entered the wrong way round:
       change: inserted Mourning Alonzo at 1

       His names are corrected: he moves:
       change: moved Alonzo Mourning from 1 to 3

       Ray Allen leaves the Heat (removed from heat.players; his teams follow):
       change: removed Ray Allen at 0
       Ray Allen's teams now: ["Boston Celtics", "Milwaukee Bucks"]

       Dwyane Wade's email changes: updated in place:
       change: updated Dwyane Wade at 3

       LeBron James is deleted:
       change: removed LeBron James at 1
       roster: 0 Chris Bosh, 1 Alonzo Mourning, 2 Dwyane Wade, 3 Antoine Walker, 4 Tyson Warner

       undo "Delete LeBron James":
       change: inserted LeBron James at 1
       roster: 0 Chris Bosh, 1 LeBron James, 2 Alonzo Mourning, 3 Dwyane Wade, 4 Antoine Walker, 5 Tyson Warner
       LeBron James is back on: ["Miami Heat"], deleted false

    7. Delete the Milwaukee Bucks (nullify: its players stay, without it)
       [Boston Celtics, Green] Ray Allen, Kevin Garnett, Paul Pierce
       [Miami Heat, Red] Chris Bosh, LeBron James, Alonzo Mourning, Dwyane Wade, Antoine Walker, Tyson Warner
       Glenn Robinson's teams: [], deleted false
       Ray Allen's teams: ["Boston Celtics"]

    8. Save to League.sqlite: validation refuses it, and nothing changes
       Shaquille joins the Heat, his last name left empty; Glenn Robinson has no team
       save refused: multipleErrors, 2 errors:
          missingValue: Player.teams: Player#10 has no value for non-optional 'teams'
          tooShort: Player.lastName: lastName has 0 characters or bytes, fewer than 1
       still pending, as before the save: 13 inserted, 0 updated, 0 deleted (same: true)
       Glenn Robinson's teams: [], Shaquille's last name: ""
       players in the file: 0

    9. Fix both and save: the join table of Player.teams gets a row per player and team
       11 INSERT statements into og_join_Player_teams, 11 rows [source (Player), target (Team)]:
          [4, 1]: Dwyane Wade plays for Miami Heat
          [5, 1]: Tyson Warner plays for Miami Heat
          [6, 1]: LeBron James plays for Miami Heat
          [7, 1]: Chris Bosh plays for Miami Heat
          [8, 2]: Paul Pierce plays for Boston Celtics
          [9, 2]: Kevin Garnett plays for Boston Celtics
          [10, 2]: Glenn Robinson plays for Boston Celtics
          [11, 2]: Ray Allen plays for Boston Celtics
          [12, 1]: Antoine Walker plays for Miami Heat
          [13, 1]: Alonzo Mourning plays for Miami Heat
          [14, 1]: Shaquille O'Neal plays for Miami Heat

    10. Reopen the file in a new container: templates fetch from it, relationships are faults
       TeamsInColor, $color = "Red": ["Miami Heat"], in one query:
          SQL: SELECT t."og_pk", 3 AS "og_entity", t."name", t."uniformColor" FROM "Team" AS t WHERE t."og_entity" = 3 AND (og_test('==', 0, t."uniformColor", ?) = 1) ORDER BY t."name" ASC, t."og_pk" ['Red']
       GreenTeams: ["Boston Celtics"], in one query:
          SQL: SELECT t."og_pk", 3 AS "og_entity", t."name", t."uniformColor" FROM "Team" AS t WHERE t."og_entity" = 3 AND (og_test('==', 0, t."uniformColor", ?) = 1) ORDER BY t."name" ASC, t."og_pk" ['Green']
       Boston Celtics came back as a fault holding its values: isFault true
       reading its name fulfilled it from those values: isFault false
       its players are a to-many fault; reading them (4) runs:
          SQL: SELECT d."og_pk", d."og_entity", d."firstName", d."lastName", d."email", d."dateOfBirth" FROM "og_join_Player_teams" AS j JOIN "Person" AS d ON d."og_pk" = j."source" WHERE j."target" = ? [2]
       they are Ray Allen, Kevin Garnett, Paul Pierce, Glenn Robinson; reading them again ran 0 statements
       Ray Allen's teams, from his side of the join table: ["Boston Celtics"]
          SQL: SELECT d."og_pk", d."og_entity", d."name", d."uniformColor" FROM "og_join_Player_teams" AS j JOIN "Team" AS d ON d."og_pk" = j."target" WHERE j."source" = ? [11]
       every player's teams, by a plain fetch of the reopened file:
          Ray Allen: Boston Celtics
          Chris Bosh: Miami Heat
          Kevin Garnett: Boston Celtics
          LeBron James: Miami Heat
          Alonzo Mourning: Miami Heat
          Shaquille O'Neal: Miami Heat
          Paul Pierce: Boston Celtics
          Glenn Robinson: Boston Celtics
          Dwyane Wade: Miami Heat
          Antoine Walker: Miami Heat
          Tyson Warner: Miami Heat

    11. Close the stores and remove their folder
       removed: true
    """#
}
