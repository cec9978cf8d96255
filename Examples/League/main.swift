// `swift run league`: seed 001's League Manager. Players inherit from an abstract Person, play
// for several teams (a many-to-many relationship), and a team answers the fetched property
// wPlayers. Fetches sort them; live results follow the Heat's roster through five edits and the
// undo of one of them, printing where each change inserted, removed, moved or updated a player.
// Last, a team is deleted and its players stay.

let example = try LeagueExample(say: { print($0) })
try example.run()
