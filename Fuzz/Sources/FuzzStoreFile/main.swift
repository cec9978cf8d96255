// A libFuzzer target: each input is the bytes of a file, opened as a store of the fuzz model.
//
// Opening either succeeds or throws an SQLiteError or an SQLiteStore.OpenError, and a failed
// open leaves the file's bytes as they were. An opened store is read (every object of every
// entity, every property through the throwing accessors) and written (an insert, an update, a
// delete, a to-many change, saved), each step succeeding or throwing, and nothing crashes.
//
// `OG_FUZZ_WRITE_SEEDS=<folder>` writes the seed corpus into the folder and exits.
import CFuzzSQLite
import Foundation
import FuzzSupport
import ObservedGraph
import ObservedGraphSQLite

nonisolated(unsafe) var folder: URL?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
  _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> CInt {
  if let seeds = ProcessInfo.processInfo.environment["OG_FUZZ_WRITE_SEEDS"] {
    do {
      try SeedFiles.write(into: URL(fileURLWithPath: seeds))
      exit(0)
    } catch {
      fatalError("the seeds cannot be written: \(error)")
    }
  }
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("og-fuzz-store-\(getpid())")
  do {
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  } catch {
    fatalError("no temporary folder: \(error)")
  }
  folder = url
  atexit { folder.map { try? FileManager.default.removeItem(at: $0) } }
  return 0
}

func check(_ bytes: Data) {
  guard let folder else { fatalError("LLVMFuzzerInitialize did not run") }
  let url = folder.appendingPathComponent("store.sqlite")
  for suffix in ["", "-wal", "-shm", "-journal"] {
    try? FileManager.default.removeItem(atPath: url.path + suffix)
  }
  do {
    try bytes.write(to: url)
  } catch {
    fatalError("cannot write \(url.path): \(error)")
  }
  let store: SQLiteStore
  do {
    store = try SQLiteStore(url: url, model: FuzzLibrary.model)
  } catch {
    guard error is SQLiteError || error is SQLiteStore.OpenError else {
      fatalError("opening throws \(type(of: error)): \(error)")
    }
    guard (try? Data(contentsOf: url)) == bytes else {
      fatalError("a failed open changed the file: \(error)")
    }
    return
  }
  defer { try? store.close() }
  let context = PersistentContainer(store: store).newContext()
  var found: [String: [ManagedObject]] = [:]
  var readsFailed = false
  for entity in FuzzLibrary.model.entities {
    var request = FetchRequest<ManagedObject>(entityName: entity.name)
    request.returnsObjectsAsFaults = false
    do {
      let objects = try context.fetch(request)
      found[entity.name] = objects
      for object in objects {
        for name in entity.propertyNames {
          // Reaching related objects loads them (and to-many members) too.
          switch try object.value(forKey: name) {
          case let related as ManagedObject: try related.fulfilFault()
          case let members as [ManagedObject]: for member in members { try member.fulfilFault() }
          case let members as Set<ManagedObject>:
            for member in members { try member.fulfilFault() }
          default: break
          }
        }
      }
    } catch {
      readsFailed = true
    }
  }
  // Changing relationships of a file that could not be read whole stops the program (inverse
  // upkeep and delete rules load related objects without a way to throw), and the context's
  // invariant checks stop it when the two sides of a relationship, read from an inconsistent
  // file, disagree (see Docs/Reliability.md): only a file that reads cleanly and that SQLite
  // finds consistent is written.
  guard !readsFailed, isConsistent(url.path) else { return }
  do {
    let book = try context.insertObject(forEntityName: "Book")
    try book.setValue("new", forKey: "title")
    if let tag = found["Tag"]?.first {
      try tag.mutableOrderedSet(forKey: "books").insert(book, at: 0)
    }
    if let books = found["Book"], let first = books.first {
      try first.setValue("changed", forKey: "title")
      try first.setValue(found["Category"]?.last, forKey: "category")
      if books.count > 1 { try context.delete(books[1]) }
    }
    if let category = found["Category"]?.first { try context.delete(category) }
    try context.save()
  } catch {
    // A damaged file may refuse a change or a save; it must say so, not crash.
  }
}

/// Whether `PRAGMA integrity_check` finds the database at `path` sound (its indexes agreeing
/// with their tables among others), read through a connection of its own.
func isConsistent(_ path: String) -> Bool {
  var handle: OpaquePointer?
  defer { sqlite3_close_v2(handle) }
  guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
    return false
  }
  var statement: OpaquePointer?
  defer { sqlite3_finalize(statement) }
  guard sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK,
    sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0)
  else { return false }
  return String(cString: text) == "ok" && sqlite3_step(statement) == SQLITE_DONE
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreFile(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  check(Data(bytes: start, count: count))
  return 0
}
