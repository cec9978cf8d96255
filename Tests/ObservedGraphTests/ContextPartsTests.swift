import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// The context's parts check themselves: corrupting any one of them makes `_checkInvariants()`
/// stop with a message (debug builds run these checks after every change).
@Suite("Context parts check themselves")
struct ContextPartsTests {
  @Test func aHealthyContextPassesEveryCheck() throws {
    let s = BookStore.scenario()
    s.context.undoLog = UndoLog()
    try s.context.delete(s.books[0])
    s.context._checkInvariants()
    s.context.registry.checkInvariants()
    s.context.tracker.checkInvariants()
    s.context.center.checkInvariants()
    s.context.recorder.checkInvariants()
  }

  @Test func theRegistryCatchesAnObjectInTheWrongState() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      s.books[0].lifecycle = .detached
      s.context.registry.checkInvariants()
    }
  }

  @Test func theTrackerCatchesADirtyObjectWithNothingToSave() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      try? s.context.save()
      s.context.tracker.noteDirty(s.books[0])
      s.context.tracker.checkInvariants()
    }
  }

  @Test func theTrackerCatchesAnObjectThatForgotItsPlace() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      s.books[0].price = 1
      s.books[0].dirtyIndex = 0
      s.books[1].dirtyIndex = 0
      s.context.tracker.checkInvariants()
    }
  }

  /// The tracker's list of objects with unsaved changes follows every way in and out: changes,
  /// undo back to clean, undo of an insert, saves.
  @Test func theTrackerListsExactlyTheObjectsWithChanges() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    try s.context.save()
    #expect(s.context.tracker.dirty.isEmpty)
    s.books[0].price = 1
    s.books[1].price = 2
    let page = s.context.insert(Page.self)
    s.context.processPendingChanges()
    #expect(
      Set(s.context.tracker.dirty.map(\.objectID))
        == Set([s.books[0], s.books[1], page].map(\.objectID)))
    try log.undo()  // all three back: the books clean, the page's insert undone
    #expect(s.context.tracker.dirty.isEmpty)
    #expect([s.books[0], s.books[1], page].allSatisfy { $0.dirtyIndex == -1 })
    try log.redo()
    #expect(s.context.tracker.dirty.count == 3)
    s.context.tracker.checkInvariants()
    try s.context.save()
    #expect(s.context.tracker.dirty.isEmpty)
    #expect(s.books[0].dirtyIndex == -1)
  }

  /// The registry's key table against a dictionary, over keys that fill and empty pages.
  @Test func theKeyTableAgreesWithADictionary() {
    var random = SplitMix64(seed: SplitMix64.seed(fallback: 0x7AB1E))
    let table = KeyTable<Int>()
    var reference: [Int64: Int] = [:]
    // Small keys (pages in the array) and keys beyond it (pages in the dictionary).
    let far: Int64 = 1 << 40
    for step in 0..<20_000 {
      var key = Int64.random(in: 1...2_000, using: &random)
      if step % 3 == 0 { key += far }
      switch Int.random(in: 0..<3, using: &random) {
      case 0, 1:
        table[key] = step
        reference[key] = step
      default:
        #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
      }
      #expect(table[key] == reference[key])
      // The key, its neighbour on the same page, another page, the other kind of page.
      for probe in [key, key ^ 1, key &+ 300, key ^ far] {
        #expect(table[probe] == reference[probe])
      }
      if step % 1_000 == 0 {
        table.checkInvariants()
        #expect(table.count == reference.count)
        #expect(
          Dictionary(uniqueKeysWithValues: table.entries.map { ($0.key, $0.value) }) == reference)
      }
    }
    for key in Array(reference.keys) { table[key] = nil }
    table.checkInvariants()
    #expect(table.isEmpty && table.entries.isEmpty)
    // Emptied all at once, the table answers nil for keys it held and holds new ones again.
    for key: Int64 in [5, 700, far + 5] { table[key] = Int(key) }
    table.removeAll()
    table.checkInvariants()
    #expect([Int64(5), 700, far + 5].allSatisfy { table[$0] == nil })
    table[700] = 1
    table.checkInvariants()
    #expect(table[700] == 1 && table[5] == nil && table.count == 1)
  }

  @Test func theIdentityTableAgreesWithADictionary() {
    var random = SplitMix64(seed: SplitMix64.seed(fallback: 0x1D7AB1E))
    let context = ObjectContext(model: BookStore.model)
    let objects = (0..<600).map { _ in context.insert(Page.self) as ManagedObject }
    var table = IdentityPositions()
    var reference: [ObjectIdentifier: Int] = [:]
    for step in 0..<30_000 {
      let object = objects[random.below(objects.count)]
      let id = ObjectIdentifier(object)
      switch random.below(5) {
      case 0, 1, 2:
        table.set(object, step)
        reference[id] = step
      case 3:
        #expect(table.remove(object) == reference.removeValue(forKey: id))
      default:
        if step % 5_000 == 0 {
          table.removeAll()
          reference.removeAll()
        }
      }
      #expect(table[object] == reference[id])
      #expect(table.count == reference.count)
      if step % 1_000 == 0 {
        table.checkInvariants()
        #expect(objects.allSatisfy { table[$0] == reference[ObjectIdentifier($0)] })
      }
    }
    for object in objects { table.remove(object) }
    table.checkInvariants()
    #expect(table.count == 0 && objects.allSatisfy { table[$0] == nil })
  }

  /// Committed values (the first kept in place, the others in a list) agree with a dictionary
  /// through a seeded run of sets and removals.
  @Test func committedValuesAgreeWithADictionary() {
    var values = CommittedValues()
    var reference: [Int: SnapshotValue] = [:]
    var random = SplitMix64(seed: 0xC0FFEE)
    for step in 0..<4_000 {
      let slot = random.below(6)
      let value: SnapshotValue? =
        random.below(3) == 0 ? nil : .attribute(.integer(Int64(step)))
      values[slot] = value
      reference[slot] = value
      for slot in 0..<6 { #expect(values[slot] == reference[slot], "step \(step) slot \(slot)") }
      #expect(values.isEmpty == reference.isEmpty)
    }
  }

  @Test func aColumnBufferKeepsEveryValueAcrossItsChunks() {
    // Past the doubling chunks (16 … 4,096: 8,176 values) into chunks of the largest size.
    var buffer = ColumnBuffer<Int>()
    #expect(buffer.last == nil)
    for value in 0..<20_000 {
      buffer.append(value * 3)
      if value % 997 == 0 { buffer.checkInvariants() }
    }
    buffer.checkInvariants()
    #expect(buffer.count == 20_000)
    #expect((0..<20_000).allSatisfy { buffer[$0] == $0 * 3 })
    var walked: [Int] = []
    if var place = buffer.last {
      repeat {
        #expect(buffer[place] == place.index * 3)
        walked.append(place.index)
      } while place.retreat()
    }
    #expect(walked == Array((0..<20_000).reversed()))
    // Chunks double from 16 up to 4,096, then stay at 4,096.
    #expect(buffer.chunks.count == 9 + 3)

    // Values that are references are released when the buffer ends.
    final class Token {}
    weak var gone: Token?
    do {
      var tokens = ColumnBuffer<Token>()
      let token = Token()
      gone = token
      for _ in 0..<40 { tokens.append(token) }
      #expect(tokens.count == 40)
    }
    #expect(gone == nil)
  }

  @Test func theCenterCatchesAPendingObjectListedTwice() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      s.context.processPendingChanges()
      s.books[0].price = 1
      s.books[0].pending.listed = false
      s.books[0].price = 2
      s.context.center.checkInvariants()
    }
  }

  @Test func theGraphCheckCatchesAOneSidedRelationship() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      try? s.books[0].setPrimitiveValue(s.science, forKey: "category")
      s.context._checkInvariants()
    }
  }
}
