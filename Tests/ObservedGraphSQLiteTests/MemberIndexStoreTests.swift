import Foundation
import Testing
import UndoLog

@testable import ObservedGraph
@testable import ObservedGraphSQLite

final class MSShelf: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shelf") var volumes: Set<MSVolume>
}

final class MSVolume: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "volumes") var shelf: MSShelf?
}

/// An unordered to-many a store loaded — its members' keys above those of objects the reading
/// context makes afterwards (it drew its block of keys first) — then added to, taken from,
/// undone, saved, read again and refreshed into a fault: membership always as a model says.
@Suite struct MemberIndexStoreTests {
  static let model = try! ObjectModel(types: [MSShelf.self, MSVolume.self])

  /// Records an issue unless the shelf holds exactly `expected` (no member twice, each found at
  /// its position by the index) and each object of `pool` is a member as the model says.
  static func check(
    _ shelf: MSShelf, holds expected: Set<ObjectID>, pool: [MSVolume], _ note: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let property = shelf.entity.propertiesByName["volumes"]!
    let items = shelf.members(property)
    #expect(items.count == expected.count, "\(note)", sourceLocation: sourceLocation)
    #expect(Set(items.map(\.objectID)) == expected, "\(note)", sourceLocation: sourceLocation)
    guard let collection = shelf.collection(property) else {
      #expect(expected.isEmpty, "\(note)", sourceLocation: sourceLocation)
      return
    }
    for (position, member) in items.enumerated() {
      #expect(collection.index(of: member) == position, "\(note)", sourceLocation: sourceLocation)
    }
    for volume in pool {
      #expect(
        collection.contains(volume) == expected.contains(volume.objectID),
        "\(note): \(volume.objectID)", sourceLocation: sourceLocation)
    }
    // (Last, and only when all agreed: a broken rule stops the process.)
    if items.count == expected.count, items.allSatisfy({ collection.index(of: $0) != nil }) {
      collection.checkInvariants()
    }
  }

  @Test func loadedMembersWithKeysAboveLaterObjects() throws {
    let (folder, url, options) = try SQLiteStoreTests.file(keyBlockSize: 16)
    defer { withExtendedLifetime(folder) {} }
    // The reader draws its keys first: every object it makes has a key below the writer's.
    let readerStore = try SQLiteStore(url: url, model: Self.model, options: options)
    let reader = PersistentContainer(store: readerStore).viewContext
    let first = reader.insert(MSVolume.self)
    try reader.save()
    let writerStore = try SQLiteStore(url: url, model: Self.model, options: options)
    let writer = PersistentContainer(store: writerStore).viewContext
    let shelf = writer.insert(MSShelf.self)
    let saved = (0..<60).map { index in
      let volume = writer.insert(MSVolume.self)
      volume.title = "saved \(index)"
      volume.shelf = shelf
      return volume
    }
    try writer.save()
    let savedIDs = saved.map(\.objectID)
    #expect(savedIDs.allSatisfy { $0.key > first.objectID.key })

    let loaded = try #require(reader.object(with: shelf.objectID) as? MSShelf)
    let undo = UndoLog()
    reader.undoLog = undo
    let members = loaded.volumes.sorted { $0.objectID.key < $1.objectID.key }
    #expect(members.map(\.objectID) == savedIDs)
    let made = (0..<12).map { _ in reader.insert(MSVolume.self) }
    #expect(made.allSatisfy { $0.objectID.key < savedIDs[0].key }, "keys below the loaded ones")
    undo.markEventBoundary()
    let pool = [first] + made + members
    var expected = Set(savedIDs)
    Self.check(loaded, holds: expected, pool: pool, "loaded")
    // New objects with keys below every member join, by either side, twice.
    for (index, volume) in made.enumerated() {
      if index.isMultiple(of: 2) {
        try loaded.mutableSet(forKey: "volumes").insert(volume)
      } else {
        volume.shelf = loaded
      }
      try loaded.mutableSet(forKey: "volumes").insert(volume)
      expected.insert(volume.objectID)
    }
    undo.markEventBoundary()
    Self.check(loaded, holds: expected, pool: pool, "new ones added")
    // Loaded members leave, one re-joins; the first object (made before all) joins.
    for volume in members.prefix(20) { try loaded.mutableSet(forKey: "volumes").remove(volume) }
    members[3].shelf = loaded
    first.shelf = loaded
    try loaded.mutableSet(forKey: "volumes").insert(members[3])
    expected.subtract(members.prefix(20).map(\.objectID))
    expected.insert(members[3].objectID)
    expected.insert(first.objectID)
    undo.markEventBoundary()
    Self.check(loaded, holds: expected, pool: pool, "loaded ones left")
    let edited = expected
    try undo.undo()
    Self.check(loaded, holds: Set(savedIDs + made.map(\.objectID)), pool: pool, "undone")
    try undo.redo()
    Self.check(loaded, holds: edited, pool: pool, "redone")
    try reader.save()

    // Another store on the file reads what was saved.
    let third = PersistentContainer(
      store: try SQLiteStore(url: url, model: Self.model, options: options)
    ).viewContext
    let again = try #require(third.object(with: shelf.objectID) as? MSShelf)
    let againPool = pool.compactMap { third.object(with: $0.objectID) as? MSVolume }
    #expect(againPool.count == pool.count)
    Self.check(again, holds: edited, pool: againPool, "read again")

    // Refreshed into a fault, loaded again, added to below and above its keys.
    try reader.refresh(loaded, mergeChanges: false)
    let later = reader.insert(MSVolume.self)
    later.shelf = loaded
    members[0].shelf = loaded
    try loaded.mutableSet(forKey: "volumes").insert(made[0])
    var refreshed = edited
    refreshed.insert(later.objectID)
    refreshed.insert(members[0].objectID)
    Self.check(loaded, holds: refreshed, pool: pool + [later], "refreshed, then added to")
    reader.rollback()
    Self.check(loaded, holds: edited, pool: pool + [later], "rolled back")
    try readerStore.close()
    try writerStore.close()
  }

  /// Two stores on one file with blocks of 16 keys. Inserting never waits for the file, so the
  /// first store's context, inserting more objects than its block holds, gives out keys past it
  /// — keys the second store gave out and saved (`SQLiteStore.Options.keyBlockSize` says so).
  /// The context never holds two objects under one key: a key one of its objects already has
  /// (one it loaded) is passed over when it inserts, and a load that meets a row with the key of
  /// an object it inserted is refused with `duplicateObject` naming that object, as is the save.
  @Test func keysTwoStoresOnOneFileGaveOutNeverNameTwoObjectsInOneContext() throws {
    let (folder, url, options) = try SQLiteStoreTests.file(keyBlockSize: 16)
    defer { withExtendedLifetime(folder) {} }
    let firstStore = try SQLiteStore(url: url, model: Self.model, options: options)
    let first = PersistentContainer(store: firstStore).viewContext
    var firstKeys = [first.insert(MSVolume.self).objectID.key]
    try first.save()
    let secondStore = try SQLiteStore(url: url, model: Self.model, options: options)
    let second = PersistentContainer(store: secondStore).viewContext
    let shelf = second.insert(MSShelf.self)
    shelf.name = "theirs"
    let secondVolumes = (0..<20).map { _ in second.insert(MSVolume.self) }
    let secondKeys = [shelf.objectID.key] + secondVolumes.map(\.objectID.key)
    try second.save()
    // The first context loads the second's shelf, then inserts past its block: the shelf's key
    // is passed over.
    let theirs = try #require(try first.fetch(FetchRequest<MSShelf>()).first)
    #expect(theirs.name == "theirs")
    let inserted = (0..<40).map { _ in first.insert(MSVolume.self) }
    firstKeys += inserted.map(\.objectID.key)
    #expect(!firstKeys.contains(theirs.objectID.key), "\(firstKeys)")
    #expect(Set(firstKeys).count == firstKeys.count)
    let shared = Set(firstKeys).intersection(secondKeys)
    #expect(!shared.isEmpty, "the case the test is about arises: \(firstKeys) \(secondKeys)")
    // Every inserted object is the one its identifier names.
    for volume in inserted { #expect(first.object(with: volume.objectID) === volume) }
    // Fetching the second's volumes meets their rows: refused, naming an inserted object.
    let error = #expect(throws: ObjectGraphError.self) {
      try first.fetch(FetchRequest<MSVolume>())
    }
    #expect(error?.kind == .duplicateObject, "\(String(describing: error))")
    #expect(error?.entity == "MSVolume")
    let named = inserted.first { $0.objectID.description == error?.value }
    #expect(named.map { shared.contains($0.objectID.key) } == true, "\(String(describing: error))")
    #expect(error?.reason.contains("another store on the same file") == true)
    for volume in inserted {
      #expect(volume.isInserted && first.object(with: volume.objectID) === volume)
    }
    // The save is refused too.
    #expect(throws: ObjectGraphError.self) { try first.save() }
    #expect(inserted.allSatisfy(\.isInserted) && first.hasChanges)
    try firstStore.close()
    try secondStore.close()
  }
}
