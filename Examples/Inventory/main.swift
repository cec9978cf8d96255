// `swift run inventory`: seed 004's Inventory (Big Nerd Ranch's "schwag" at several locations)
// with generic objects: the entities come from the model file Inventory.json, no class declares
// them, and every value is read and written by key. The objects are saved to an SQLite file in a
// temporary folder, read back with the SQL trace on, and the folder is removed at the end.

let example = try InventoryExample(say: { print($0) })
try example.run()
