import Foundation
import ObservedGraph
import ObservedGraphSQLite
import Testing
import UndoLog

/// Drives random operations on a graph in an SQLite store, the reference model alongside, and
/// checks the graph against the reference after every step.
///
/// A *segment* runs from one undo barrier (the start, a rollback, a reset, a reopened file) to
/// the next. At each barrier, and at the end, the whole segment is checked: undoing everything
/// gives the state at the barrier, redoing everything the state before the undos, and the changes
/// the `ChangeRecorder` heard, replayed on a copy of the state at the barrier, give the graph.
final class RandomOperations {
  let seed: UInt64
  var random: RandomGenerator
  let folder: URL
  let url: URL
  var store: SQLiteStore
  var context: ObjectContext
  var log: UndoLog
  var reference = ReferenceGraph()
  /// The reference's cells at the last save: what the file holds.
  var saved: [ReferenceGraph.Slot: ReferenceGraph.Cell] = [:]
  /// The reference's cells at the segment's start.
  var barrier: [ReferenceGraph.Slot: ReferenceGraph.Cell] = [:]
  /// Explicit undo groups open now.
  var explicitDepth = 0
  var checkpoints: [(mark: UndoLog.Checkpoint, serial: Int)] = []
  /// The segment's recorder and its replay; nil in the segments that run without one (a
  /// recorder makes every change heard, which turns off the quiet paths of the library).
  var replay: RecordReplay?
  /// Whether the segment had a primitive set outside brackets (which the recorder does not hear,
  /// by design, and undo does not reach).
  var unrecordedSets = false
  var step = 0
  var operation = "setup" {
    didSet { if trace { print("  doing \(operation)") } }
  }
  var tally: [String: Int] = [:]
  var failures = 0
  /// Whether each step's operation is printed (`OBSERVEDGRAPH_RANDOM_TRACE=1`).
  let trace = ProcessInfo.processInfo.environment["OBSERVEDGRAPH_RANDOM_TRACE"] == "1"

  static let caps = ["RNote": 14, "RFolder": 5, "RCover": 4, "RPage": 10, "RTag": 5, "RBin": 3]

  init(seed: UInt64) throws {
    self.seed = seed
    random = RandomGenerator(seed: seed)
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("og-random-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    url = folder.appendingPathComponent("random.sqlite")
    var options = SQLiteStore.Options()
    options.keyBlockSize = 64
    store = try SQLiteStore(url: url, model: RandomModel.model, options: options)
    context = PersistentContainer(store: store).viewContext
    log = UndoLog()
    context.undoLog = log
    replay = nil
  }

  deinit {
    try? store.close()
    try? FileManager.default.removeItem(at: folder)
  }

  // MARK: Reporting

  /// The seed (to replay), the step and the operation, after `detail`.
  func note(_ detail: String) -> Comment {
    Comment(
      rawValue: "\(detail) — seed \(seed) (replay: OBSERVEDGRAPH_RANDOM_SEED=\(seed)), step "
        + "\(step): \(operation)")
  }

  /// Records a failure (the run stops after the step that had one).
  func fail(_ detail: String, sourceLocation: SourceLocation = #_sourceLocation) {
    failures += 1
    if failures <= 12 { Issue.record(note(detail), sourceLocation: sourceLocation) }
  }

  func count(_ what: String) { tally[what, default: 0] += 1 }

  // MARK: Running

  func run(steps: Int) {
    do {
      for entity in RandomModel.entities {
        for _ in 0..<3 { try insert(entity) }
      }
      try closeEvent()
      try context.save()
      saved = reference.cells
      barrier = reference.cells
      reference.clearHistory()
      log.removeAllActions()
      startRecording()
      check()
      for current in 1...max(steps, 1) {
        step = current
        operation = "(nothing: no object fits)"
        try randomStep()
        if trace { print("step \(step): \(operation)") }
        if failures == 0 { check() }
        if failures > 0 { return }
      }
      step += 1
      operation = "final whole-history check"
      try endAllGroups()
      try checkSegment()
    } catch {
      fail("unexpected error: \(error)")
    }
  }

  func randomStep() throws {
    switch random.below(1000) {
    case 0..<60: try insertSomething()
    case 60..<230: try setAttribute()
    case 230..<260: try bracketedSet()
    case 260..<275: try primitiveSet()
    case 275..<330: try toOne()
    case 330..<400: try unorderedToMany()
    case 400..<470: try orderedToMany()
    case 470..<530: try deleteSomething()
    case 530..<570: try beginOrEndGroup()
    case 570..<650: try eventBoundary()
    case 650..<720: try undoOrRedo()
    case 720..<745: try checkpointOrUndoToIt()
    case 745..<760: try undosThenRedos()
    case 760..<790: try save()
    case 790..<800: try rollback()
    case 800..<808: try reset()
    case 808..<816: try reopen()
    case 816..<850: try refresh()
    default: try fetch()
    }
  }

  // MARK: Objects

  func object(_ id: ObjectID) throws -> ManagedObject {
    guard let object = context.object(with: id) else {
      throw ObjectGraphError(.objectNotFound, entity: id.entityName, reason: "no \(id)")
    }
    return object
  }

  func pickLive(_ entity: String) -> ObjectID? { random.pick(reference.liveObjects(entity)) }

  /// A random subset of the live objects of an entity, in random order.
  func subset(_ entity: String) -> [ObjectID] {
    reference.liveObjects(entity).filter { _ in random.chance(35) }.shuffled(using: &random)
  }

  func name(_ id: ObjectID?) -> String { id?.description ?? "nil" }

  func names(_ ids: [ObjectID]) -> String { "[" + ids.map(name).joined(separator: ", ") + "]" }

  // MARK: Inserting and setting

  func insert(_ entity: String) throws {
    let object: ManagedObject
    switch entity {
    case "RNote" where random.chance(50): object = context.insert(RNote.self)
    case "RFolder" where random.chance(50): object = context.insert(RFolder.self)
    default: object = try context.insertObject(forEntityName: entity)
    }
    reference.insert(object.objectID, entity: entity)
    operation += " → \(object.objectID)"
  }

  func insertSomething() throws {
    let entity = random.pick(RandomModel.entities)!
    operation = "insert \(entity)"
    guard reference.liveObjects(entity).count < Self.caps[entity]! else {
      operation += " (skipped: at cap)"
      return
    }
    try insert(entity)
  }

  /// A value for an attribute: a quarter of the time the value it has (an equal set).
  func newValue(_ id: ObjectID, _ key: String) -> AnyHashable? {
    let palette = RandomModel.values[reference.entity[id]!]![key]!
    if random.chance(25) {
      count("equal set")
      return reference.value(id, key)
    }
    return palette[random.below(palette.count)]
  }

  func randomAttribute() -> (ObjectID, String)? {
    guard let id = random.pick(reference.liveObjects) else { return nil }
    return (id, random.pick(RandomModel.attributes(reference.entity[id]!))!)
  }

  func setAttribute() throws {
    guard let (id, key) = randomAttribute() else { return }
    let value = newValue(id, key)
    let target = try object(id)
    if random.chance(40), let typed = TypedSetters.setter(reference.entity[id]!, key) {
      operation = "typed \(id).\(key) = \(Shown(value))"
      typed(target, value)
    } else {
      operation = "KVC \(id).\(key) = \(Shown(value))"
      try target.setValue(value.map { $0.base }, forKey: key)
    }
    reference.setValue(id, key, value)
  }

  func bracketedSet() throws {
    guard let (id, key) = randomAttribute() else { return }
    let value = newValue(id, key)
    operation = "bracketed primitive \(id).\(key) = \(Shown(value))"
    let target = try object(id)
    target.willChangeValue(forKey: key)
    try target.setPrimitiveValue(value.map { $0.base }, forKey: key)
    target.didChangeValue(forKey: key)
    reference.setValue(id, key, value)
  }

  /// A primitive set outside brackets, on an object inserted since the last save (which the save
  /// writes whole: a primitive set on a saved object is not a change, so no save writes it), of
  /// a key no group of the undo history changed (an undo that finds the value it would put back
  /// already there records nothing for it, and may leave an empty group or none).
  func primitiveSet() throws {
    let inserted = reference.liveObjects.filter { (try? object($0).isInserted) == true }
    guard let id = random.pick(inserted) else { return }
    let keys = RandomModel.attributes(reference.entity[id]!).filter {
      reference.isOutsideHistory(id, $0)
    }
    guard let key = random.pick(keys) else { return }
    let value = newValue(id, key)
    operation = "primitive \(id).\(key) = \(Shown(value))"
    try object(id).setPrimitiveValue(value.map { $0.base }, forKey: key)
    reference.recording = false
    reference.setValue(id, key, value)
    reference.recording = true
    unrecordedSets = true
    count("primitive set outside brackets")
  }

  // MARK: Relationships

  func toOne() throws {
    let choices: [(String, String, String)] = [
      ("RNote", "folder", "RFolder"), ("RNote", "bin", "RBin"), ("RFolder", "cover", "RCover"),
      ("RCover", "folder", "RFolder"), ("RPage", "folder", "RFolder"),
    ]
    let (entity, key, destination) = random.pick(choices)!
    guard let owner = pickLive(entity) else { return }
    let new = random.chance(20) ? nil : pickLive(destination)
    let target = try object(owner)
    let value = try new.map(object)
    switch (key, random.below(2)) {
    case ("folder", 0) where entity == "RNote":
      operation = "typed \(owner).folder = \(name(new))"
      (target as! RNote).folder = value.map { $0 as! RFolder }
    case ("cover", 0):
      operation = "typed \(owner).cover = \(name(new))"
      (target as! RFolder).cover = value.map { $0 as! RCover }
    default:
      operation = "KVC \(owner).\(key) = \(name(new))"
      try target.setValue(value, forKey: key)
    }
    let steals = reference.steals
    reference.setToOne(owner, key, new)
    if reference.steals > steals { count("steal") }
  }

  func unorderedToMany() throws {
    let choices: [(String, String, String)] = [
      ("RFolder", "notes", "RNote"), ("RBin", "notes", "RNote"), ("RNote", "tags", "RTag"),
      ("RTag", "notes", "RNote"), ("RNote", "pinnedBy", "RTag"),
    ]
    let (entity, key, destination) = random.pick(choices)!
    guard let owner = pickLive(entity), let member = pickLive(destination) else { return }
    let picked = subset(destination)
    let target = try object(owner)
    let proxy = try target.mutableSet(forKey: key)
    switch random.below(7) {
    case 0:
      operation = "proxy \(owner).\(key) insert \(member)"
      try proxy.insert(try object(member))
      reference.insert([member], into: owner, key, at: nil)
    case 1:
      operation = "proxy \(owner).\(key) remove \(member)"
      try proxy.remove(try object(member))
      reference.remove([member], from: owner, key)
    case 2:
      operation = "proxy \(owner).\(key) formUnion \(names(picked))"
      try proxy.formUnion(picked.map(object))
      reference.insert(picked, into: owner, key, at: nil)
    case 3:
      operation = "proxy \(owner).\(key) subtract \(names(picked))"
      try proxy.subtract(picked.map(object))
      reference.remove(picked, from: owner, key)
    case 4:
      operation = "proxy \(owner).\(key) formIntersection \(names(picked))"
      try proxy.formIntersection(picked.map(object))
      reference.remove(
        reference.members(owner, key).filter { !picked.contains($0) }, from: owner, key)
    case 5:
      operation = "KVC \(owner).\(key) = \(names(picked))"
      try target.setValue(Set(try picked.map(object)), forKey: key)
      reference.replace(owner, key, with: picked)
    default:
      if key == "tags" {
        operation = "typed \(owner).tags = \(names(picked))"
        (target as! RNote).tags = Set(try picked.map { try object($0) as! RTag })
      } else if key == "notes", entity == "RFolder" {
        operation = "typed \(owner).notes = \(names(picked))"
        (target as! RFolder).notes = Set(try picked.map { try object($0) as! RNote })
      } else {
        operation = "proxy \(owner).\(key) removeAll"
        try proxy.removeAll()
        reference.replace(owner, key, with: [])
        return
      }
      reference.replace(owner, key, with: picked)
    }
  }

  func orderedToMany() throws {
    let (entity, key, destination) =
      random.chance(50) ? ("RFolder", "pages", "RPage") : ("RTag", "pinned", "RNote")
    guard let owner = pickLive(entity) else { return }
    let target = try object(owner)
    let proxy = try target.mutableOrderedSet(forKey: key)
    let current = reference.members(owner, key)
    let count = current.count
    switch random.below(7) {
    case 0, 1:
      guard let member = pickLive(destination) else { return }
      let at = random.below(count + 1)
      operation = "proxy \(owner).\(key) insert \(member) at \(at)"
      try proxy.insert(try object(member), at: at)
      reference.insert([member], into: owner, key, at: at)
    case 2:
      guard let member = pickLive(destination) else { return }
      operation = "proxy \(owner).\(key) append \(member)"
      try proxy.append(try object(member))
      reference.insert([member], into: owner, key, at: count)
    case 3:
      guard count > 0 else { return }
      let (from, to) = (random.below(count), random.below(count))
      operation = "proxy \(owner).\(key) move \(from) → \(to)"
      try proxy.move(from: from, to: to)
      var list = current
      list.insert(list.remove(at: from), at: to)
      reference.replace(owner, key, with: list)
    case 4:
      guard count > 0 else { return }
      let at = random.below(count)
      operation = "proxy \(owner).\(key) remove at \(at)"
      try proxy.remove(at: at)
      reference.remove([current[at]], from: owner, key)
    case 5:
      let picked = subset(destination)
      operation = "KVC \(owner).\(key) = \(names(picked))"
      try target.setValue(try picked.map(object), forKey: key)
      reference.replace(owner, key, with: picked)
    default:
      let picked = subset(destination)
      operation = "typed \(owner).\(key) = \(names(picked))"
      if key == "pages" {
        (target as! RFolder).pages = try picked.map { try object($0) as! RPage }
      } else {
        (target as! RTag).pinned = try picked.map { try object($0) as! RNote }
      }
      reference.replace(owner, key, with: picked)
    }
  }

  // MARK: Deleting

  func deleteSomething() throws {
    guard let victim = random.pick(reference.liveObjects) else { return }
    operation = "delete \(victim)"
    let target = try object(victim)
    guard let doomed = reference.doomed(by: victim) else {
      count("denied delete")
      do {
        try context.delete(target)
        fail("\(victim): the delete went ahead; a deny rule should have refused it")
      } catch let error as ObjectGraphError {
        if error.kind != .deleteDenied { fail("\(victim): denied delete threw \(error)") }
      }
      return
    }
    try context.delete(target)
    count(doomed.count > 1 ? "cascading delete" : "delete")
    if RandomModel.relationships(reference.entity[victim]!).contains(where: {
      reference.link(victim, $0).rule == .noAction && !reference.members(victim, $0).isEmpty
    }) {
      count("no-action delete leaving references")
    }
    _ = reference.delete(victim)
  }

  // MARK: Undo

  /// Ends the event: the context's pending changes are processed and, with no explicit group open,
  /// the undo group closes; the undo stacks must then match the reference's.
  func closeEvent() throws {
    context.processPendingChanges()
    guard explicitDepth == 0 else { return }
    reference.closeGroup()
    checkStacks()
  }

  func checkStacks() {
    if log.undoCount != reference.undoStack.count || log.redoCount != reference.redoStack.count {
      fail(
        "undo stacks: \(log.undoCount) undo and \(log.redoCount) redo groups, expected "
          + "\(reference.undoStack.count) and \(reference.redoStack.count)")
    }
  }

  func beginOrEndGroup() throws {
    if explicitDepth > 0, random.chance(55) {
      operation = "end group (depth \(explicitDepth))"
      try log.endGroup()
      explicitDepth -= 1
    } else if explicitDepth < 3 {
      operation = "begin group (depth \(explicitDepth))"
      log.beginGroup()
      explicitDepth += 1
      count(explicitDepth > 1 ? "nested group" : "explicit group")
    }
  }

  func endAllGroups() throws {
    while explicitDepth > 0 {
      try log.endGroup()
      explicitDepth -= 1
    }
  }

  func eventBoundary() throws {
    operation = "processPendingChanges"
    try closeEvent()
  }

  func undoOrRedo() throws {
    guard explicitDepth == 0 else { return }
    if random.chance(60) {
      operation = "undo"
      // Half the time the open event group is left for `undo()` to close.
      if random.chance(50) { context.processPendingChanges() }
      reference.closeGroup()
      if reference.undoStack.isEmpty { operation += " (nothing to undo)" }
      try undoBoth()
    } else {
      operation = "redo"
      try closeEvent()
      if reference.redoStack.isEmpty { operation += " (nothing to redo)" }
      try redoBoth()
    }
    checkStacks()
  }

  /// Undoes in the log and in the reference.
  func undoBoth() throws {
    let serial = reference.undoStack.last?.serial ?? 0
    try log.undo()
    reference.undo()
    if reference.redoStack.count < log.redoCount, reference.redoStack.last?.serial != serial {
      reference.keepEmptyGroup(onRedoStack: true, serial: serial)
    }
  }

  /// Redoes in the log and in the reference.
  func redoBoth() throws {
    let serial = reference.redoStack.last?.serial ?? 0
    try log.redo()
    reference.redo()
    if reference.undoStack.count < log.undoCount, reference.undoStack.last?.serial != serial {
      reference.keepEmptyGroup(onRedoStack: false, serial: serial)
    }
  }

  func checkpointOrUndoToIt() throws {
    guard explicitDepth == 0 else { return }
    if checkpoints.isEmpty || random.chance(40) {
      operation = "checkpoint"
      let mark = log.checkpoint()
      reference.closeGroup()
      checkpoints.append((mark, reference.checkpointSerial))
      checkStacks()
      return
    }
    let (mark, serial) = random.pick(checkpoints)!
    operation =
      "undo to checkpoint \(serial) (undo stack \(reference.undoStack.map(\.serial)), redo stack "
      + "\(reference.redoStack.map(\.serial)))"
    if serial == 0 || reference.undoStack.contains(where: { $0.serial == serial }) {
      try log.undo(to: mark)
      reference.closeGroup()
      // Groups whose undo finds every value in place: the log keeps them on the redo stack when
      // their steps, replayed one by one, change something on the way (as `undoBoth` allows).
      var trial = reference
      var unchanged = 0
      while trial.checkpointSerial != serial {
        let redos = trial.redoStack.count
        trial.undo()
        if trial.redoStack.count == redos { unchanged += 1 }
      }
      let kept = log.redoCount - trial.redoStack.count
      guard kept == 0 || kept == unchanged else {
        fail("undo(to:) kept \(kept) of \(unchanged) groups that change nothing: cannot tell which")
        return
      }
      while reference.checkpointSerial != serial {
        let undone = reference.checkpointSerial
        let redos = reference.redoStack.count
        reference.undo()
        if kept > 0 && reference.redoStack.count == redos {
          reference.keepEmptyGroup(onRedoStack: true, serial: undone)
        }
      }
      count("undo to checkpoint")
    } else {
      let expected: UndoLogError =
        reference.redoStack.contains(where: { $0.serial == serial })
        ? .checkpointOnRedoSide : .checkpointUnavailable
      do {
        try log.undo(to: mark)
        fail("undo(to:) went ahead; expected \(expected)")
      } catch let error as UndoLogError {
        if error != expected { fail("undo(to:) threw \(error), expected \(expected)") }
        count("undo to an unreachable checkpoint")
      }
    }
    checkStacks()
  }

  /// n undos then n redos leave the graph as it was.
  func undosThenRedos() throws {
    guard explicitDepth == 0 else { return }
    try closeEvent()
    let n = random.below(reference.undoStack.count + 1)
    operation = "\(n) undos then \(n) redos"
    let before = reference.cells
    for _ in 0..<n {
      try undoBoth()
    }
    check(against: reference, "after \(n) undos")
    // An undo that finds every value in place (a primitive set put it there) leaves nothing to
    // redo: then fewer than n redos are possible.
    let redos = min(n, reference.redoStack.count)
    for _ in 0..<redos {
      try redoBoth()
    }
    if redos == n, reference.cells != before {
      fail(
        "the reference itself changed after n undos and redos: "
          + ReferenceGraph.difference(reference.cells, before))
    }
    checkStacks()
  }

  // MARK: Saving, barriers

  func save() throws {
    operation = "save"
    try endAllGroups()
    try context.save()
    reference.closeGroup()
    saved = reference.cells
    checkStacks()
    if context.hasChanges { fail("the context has changes after a save") }
  }

  /// Starts the segment's recorder, in about half of the segments.
  func startRecording() {
    replay = random.chance(50) ? RecordReplay(context: context, graph: reference) : nil
  }

  /// Checks the segment that ends now, then starts a new one at `cells`.
  func endSegment(at cells: [ReferenceGraph.Slot: ReferenceGraph.Cell]) throws {
    reference.restore(cells)
    barrier = reference.cells
    saved = reference.cells
    checkpoints.removeAll()
    unrecordedSets = false
  }

  func rollback() throws {
    operation = "rollback"
    try endAllGroups()
    try closeEvent()
    try checkSegment()
    context.rollback()
    try endSegment(at: saved)
    startRecording()
    if log.canUndo || log.canRedo { fail("the undo log is not empty after a rollback") }
    count("rollback")
  }

  func reset() throws {
    operation = "reset"
    try endAllGroups()
    try closeEvent()
    try checkSegment()
    context.reset()
    try endSegment(at: saved)
    startRecording()
    if log.canUndo || log.canRedo { fail("the undo log is not empty after a reset") }
    count("reset")
  }

  /// Closes the file (after a save, or with unsaved changes) and opens it again in a new store.
  func reopen() throws {
    let saving = random.chance(50)
    operation = saving ? "save, close and reopen the file" : "close and reopen the file unsaved"
    try endAllGroups()
    try closeEvent()
    if saving {
      try context.save()
      saved = reference.cells
    }
    try checkSegment()
    try store.close()
    store = try SQLiteStore(url: url, model: RandomModel.model)
    context = PersistentContainer(store: store).viewContext
    log = UndoLog()
    context.undoLog = log
    try endSegment(at: saved)
    startRecording()
    count("reopen")
  }

  /// Refreshes a registered object: merging (any object), or into a fault (an object without
  /// unsaved changes; one with changes would lose them outside the undo history, see the docs).
  func refresh() throws {
    guard let id = random.pick(reference.liveObjects) else { return }
    let target = try object(id)
    if random.chance(50) {
      operation = "refresh \(id) merging"
      try context.refresh(target, mergeChanges: true)
    } else {
      guard !target.hasChanges else { return }
      operation = "refresh \(id) into a fault"
      try context.refresh(target, mergeChanges: false)
      if !target.isInserted && !target.isFault { fail("\(id) is not a fault after refresh") }
      count("refresh into a fault")
    }
  }

  // MARK: Fetching

  func fetch() throws {
    let query = FetchQueries.random(&random)
    operation = "fetch \(query.description)"
    let request = FetchRequest<ManagedObject>(
      entityName: query.entity,
      predicate: try FetchPredicate(format: query.format, arguments: query.arguments),
      sortDescriptors: query.sortDescriptors)
    let fetched = try context.fetch(request).map(\.objectID)
    let expected = query.expected(reference)
    if query.sort == nil {
      if Set(fetched) != Set(expected) || fetched.count != expected.count {
        fail(
          "fetch: \(names(fetched.sorted { $0.key < $1.key })), expected "
            + "\(names(expected.sorted { $0.key < $1.key }))")
      }
    } else if fetched != expected {
      fail("fetch in order: \(names(fetched)), expected \(names(expected))")
    }
    let counted = try context.count(for: request)
    if counted != expected.count { fail("count(for:) \(counted), expected \(expected.count)") }
    count(expected.isEmpty ? "fetch finding nothing" : "fetch finding something")
  }

  // MARK: Checking

  /// The graph against the reference, after every step.
  func check() {
    // One entity's fetch of every object per step (they take turns); all at the whole-segment
    // checks.
    let entities = RandomModel.entities
    check(against: reference, "", fetching: [entities[step % entities.count]])
    checkTracking()
    context._checkInvariants()
  }

  /// What a save would write: each saved object (in memory, loaded, not inserted again) has as
  /// changed exactly the keys whose values differ from the last save, and as committed values
  /// the saved ones.
  func checkTracking() {
    var graph = reference
    graph.restore(saved)
    var registered: [ObjectID: ManagedObject] = [:]
    for object in context.registeredObjects { registered[object.objectID] = object }
    for id in reference.liveObjects where graph.live(id) {
      guard let object = registered[id], !object.isFault, !object.isInserted else { continue }
      let changed = Set(object.changedValues().keys)
      let committed = (try? object.committedValues()) ?? [:]
      for key in RandomModel.attributes(reference.entity[id]!) {
        let differs = reference.value(id, key) != graph.value(id, key)
        if differs && !changed.contains(key) {
          fail(
            "\(id).\(key) is \(Shown(reference.value(id, key))), saved "
              + "\(Shown(graph.value(id, key))), but not tracked as changed: a save would lose it")
        }
        if changed.contains(key), Shown(committed[key]) != Shown(graph.value(id, key)) {
          fail(
            "\(id).\(key): committed value \(Shown(committed[key])), saved "
              + "\(Shown(graph.value(id, key)))")
        }
      }
      for key in RandomModel.relationships(reference.entity[id]!) {
        let link = reference.link(id, key)
        let (now, then) = (reference.members(id, key), graph.members(id, key))
        let differs = link.ordered ? now != then : Set(now) != Set(then)
        if differs && !changed.contains(key) {
          fail(
            "\(id).\(key) is \(names(now)), saved \(names(then)), but not tracked as changed: "
              + "a save would lose it")
        }
        if changed.contains(key) {
          let value = committed[key]
          let held: [ObjectID]
          if let one = value as? ManagedObject {
            held = [one.objectID]
          } else if let set = value as? Set<ManagedObject> {
            held = set.map(\.objectID)
          } else {
            held = (value as? [ManagedObject])?.map(\.objectID) ?? []
          }
          // Members that left memory are left out of committed values: compare those in it.
          let inMemory = then.filter { registered[$0] != nil }
          let heldInMemory = held.filter { registered[$0] != nil }
          if link.ordered ? heldInMemory != inMemory : Set(heldInMemory) != Set(inMemory) {
            fail("\(id).\(key): committed value \(names(held)), saved \(names(then))")
          }
        }
      }
    }
  }

  /// Every live object's attributes and relationships against `expected`, both sides of every
  /// relationship, and a fetch of every object of each of `entities` (the graph has no others).
  func check(
    against expected: ReferenceGraph, _ when: String,
    fetching entities: [String] = RandomModel.entities
  ) {
    let prefix = when.isEmpty ? "" : when + ": "
    for id in expected.liveObjects {
      guard let object = context.object(with: id), !object.isDeleted else {
        fail("\(prefix)\(id) is missing or deleted")
        continue
      }
      let entity = expected.entity[id]!
      for key in RandomModel.attributes(entity) {
        let actual: Shown
        do {
          actual = Shown(try object.value(forKey: key))
        } catch {
          fail("\(prefix)\(id).\(key) threw \(error)")
          continue
        }
        let want = Shown(expected.value(id, key))
        if actual != want { fail("\(prefix)\(id).\(key): \(actual), expected \(want)") }
      }
      for key in RandomModel.relationships(entity) {
        let link = expected.link(id, key)
        let actual = members(object, key)
        let want = expected.members(id, key)
        if link.ordered ? actual != want : Set(actual) != Set(want) || actual.count != want.count {
          let shown = link.ordered ? actual : actual.sorted { $0.key < $1.key }
          fail("\(prefix)\(id).\(key): \(names(shown)), expected \(names(want))")
        }
        // Both sides agree: a live member points back; a deleted one is left by a no-action rule.
        for member in actual {
          if expected.live(member) {
            guard let other = context.object(with: member) else { continue }
            if !members(other, link.inverse).contains(id) {
              fail("\(prefix)\(id).\(key) holds \(member), whose \(link.inverse) does not hold it")
            }
          } else if expected.entity[member] == nil
            || expected.link(member, link.inverse).rule != .noAction
          {
            fail("\(prefix)\(id).\(key) holds \(member), which is deleted")
          }
        }
      }
    }
    for entity in entities {
      do {
        let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
          .map(\.objectID)
        let want = expected.liveObjects(entity)
        if fetched != want {
          fail("\(prefix)fetch of every \(entity): \(names(fetched)), expected \(names(want))")
        }
      } catch {
        fail("\(prefix)fetch of every \(entity) threw \(error)")
      }
    }
  }

  func members(_ object: ManagedObject, _ key: String) -> [ObjectID] {
    let value = try? object.value(forKey: key)
    if let one = value as? ManagedObject { return [one.objectID] }
    if let set = value as? Set<ManagedObject> { return set.map(\.objectID) }
    if let list = value as? [ManagedObject] { return list.map(\.objectID) }
    return []
  }

  /// The whole-segment checks, at a barrier and at the end: undo everything, redo everything,
  /// replay the recorded changes.
  func checkSegment() throws {
    precondition(explicitDepth == 0)
    try closeEvent()
    let end = reference.cells
    let undos = reference.undoStack.count
    let redosBefore = reference.redoStack.count
    count("whole-history check")
    tally["undo steps in whole-history checks", default: 0] += undos
    replay?.check(against: self, replayable: !unrecordedSets, "before undoing everything")
    while log.canUndo {
      try undoBoth()
    }
    checkStacks()
    check(against: reference, "after undoing all \(undos) groups")
    if !unrecordedSets, reference.cells != barrier {
      fail(
        "undoing everything did not lead the reference back to the barrier: "
          + ReferenceGraph.difference(reference.cells, barrier))
    }
    // Redo what was undone (groups undone before the check stay on the redo stack); an undo
    // that found every value in place left nothing to redo.
    let redos = reference.redoStack.count - redosBefore
    for _ in 0..<redos {
      try redoBoth()
    }
    checkStacks()
    check(against: reference, "after redoing all \(redos) groups")
    if redos == undos, reference.cells != end {
      fail(
        "redoing everything did not lead the reference to the end: "
          + ReferenceGraph.difference(reference.cells, end))
    }
    replay?.check(against: self, replayable: !unrecordedSets, "after undoing and redoing all")
    if replay == nil { count("segment without a recorder") }
  }
}

/// A value as the checks compare it: equal as a hashable value and of the same type.
struct Shown: Equatable, CustomStringConvertible {
  let hashable: AnyHashable?
  let type: String

  init(_ value: Any?) {
    guard let value = Shown.unwrapped(value) else {
      hashable = nil
      type = "nil"
      return
    }
    hashable = value as? AnyHashable
    type = "\(Swift.type(of: value))"
  }

  /// The value inside any number of optionals, or nil.
  static func unwrapped(_ value: Any?) -> Any? {
    guard var value else { return nil }
    while let inner = value as? any OptionalProtocolForShown {
      guard let wrapped = inner.wrapped else { return nil }
      value = wrapped
    }
    if let hashable = value as? AnyHashable {
      return hashable.base is any OptionalProtocolForShown
        ? unwrapped(hashable.base) : hashable.base
    }
    return value
  }

  var description: String {
    guard let hashable else { return "nil" }
    return "\(ChangeRecorder.render(hashable.base)) (\(type))"
  }
}

protocol OptionalProtocolForShown {
  var wrapped: Any? { get }
}

extension Optional: OptionalProtocolForShown {
  var wrapped: Any? { self.map { $0 as Any } }
}
