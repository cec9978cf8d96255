import Foundation
import ObservedGraph

// Seed 001's League Manager model: an abstract `Person`, a `Player` that inherits its attributes,
// and teams, with the seed's fetch request templates ("GreenTeams") kept in the model. A player may play for several teams and a team has many players: one many-to-many
// relationship, `Player.teams` and `Team.players`, each the other's inverse.

/// Anyone the league knows. Abstract: only its sub-entities (here `Player`) have objects.
class Person: ManagedObject {
  override class var isAbstract: Bool { self == Person.self }

  /// The seed's validation fields: a last name of 1 to 30 characters, checked at save.
  override class func rules(forKey key: String) -> AttributeRules {
    key == "lastName" ? AttributeRules(minimumLength: 1, maximumLength: 30) : AttributeRules()
  }

  @Attribute var firstName: String = ""
  @Attribute var lastName: String = ""
  @Attribute var email: String?
  @Attribute var dateOfBirth: Date?

  /// "Dwyane Wade".
  var fullName: String { "\(firstName) \(lastName)" }
}

/// A player: a `Person` (the entity `Player`, whose parent entity is `Person`) on some teams.
/// Every player must belong to a team when saved: the relationship is not optional (the seed's
/// "team is a required value").
final class Player: Person {
  @Relationship(inverse: "players", isOptional: false) var teams: Set<Team>
}

/// A team. Deleting one lets its players go (nullify, the default): they may play elsewhere.
final class Team: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var uniformColor: String = ""
  @Relationship(inverse: "teams") var players: Set<Player>

  /// The seed's fetched property: the team's players whose last name begins with "W", by name.
  /// `$FETCH_SOURCE` is the team asked.
  override class var fetchedProperties: [FetchedPropertyDescription] {
    [
      FetchedPropertyDescription(
        name: "wPlayers", destination: "Player",
        predicate: try! FetchPredicate(
          format: "lastName BEGINSWITH 'W' AND ANY teams == $FETCH_SOURCE"),
        sortDescriptors: [FetchSort("lastName"), FetchSort("firstName")])
    ]
  }
}

extension LeagueExample {
  /// The model's fetch request templates: the seed's "GreenTeams", and the same request with the
  /// color as a variable.
  static let templates = [
    FetchRequestTemplate(
      name: "GreenTeams", entityName: "Team",
      predicate: try! FetchPredicate(format: "uniformColor == 'Green'"),
      sortDescriptors: [FetchSort("name")]),
    FetchRequestTemplate(
      name: "TeamsInColor", entityName: "Team",
      predicate: try! FetchPredicate(format: "uniformColor == $color"),
      sortDescriptors: [FetchSort("name")]),
  ]
}
