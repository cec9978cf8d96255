import ObservedGraph
import Testing

@testable import league

@Suite struct LeagueExampleTests {
  /// The whole run, line by line: the model, the abstract entity's error, the teams, the sorted
  /// fetches, wPlayers before and after a refresh, and each change of the live results.
  @Test func transcript() throws {
    let lines = Lines()
    let example = try LeagueExample(say: lines.say)
    try example.run()
    expectTranscript(lines.all, Self.expected)
  }

  /// The league the run leaves, read from the objects rather than from the output.
  @Test func leagueAfterTheRun() throws {
    let example = try LeagueExample(say: { _ in })
    try example.run()
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

  static let expected = #"""
    ObservedGraph League Manager example: ObjectModel(Person, Player, Team)

    1. The model: Person (abstract) -> Player, and Team
       Person (abstract): firstName, lastName, email, dateOfBirth
       Player (parent Person): teams; inherits firstName, lastName, email, dateOfBirth
       Team: name, uniformColor, players
          fetched property wPlayers: Player where lastName BEGINSWITH "W" AND ANY teams == $FETCH_SOURCE

    2. Insert a Person by name: it is abstract
       abstractEntity: Person is abstract; insert one of its sub-entities (Player)

    3. Insert three teams and their players (Ray Allen plays for all three)
       [Boston Celtics, Green] Ray Allen, Kevin Garnett, Paul Pierce
       [Miami Heat, Red] Ray Allen, Chris Bosh, LeBron James, Dwyane Wade, Tyson Warner
       [Milwaukee Bucks, Green] Ray Allen, Glenn Robinson
       Ray Allen's teams: Boston Celtics, Miami Heat, Milwaukee Bucks
       Dwyane Wade's email, set through the Heat: heat@example.com

    4. Fetch, sorted: every Person, the green teams, players on several teams
       Person by last name: Ray Allen, Chris Bosh, Kevin Garnett, LeBron James, Paul Pierce, Glenn Robinson, Dwyane Wade, Tyson Warner
       their entity: Player
       uniformColor == "Green": Boston Celtics, Milwaukee Bucks
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
    """#
}
