import Foundation
import ObservedGraph
import Testing

/// A plain model of what the Lab graph must look like: objects by number, and for each object and
/// relationship the numbers of its members (ordered for ordered relationships).
private struct Reference {
  struct Spec {
    let inverse: String
    let toMany: Bool
    let ordered: Bool
    let rule: DeleteRule
  }

  /// The Lab model's relationships, written out by hand (not read from the library).
  static let specs: [String: [String: Spec]] = [
    "LabOwner": [
      "pet": Spec(inverse: "owner", toMany: false, ordered: false, rule: .nullify),
      "items": Spec(inverse: "owner", toMany: true, ordered: false, rule: .deny),
    ],
    "LabPet": ["owner": Spec(inverse: "pet", toMany: false, ordered: false, rule: .cascade)],
    "LabItem": [
      "owner": Spec(inverse: "items", toMany: false, ordered: false, rule: .nullify),
      "tags": Spec(inverse: "items", toMany: true, ordered: false, rule: .nullify),
      "parts": Spec(inverse: "item", toMany: true, ordered: true, rule: .cascade),
    ],
    "LabTag": ["items": Spec(inverse: "tags", toMany: true, ordered: false, rule: .nullify)],
    "LabPart": ["item": Spec(inverse: "parts", toMany: false, ordered: false, rule: .noAction)],
  ]

  var entity: [String] = []
  var deleted: [Bool] = []
  var links: [[String: [Int]]] = []
  /// How many times an object was taken from a previous owner.
  var steals = 0

  mutating func add(_ entityName: String) -> Int {
    entity.append(entityName)
    deleted.append(false)
    links.append(Self.specs[entityName]!.mapValues { _ in [] })
    return entity.count - 1
  }

  func spec(_ object: Int, _ key: String) -> Spec { Self.specs[entity[object]]![key]! }
  func live(_ object: Int) -> Bool { !deleted[object] }

  private func uniqued(_ objects: [Int]) -> [Int] {
    var seen = Set<Int>()
    return objects.filter { seen.insert($0).inserted }
  }

  private mutating func unlinkBack(_ target: Int, _ inverse: String, from owner: Int) {
    guard live(target) else { return }
    links[target][inverse]!.removeAll { $0 == owner }
  }

  /// Makes `target`'s inverse hold `owner`, taking `target` from its previous owner.
  private mutating func linkBack(_ target: Int, _ inverse: String, to owner: Int, via key: String) {
    guard live(target) else { return }
    if spec(target, inverse).toMany {
      if !links[target][inverse]!.contains(owner) { links[target][inverse]!.append(owner) }
      return
    }
    let previous = links[target][inverse]!.first
    guard previous != owner else { return }
    if let previous, live(previous) {
      links[previous][key]!.removeAll { $0 == target }
      steals += 1
    }
    links[target][inverse] = [owner]
  }

  mutating func setToOne(_ owner: Int, _ key: String, _ new: Int?) {
    let old = links[owner][key]!.first
    guard old != new else { return }
    let inverse = spec(owner, key).inverse
    if let old { unlinkBack(old, inverse, from: owner) }
    if let new { linkBack(new, inverse, to: owner, via: key) }
    links[owner][key] = new.map { [$0] } ?? []
  }

  mutating func insert(_ objects: [Int], into owner: Int, _ key: String, at index: Int?) {
    let current = links[owner][key]!
    let spec = spec(owner, key)
    if spec.ordered, let index, objects.contains(where: current.contains) {
      var list = current.filter { !objects.contains($0) }
      list.insert(contentsOf: uniqued(objects), at: min(index, list.count))
      replace(owner, key, with: list)
      return
    }
    let added = uniqued(objects).filter { !current.contains($0) }
    guard !added.isEmpty else { return }
    let start = spec.ordered ? min(index ?? current.count, current.count) : current.count
    links[owner][key]!.insert(contentsOf: added, at: start)
    for member in added { linkBack(member, spec.inverse, to: owner, via: key) }
  }

  mutating func remove(_ objects: [Int], from owner: Int, _ key: String) {
    let removed = uniqued(objects).filter { links[owner][key]!.contains($0) }
    links[owner][key]!.removeAll { removed.contains($0) }
    for member in removed { unlinkBack(member, spec(owner, key).inverse, from: owner) }
  }

  mutating func replace(_ owner: Int, _ key: String, with objects: [Int]) {
    let old = links[owner][key]!
    let new = uniqued(objects)
    links[owner][key] = new
    let inverse = spec(owner, key).inverse
    for member in old where !new.contains(member) { unlinkBack(member, inverse, from: owner) }
    for member in new where !old.contains(member) {
      linkBack(member, inverse, to: owner, via: key)
    }
  }

  /// Applies a delete with its rules; returns the objects deleted, or nil when a deny rule refuses.
  mutating func delete(_ root: Int) -> [Int]? {
    guard live(root) else { return [] }
    var doomed: [Int] = []
    var seen = Set<Int>()
    var stack = [root]
    while let next = stack.popLast() {
      guard live(next), seen.insert(next).inserted else { continue }
      doomed.append(next)
      for (key, spec) in Self.specs[entity[next]]! where spec.rule == .cascade {
        stack += links[next][key]!
      }
    }
    for victim in doomed {
      for (key, spec) in Self.specs[entity[victim]]! where spec.rule == .deny {
        if links[victim][key]!.contains(where: live) { return nil }
      }
    }
    for victim in doomed where live(victim) {
      for (key, spec) in Self.specs[entity[victim]]! {
        if spec.rule != .noAction {
          for member in links[victim][key]! where live(member) && member != victim {
            links[member][spec.inverse]!.removeAll { $0 == victim }
          }
        }
        links[victim][key] = []
      }
      deleted[victim] = true
    }
    return doomed
  }
}

/// Drives random edits of a Lab graph and checks it against the reference after every step.
private struct RandomEditor {
  let seed: UInt64
  var random: SplitMix64
  let context = ObjectContext(model: Lab.model)
  var reference = Reference()
  var objects: [ManagedObject] = []
  var index: [ObjectIdentifier: Int] = [:]
  var step = 0
  var operation = "setup"
  /// Deleted objects already checked once; their relationships can no longer change.
  var settled = Set<Int>()
  /// Objects deleted before a save: the save took them out of the context, so using them throws
  /// `deletedObject` or `invalidObject` (which of the two is the context's choice).
  var saved = Set<Int>()
  /// How often the interesting cases happened, so the test proves it exercised them.
  var tally: [String: Int] = [:]
  /// Failed checks so far; the run stops after the first step with any, to keep the report short.
  var failures = 0

  init(seed: UInt64) {
    self.seed = seed
    self.random = SplitMix64(seed: seed)
  }

  var comment: Comment { note("") }

  /// The seed (to replay), the step and the operation, after `detail`.
  func note(_ detail: String) -> Comment {
    Comment(
      rawValue: "\(detail) — seed \(seed) (replay: OBSERVEDGRAPH_SEED=\(seed)), step \(step): "
        + operation)
  }

  static let caps = ["LabOwner": 8, "LabPet": 8, "LabItem": 14, "LabTag": 8, "LabPart": 20]

  mutating func insert(_ entity: String) throws {
    let object = try context.insertObject(forEntityName: entity)
    try object.setValue("\(entity)\(objects.count)", forKey: "name")
    index[ObjectIdentifier(object)] = objects.count
    objects.append(object)
    _ = reference.add(entity)
  }

  func liveObjects(_ entity: String) -> [Int] {
    objects.indices.filter { reference.entity[$0] == entity && reference.live($0) }
  }

  func number(_ object: ManagedObject?) -> Int? { object.map { index[ObjectIdentifier($0)]! } }

  func numbers(_ objects: some Sequence<ManagedObject>) -> [Int] { objects.map { number($0)! } }

  mutating func pickLive(_ entity: String) -> Int? { random.pick(liveObjects(entity)) }

  /// A random subset of the live objects of an entity, in random order.
  mutating func subset(_ entity: String) -> [Int] {
    liveObjects(entity).filter { _ in random.chance(30) }.shuffled(using: &random)
  }

  // MARK: Operations

  mutating func run(steps: Int) throws {
    for entity in ["LabOwner", "LabPet", "LabItem", "LabTag", "LabPart"] {
      for _ in 0..<4 { try insert(entity) }
    }
    check()
    for current in 1...steps {
      step = current
      try randomStep()
      check()
      if failures > 0 { return }
    }
  }

  mutating func randomStep() throws {
    switch random.below(100) {
    case 0..<6: try insertSomething()
    case 6..<12: try toOneItemOwner()
    case 12..<18: try oneToOne()
    case 18..<24: try toOnePartItem()
    case 24..<32: try ownerItems()
    case 32..<44: try manyToMany()
    case 44..<62: try orderedParts()
    case 62..<70: try deleteSomething()
    case 70..<74: try misuse()
    case 74..<75: try save()
    default: try replaceAllTyped()
    }
  }

  mutating func insertSomething() throws {
    let entity = random.pick(Array(Self.caps.keys).sorted())!
    guard liveObjects(entity).count < Self.caps[entity]! else {
      operation = "insert \(entity) (skipped: at cap)"
      return
    }
    operation = "insert \(entity)"
    try insert(entity)
  }

  mutating func toOneItemOwner() throws {
    guard let item = pickLive("LabItem") else { return }
    let owner = random.chance(25) ? nil : pickLive("LabOwner")
    if random.chance(50) {
      operation = "typed item\(item).owner = \(owner.map(String.init) ?? "nil")"
      (objects[item] as! LabItem).owner = owner.map { objects[$0] as! LabOwner }
    } else {
      operation = "KVC item\(item).owner = \(owner.map(String.init) ?? "nil")"
      try objects[item].setValue(owner.map { objects[$0] }, forKey: "owner")
    }
    reference.setToOne(item, "owner", owner)
  }

  mutating func oneToOne() throws {
    guard let owner = pickLive("LabOwner"), let pet = pickLive("LabPet") else { return }
    switch random.below(4) {
    case 0:
      operation = "typed owner\(owner).pet = pet\(pet)"
      (objects[owner] as! LabOwner).pet = (objects[pet] as! LabPet)
      reference.setToOne(owner, "pet", pet)
    case 1:
      operation = "KVC pet\(pet).owner = owner\(owner)"
      try objects[pet].setValue(objects[owner], forKey: "owner")
      reference.setToOne(pet, "owner", owner)
    case 2:
      operation = "typed pet\(pet).owner = nil"
      (objects[pet] as! LabPet).owner = nil
      reference.setToOne(pet, "owner", nil)
    default:
      operation = "KVC owner\(owner).pet = nil"
      try objects[owner].setValue(nil, forKey: "pet")
      reference.setToOne(owner, "pet", nil)
    }
  }

  mutating func toOnePartItem() throws {
    guard let part = pickLive("LabPart") else { return }
    let item = random.chance(20) ? nil : pickLive("LabItem")
    operation = "typed part\(part).item = \(item.map(String.init) ?? "nil")"
    (objects[part] as! LabPart).item = item.map { objects[$0] as! LabItem }
    reference.setToOne(part, "item", item)
  }

  mutating func ownerItems() throws {
    guard let owner = pickLive("LabOwner"), let item = pickLive("LabItem") else { return }
    let proxy = try objects[owner].mutableSet(forKey: "items")
    if random.chance(60) {
      operation = "proxy owner\(owner).items insert item\(item)"
      try proxy.insert(objects[item])
      reference.insert([item], into: owner, "items", at: nil)
    } else {
      operation = "proxy owner\(owner).items remove item\(item)"
      try proxy.remove(objects[item])
      reference.remove([item], from: owner, "items")
    }
  }

  mutating func manyToMany() throws {
    guard let item = pickLive("LabItem"), let tag = pickLive("LabTag") else { return }
    let picked = subset("LabTag")
    switch random.below(7) {
    case 0:
      operation = "proxy item\(item).tags formUnion \(picked)"
      try objects[item].mutableSet(forKey: "tags").formUnion(picked.map { objects[$0] })
      reference.insert(picked, into: item, "tags", at: nil)
    case 1:
      operation = "proxy item\(item).tags subtract \(picked)"
      try objects[item].mutableSet(forKey: "tags").subtract(picked.map { objects[$0] })
      reference.remove(picked, from: item, "tags")
    case 2:
      operation = "proxy item\(item).tags formIntersection \(picked)"
      try objects[item].mutableSet(forKey: "tags").formIntersection(picked.map { objects[$0] })
      let current = reference.links[item]["tags"]!
      reference.remove(current.filter { !picked.contains($0) }, from: item, "tags")
    case 3:
      operation = "typed tag\(tag).items.insert(item\(item))"
      (objects[tag] as! LabTag).items.insert(objects[item] as! LabItem)
      reference.replace(tag, "items", with: reference.links[tag]["items"]! + [item])
    case 4:
      operation = "typed tag\(tag).items.remove(item\(item))"
      (objects[tag] as! LabTag).items.remove(objects[item] as! LabItem)
      reference.replace(tag, "items", with: reference.links[tag]["items"]!.filter { $0 != item })
    case 5:
      operation = "KVC item\(item).tags = \(picked)"
      try objects[item].setValue(Set(picked.map { objects[$0] }), forKey: "tags")
      reference.replace(item, "tags", with: picked)
    default:
      operation = "proxy tag\(tag).items removeAll"
      try objects[tag].mutableSet(forKey: "items").removeAll()
      reference.replace(tag, "items", with: [])
    }
  }

  /// Whether an item's parts include a deleted part left behind by the no-action rule.
  func hasDangling(_ item: Int) -> Bool {
    reference.links[item]["parts"]!.contains { !reference.live($0) }
  }

  mutating func orderedParts() throws {
    guard let item = pickLive("LabItem") else { return }
    let proxy = try objects[item].mutableOrderedSet(forKey: "parts")
    let count = reference.links[item]["parts"]!.count
    switch random.below(6) {
    case 0, 1:
      guard let part = pickLive("LabPart") else { return }
      let at = random.below(count + 1)
      operation = "proxy item\(item).parts insert part\(part) at \(at)"
      try proxy.insert(objects[part], at: at)
      reference.insert([part], into: item, "parts", at: at)
    case 2:
      guard let part = pickLive("LabPart") else { return }
      operation = "proxy item\(item).parts append part\(part)"
      try proxy.append(objects[part])
      reference.insert([part], into: item, "parts", at: count)
    case 3:
      guard count > 0 else { return }
      let (from, to) = (random.below(count), random.below(count))
      operation = "proxy item\(item).parts move \(from) → \(to)"
      try proxy.move(from: from, to: to)
      var list = reference.links[item]["parts"]!
      list.insert(list.remove(at: from), at: to)
      reference.replace(item, "parts", with: list)
    case 4:
      guard count > 0 else { return }
      let at = random.below(count)
      operation = "proxy item\(item).parts remove at \(at)"
      try proxy.remove(at: at)
      reference.remove([reference.links[item]["parts"]![at]], from: item, "parts")
    default:
      guard !hasDangling(item), let part = pickLive("LabPart") else { return }
      let at = random.below(count + 1)
      operation = "typed item\(item).parts.insert(part\(part), at: \(at))"
      let typed = objects[item] as! LabItem
      var list = typed.parts.filter { $0 !== objects[part] }
      list.insert(objects[part] as! LabPart, at: min(at, list.count))
      typed.parts = list
      reference.replace(item, "parts", with: numbers(list))
    }
  }

  mutating func replaceAllTyped() throws {
    switch random.below(3) {
    case 0:
      guard let owner = pickLive("LabOwner") else { return }
      let items = subset("LabItem")
      operation = "typed owner\(owner).items = \(items)"
      (objects[owner] as! LabOwner).items = Set(items.map { objects[$0] as! LabItem })
      reference.replace(owner, "items", with: items)
    case 1:
      guard let item = pickLive("LabItem"), !hasDangling(item) else { return }
      let parts = subset("LabPart")
      operation = "typed item\(item).parts = \(parts)"
      (objects[item] as! LabItem).parts = parts.map { objects[$0] as! LabPart }
      reference.replace(item, "parts", with: parts)
    default:
      guard let item = pickLive("LabItem") else { return }
      let parts = subset("LabPart")
      operation = "KVC item\(item).parts = \(parts)"
      try objects[item].setValue(parts.map { objects[$0] }, forKey: "parts")
      reference.replace(item, "parts", with: parts)
    }
  }

  mutating func deleteSomething() throws {
    guard let victim = random.pick(objects.indices.filter { reference.live($0) }) else { return }
    operation = "delete \(reference.entity[victim])\(victim)"
    let before = GraphSnapshot(context)
    var probe = reference
    let doomed = probe.delete(victim)
    let kind = doomed == nil ? "denied delete" : doomed!.count > 1 ? "cascading delete" : "delete"
    tally[kind, default: 0] += 1
    if doomed == nil {
      let error = #expect(throws: ObjectGraphError.self, comment) {
        try context.delete(objects[victim])
      }
      #expect(error?.kind == .deleteDenied, comment)
      #expect(GraphSnapshot(context) == before, comment)
      return
    }
    try context.delete(objects[victim])
    reference = probe
  }

  /// Uses deleted objects and wrong entities: each must throw and change nothing.
  mutating func misuse() throws {
    let before = GraphSnapshot(context)
    let dead = objects.indices.filter { !reference.live($0) }
    var expected: [ObjectGraphError.Kind] = [.deletedObject]
    if let corpse = random.pick(dead), random.chance(70) {
      if saved.contains(corpse) { expected.append(.invalidObject) }
      let name = reference.entity[corpse]
      let objects = objects
      let body: () throws -> Void
      switch name {
      case "LabOwner":
        guard let item = pickLive("LabItem") else { return }
        body = { try objects[item].setValue(objects[corpse], forKey: "owner") }
      case "LabItem":
        guard let owner = pickLive("LabOwner") else { return }
        body = {
          try objects[owner].mutableSet(forKey: "items").insert(objects[corpse])
        }
      case "LabTag":
        body = { try objects[corpse].mutableSet(forKey: "items").removeAll() }
      case "LabPart":
        guard let item = pickLive("LabItem") else { return }
        body = {
          try objects[item].mutableOrderedSet(forKey: "parts").append(objects[corpse])
        }
      default:
        body = { try objects[corpse].setValue(nil, forKey: "owner") }
      }
      operation = "misuse deleted \(name)\(corpse)"
      let error = #expect(throws: ObjectGraphError.self, comment) { try body() }
      #expect(error.map { expected.contains($0.kind) } == true, comment)
    } else {
      guard let item = pickLive("LabItem"), let tag = pickLive("LabTag") else { return }
      expected = [.wrongEntity]
      operation = "misuse item\(item).owner = tag\(tag)"
      let error = #expect(throws: ObjectGraphError.self, comment) {
        try objects[item].setValue(objects[tag], forKey: "owner")
      }
      #expect(error.map { expected.contains($0.kind) } == true, comment)
    }
    #expect(GraphSnapshot(context) == before, comment)
  }

  mutating func save() throws {
    operation = "save"
    try context.save()
    saved.formUnion(objects.indices.filter { !reference.live($0) })
    #expect(context.hasChanges == false, comment)
  }

  // MARK: Checking

  /// The members of a relationship as the library reports them, by object number.
  func members(_ object: Int, _ key: String) -> [Int] {
    let value: Any?
    if reference.live(object) {
      value = try? objects[object].value(forKey: key)
    } else {
      value = (try? objects[object].primitiveValue(forKey: key)) ?? nil
    }
    if let one = value as? ManagedObject { return [number(one)!] }
    if let set = value as? Set<ManagedObject> { return numbers(set) }
    if let list = value as? [ManagedObject] { return numbers(list) }
    return []
  }

  mutating func check() {
    for object in objects.indices where !settled.contains(object) {
      let live = reference.live(object)
      let entity = reference.entity[object]
      for (key, spec) in Reference.specs[entity]! {
        let actual = members(object, key)
        let expected = reference.links[object][key]!
        if spec.ordered || !spec.toMany {
          verify(actual == expected, "\(entity)\(object).\(key): \(actual), expected \(expected)")
        } else {
          verify(
            Set(actual) == Set(expected),
            "\(entity)\(object).\(key): \(actual.sorted()), expected \(expected.sorted())")
        }
        verify(Set(actual).count == actual.count, "\(entity)\(object).\(key) repeats: \(actual)")
        guard live else { continue }
        // Both sides agree: a live member points back, a deleted one is left by a no-action rule.
        for member in actual {
          if reference.live(member) {
            verify(
              members(member, spec.inverse).contains(object),
              "\(entity)\(object).\(key) holds \(member), which does not point back")
          } else {
            verify(
              reference.spec(member, spec.inverse).rule == .noAction,
              "\(entity)\(object).\(key) holds deleted \(member)")
          }
        }
      }
      if live {
        verify(objects[object].context === context, "\(entity)\(object) left its context")
      } else {
        // A deleted object reads as empty and refuses changes.
        let key = Reference.specs[entity]!.keys.sorted()[0]
        verify(members(object, key).isEmpty, "\(entity)\(object).\(key) of a deleted object")
        verify(objects[object].isDeleted, "\(entity)\(object) is not deleted")
        let error = #expect(throws: ObjectGraphError.self, comment) {
          try objects[object].setValue(nil, forKey: key)
        }
        verify(error?.kind == .deletedObject, "\(entity)\(object).\(key) of a deleted object")
        settled.insert(object)
      }
    }
    if objects.indices.contains(where: { reference.entity[$0] == "LabItem" && hasDangling($0) }) {
      tally["dangling no-action reference", default: 0] += 1
    }
    context._checkInvariants()
  }

  /// Expects `condition`, counting failures so the run can stop.
  mutating func verify(
    _ condition: Bool, _ detail: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard !condition else { return }
    failures += 1
    Issue.record(note(detail()), sourceLocation: sourceLocation)
  }
}

@Suite struct RandomEdits {
  @Test func tenThousandEdits() throws {
    let seed = SplitMix64.seed(fallback: 0x0B5E_12ED_6A7A_2026)
    var editor = RandomEditor(seed: seed)
    do {
      try editor.run(steps: 10_000)
    } catch {
      Issue.record(error, editor.comment)
    }
    editor.tally["steal"] = editor.reference.steals
    for kind in [
      "delete", "cascading delete", "denied delete", "dangling no-action reference", "steal",
    ] {
      #expect(editor.tally[kind, default: 0] > 0, "never saw a \(kind) — \(editor.comment)")
    }
    print("RandomEdits: seed \(seed), \(editor.objects.count) objects, \(editor.tally)")
  }
}
