import Foundation
import Observation
import ObservedGraph
import Testing
import UndoLog

@testable import ObservedGraphSQLite

/// A to-one whose object a load names only by its key: the object is made when the relationship
/// is first read, as the load would have made it, and the relationship behaves as any other.
@Suite struct LoadedToOneTests {
  typealias Typed = SQLiteTypedLoadTests

  /// A context on the saved tray's file, through the typed load path or the general one.
  static func context(_ url: URL, general: Bool = false) throws -> ObjectContext {
    let store = try SQLiteStore(url: url, model: Typed.model)
    if general { return PersistentContainer(store: StoredObjectsStore(store)).newContext() }
    return PersistentContainer(store: store).newContext()
  }

  /// The specimens of a fetch, in key order, fulfilled (their text read).
  static func fetchSpecimens(_ context: ObjectContext, asFaults: Bool = true) throws -> [Specimen] {
    var request = FetchRequest<Specimen>(matching: nil, sortedBy: [])
    request.returnsObjectsAsFaults = asFaults
    let specimens = try context.fetch(request).sorted { $0.objectID.key < $1.objectID.key }
    _ = specimens.map(\.text)
    return specimens
  }

  /// The entities of the objects a context holds, with how many of each.
  static func registered(_ context: ObjectContext) -> [String: Int] {
    context.registeredObjects.reduce(into: [:]) { $0[$1.entity.name, default: 0] += 1 }
  }

  @Test(arguments: [false, true], [true, false])
  func aFetchMakesTheObjectOfAToOneWhenItIsFirstRead(general: Bool, asFaults: Bool) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Typed.savedTray(folder)
    let context = try Self.context(url, general: general)
    let specimens = try Self.fetchSpecimens(context, asFaults: asFaults)
    #expect(specimens.count == Typed.texts.count)
    // Fetched and fulfilled, the specimens hold their tray's key only: no tray is made.
    #expect(Self.registered(context) == ["Specimen": Typed.texts.count])
    let tray = try #require(specimens[3].tray)
    #expect(tray.objectID == trayID && tray.isFault)
    #expect(Self.registered(context) == ["Specimen": Typed.texts.count, "Tray": 1])
    // Every specimen names the same object, the one the context holds for the key.
    #expect(specimens.allSatisfy { $0.tray === tray })
    #expect(context.object(with: trayID) === tray)
    #expect(tray.name == "Tray ✓")
    #expect(tray.specimens == Set(specimens))
    #expect(!context.hasChanges)
  }

  @Test func aToOneGivesTheObjectTheContextHoldsWhicheverCameFirst() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Typed.savedTray(folder)
    // The tray first: the load finds it and the specimens hold it.
    let first = try Self.context(url)
    let tray = try #require(first.object(with: trayID) as? Tray)
    _ = tray.name
    let specimens = try Self.fetchSpecimens(first)
    #expect(specimens.allSatisfy { $0.tray === tray })
    // The specimens first, then the tray by its identifier: the first read finds it.
    let second = try Self.context(url)
    let later = try Self.fetchSpecimens(second)
    let trayLater = try #require(second.object(with: trayID) as? Tray)
    #expect(later.allSatisfy { $0.tray === trayLater })
    #expect(Self.registered(second) == ["Specimen": Typed.texts.count, "Tray": 1])
  }

  @Test func readingAToOneItsLoadNamedChangesNothingAndTellsNoOne() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Typed.savedTray(folder)
    let context = try Self.context(url)
    context.undoLog = UndoLog()
    let specimens = try Self.fetchSpecimens(context)
    var heard: [String] = []
    let tokens = [
      specimens[0].observe(\.tray, options: [.old, .new]) { _, _ in heard.append("tray") },
      context.onObjectsDidChange { _ in heard.append("objects did change") },
    ]
    let changed = Fired()
    withObservationTracking {
      _ = specimens[0].tray
    } onChange: {
      changed.value = true
    }
    _ = specimens.map(\.tray)
    context.processPendingChanges()
    #expect(heard.isEmpty && !changed.value)
    #expect(!context.hasChanges && specimens.allSatisfy { !$0.hasChanges })
    #expect(context.undoLog?.canUndo == false)
    // Swift Observation heard the read: a change of the relationship is told.
    specimens[0].tray = nil
    #expect(changed.value)
    for token in tokens { token.invalidate() }
  }

  @Test func aToOneItsLoadNamedChangesUndoesAndSavesAsAnyOther() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Typed.savedTray(folder)
    let context = try Self.context(url)
    context.undoLog = UndoLog()
    let specimens = try Self.fetchSpecimens(context)
    let specimen = specimens[2]
    var heard: [String] = []
    let token = specimen.observe(\.tray, options: [.old, .new]) { _, change in
      let old = change.oldValue??.name ?? "nil"
      let new = change.newValue??.name ?? "nil"
      heard.append("\(old) → \(new)")
    }
    let other = context.insert(Tray.self)
    other.name = "Other"
    // The old value is the tray the key names, made for the change.
    specimen.tray = other
    #expect(heard == ["Tray ✓ → Other"])
    let tray = try #require(context.object(with: trayID) as? Tray)
    #expect(!tray.specimens.contains(specimen) && tray.specimens.count == Typed.texts.count - 1)
    #expect(other.specimens == [specimen])
    try context.undoLog?.undo()
    #expect(specimen.tray === tray && tray.specimens.contains(specimen))
    try context.undoLog?.redo()
    #expect(specimen.tray === other)
    #expect(heard == ["Tray ✓ → Other", "Other → Tray ✓", "Tray ✓ → Other"])
    // A specimen changed elsewhere saves its tray's key as it read it.
    specimens[4].text = "changed"
    try context.save()
    token.invalidate()
    let reopened = try Self.context(url)
    let again = try Self.fetchSpecimens(reopened)
    #expect(again.map { $0.tray?.name ?? "nil" } == specimens.map { $0.tray?.name ?? "nil" })
    #expect(again[2].tray?.name == "Other" && again[4].tray?.objectID == trayID)
    #expect(again[4].text == "changed")
  }

  @Test func deletingTheObjectAKeyNamesNullifiesTheToOne() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Typed.savedTray(folder)
    let context = try Self.context(url)
    let specimens = try Self.fetchSpecimens(context)
    let tray = try #require(context.object(with: trayID))
    try context.delete(tray)
    #expect(specimens.allSatisfy { $0.tray == nil })
    #expect(specimens.allSatisfy { $0.changedValues().keys.contains("tray") })
    try context.save()
    let reopened = try Self.context(url)
    let reloaded = try Self.fetchSpecimens(reopened)
    #expect(reloaded.count == Typed.texts.count && reloaded.allSatisfy { $0.tray == nil })
    #expect(Self.registered(reopened) == ["Specimen": Typed.texts.count])
  }

  @Test func aDeletedSpecimenLeavesTheTrayItsKeyNamed() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Typed.savedTray(folder)
    let context = try Self.context(url)
    let specimens = try Self.fetchSpecimens(context)
    let tray = try #require(context.object(with: trayID) as? Tray)
    _ = tray.specimens
    try context.delete(specimens[1])
    #expect(!tray.specimens.contains(specimens[1]))
    #expect(tray.specimens.count == Typed.texts.count - 1)
    try context.save()
    let reopened = try Self.context(url)
    let reopenedTray = try #require(reopened.object(with: trayID) as? Tray)
    #expect(reopenedTray.specimens.count == Typed.texts.count - 1)
  }

  /// The key clash Reliability.md describes. Two stores on one file give out blocks of 16 keys.
  /// A context fetches a volume whose shelf it keeps as a key, then inserts past its block and
  /// gives that key to a new shelf. The volume's shelf reads as nil (the key names the context's
  /// own shelf, not the other store's), and the read leaves no conflict behind for the next
  /// load, which meets no row of an inserted object's key; the save is still refused.
  @Test func aKeyTheContextGaveAnInsertedObjectReadsAsNilAndFailsNoLaterLoad() throws {
    let (folder, url, options) = try SQLiteStoreTests.file(keyBlockSize: 16)
    defer { withExtendedLifetime(folder) {} }
    let model = MemberIndexStoreTests.model
    let firstStore = try SQLiteStore(url: url, model: model, options: options)
    let first = PersistentContainer(store: firstStore).viewContext
    first.insert(MSVolume.self)
    try first.save()
    let secondStore = try SQLiteStore(url: url, model: model, options: options)
    let second = PersistentContainer(store: secondStore).viewContext
    let shelf = second.insert(MSShelf.self)
    let volume = second.insert(MSVolume.self)
    volume.title = "named"
    volume.shelf = shelf
    try second.save()
    let request = FetchRequest<MSVolume>(
      matching: try FetchPredicate(format: "title == %@", "named"), sortedBy: [])
    let loaded = try #require(try first.fetch(request).first)
    #expect(first.registeredObjects.allSatisfy { !($0 is MSShelf) })
    let inserted = (0..<40).map { _ in first.insert(MSShelf.self) }
    let clash = try #require(inserted.first { $0.objectID.key == shelf.objectID.key })
    #expect(loaded.shelf == nil)
    #expect(clash.isInserted && first.object(with: clash.objectID) === clash)
    let again = try first.fetch(request)
    #expect(again.count == 1 && again.first === loaded)
    let error = #expect(throws: ObjectGraphError.self) { try first.save() }
    #expect(error?.kind == .duplicateObject, "\(String(describing: error))")
    try firstStore.close()
    try secondStore.close()
  }

  @Test func keyValueCodingAndRefreshReachTheObjectAKeyNames() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Typed.savedTray(folder)
    let context = try Self.context(url)
    let specimens = try Self.fetchSpecimens(context)
    #expect(try specimens[0].value(forKeyPath: "tray.name") as? String == "Tray ✓")
    let tray = try #require(try specimens[0].value(forKey: "tray") as? Tray)
    #expect(tray.objectID == trayID)
    // Turned into a fault, a specimen loads its tray's key again; the object is the same.
    try context.refresh(specimens[5], mergeChanges: false)
    #expect(specimens[5].isFault)
    #expect(specimens[5].tray === tray)
    // A refresh before the first read drops the key with the values, and loads it again.
    try context.refresh(specimens[6], mergeChanges: false)
    #expect(specimens[6].tray === tray)
    // A primitive set, which reads nothing first, replaces the key.
    let other = context.insert(Tray.self)
    try specimens[1].setPrimitiveValue(other, forKey: "tray")
    #expect(specimens[1].tray === other)
    try specimens[2].setPrimitiveValue(nil, forKey: "tray")
    #expect(specimens[2].tray == nil)
    #expect(try specimens[3].primitiveValue(forKey: "tray") as? Tray === tray)
  }
}

/// Whether Swift Observation called back.
private final class Fired: @unchecked Sendable {
  var value = false
}

/// The counts a `Relationship` wrapper declares reach the model as declared.
@Suite struct RelationshipCountsTests {
  final class Crate: ManagedObject {
    @Relationship(inverse: "crate", minCount: 2, maxCount: 5) var bottles: Set<Bottle>
  }

  final class Bottle: ManagedObject {
    @Relationship(inverse: "bottles") var crate: Crate?
  }

  final class Huge: ManagedObject {
    @Relationship(inverse: .noInverse, minCount: .max, maxCount: .max) var parts: Set<Huge>
  }

  final class Negative: ManagedObject {
    @Relationship(inverse: .noInverse, minCount: -3, maxCount: 1) var parts: Set<Negative>
  }

  @Test func declaredCountsReachTheModel() throws {
    let model = try ObjectModel(types: [Crate.self, Bottle.self, Huge.self])
    let bottles = try #require(model.entity(named: "Crate")?.relationships.first)
    #expect((bottles.minCount, bottles.maxCount) == (2, 5))
    let crate = try #require(model.entity(named: "Bottle")?.relationships.first)
    #expect((crate.minCount, crate.maxCount) == (0, 0))
    let parts = try #require(model.entity(named: "Huge")?.relationships.first)
    #expect((parts.minCount, parts.maxCount) == ((1 << 30) - 1, Int(Int32.max)))
  }

  @Test func aNegativeDeclaredCountIsRefusedWithItsValue() throws {
    let error = #expect(throws: ObjectGraphError.self) {
      try ObjectModel(types: [Negative.self])
    }
    #expect(error?.kind == .invalidCount && error?.value == "-3...1")
  }
}
