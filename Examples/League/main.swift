// `swift run league`: seed 001's League Manager. Players inherit from an abstract Person, play
// for several teams (a many-to-many relationship), and a team answers the fetched property
// wPlayers. The model keeps the seed's fetch request templates ("GreenTeams", and one with a
// `$color` variable). Fetches sort them; live results follow the Heat's roster through five edits
// and the undo of one of them. A team is deleted and its players stay. Then the league is saved
// to an SQLite file: validation refuses the first save and nothing changes; the second writes
// the join table; the file, reopened, answers the templates and gives relationships as faults.

let example = try LeagueExample(say: { print($0) })
try example.run()
