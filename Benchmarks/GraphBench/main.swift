// graph-bench: the performance targets of DESIGN.md, measured against Swift `@Observable` and a
// plain class in one run. `--quick` runs small sizes (CI); `--json` prints one JSON object.

// A child process of the migration rows' peak memory figure.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "--migration-child" {
  MigrationBench.child(Array(CommandLine.arguments.dropFirst(2)))
}
let config = BenchConfig(arguments: CommandLine.arguments)
let machine = Machine.current()

func progress(_ message: String) {
  if !config.json { print("… \(message)") }
}

// Memory runs first, so the process's peak resident set is our graph's.
var memory: Row?
if config.runs("memory") {
  progress("memory per object")
  memory = MemoryBench.run(config)
}
var rows: [Row] = []
if config.runs("attributes") {
  progress("attribute sets and reads, KVC")
  rows += AttributeSetBench.run(config)
}
if config.runs("undoRecording") {
  progress("undo recording")
  rows.append(UndoBench.recordingRow(config))
}
if config.runs("undoReplay") {
  progress("undo and redo")
  rows.append(UndoBench.replayRow(config))
}
if config.runs("toMany") {
  progress("to-many inserts")
  rows.append(ToManyInsertBench.run(config))
}
if config.runs("cascade") {
  progress("cascade delete")
  rows.append(CascadeDeleteBench.run(config))
}
if config.runs("store") {
  progress("SQLite store")
  rows += StoreBench.run(config)
}
if config.runs("live") { rows.append(LiveResultsBench.run(config)) }
if config.runs("migration") {
  progress("migrations")
  rows += MigrationBench.run(config)
}
if config.runs("transaction") {
  progress("transactions")
  rows += TransactionBench.run(config)
}
if let memory { rows.append(memory) }
// The table's order: DESIGN.md's rows first, then the extra ones.
let order = [
  "attributeSet", "attributeSetTracked", "typedRead", "attributeSetObserved", "attributeSetUndo",
  "undoRedo", "toManyInsert", "cascadeDelete", "kvcSet", "storeSave", "storeReach",
  "storeDropped", "storeRefreshed", "memoryPerObject",
]
rows.sort {
  (order.firstIndex(of: $0.key) ?? order.count) < (order.firstIndex(of: $1.key) ?? order.count)
}

let report = Report(machine: machine, config: config, rows: rows)
if config.json {
  report.printJSON()
} else {
  report.printText()
}
