import Foundation
import ObservedGraph
import Testing

/// A hub with two spokes in each of its four relationships (one per delete rule).
private struct Wheel {
  let context: ObjectContext
  let hub: TrackedObject
  let spokes: [DeleteRule: [TrackedObject]]

  init(deny: Bool = false) throws {
    let context = ObjectContext(model: Dynamic.rules)
    let hub = try context.make("Hub", "hub") as! TrackedObject
    var spokes: [DeleteRule: [TrackedObject]] = [:]
    for rule in DeleteRule.allCases where rule != .deny || deny {
      let pair = try (1...2).map { try context.make("Spoke", "\(rule.rawValue)\($0)") }
      try hub.setValue(pair, forKey: "\(rule.rawValue)Spokes")
      spokes[rule] = pair.map { $0 as! TrackedObject }
    }
    self.context = context
    self.hub = hub
    self.spokes = spokes
  }

  var all: [TrackedObject] { [hub] + spokes.values.flatMap { $0 } }
}

@Suite struct Delete {
  @Test func prepareForDeletionSeesRelationshipsIntact() throws {
    let wheel = try Wheel()
    try wheel.context.save()
    try wheel.context.delete(wheel.hub)
    #expect(wheel.hub.prepareCount == 1)
    #expect(wheel.hub.seenAtPrepare["nullifySpokes"] == ["nullify1", "nullify2"])
    #expect(wheel.hub.seenAtPrepare["cascadeSpokes"] == ["cascade1", "cascade2"])
    #expect(wheel.hub.seenAtPrepare["noActionSpokes"] == ["noAction1", "noAction2"])
    for spoke in wheel.spokes[.cascade]! {
      #expect(spoke.prepareCount == 1)
      #expect(spoke.seenAtPrepare["cascadeHub"] == ["hub"])
    }
    for spoke in wheel.spokes[.nullify]! + wheel.spokes[.noAction]! {
      #expect(spoke.prepareCount == 0)
    }
    wheel.context._checkInvariants()
  }

  @Test func nullify() throws {
    let wheel = try Wheel()
    try wheel.context.save()
    try wheel.context.delete(wheel.hub)
    #expect(wheel.hub.isDeleted)
    for spoke in wheel.spokes[.nullify]! {
      #expect(try spoke.one("nullifyHub") == nil)
      #expect(spoke.isUpdated && !spoke.isDeleted)
      #expect(Set(spoke.changedValues().keys) == ["nullifyHub"])
    }
    #expect(try wheel.hub.primitiveValue(forKey: "nullifySpokes") as? Set<ManagedObject> == [])
  }

  @Test func cascade() throws {
    let wheel = try Wheel()
    try wheel.context.save()
    try wheel.context.delete(wheel.hub)
    for spoke in wheel.spokes[.cascade]! {
      #expect(spoke.isDeleted)
      #expect(try spoke.primitiveValue(forKey: "cascadeHub") == nil)
    }
    #expect(wheel.context.deletedObjects == Set([wheel.hub] + wheel.spokes[.cascade]!))
    try wheel.context.save()
    #expect(wheel.context.registeredObjects.count == 4)
  }

  @Test func cascadeThroughBookStore() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let pages = (0..<3).map { _ in s.context.insert(Page.self) }
    book.pages = pages
    try s.context.save()
    try s.context.delete(book)
    #expect(pages.allSatisfy { $0.isDeleted })
    #expect(s.fiction.books == [s.books[1]] && s.fiction.isUpdated)
    #expect(s.context.deletedObjects.count == 4)
    s.context._checkInvariants()
  }

  @Test func cascadeOfGenericObjects() throws {
    let context = ObjectContext(model: Inventory.model)
    let laptop = try context.insertObject(forEntityName: "Asset")
    let office = try context.insertObject(forEntityName: "Location")
    let counts = try (0..<2).map { _ in try context.insertObject(forEntityName: "Inventory") }
    for count in counts {
      try count.setValue(laptop, forKey: "asset")
      try count.setValue(office, forKey: "location")
    }
    try context.save()
    try context.delete(laptop)
    #expect(laptop.isDeleted && counts.allSatisfy { $0.isDeleted })
    #expect(try office.set("inventories").isEmpty)
    #expect(office.isUpdated && !office.isDeleted)
    try context.save()
    #expect(context.registeredObjects == [office])
  }

  @Test func deny() throws {
    let wheel = try Wheel(deny: true)
    try wheel.context.save()
    let blocker = wheel.spokes[.deny]!
    let error = expectGraphError(
      .deleteDenied, entity: "Hub", key: "denySpokes", in: wheel.context
    ) {
      try wheel.context.delete(wheel.hub)
    }
    let value = try #require(error?.value)
    #expect(blocker.contains { $0.objectID.description == value })
    #expect(wheel.all.allSatisfy { $0.prepareCount == 0 })
    #expect(!wheel.hub.isDeleted && wheel.context.hasChanges == false)
    // Emptied, the relationship no longer denies.
    try wheel.hub.setValue(nil, forKey: "denySpokes")
    try wheel.context.delete(wheel.hub)
    #expect(wheel.hub.isDeleted && blocker.allSatisfy { !$0.isDeleted })
  }

  @Test func denyReachedThroughCascade() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Root", attributes: [.nameString],
        relationships: [
          RelationshipDescription(
            name: "kids", destination: "Kid", inverse: "root", toMany: true, deleteRule: .cascade)
        ], objectClass: TrackedObject.self),
      EntityDescription(
        name: "Kid", attributes: [.nameString],
        relationships: [
          RelationshipDescription(name: "root", destination: "Root", inverse: "kids"),
          RelationshipDescription(
            name: "toys", destination: "Toy", inverse: "kid", toMany: true, deleteRule: .deny),
        ], objectClass: TrackedObject.self),
      EntityDescription(
        name: "Toy", attributes: [.nameString],
        relationships: [RelationshipDescription(name: "kid", destination: "Kid", inverse: "toys")],
        objectClass: TrackedObject.self),
    ])
    let context = ObjectContext(model: model)
    let root = try context.make("Root", "root") as! TrackedObject
    let calm = try context.make("Kid", "calm") as! TrackedObject
    let kid = try context.make("Kid", "kid") as! TrackedObject
    let toy = try context.make("Toy", "toy") as! TrackedObject
    try root.setValue([calm, kid], forKey: "kids")
    try toy.setValue(kid, forKey: "kid")
    expectGraphError(.deleteDenied, entity: "Kid", key: "toys", in: context) {
      try context.delete(root)
    }
    #expect([root, calm, kid, toy].allSatisfy { $0.prepareCount == 0 && !$0.isDeleted })
  }

  @Test func noAction() throws {
    let wheel = try Wheel()
    try wheel.context.save()
    try wheel.context.delete(wheel.hub)
    for spoke in wheel.spokes[.noAction]! {
      #expect(try spoke.one("noActionHub") === wheel.hub)
      #expect(spoke.isUpdated == false)
    }
    #expect(try wheel.hub.primitiveValue(forKey: "noActionSpokes") as? Set<ManagedObject> == [])
    wheel.context._checkInvariants()
  }

  @Test func cascadeCycleTerminates() throws {
    let context = ObjectContext(model: Dynamic.cascadeCycle)
    let a1 = try context.make("A", "a1") as! TrackedObject
    let a2 = try context.make("A", "a2") as! TrackedObject
    let a3 = try context.make("A", "a3") as! TrackedObject
    let b1 = try context.make("B", "b1") as! TrackedObject
    let b2 = try context.make("B", "b2") as! TrackedObject
    let b3 = try context.make("B", "b3") as! TrackedObject
    let loner = try context.make("B", "loner") as! TrackedObject
    try a1.setValue([b1, b2], forKey: "bs")
    try b1.setValue([a1, a2], forKey: "as")
    try a2.mutableSet(forKey: "bs").insert(b3)
    try a3.setValue([loner], forKey: "bs")
    try context.save()
    try context.delete(a1)
    let doomed = [a1, a2, b1, b2, b3]
    #expect(doomed.allSatisfy { $0.isDeleted && $0.prepareCount == 1 })
    #expect([a3, loner].allSatisfy { !$0.isDeleted && $0.prepareCount == 0 })
    #expect(b1.seenAtPrepare["as"] == ["a1", "a2"])
    #expect(context.deletedObjects == Set(doomed))
    try context.delete(a1)
    #expect(a1.prepareCount == 1)
    #expect(try loner.set("as") == [a3])
    context._checkInvariants()
  }
}
