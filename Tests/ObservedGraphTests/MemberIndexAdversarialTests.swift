import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

// A model of its own for these tests: an unordered one-to-many (shelf ↔ volume) whose
// destination has a sub-entity (atlas), and a many-to-many (shelf ↔ tag).

final class MIShelf: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "shelf") var volumes: Set<MIVolume>
  @Relationship(inverse: "shelves") var tags: Set<MITag>
}

class MIVolume: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "volumes") var shelf: MIShelf?
}

final class MIAtlas: MIVolume {
  @Attribute var scale: Int = 0
}

final class MITag: ManagedObject {
  @Attribute var label: String = ""
  @Relationship(inverse: "tags") var shelves: Set<MIShelf>
}

enum MIShelves {
  static let model = try! ObjectModel(types: [
    MIShelf.self, MIVolume.self, MIAtlas.self, MITag.self,
  ])
}

/// Adversarial tests of the unordered to-many's membership index (`MemberIndex` beside the
/// members array, made lazily, with `maxKey` telling objects made after every member apart):
/// every answer checked against a plain reference model, through the public API, and the index
/// itself fed addresses whose hashes collide on purpose.
@Suite struct MemberIndexAdversarialTests {
  // MARK: Checking a relationship against a model

  /// Records an issue unless `owner.key` holds exactly `expected`: no duplicate, each member
  /// found by the index at its position, and — for each object of `pool` — membership as the
  /// model says. Returns whether all agreed.
  @discardableResult
  static func check(
    _ owner: ManagedObject, _ key: String, holds expected: Set<ObjectIdentifier>,
    pool: [ManagedObject] = [], _ note: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    let property = owner.entity.propertiesByName[key]!
    let items = owner.members(property)
    var problems: [String] = []
    if items.count != expected.count {
      problems.append("holds \(items.count) members, the model \(expected.count)")
    }
    if Set(items.map(ObjectIdentifier.init)) != expected {
      problems.append("holds other members than the model")
    }
    if let collection = owner.collection(property) {
      for (position, member) in items.enumerated() where collection.index(of: member) != position {
        problems.append(
          "member at \(position) found at \(String(describing: collection.index(of: member)))")
        break
      }
      for object in pool
      where collection.contains(object) != expected.contains(ObjectIdentifier(object)) {
        problems.append(
          "contains(\(object.objectID)) is \(collection.contains(object)), the model says otherwise"
        )
        break
      }
    } else if !expected.isEmpty {
      problems.append("no collection, the model has \(expected.count) members")
    }
    if !problems.isEmpty {
      Issue.record(
        "\(owner.objectID).\(key): \(problems.joined(separator: "; ")) (\(note()))",
        sourceLocation: sourceLocation)
    } else {
      // (Last: a broken rule stops the process.)
      owner.collection(property)?.checkInvariants()
    }
    return problems.isEmpty
  }

  static func ids(_ objects: [ManagedObject]) -> Set<ObjectIdentifier> {
    Set(objects.map(ObjectIdentifier.init))
  }

  // MARK: The backbone: random edits against a reference model

  /// The world of the random test: which shelf (0, 1) each live volume is on (-1: none); a
  /// volume not in the map is deleted or its insertion was undone.
  struct World: Equatable {
    var shelf: [ObjectIdentifier: Int] = [:]
    func members(of index: Int) -> Set<ObjectIdentifier> {
      Set(shelf.lazy.filter { $0.value == index }.map(\.key))
    }
  }

  /// Thousands of seeded mixed edits of two shelves' volumes — by the to-one, the proxy, KVC,
  /// whole-set assignment, steals, deletes, new objects (keys above every member) and old ones
  /// (keys below), undo and redo when `undoing` — checked against the model after every step,
  /// every object's membership every 40 steps. Shelf 0 grows past 768 members (six doublings
  /// of the table).
  @Test(arguments: [true, false])
  func randomEditsMatchASetModel(undoing: Bool) throws {
    let seed = SplitMix64.seed(fallback: undoing ? 0x4D49_4144 : 0x4D49_5154)
    print(
      "MemberIndexAdversarialTests.randomEditsMatchASetModel(undoing: \(undoing)) seed: \(seed)")
    var random = SplitMix64(seed: seed)
    let context = ObjectContext(model: MIShelves.model)
    // Some volumes made before the shelves: their keys are below every later one.
    var pool: [MIVolume] = (0..<300).map { index in
      index % 7 == 0 ? context.insert(MIAtlas.self) : context.insert(MIVolume.self)
    }
    let shelves = [context.insert(MIShelf.self), context.insert(MIShelf.self)]
    pool += (0..<300).map { _ in context.insert(MIVolume.self) }
    var world = World()
    for volume in pool { world.shelf[ObjectIdentifier(volume)] = -1 }
    let undo = UndoLog()
    if undoing { context.undoLog = undo }
    var history: [World] = [world]
    var redoable: [World] = []
    var peak = 0

    func live() -> MIVolume? {
      for _ in 0..<8 {
        let volume = random.pick(pool)!
        if world.shelf[ObjectIdentifier(volume)] != nil { return volume }
      }
      return nil
    }
    func target() -> Int { random.chance(90) ? 0 : 1 }

    for step in 0..<3_000 {
      var touched: [MIVolume] = []
      var undid = false
      let roll = random.below(100)
      switch roll {
      case 0..<35:
        // A new volume, then onto a shelf (its key is above every member).
        let volume =
          random.chance(20) ? context.insert(MIAtlas.self) : context.insert(MIVolume.self)
        pool.append(volume)
        let to = target()
        if random.chance(50) {
          volume.shelf = shelves[to]
        } else {
          try shelves[to].mutableSet(forKey: "volumes").insert(volume)
        }
        world.shelf[ObjectIdentifier(volume)] = to
        touched = [volume]
      case 35..<52:
        // An existing volume onto a shelf (maybe a member already, maybe stolen).
        guard let volume = live() else { break }
        let to = target()
        switch random.below(3) {
        case 0: volume.shelf = shelves[to]
        case 1: try shelves[to].mutableSet(forKey: "volumes").insert(volume)
        default: try volume.setValue(shelves[to], forKey: "shelf")
        }
        world.shelf[ObjectIdentifier(volume)] = to
        touched = [volume]
      case 52..<62:
        // Off its shelf.
        guard let volume = live() else { break }
        let from = world.shelf[ObjectIdentifier(volume)]!
        if from >= 0, random.chance(50) {
          try shelves[from].mutableSet(forKey: "volumes").remove(volume)
        } else {
          volume.shelf = nil
        }
        world.shelf[ObjectIdentifier(volume)] = -1
        touched = [volume]
      case 62..<66:
        // Deleted (nullify: it leaves its shelf).
        guard let volume = live() else { break }
        try context.delete(volume)
        world.shelf[ObjectIdentifier(volume)] = nil
        touched = [volume]
      case 66..<68:
        // The whole relationship set: some members kept, some new.
        let index = random.below(2)
        let kept = shelves[index].volumes.filter { _ in random.chance(90) }
        let added = (0..<random.below(20)).compactMap { _ in live() }
        let whole = kept.union(added)
        if random.chance(50) {
          shelves[index].volumes = whole
        } else {
          try shelves[index].setValue(whole, forKey: "volumes")
        }
        for (id, shelf) in world.shelf where shelf == index { world.shelf[id] = -1 }
        for volume in whole { world.shelf[ObjectIdentifier(volume)] = index }
        touched = Array(whole)
      case 68..<69:
        // Emptied (now and then).
        guard random.chance(25) else { break }
        let index = random.below(2)
        if random.chance(50) {
          try shelves[index].mutableSet(forKey: "volumes").removeAll()
        } else {
          shelves[index].volumes = []
        }
        for (id, shelf) in world.shelf where shelf == index { world.shelf[id] = -1 }
      case 69..<80 where undoing:
        guard undo.canUndo, history.count > 1 else { break }
        try undo.undo()
        redoable.append(history.removeLast())
        world = history.last!
        undid = true
      case 80..<86 where undoing:
        guard undo.canRedo, let next = redoable.popLast() else { break }
        try undo.redo()
        history.append(next)
        world = next
        undid = true
      default:
        // A lookup only: an old volume's membership (indexes what was not).
        guard let volume = live() else { break }
        touched = [volume]
      }
      if undoing, !undid, world != history.last! {
        undo.markEventBoundary()
        history.append(world)
        redoable = []
      }
      let note = "seed \(seed), step \(step), roll \(roll)"
      peak = max(peak, shelves[0].volumes.count)
      for (index, shelf) in shelves.enumerated() {
        let full = step % 40 == 0
        let ok = Self.check(
          shelf, "volumes", holds: world.members(of: index), pool: full ? pool : touched, note)
        guard ok else { return }
      }
      for volume in touched where world.shelf[ObjectIdentifier(volume)] != nil {
        let index = world.shelf[ObjectIdentifier(volume)]!
        #expect(volume.shelf === (index < 0 ? nil : shelves[index]), "\(note)")
      }
    }
    #expect(peak > 192, "seed \(seed): the shelf grows past 192 members (peak \(peak))")
    for (index, shelf) in shelves.enumerated() {
      Self.check(shelf, "volumes", holds: world.members(of: index), pool: pool, "end")
    }
  }

  /// The collection itself, as the quiet path and a release build use it (the debug checks of
  /// a context look every touched member up, which indexes it): seeded adds of objects made
  /// after every member (left unindexed), re-adds of old ones (keys below `maxKey`), removals
  /// of the last member (an add undone) and of others, lookups and the odd `removeAll`, against
  /// an array that removes by swapping the last in as the collection does — so every position
  /// `remove` and `index(of:)` give is checked, through growth while members wait unindexed.
  @Test func lazyWindowRandomEditsKeepPositions() {
    let seed = SplitMix64.seed(fallback: 0x4D49_4C5A)
    print("MemberIndexAdversarialTests.lazyWindowRandomEditsKeepPositions seed: \(seed)")
    var random = SplitMix64(seed: seed)
    let context = ObjectContext(model: MIShelves.model)
    let pool = (0..<3_000).map { _ in context.insert(MIVolume.self) }
    var next = 0
    let collection = ObjectCollection(ordered: false)
    var model: [MIVolume] = []
    var position: [ObjectIdentifier: Int] = [:]
    var unindexedRemovals = 0
    var unindexedGrowths = 0
    func removeFromModel(_ member: MIVolume) -> Int {
      let index = position.removeValue(forKey: ObjectIdentifier(member))!
      let last = model.removeLast()
      if index < model.count {
        model[index] = last
        position[ObjectIdentifier(last)] = index
      }
      return index
    }
    for step in 0..<8_000 {
      let note = "seed \(seed), step \(step)"
      let roll = random.below(1_000)
      switch roll {
      case 0..<450 where next < pool.count:
        let volume = pool[next]
        next += 1
        if random.chance(50) { collection.insertNew(volume) } else { collection.insert(volume) }
        position[ObjectIdentifier(volume)] = model.count
        model.append(volume)
      case 0..<560:
        // An old object, maybe a member: added when it is not.
        guard next > 0 else { break }
        let volume = pool[random.below(next)]
        let member = position[ObjectIdentifier(volume)] != nil
        guard collection.contains(volume) == member else {
          Issue.record("contains is \(!member) for an old object (\(note))")
          return
        }
        if !member {
          collection.insert(volume)
          position[ObjectIdentifier(volume)] = model.count
          model.append(volume)
        }
      case 560..<850:
        guard !model.isEmpty else { break }
        let member = random.chance(35) ? model.last! : model[random.below(model.count)]
        if collection.indexedCount < collection.count, member !== model.last {
          unindexedRemovals += 1
        }
        let removed = collection.remove(member)
        let expected = removeFromModel(member)
        guard removed == expected else {
          Issue.record("remove gave \(removed), the model \(expected) (\(note))")
          return
        }
      case 850..<997:
        guard next > 0 else { break }
        let volume = pool[random.below(min(pool.count, next + 5))]
        let (waiting, capacity) = (
          collection.count - collection.indexedCount, collection.indexCapacity
        )
        let expected = position[ObjectIdentifier(volume)]
        let found = collection.index(of: volume)
        if waiting > 1, collection.indexCapacity > capacity, capacity > 0 { unindexedGrowths += 1 }
        guard found == expected, collection.contains(volume) == (expected != nil) else {
          Issue.record(
            "index(of:) gave \(String(describing: found)), the model \(String(describing: expected)) (\(note))"
          )
          return
        }
      default:
        collection.removeAll()
        model.removeAll()
        position.removeAll()
      }
      guard collection.count == model.count else {
        Issue.record("\(collection.count) members, the model \(model.count) (\(note))")
        return
      }
      if step % 64 == 0 || model.count < 16 {
        collection.checkInvariants()
        guard collection.items.elementsEqual(model, by: { $0 === $1 }) else {
          Issue.record("the members are not in the model's order (\(note))")
          return
        }
      }
    }
    collection.checkInvariants()
    #expect(collection.items.elementsEqual(model, by: { $0 === $1 }))
    for volume in pool {
      #expect(collection.index(of: volume) == position[ObjectIdentifier(volume)])
    }
    #expect(unindexedRemovals > 50, "the test removes members while others wait")
    #expect(unindexedGrowths > 2, "the table grows while members wait")
    withExtendedLifetime(context) {}
  }

  // MARK: Keys

  /// Objects made before every member, added after them (keys below `maxKey`), and an object
  /// made after, added first: adding each one again changes nothing, and each is found. With no
  /// `maxKey` kept, the second add of an old object would duplicate it.
  @Test func objectsWithKeysBelowTheHighestMemberAreFound() throws {
    let context = ObjectContext(model: MIShelves.model)
    let old = (0..<30).map { _ in context.insert(MIVolume.self) }
    let shelf = context.insert(MIShelf.self)
    let new = (0..<30).map { _ in context.insert(MIVolume.self) }
    // The newest first, then the old ones, newest to oldest, then the rest of the new.
    let order = [new.last!] + old.reversed() + new.dropLast()
    for volume in order {
      try shelf.mutableSet(forKey: "volumes").insert(volume)
    }
    for volume in order {
      try shelf.mutableSet(forKey: "volumes").insert(volume)
      volume.shelf = shelf
      try volume.setValue(shelf, forKey: "shelf")
    }
    Self.check(shelf, "volumes", holds: Self.ids(order), pool: order, "added twice")
    #expect(shelf.volumes.count == 60)
    // Remove the highest, then add the old ones again: maxKey stays where it was.
    try shelf.mutableSet(forKey: "volumes").remove(new.last!)
    for volume in old { try shelf.mutableSet(forKey: "volumes").insert(volume) }
    Self.check(
      shelf, "volumes", holds: Self.ids(old + new.dropLast()), pool: order, "after a removal")
  }

  /// `removeAll`, and setting the whole relationship to empty, forget the old members: an
  /// old member with a key below the removed ones' is not found and joins again once.
  @Test func emptiedCollectionForgetsItsMembers() throws {
    let context = ObjectContext(model: MIShelves.model)
    let shelf = context.insert(MIShelf.self)
    let volumes = (0..<50).map { _ in context.insert(MIVolume.self) }
    for (round, empty) in ["removeAll", "assign", "proxy", "kvc"].enumerated() {
      for volume in volumes.suffix(from: round * 5) { volume.shelf = shelf }
      _ = shelf.mutableSet(forKeyOrNil: "volumes")?.contains(volumes[20])
      switch empty {
      case "removeAll": try shelf.mutableSet(forKey: "volumes").removeAll()
      case "assign": shelf.volumes = []
      case "proxy": try shelf.mutableSet(forKey: "volumes").subtract(shelf.volumes.map { $0 })
      default: try shelf.setValue(Set<MIVolume>(), forKey: "volumes")
      }
      Self.check(shelf, "volumes", holds: [], pool: volumes, "after \(empty)")
      #expect(volumes.allSatisfy { $0.shelf == nil })
      // Low keys first.
      for volume in volumes.prefix(10) { volume.shelf = shelf }
      for volume in volumes.prefix(10) { try shelf.mutableSet(forKey: "volumes").insert(volume) }
      Self.check(
        shelf, "volumes", holds: Self.ids(Array(volumes.prefix(10))), pool: volumes,
        "refilled after \(empty)")
      shelf.volumes = []
    }
  }

  // MARK: Members not yet indexed

  /// Members added with rising keys are not indexed; removing one in the middle (not the last),
  /// then the last, then undoing each and redoing, keeps every member found at its place.
  @Test func unindexedMembersRemovedUndoneAndRedone() throws {
    let context = ObjectContext(model: MIShelves.model)
    let undo = UndoLog()
    context.undoLog = undo
    let shelf = context.insert(MIShelf.self)
    let early = (0..<20).map { _ in context.insert(MIVolume.self) }
    for volume in early { volume.shelf = shelf }
    undo.markEventBoundary()
    // Indexes the twenty.
    #expect(shelf.collection(shelf.entity.propertiesByName["volumes"]!)!.contains(early[3]))
    var late: [MIVolume] = []
    for _ in 0..<40 {
      let volume = context.insert(MIVolume.self)
      volume.shelf = shelf
      late.append(volume)
      undo.markEventBoundary()
    }
    let all = early + late
    // Off the shelf: one not yet indexed in the middle, then the last, then an indexed one.
    late[10].shelf = nil
    undo.markEventBoundary()
    late[39].shelf = nil
    undo.markEventBoundary()
    try shelf.mutableSet(forKey: "volumes").remove(early[0])
    undo.markEventBoundary()
    var expected = Self.ids(all).subtracting(Self.ids([late[10], late[39], early[0]]))
    Self.check(shelf, "volumes", holds: expected, pool: all, "three removed")
    for (count, back) in [early[0], late[39], late[10]].enumerated() {
      try undo.undo()
      expected.insert(ObjectIdentifier(back))
      Self.check(shelf, "volumes", holds: expected, pool: all, "undo \(count)")
    }
    // Undo the adds of the last ten late volumes (their insertions too): each the last member,
    // not yet indexed, or indexed by the checks above.
    for volume in late.suffix(10).reversed() {
      try undo.undo()
      expected.remove(ObjectIdentifier(volume))
      Self.check(shelf, "volumes", holds: expected, pool: all, "undo of an add")
    }
    for volume in late.suffix(10) {
      try undo.redo()
      expected.insert(ObjectIdentifier(volume))
      Self.check(shelf, "volumes", holds: expected, pool: all, "redo of an add")
    }
    // An old member re-added after it was removed while not indexed.
    let fresh = (0..<5).map { _ in context.insert(MIVolume.self) }
    for volume in fresh { volume.shelf = shelf }
    fresh[1].shelf = nil
    fresh[1].shelf = shelf
    try shelf.mutableSet(forKey: "volumes").insert(fresh[1])
    expected.formUnion(Self.ids(fresh))
    Self.check(shelf, "volumes", holds: expected, pool: all + fresh, "re-added")
  }

  /// The last member leaving while it waits unindexed (an add undone, a quiet delete) leaves
  /// `maxKey` as it was: the member with the highest key, added first, is still found, at the
  /// collection and through the public API (adding it again changes nothing).
  @Test func undoOfAnUnindexedAddKeepsTheHighestKey() throws {
    let context = ObjectContext(model: MIShelves.model)
    let shelf = context.insert(MIShelf.self)
    let (low, middle, high) = (
      context.insert(MIVolume.self), context.insert(MIVolume.self), context.insert(MIVolume.self)
    )
    // The collection alone: `high`, then `low` (indexes `high`), then `middle` (indexes `low`),
    // then `middle` leaves as the last member, not indexed.
    let collection = ObjectCollection(ordered: false)
    collection.insertNew(high)
    collection.insert(low)
    collection.insert(middle)
    #expect(collection.remove(middle) == 2)
    #expect(collection.contains(high) && collection.index(of: high) == 0)
    #expect(collection.index(of: low) == 1 && !collection.contains(middle))
    // Through the public API: the last member deleted while nothing records (a quiet delete
    // removes it without a lookup first), then the first added again.
    let quiet = context.insert(MIShelf.self)
    let (first, second, third) = (
      context.insert(MIVolume.self), context.insert(MIVolume.self), context.insert(MIVolume.self)
    )
    third.shelf = quiet
    first.shelf = quiet
    second.shelf = quiet
    try context.delete(second)
    try quiet.mutableSet(forKey: "volumes").insert(third)
    third.shelf = quiet
    Self.check(quiet, "volumes", holds: Self.ids([third, first]), pool: [first, third], "deleted")
    // The same undoing the last add.
    let undo = UndoLog()
    context.undoLog = undo
    for volume in [high, low, middle] {
      volume.shelf = shelf
      undo.markEventBoundary()
    }
    try undo.undo()
    try shelf.mutableSet(forKey: "volumes").insert(high)
    high.shelf = shelf
    Self.check(
      shelf, "volumes", holds: Self.ids([high, low]), pool: [low, middle, high], "undone")
    try undo.redo()
    Self.check(
      shelf, "volumes", holds: Self.ids([high, low, middle]), pool: [low, middle, high], "redone")
  }

  /// Another shelf steals members the first has not indexed yet (each through the to-one, the
  /// proxy or KVC): the first no longer finds them, the second does; undo gives them back.
  @Test func stealsOfUnindexedMembers() throws {
    let context = ObjectContext(model: MIShelves.model)
    let undo = UndoLog()
    context.undoLog = undo
    let (first, second) = (context.insert(MIShelf.self), context.insert(MIShelf.self))
    let volumes = (0..<100).map { _ in context.insert(MIVolume.self) }
    for volume in volumes { try first.mutableSet(forKey: "volumes").insert(volume) }
    undo.markEventBoundary()
    var stolen: [MIVolume] = []
    for (index, volume) in volumes.enumerated() where index % 3 == 1 || index == 99 {
      switch index % 9 {
      case 1: volume.shelf = second
      case 4: try second.mutableSet(forKey: "volumes").insert(volume)
      default: try volume.setValue(second, forKey: "shelf")
      }
      stolen.append(volume)
    }
    undo.markEventBoundary()
    Self.check(
      first, "volumes", holds: Self.ids(volumes).subtracting(Self.ids(stolen)), pool: volumes,
      "stolen")
    Self.check(second, "volumes", holds: Self.ids(stolen), pool: volumes, "stolen")
    try undo.undo()
    Self.check(first, "volumes", holds: Self.ids(volumes), pool: volumes, "undone")
    Self.check(second, "volumes", holds: [], pool: volumes, "undone")
    try undo.redo()
    Self.check(second, "volumes", holds: Self.ids(stolen), pool: volumes, "redone")
    Self.check(
      first, "volumes", holds: Self.ids(volumes).subtracting(Self.ids(stolen)), pool: volumes,
      "redone")
  }

  // MARK: Delete rules

  /// For each delete rule of a hub's to-many: spokes added with rising keys (not indexed),
  /// some deleted (each leaves every hub, as its own to-ones nullify), undone; then the hub
  /// deleted — cascade takes the spokes, deny refuses, nullify and no action leave them — and
  /// undone.
  @Test(arguments: DeleteRule.allCases)
  func deleteRules(rule: DeleteRule) throws {
    let context = ObjectContext(model: Dynamic.rules)
    let undo = UndoLog()
    context.undoLog = undo
    let hub = try context.insertObject(forEntityName: "Hub")
    let key = "\(rule.rawValue)Spokes"
    let spokes = try (0..<40).map { _ in try context.insertObject(forEntityName: "Spoke") }
    for (index, spoke) in spokes.enumerated() {
      if index.isMultiple(of: 2) {
        try hub.mutableSet(forKey: key).insert(spoke)
      } else {
        try spoke.setValue(hub, forKey: "\(rule.rawValue)Hub")
      }
    }
    undo.markEventBoundary()
    let doomed = [spokes[5], spokes[39], spokes[0]]
    for spoke in doomed { try context.delete(spoke) }
    undo.markEventBoundary()
    Self.check(
      hub, key, holds: Self.ids(spokes).subtracting(Self.ids(doomed)), pool: spokes,
      "\(rule): spokes deleted")
    try undo.undo()
    Self.check(hub, key, holds: Self.ids(spokes), pool: spokes, "\(rule): deletes undone")
    if rule == .deny {
      #expect(throws: (any Error).self) { try context.delete(hub) }
      Self.check(hub, key, holds: Self.ids(spokes), pool: spokes, "\(rule): refused")
      try hub.mutableSet(forKey: key).removeAll()
      undo.markEventBoundary()
      Self.check(hub, key, holds: [], pool: spokes, "\(rule): emptied")
      try context.delete(hub)
    } else {
      try context.delete(hub)
    }
    undo.markEventBoundary()
    switch rule {
    case .cascade: #expect(spokes.allSatisfy { $0.isDeleted }, "\(rule)")
    case .nullify, .deny:
      #expect(try spokes.allSatisfy { try $0.value(forKey: "\(rule.rawValue)Hub") == nil })
    case .noAction: break
    }
    try undo.undo()
    #expect(!hub.isDeleted)
    Self.check(
      hub, key, holds: rule == .deny ? [] : Self.ids(spokes), pool: spokes, "\(rule): hub back")
    if rule == .deny { try undo.undo() }
    Self.check(hub, key, holds: Self.ids(spokes), pool: spokes, "\(rule): all back")
    for spoke in spokes {
      #expect(try spoke.value(forKey: "\(rule.rawValue)Hub") as? ManagedObject === hub)
    }
  }

  // MARK: Many-to-many, sub-entities

  /// Shelves and tags related both ways, from either side, in a seeded order: each side holds
  /// what the other says, and each matches the model.
  @Test func manyToManyAgreesBothWays() throws {
    let seed = SplitMix64.seed(fallback: 0x4D49_4D4D)
    print("MemberIndexAdversarialTests.manyToManyAgreesBothWays seed: \(seed)")
    var random = SplitMix64(seed: seed)
    let context = ObjectContext(model: MIShelves.model)
    let oldTags = (0..<40).map { _ in context.insert(MITag.self) }
    let shelves = (0..<6).map { _ in context.insert(MIShelf.self) }
    var tags = oldTags + (0..<40).map { _ in context.insert(MITag.self) }
    var pairs = Set<[ObjectIdentifier]>()
    for step in 0..<1_500 {
      if random.chance(5) { tags.append(context.insert(MITag.self)) }
      let (shelf, tag) = (random.pick(shelves)!, random.pick(tags)!)
      let pair = [ObjectIdentifier(shelf), ObjectIdentifier(tag)]
      if random.chance(60) {
        if random.chance(50) {
          try shelf.mutableSet(forKey: "tags").insert(tag)
        } else {
          try tag.mutableSet(forKey: "shelves").insert(shelf)
        }
        pairs.insert(pair)
      } else {
        if random.chance(50) {
          try shelf.mutableSet(forKey: "tags").remove(tag)
        } else {
          try tag.mutableSet(forKey: "shelves").remove(shelf)
        }
        pairs.remove(pair)
      }
      let full = step % 100 == 0
      let note = "seed \(seed), step \(step)"
      guard
        Self.check(
          shelf, "tags", holds: Set(pairs.filter { $0[0] == pair[0] }.map { $0[1] }),
          pool: full ? tags : [tag], note),
        Self.check(
          tag, "shelves", holds: Set(pairs.filter { $0[1] == pair[1] }.map { $0[0] }),
          pool: shelves, note)
      else { return }
    }
  }

  /// Volumes and atlases (a sub-entity) in one relationship; atlases made before and after the
  /// volumes; KVC with a set of the base type.
  @Test func subEntitiesShareTheRelationship() throws {
    let context = ObjectContext(model: MIShelves.model)
    let atlases = (0..<20).map { _ in context.insert(MIAtlas.self) }
    let shelf = context.insert(MIShelf.self)
    let volumes = (0..<20).map { _ in context.insert(MIVolume.self) }
    let later = (0..<20).map { _ in context.insert(MIAtlas.self) }
    let all: [MIVolume] = volumes + atlases + later
    try shelf.setValue(Set(all.prefix(30)), forKey: "volumes")
    for volume in all.suffix(30) { volume.shelf = shelf }
    Self.check(shelf, "volumes", holds: Self.ids(all), pool: all, "all")
    for atlas in atlases { try shelf.mutableSet(forKey: "volumes").remove(atlas) }
    for atlas in atlases.reversed() { atlas.shelf = shelf }
    try shelf.mutableSet(forKey: "volumes").remove(later[0])
    Self.check(
      shelf, "volumes", holds: Self.ids(all).subtracting([ObjectIdentifier(later[0])]), pool: all,
      "atlases back")
  }

  // MARK: Rollback, refresh, reset

  /// After a save, adds (keys below and above the members) and removals are rolled back: the
  /// relationship holds what was saved, and edits after the rollback agree with a model.
  @Test func rollbackRestoresMembership() throws {
    let context = ObjectContext(model: MIShelves.model)
    let old = (0..<30).map { _ in context.insert(MIVolume.self) }
    let shelf = context.insert(MIShelf.self)
    let saved = (0..<30).map { _ in context.insert(MIVolume.self) }
    for volume in saved { volume.shelf = shelf }
    try context.save()
    for volume in old { volume.shelf = shelf }
    for volume in saved.prefix(15) { volume.shelf = nil }
    let new = (0..<30).map { _ in context.insert(MIVolume.self) }
    for volume in new { volume.shelf = shelf }
    try shelf.mutableSet(forKey: "volumes").remove(saved[29])
    context.rollback()
    let pool = old + saved
    Self.check(shelf, "volumes", holds: Self.ids(saved), pool: pool, "rolled back")
    for volume in saved.suffix(5) { volume.shelf = nil }
    for volume in old.prefix(5) { try shelf.mutableSet(forKey: "volumes").insert(volume) }
    Self.check(
      shelf, "volumes",
      holds: Self.ids(saved.dropLast(5) + old.prefix(5)), pool: pool, "edited after")
  }

  /// A context reset: a new shelf in the same context relates the volumes made after it.
  @Test func resetLeavesNewCollectionsRight() throws {
    let context = ObjectContext(model: MIShelves.model)
    let shelf = context.insert(MIShelf.self)
    for _ in 0..<20 { context.insert(MIVolume.self).shelf = shelf }
    context.reset()
    let old = (0..<10).map { _ in context.insert(MIVolume.self) }
    let again = context.insert(MIShelf.self)
    let new = (0..<10).map { _ in context.insert(MIVolume.self) }
    for volume in new + old + new { volume.shelf = again }
    Self.check(again, "volumes", holds: Self.ids(old + new), pool: old + new, "after reset")
  }

  // MARK: The index alone, with colliding hashes

  /// The multiplier of `MemberIndex`'s hash, and its inverse modulo 2⁶⁴: an address whose hash
  /// is any chosen value is `value × inverse`.
  static let multiplier: UInt = 0x9E37_79B9_7F4A_7C15
  static let inverse: UInt = {
    var inverse = multiplier
    for _ in 0..<6 { inverse = inverse &* (2 &- multiplier &* inverse) }
    precondition(inverse &* multiplier == 1)
    return inverse
  }()

  static func address(hashing hash: UInt) -> UInt { hash &* inverse }

  static func hash(_ object: ManagedObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()) &* multiplier
  }

  /// Fake members (never dereferenced by the index) whose hashes agree with a real object's in
  /// their top 32 bits — the same home and the same tag at every table size — and others in the
  /// last home (their runs wrap around) or with the home and not the tag: every lookup of a
  /// member gives its position and of a non-member nil, through growth, rebuilding, and removals
  /// of the real objects by swapping the last member in.
  @Test func collidingTagsAndWrappingRuns() {
    let context = ObjectContext(model: MIShelves.model)
    let reals = (0..<4).map { _ in context.insert(MIVolume.self) }
    var addresses: [UInt] = []
    var outsiders: [UInt] = []
    for (index, real) in reals.enumerated() {
      let top = Self.hash(real) & ~UInt(0xFFFF_FFFF)
      for low in 1...UInt(12) {
        addresses.append(Self.address(hashing: top | (low &* 0x1_0001)))
      }
      // Same top 32 bits, never a member.
      outsiders.append(Self.address(hashing: top | 0xFFFF_0000))
      // The last home at every size, tags differing.
      addresses.append(Self.address(hashing: ~UInt(0) &- UInt(index) &* 0x1_0000_0000))
      // Same home at 8 entries as the real one, another tag.
      addresses.append(Self.address(hashing: Self.hash(real) ^ 0x0000_0400_0000_0000))
    }
    // The real members interleaved with the fakes.
    var members: [Unmanaged<ManagedObject>] = []
    var realAt: [Int] = []
    for (index, address) in addresses.enumerated() {
      members.append(Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!))
      if index % 14 == 5 {
        realAt.append(members.count)
        members.append(Unmanaged.passUnretained(reals[realAt.count - 1]))
      }
    }
    #expect(realAt.count == 4)
    func expectPositions(
      _ index: MemberIndex, _ members: [Unmanaged<ManagedObject>], _ note: String
    ) {
      members.withUnsafeBufferPointer { buffer in
        index.checkInvariants(buffer)
        for position in 0..<index.count {
          let address = UInt(bitPattern: buffer[position].toOpaque())
          #expect(index.position(ofAddress: address, in: buffer) == position, "\(note)")
        }
        for outsider in outsiders {
          #expect(index.position(ofAddress: outsider, in: buffer) == nil, "\(note)")
        }
      }
    }
    // One at a time (growing from 8 entries through 128) and rebuilt at once.
    var grown = MemberIndex()
    for position in members.indices {
      members.withUnsafeBufferPointer { grown.append(at: position, in: $0) }
      expectPositions(grown, members, "appended \(position)")
    }
    var rebuilt = MemberIndex()
    members.withUnsafeBufferPointer { rebuilt.rebuild(count: $0.count, from: $0) }
    expectPositions(rebuilt, members, "rebuilt")
    // The real members leave, each swapping the last in.
    for var index in [grown, rebuilt] {
      var held = members
      for real in reals.reversed() + [reals[1]] {
        let expected = held.firstIndex {
          $0.toOpaque() == Unmanaged.passUnretained(real).toOpaque()
        }
        let position = held.withUnsafeBufferPointer { index.removeBySwappingLast(real, in: $0) }
        #expect(position == expected)
        if let position {
          held.swapAt(position, held.count - 1)
          held.removeLast()
        }
        expectPositions(index, held, "removed")
        held.withUnsafeBufferPointer { buffer in
          #expect(index.position(of: real, in: buffer) == nil)
        }
      }
    }
    withExtendedLifetime((context, reals)) {}
  }
}

extension ManagedObject {
  /// The proxy of a to-many, or nil (for a lookup that needs no error).
  fileprivate func mutableSet(forKeyOrNil key: String) -> MutableObjectSet? {
    try? mutableSet(forKey: key)
  }
}
