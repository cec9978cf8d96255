import Foundation
import ObservedGraph
import ObservedGraphSQLite

/// The seed corpus of the store-file target: small store files (512-byte pages, so that a few
/// kilobytes hold every kind of b-tree page) and files that are no store.
public enum SeedFiles {
  /// An empty SQLite database of one 512-byte page, in rollback-journal mode.
  public static var emptyDatabase: Data {
    var bytes = [UInt8](repeating: 0, count: 512)
    func put(_ value: UInt32, at offset: Int, count: Int) {
      for index in 0..<count {
        bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(count - 1 - index)))
      }
    }
    bytes.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8))
    put(512, at: 16, count: 2)  // page size
    bytes[18] = 1  // write and read versions: rollback journal
    bytes[19] = 1
    bytes[21] = 64  // payload fractions
    bytes[22] = 32
    bytes[23] = 32
    put(1, at: 24, count: 4)  // change counter
    put(1, at: 28, count: 4)  // pages
    put(4, at: 44, count: 4)  // schema format
    put(1, at: 56, count: 4)  // UTF-8
    put(1, at: 92, count: 4)  // version valid for
    put(3_040_001, at: 96, count: 4)
    bytes[100] = 0x0D  // an empty table leaf: the schema
    put(512, at: 105, count: 2)
    return Data(bytes)
  }

  /// Writes the seeds into `folder`: an empty store, a filled one, one after edits, and files
  /// that are no store.
  public static func write(into folder: URL) throws {
    let work = folder.appendingPathComponent(".work-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    func store(_ name: String, _ body: (ObjectContext) throws -> Void) throws {
      let url = work.appendingPathComponent(name)
      try emptyDatabase.write(to: url)
      let store = try SQLiteStore(url: url, model: FuzzLibrary.model)
      try body(PersistentContainer(store: store).newContext())
      try store.close()
      try Data(contentsOf: url).write(to: folder.appendingPathComponent(name))
    }
    try store("empty-store") { _ in }
    try store("filled-store") { try FuzzLibrary.fill($0) }
    try store("edited-store") { context in
      try FuzzLibrary.fill(context)
      let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
      try context.delete(books[0])
      try books[1].setValue("changed", forKey: "title")
      let tag = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))[0]
      try tag.mutableOrderedSet(forKey: "books").move(from: 0, to: 1)
      try context.save()
    }
    try emptyDatabase.write(to: folder.appendingPathComponent("empty-database"))
    try Data("not a database, just some notes\n".utf8)
      .write(to: folder.appendingPathComponent("text"))
  }
}
