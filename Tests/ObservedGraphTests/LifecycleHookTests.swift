import Foundation
import Synchronization
import Testing
import UndoLog

@testable import ObservedGraph

/// Lines the hooks of ``HookedNovel`` write, by store: tests run in parallel, each with its own store.
final class HookLog: Sendable {
  static let shared = HookLog()
  private let lines = Mutex<[UUID: [String]]>([:])

  func append(_ object: ManagedObject, _ line: String) {
    lines.withLock { $0[object.objectID.storeIdentifier, default: []].append(line) }
  }

  func take(_ store: UUID) -> [String] {
    lines.withLock { $0.removeValue(forKey: store) ?? [] }
  }
}

final class HookedNovel: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var summary: String?
  @Relationship(inverse: "novels") var shelf: HookedShelf?

  override func awakeFromFetch() {
    super.awakeFromFetch()
    HookLog.shared.append(self, "awakeFromFetch \(title)")
    summary = "summary of \(title)"
  }
  override func willTurnIntoFault() {
    super.willTurnIntoFault()
    HookLog.shared.append(self, "willTurnIntoFault \(title)")
  }
  override func didTurnIntoFault() {
    super.didTurnIntoFault()
    HookLog.shared.append(self, "didTurnIntoFault")
  }
  override func willSave() {
    super.willSave()
    HookLog.shared.append(self, "willSave \(title)")
  }
  override func didSave() {
    super.didSave()
    HookLog.shared.append(self, "didSave \(title)")
  }
  override func validateForDelete() throws {
    try super.validateForDelete()
    if title == "keep" {
      throw ObjectGraphError(
        .deleteDenied, entity: "HookedNovel", key: "title", value: title,
        reason: "a kept novel cannot be deleted")
    }
  }
}

final class HookedShelf: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shelf") var novels: Set<HookedNovel>
}

@Suite("Lifecycle hooks and save events")
struct LifecycleHookTests {
  static let model = try! ObjectModel(types: [HookedNovel.self, HookedShelf.self])

  /// A container whose store holds a shelf with two novels, "Dune" and "Emma".
  static func saved() throws -> (PersistentContainer, [ObjectID]) {
    let container = PersistentContainer(model: model)
    let context = container.newContext()
    let shelf = context.insert(HookedShelf.self)
    let novels = ["Dune", "Emma"].map { title in
      let novel = context.insert(HookedNovel.self)
      novel.title = title
      novel.shelf = shelf
      return novel
    }
    try context.save()
    _ = HookLog.shared.take(container.store.identifier)
    return (container, novels.map(\.objectID) + [shelf.objectID])
  }

  @Test func awakeFromFetchRunsOncePerLoadWithChangesQuiet() throws {
    let (container, ids) = try Self.saved()
    let store = container.store.identifier
    let context = container.newContext()
    context.undoLog = UndoLog()
    let recorder = ChangeRecorder(context: context)
    var events = 0
    let token = context.onObjectsDidChange { _ in events += 1 }
    let dune = try #require(context.object(with: ids[0]) as? HookedNovel)
    var heard = 0
    let observer = try dune.observe(keyPath: "summary", options: [.new]) { _ in heard += 1 }
    #expect(HookLog.shared.take(store).isEmpty, "a fault is not awake yet")
    #expect(dune.title == "Dune")
    #expect(HookLog.shared.take(store) == ["awakeFromFetch Dune"])
    #expect(dune.summary == "summary of Dune", "set in awakeFromFetch")
    #expect(!dune.hasChanges && !context.hasChanges, "awakening changes nothing")
    context.processPendingChanges()
    #expect(events == 0 && heard == 0 && recorder.isEmpty)
    #expect(context.undoLog?.canUndo == false)
    // Reached again, through the shelf or by identifier: not loaded or awakened again.
    let shelf = try #require(dune.shelf)
    #expect(shelf.novels.contains(dune))
    #expect(context.object(with: ids[0]) === dune)
    _ = dune.title
    #expect(HookLog.shared.take(store) == [], "loaded once, awakened once")
    // A set after the awakening is an ordinary change.
    dune.summary = "changed"
    #expect(dune.hasChanges && heard == 1)
    _ = (token, observer)
  }

  @Test func membersOfAToManyComeInOneLoadAndAwakeOnFirstRead() throws {
    let store = TestStore(model: Self.model)
    let writer = PersistentContainer(store: store).viewContext
    let shelf = writer.insert(HookedShelf.self)
    for title in ["A", "B", "C"] {
      let novel = writer.insert(HookedNovel.self)
      novel.title = title
      novel.shelf = shelf
    }
    try writer.save()
    _ = HookLog.shared.take(store.identifier)
    let context = PersistentContainer(store: store).newContext()
    let loadsBefore = store.loads.count
    let reached = try #require(context.object(with: shelf.objectID) as? HookedShelf)
    let novels = reached.novels
    #expect(store.loads.count == loadsBefore + 1, "the shelf's row")
    #expect(store.memberLoads.suffix(1) == ["\(shelf.objectID).novels"])
    #expect(novels.count == 3 && novels.allSatisfy(\.isFault), "members are faults")
    #expect(HookLog.shared.take(store.identifier).isEmpty)
    #expect(novels.map(\.title).sorted() == ["A", "B", "C"])
    #expect(store.loads.count == loadsBefore + 1, "their values came with the to-many")
    #expect(novels.allSatisfy { !$0.isFault })
    #expect(
      HookLog.shared.take(store.identifier).sorted() == [
        "awakeFromFetch A", "awakeFromFetch B", "awakeFromFetch C",
      ])
    #expect(!context.hasChanges)
  }

  @Test func aSaveCallsWillSaveAndDidSaveAndPostsItsIdentifiers() throws {
    let (container, ids) = try Self.saved()
    let store = container.store.identifier
    let context = container.newContext()
    var heard: [String] = []
    let will = context.onWillSave {
      heard.append("will \($0.inserted.count) \($0.updated) \($0.deleted)")
    }
    let did = context.onDidSave {
      heard.append("did \($0.inserted.count) \($0.updated) \($0.deleted)")
    }
    let dune = try #require(context.object(with: ids[0]) as? HookedNovel)
    let emma = try #require(context.object(with: ids[1]) as? HookedNovel)
    dune.title = "Dune Messiah"
    try context.delete(emma)
    let new = context.insert(HookedNovel.self)
    new.title = "New"
    _ = HookLog.shared.take(store)
    try context.save()
    #expect(
      HookLog.shared.take(store) == [
        "willSave Dune Messiah", "willSave Emma", "willSave New",
        "didSave Dune Messiah", "didSave Emma", "didSave New",
        "willTurnIntoFault Emma", "didTurnIntoFault",
      ])
    let shelf = ids[2]
    #expect(
      heard == [
        "will 1 \([shelf, dune.objectID]) \([emma.objectID])",
        "did 1 \([shelf, dune.objectID]) \([emma.objectID])",
      ])
    // Nothing to save: no hooks, no events.
    heard = []
    try context.save()
    #expect(heard.isEmpty && HookLog.shared.take(store).isEmpty)
    // Released tokens hear nothing.
    _ = (will, did)
  }

  @Test func aRefusedDeleteFailsTheSaveAndNothingIsWritten() throws {
    let (container, ids) = try Self.saved()
    let context = container.newContext()
    var saved = 0
    let token = context.onDidSave { _ in saved += 1 }
    let dune = try #require(context.object(with: ids[0]) as? HookedNovel)
    dune.title = "keep"
    try context.save()
    #expect(saved == 1)
    try context.delete(dune)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(
      error?.kind == .deleteDenied && error?.entity == "HookedNovel" && error?.value == "keep")
    #expect(saved == 1 && dune.isDeleted && context.hasChanges)
    let reader = container.newContext()
    #expect((reader.object(with: ids[0]) as? HookedNovel)?.title == "keep", "still in the store")
    _ = token
  }

  @Test func aFailedSaveCallsNoDidSave() throws {
    struct Full: Error {}
    let store = TestStore(model: Self.model)
    let context = PersistentContainer(store: store).viewContext
    var events: [String] = []
    let will = context.onWillSave { _ in events.append("will") }
    let did = context.onDidSave { _ in events.append("did") }
    let novel = context.insert(HookedNovel.self)
    novel.title = "Dune"
    store.failNextSave = Full()
    #expect(throws: Full.self) { try context.save() }
    #expect(events == ["will"])
    #expect(HookLog.shared.take(store.identifier) == ["willSave Dune"])
    #expect(novel.isInserted)
    _ = (will, did)
  }
}
