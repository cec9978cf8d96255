import Foundation
import ObservedGraph

// Seed 001's League Manager model: an abstract `Person`, a `Player` that inherits its attributes,
// and teams. A player may play for several teams and a team has many players: one many-to-many
// relationship, `Player.teams` and `Team.players`, each the other's inverse.

/// Anyone the league knows. Abstract: only its sub-entities (here `Player`) have objects.
class Person: ManagedObject {
  override class var isAbstract: Bool { self == Person.self }
  @Attribute var firstName: String = ""
  @Attribute var lastName: String = ""
  @Attribute var email: String?
  @Attribute var dateOfBirth: Date?

  /// "Dwyane Wade".
  var fullName: String { "\(firstName) \(lastName)" }
}

/// A player: a `Person` (the entity `Player`, whose parent entity is `Person`) on some teams.
final class Player: Person {
  @Relationship(inverse: "players") var teams: Set<Team>
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
