// A libFuzzer target: each input is the bytes of a file, opened as a store of the fuzz model.
//
// Opening either succeeds or throws an SQLiteError or an SQLiteStore.OpenError, and a failed
// open leaves the file's bytes as they were. An opened store is read (every object of every
// entity, every property through the throwing accessors) and written (an insert, an update, a
// delete, a to-many change, saved), each step succeeding or throwing, and nothing crashes.
//
// `OG_FUZZ_WRITE_SEEDS=<folder>` writes the seed corpus into the folder and exits.
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
  for entity in FuzzLibrary.model.entities {
    var request = FetchRequest<ManagedObject>(entityName: entity.name)
    request.returnsObjectsAsFaults = false
    guard let objects = try? context.fetch(request) else { continue }
    found[entity.name] = objects
    for object in objects {
      for name in entity.propertyNames {
        // Reaching related objects loads them (and to-many members) too.
        switch try? object.value(forKey: name) {
        case let related as ManagedObject: try? related.fulfilFault()
        case let members as [ManagedObject]: _ = members.map { try? $0.fulfilFault() }
        case let members as Set<ManagedObject>: _ = members.map { try? $0.fulfilFault() }
        default: break
        }
      }
    }
  }
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreFile(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  check(Data(bytes: start, count: count))
  return 0
}
