// `swift run bookstore`: the seeds' BookStore scenario, one step at a time, saved in an SQLite
// file in a temporary folder. Each step changes or reads the graph through the public API and
// prints what it looks like afterwards.

/// The whole scenario; everything it made is freed when it returns (a leak checker run at exit
/// then sees only what was really lost).
func runDemo() throws {
  let store = try BookStore()
  print("ObservedGraph BookStore demo: \(store.context.model)")
  try store.insertBooks()
  try store.save()
  try store.fetchCheapBooks()
  try store.addPages()
  try store.observeTitle()
  try store.moveBook()
  try store.undoAndRedoDelete()
  try store.deleteCategory()
  try store.followLiveResults()
  try store.save()
  try store.readInSecondContext()
  try store.traceOneFault()
  try store.finish()
}

try runDemo()
