import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

// Deep and large structures: long to-one chains deleted by cascade, huge to-many relationships
// changed and undone, key paths through long chains. Every walk the library makes over them is a
// loop, never a recursion, so none of these overflows the stack.
//
// The structures are put in a store directly and loaded as faults, so that building them costs
// no mutation path. `swift test` runs the walks, the observation and the release of a chain at
// its full 100,000 links, and what changes every object at sizes that keep the file well under a
// minute in a debug build (which checks invariants after every mutation): a 2,000-link cascade,
// a 5,000-member to-many. With `OBSERVEDGRAPH_DEEP=1` those run at two full sizes each (10,000
// and 100,000 links; 100,000 and 1,000,000 members) and print the time of each phase, for
// Docs/Reliability.md:
//
//   OBSERVEDGRAPH_DEEP=1 swift test -j 1 -c release -Xswiftc -enable-testing \
//     --filter DeepStructure

/// A link of a chain: deleting a link deletes every link after it (to-one cascade).
final class ChainLink: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var position: Int = 0
  @Relationship(inverse: "previous", deleteRule: .cascade) var next: ChainLink?
  @Relationship(inverse: "next") var previous: ChainLink?
}

/// A group with a huge unordered to-many; deleting it deletes its members.
final class Swarm: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "swarm", deleteRule: .cascade) var members: Set<SwarmMember>
}

final class SwarmMember: ManagedObject {
  @Attribute var number: Int = 0
  @Relationship(inverse: "members") var swarm: Swarm?
}

enum Deep {
  static let model = try! ObjectModel(types: [ChainLink.self, Swarm.self, SwarmMember.self])

  /// Whether the full sizes run and times are printed (`OBSERVEDGRAPH_DEEP` is set).
  static let isFull = ProcessInfo.processInfo.environment["OBSERVEDGRAPH_DEEP"] != nil

  /// The chain's length where only loops run over it: full depth always.
  static let chainLength = 100_000
  /// The chain lengths deleted by cascade, undone and redone: every object takes the whole
  /// mutation path, which a debug build checks after each step (a scan of the context every 64
  /// steps), so CI runs a short chain and the full run two long ones.
  static let cascadeSizes = isFull ? [10_000, 100_000] : [2_000]
  /// The to-many's sizes: the CI size, or the two sizes the full run times.
  static let swarmSizes = isFull ? [100_000, 1_000_000] : [5_000]

  /// A context on a store holding a chain of `length` links (`l0` … `l<length-1>`, each the
  /// `next` of the one before), put in the store directly (no mutation path runs); the links'
  /// identifiers, head first. The links come back as faults when read.
  static func chain(_ length: Int) throws -> (ObjectContext, [ObjectID]) {
    let store = InMemoryStore(model: model)
    let entity = model.entity(named: "ChainLink")!
    let keys = Array(store.reserveKeys(length))
    let ids = keys.map {
      ObjectID(storeIdentifier: store.identifier, entityName: "ChainLink", key: $0)
    }
    let rows = ids.indices.map { index in
      StoredObject(
        id: ids[index],
        properties: entity.propertyNames.map { name -> StoredProperty in
          switch name {
          case "name": .attribute(.string("l\(index)"))
          case "position": .attribute(.integer(Int64(index)))
          case "next": .toOne(index + 1 < length ? ids[index + 1] : nil)
          case "previous": .toOne(index > 0 ? ids[index - 1] : nil)
          default: .omitted
          }
        })
    }
    try store.save(StoreChanges(inserted: rows))
    return (PersistentContainer(store: store).newContext(), ids)
  }

  /// A context on a store holding a swarm and `size` members outside it, put in the store
  /// directly; the swarm and the members, loaded.
  static func swarm(_ size: Int) throws -> (ObjectContext, Swarm, [SwarmMember]) {
    let store = InMemoryStore(model: model)
    let keys = Array(store.reserveKeys(size + 1))
    let swarmID = ObjectID(storeIdentifier: store.identifier, entityName: "Swarm", key: keys[0])
    let memberEntity = model.entity(named: "SwarmMember")!
    var rows = [
      StoredObject(
        id: swarmID,
        properties: model.entity(named: "Swarm")!.propertyNames.map {
          $0 == "name" ? .attribute(.string("swarm")) : .toMany([])
        })
    ]
    for (number, key) in keys.dropFirst().enumerated() {
      rows.append(
        StoredObject(
          id: ObjectID(storeIdentifier: store.identifier, entityName: "SwarmMember", key: key),
          properties: memberEntity.propertyNames.map {
            $0 == "number" ? .attribute(.integer(Int64(number))) : .toOne(nil)
          }))
    }
    try store.save(StoreChanges(inserted: rows))
    let context = PersistentContainer(store: store).newContext()
    let swarm = try #require(try context.existingObject(with: swarmID) as? Swarm)
    let members = try context.fetch(FetchRequest<SwarmMember>(matching: nil))
    return (context, swarm, members)
  }

  /// The links from `head` on, following `next`, by a loop.
  static func walk(_ head: ChainLink) -> [ChainLink] {
    var links: [ChainLink] = []
    var current: ChainLink? = head
    while let link = current {
      links.append(link)
      current = link.next
    }
    return links
  }

  /// Runs `body`, printing its time when the full run asked for times.
  @discardableResult
  static func timed<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
    let start = ContinuousClock.now
    let result = try body()
    if isFull { print("DeepStructure \(label): \(start.duration(to: .now))") }
    return result
  }
}

@Suite("Deep and large structures", .serialized)
struct DeepStructure {
  /// Key-value coding, a predicate and an observation by a key path through all 100,000 links
  /// of a chain, and the walk that loads them: each goes down the chain in a loop.
  @Test func keyPathsThroughALongChain() throws {
    let length = Deep.chainLength
    let (context, ids) = try Deep.chain(length)
    let head = try #require(try context.existingObject(with: ids[0]) as? ChainLink)
    let path = Array(repeating: "next", count: length - 1).joined(separator: ".") + ".name"
    let tailName = try Deep.timed("read through a \(length)-key path") {
      try head.value(forKeyPath: path) as? String
    }
    #expect(tailName == "l\(length - 1)")
    let links = Deep.walk(head)
    #expect(links.count == length && links.last?.objectID == ids.last)
    try Deep.timed("set through a \(length)-key path") {
      try head.setValue("tail", forKeyPath: path)
    }
    #expect(links[length - 1].name == "tail")

    // A predicate with the same key path, parsed, checked and evaluated.
    let predicate = try FetchPredicate(format: "\(path) == %@", "tail")
    try predicate.validate(for: head.entity)
    #expect(try Deep.timed("evaluate a \(length)-key path") { try predicate.evaluate(with: head) })
    #expect(try !predicate.evaluate(with: links[1]), "one step short ends at nil")

    // An observation through the whole chain hears the tail and re-binds when a link moves.
    var heard: [String?] = []
    let token = try Deep.timed("observe a \(length)-key path") {
      try head.observe(keyPath: path, options: [.new]) { change in
        heard.append(change.newValue as? String)
      }
    }
    links[length - 1].name = "renamed"
    #expect(heard == ["renamed"])
    let spare = context.insert(ChainLink.self)
    spare.name = "spare"
    links[length - 2].next = spare
    #expect(heard.last == "spare", "re-bound to the new tail")
    links[length - 1].name = "unheard"
    #expect(heard.count == 2, "the old tail is no longer observed")
    token.invalidate()
    context._checkInvariants()
  }

  /// A loaded 100,000-link chain, related both ways, leaves memory when its context and the
  /// caller's references go: no release recurses down the chain.
  @Test func aLongChainLeavesMemory() throws {
    weak var head: ChainLink?
    weak var tail: ChainLink?
    weak var weakContext: ObjectContext?
    try Deep.timed("load and release a \(Deep.chainLength)-link chain") {
      let (context, ids) = try Deep.chain(Deep.chainLength)
      let first = try #require(try context.existingObject(with: ids[0]) as? ChainLink)
      let links = Deep.walk(first)
      #expect(links.count == Deep.chainLength)
      links[1].name = "changed"  // one unsaved change: the context holds that link strongly
      head = first
      tail = links.last
      weakContext = context
    }
    #expect(weakContext == nil && head == nil && tail == nil)
  }

  /// A to-one chain deleted by cascade from its head, undone, redone and saved: every link
  /// goes, comes back with both sides of its links, and goes again; then from the middle.
  @Test func aLongToOneChainCascades() throws {
    for length in Deep.cascadeSizes {
      let (context, ids) = try Deep.chain(length)
      let log = UndoLog()
      context.undoLog = log
      let head = try #require(try context.existingObject(with: ids[0]) as? ChainLink)
      let links = Deep.walk(head)
      try Deep.timed("cascade delete a \(length)-link chain") {
        try context.delete(head)
        context.processPendingChanges()
      }
      #expect(context.deletedObjects.count == length)
      #expect(links.allSatisfy { $0.isDeleted && $0.next == nil && $0.previous == nil })
      try Deep.timed("undo the cascade of \(length)") { try log.undo() }
      #expect(context.deletedObjects.isEmpty && !context.hasChanges)
      let walked = Deep.walk(head)
      #expect(walked.count == length)
      #expect(zip(walked, links).allSatisfy { $0 === $1 }, "the chain is back in order")
      try Deep.timed("redo the cascade of \(length)") { try log.redo() }
      #expect(context.deletedObjects.count == length)
      try log.undo()
      // From the middle: the tail goes, the front stays.
      let middle = links[length / 2]
      try context.delete(middle)
      context.processPendingChanges()
      #expect(context.deletedObjects.count == length - length / 2)
      #expect(links[length / 2 - 1].next == nil && !links[length / 2 - 1].isDeleted)
      #expect(Deep.walk(head).count == length / 2)
      try Deep.timed("save the cascade of \(length - length / 2)") { try context.save() }
      #expect(context.deletedObjects.isEmpty && Deep.walk(head).count == length / 2)
      context._checkInvariants()
    }
  }

  /// A to-many of many members filled in one set, emptied by `removeAll()`, and deleted by
  /// cascade; each step undone (and the first redone) restores both sides of every membership.
  @Test func aHugeToManyWithUndo() throws {
    for size in Deep.swarmSizes {
      let (context, swarm, members) = try Deep.timed("load \(size) members") {
        try Deep.swarm(size)
      }
      #expect(members.count == size)
      let log = UndoLog()
      context.undoLog = log
      let all = Set(members)
      Deep.timed("relate \(size) members in one set") {
        swarm.members = all
        context.processPendingChanges()
      }
      #expect(swarm.members.count == size && members.allSatisfy { $0.swarm === swarm })
      try Deep.timed("undo relating \(size)") { try log.undo() }
      #expect(swarm.members.isEmpty && members.allSatisfy { $0.swarm == nil })
      try Deep.timed("redo relating \(size)") { try log.redo() }
      #expect(swarm.members.count == size && members.allSatisfy { $0.swarm === swarm })
      try Deep.timed("remove all \(size)") {
        try swarm.mutableSet(forKey: "members").removeAll()
        context.processPendingChanges()
      }
      #expect(swarm.members.isEmpty && members.allSatisfy { $0.swarm == nil })
      try Deep.timed("undo remove all \(size)") { try log.undo() }
      #expect(swarm.members.count == size && members.allSatisfy { $0.swarm === swarm })
      try Deep.timed("cascade delete \(size)") {
        try context.delete(swarm)
        context.processPendingChanges()
      }
      #expect(context.deletedObjects.count == size + 1)
      try Deep.timed("undo the cascade of \(size)") { try log.undo() }
      #expect(context.deletedObjects.isEmpty)
      #expect(swarm.members.count == size && members.allSatisfy { $0.swarm === swarm })
      context._checkInvariants()
    }
  }

  /// A fetch, a count and live results whose predicate and sort follow key paths through half
  /// of a chain (500 keys through 1,000 links; 1,000 through 2,000 in the full run).
  @Test func fetchingThroughLongKeyPaths() throws {
    let length = Deep.isFull ? 2_000 : 1_000
    let (half, quarter) = (length / 2, length / 4)
    let (context, ids) = try Deep.chain(length)
    let path = Array(repeating: "next", count: half).joined(separator: ".")
    let request = FetchRequest<ChainLink>(
      matching: try FetchPredicate(format: "\(path).position >= %d", half + quarter),
      sortedBy: [FetchSort("\(path).name")])
    let fetched = try Deep.timed("fetch through \(half)-key paths") { try context.fetch(request) }
    #expect(fetched.map(\.position) == Array(quarter..<half))
    #expect(try context.count(for: request) == quarter)
    let results = try FetchedResults(context: context, request: request)
    #expect(results.objects.count == quarter)
    let target = try #require(
      try context.existingObject(with: ids[half + quarter - 1]) as? ChainLink)
    target.position = half + quarter  // the path of link quarter - 1 ends here: it joins
    context.processPendingChanges()
    #expect(results.objects.count == quarter + 1)
    #expect(results.objects.first?.objectID == ids[quarter - 1])
    context._checkInvariants()
  }
}
