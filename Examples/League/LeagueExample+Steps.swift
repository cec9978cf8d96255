import Foundation
import ObservedGraph

// One function per step. Each changes or reads the league through the public API and prints
// what it looks like afterwards.

extension LeagueExample {
  /// Prints each entity with its parent, its own properties and its fetched properties, then the
  /// model's fetch request templates.
  func describeModel() {
    beginStep("The model: Person (abstract) -> Player, and Team; two fetch request templates")
    for entity in model.entities.sorted(by: { $0.name < $1.name }) {
      var traits: [String] = []
      if entity.isAbstract { traits.append("abstract") }
      if let parent = entity.parentName { traits.append("parent \(parent)") }
      let own = entity.attributes.map(\.name) + entity.relationships.map(\.name)
      let inherited = entity.allAttributes.map(\.name).filter { !own.contains($0) }
      var line = "   \(entity.name)"
      if !traits.isEmpty { line += " (\(traits.joined(separator: ", ")))" }
      line += ": \(own.joined(separator: ", "))"
      if !inherited.isEmpty { line += "; inherits \(inherited.joined(separator: ", "))" }
      say(line)
      for fetched in entity.fetchedProperties { say("      fetched property \(fetched)") }
    }
    for template in model.fetchRequestTemplates {
      let variables = template.variableNames.map { "$" + $0 }
      say(
        "   fetch request template \(template)"
          + (variables.isEmpty ? "" : " (variables \(variables.joined(separator: ", ")))"))
    }
  }

  /// Tries to insert a `Person` by name: the entity is abstract, so the context refuses.
  func refuseAbstractPerson() {
    beginStep("Insert a Person by name: it is abstract")
    do {
      _ = try context.insertObject(forEntityName: "Person")
      say("   inserted")
    } catch let error as ObjectGraphError {
      say("   \(error.kind): \(error)")
    } catch {
      say("   \(error)")
    }
  }

  /// Inserts three teams and their players. Ray Allen plays for all three: the many-to-many
  /// relationship holds him on each team, and the three teams on him.
  func insertLeague() throws {
    beginStep("Insert three teams and their players (Ray Allen plays for all three)")
    var teams: [String: Team] = [:]
    for (name, color) in [
      ("Miami Heat", "Red"), ("Boston Celtics", "Green"), ("Milwaukee Bucks", "Green"),
    ] {
      let team = context.insert(Team.self)
      team.name = name
      team.uniformColor = color
      teams[name] = team
    }
    for (first, last, teamNames) in [
      ("Dwyane", "Wade", ["Miami Heat"]), ("Tyson", "Warner", ["Miami Heat"]),
      ("LeBron", "James", ["Miami Heat"]), ("Chris", "Bosh", ["Miami Heat"]),
      ("Paul", "Pierce", ["Boston Celtics"]), ("Kevin", "Garnett", ["Boston Celtics"]),
      ("Glenn", "Robinson", ["Milwaukee Bucks"]),
      ("Ray", "Allen", ["Milwaukee Bucks", "Boston Celtics", "Miami Heat"]),
    ] {
      let player = context.insert(Player.self)
      player.firstName = first
      player.lastName = last
      for name in teamNames {
        player.teams.insert(teams[name]!)  // the team's players gain the player
      }
    }
    // Set by key from the team's side too: the email of every Heat player, through a key path.
    try team("Miami Heat").setValue("heat@example.com", forKeyPath: "players.email")
    printLeague()
    let ray = try player("Ray Allen")
    say("   Ray Allen's teams: \(ray.teams.map(\.name).sorted().joined(separator: ", "))")
    say(
      "   Dwyane Wade's email, set through the Heat: \(try player("Dwyane Wade").email ?? "none")")
  }

  /// Fetches with sort keys: every person (the abstract entity gives its sub-entity's objects),
  /// the model's templates "GreenTeams" and "TeamsInColor" (with `$color` filled in), and the
  /// players on more than one team.
  func fetchSorted() throws {
    beginStep("Fetch, sorted: every Person, teams from the templates, players on several teams")
    let people = try context.fetch(
      FetchRequest<Person>(matching: nil, sortedBy: LeagueExample.byName))
    say("   Person by last name: \(people.map(\.fullName).joined(separator: ", "))")
    say("   their entity: \(Set(people.map(\.entity.name)).sorted().joined(separator: ", "))")
    let greenTeams = try context.fetch(
      model.fetchRequestFromTemplate(withName: "GreenTeams", as: Team.self))
    say("   template GreenTeams: \(greenTeams.map(\.name).joined(separator: ", "))")
    let red = try model.fetchRequestFromTemplate(
      withName: "TeamsInColor", substitutionVariables: ["color": "Red"], as: Team.self)
    let redTeams = try context.fetch(red).map(\.name)
    say(
      "   template TeamsInColor, $color = \"Red\" (\(red.predicate?.description ?? "")): "
        + redTeams.joined(separator: ", "))
    let travellers = try context.fetch(
      FetchRequest<Player>(
        matching: try FetchPredicate(format: "teams.@count > 1"), sortedBy: LeagueExample.byName))
    say("   teams.@count > 1: \(travellers.map(\.fullName).joined(separator: ", "))")
    let byNameDescending = try context.fetch(
      FetchRequest<Player>(
        predicate: #Predicate { $0.lastName.starts(with: "W") },
        sortBy: [SortDescriptor(\.lastName, order: .reverse)]))
    say("   #Predicate, last name descending: \(byNameDescending.map(\.fullName))")
  }

  /// Reads the Heat's fetched property `wPlayers`, adds a W player, and reads it again: the
  /// results are kept until the team is refreshed, as in Core Data.
  func readWPlayers() throws {
    beginStep("The fetched property wPlayers of the Heat")
    let heat = try team("Miami Heat")
    printWPlayers(of: heat)
    let walker = context.insert(Player.self)
    walker.firstName = "Antoine"
    walker.lastName = "Walker"
    walker.teams = [heat]
    say("   Antoine Walker joins the Heat; wPlayers is kept until the team is refreshed:")
    printWPlayers(of: heat)
    try context.refresh(heat, mergeChanges: true)
    say("   after refresh(heat, mergeChanges: true):")
    printWPlayers(of: heat)
  }

  /// Deletes a team: its players stay (the rule of `players` is nullify) and leave it.
  func deleteTeam() throws {
    beginStep("Delete the Milwaukee Bucks (nullify: its players stay, without it)")
    let bucks = try team("Milwaukee Bucks")
    let robinson = try player("Glenn Robinson")
    try context.delete(bucks)
    printLeague()
    say(
      "   Glenn Robinson's teams: \(robinson.teams.map(\.name).sorted()), deleted \(robinson.isDeleted)"
    )
    say("   Ray Allen's teams: \(try player("Ray Allen").teams.map(\.name).sorted())")
  }

  /// Prints the Heat's `wPlayers`, one per line, as the seed's program logs them.
  private func printWPlayers(of team: Team) {
    do {
      let players = try team.value(forKey: "wPlayers") as? [ManagedObject] ?? []
      for player in players {
        let first = try player.value(forKey: "firstName") as? String ?? ""
        let last = try player.value(forKey: "lastName") as? String ?? ""
        say("      \(first) \(last)")
      }
    } catch {
      say("   wPlayers failed: \(error)")
    }
  }

  /// Prints each team with its players by name.
  func printLeague() {
    for team in teams {
      say("   [\(team.name), \(team.uniformColor)] \(team.players.names)")
    }
  }
}
