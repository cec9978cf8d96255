// A libFuzzer target: each input is the text of a predicate.
//
// Parsing either succeeds or throws. A parsed predicate prints as text that parses back to an
// equal predicate. Checked against each entity of the model, it either validates or throws; a
// valid one fetches the same objects (and counts as many) from an SQLite store as from memory,
// in the same order when sorted, and nothing crashes on the way.
import Foundation
import FuzzSupport
import ObservedGraph
import ObservedGraphSQLite

/// The same objects in an SQLite file and in an in-memory store, made at the first input.
nonisolated(unsafe) var containers: (sqlite: PersistentContainer, memory: PersistentContainer)?
nonisolated(unsafe) var folder: URL?

func makeContainers() -> (sqlite: PersistentContainer, memory: PersistentContainer) {
  if let containers { return containers }
  do {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("og-fuzz-predicate-\(getpid())")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    folder = url
    atexit { folder.map { try? FileManager.default.removeItem(at: $0) } }
    let store = try SQLiteStore(
      url: url.appendingPathComponent("library.sqlite"), model: FuzzLibrary.model)
    let sqlite = PersistentContainer(store: store)
    let memory = PersistentContainer(model: FuzzLibrary.model)
    try FuzzLibrary.fill(sqlite.newContext())
    try FuzzLibrary.fill(memory.newContext())
    containers = (sqlite, memory)
    return (sqlite, memory)
  } catch {
    fatalError("the fuzz stores cannot be made: \(error)")
  }
}

/// A value for each placeholder of the text, of the kind it takes: `%K` a key, `%d` and `%i` an
/// integer, `%f` a double, `%@` each kind of argument in turn.
func arguments(for text: String) -> [(any FetchArgument)?] {
  let anything: [(any FetchArgument)?] = [
    "Dune", 12, 12.5, nil, ["Dune", "Emma"], [0, 12], Date(timeIntervalSinceReferenceDate: 0),
    UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, Data([1, 0, 255]),
    URL(string: "https://example.com/2")!, true, Decimal(string: "1.10")!,
  ]
  var arguments: [(any FetchArgument)?] = []
  var characters = Array(text.unicodeScalars)[...]
  while let percent = characters.firstIndex(of: "%") {
    characters = characters[(percent + 1)...]
    guard let letter = characters.first else { break }
    switch letter {
    case "K": arguments.append(["title", "price", "category.name", "tags"][arguments.count % 4])
    case "d", "i": arguments.append(12)
    case "f": arguments.append(12.5)
    case "@": arguments.append(anything[arguments.count % anything.count])
    default: continue
    }
  }
  return arguments
}

/// What tells fetched objects apart: a book's serial number, another object's name.
func names(_ objects: [ManagedObject]) -> [String] {
  objects.map { object in
    let key = object.entity.name == "Book" ? "serial" : "name"
    return (try? object.value(forKey: key)).map { "\(String(describing: $0))" } ?? "?"
  }
}

func check(_ text: String) {
  guard let predicate = try? FetchPredicate(format: text, arguments: arguments(for: text)) else {
    return
  }
  let printed = predicate.description
  let again: FetchPredicate
  do {
    again = try FetchPredicate(format: printed)
  } catch {
    fatalError("«\(text)» parses to «\(printed)», which does not parse: \(error)")
  }
  guard again == predicate else {
    fatalError(
      "«\(text)» parses to «\(printed)», which parses to «\(again)», a different predicate")
  }
  let (sqlite, memory) = makeContainers()
  for entity in FuzzLibrary.model.entities {
    guard (try? predicate.validate(for: entity)) != nil else { continue }
    let all = FetchRequest<ManagedObject>(entityName: entity.name, predicate: predicate)
    var firstFive = FetchRequest<ManagedObject>(
      entityName: entity.name, predicate: predicate,
      sortDescriptors: [
        FetchSort("name", ascending: false), FetchSort("title"), FetchSort("serial"),
      ]
      .filter { entity.propertyNames.contains($0.keyPath) })
    firstFive.fetchLimit = 5
    firstFive.fetchOffset = 1
    for request in [all, firstFive] {
      // The contexts hold the fetched objects' values while they are read.
      let (fileContext, memoryContext) = (sqlite.newContext(), memory.newContext())
      let fromFile = try? fileContext.fetch(request)
      let fromMemory = try? memoryContext.fetch(request)
      guard let fromFile, let fromMemory else { continue }
      var (file, inMemory) = (names(fromFile), names(fromMemory))
      if request.sortDescriptors.isEmpty {
        (file, inMemory) = (file.sorted(), inMemory.sorted())
      }
      guard file == inMemory else {
        fatalError(
          "«\(printed)» on \(entity.name) (limit \(request.fetchLimit)): the SQLite store "
            + "fetches \(file), memory \(inMemory)")
      }
      if request.fetchLimit == 0, let count = try? sqlite.newContext().count(for: request),
        count != file.count
      {
        fatalError(
          "«\(printed)» on \(entity.name): the SQLite store counts \(count), fetches \(file)")
      }
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  check(String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self))
  return 0
}
