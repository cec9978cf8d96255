import Foundation
import Observation
import Testing
import UndoLog

@testable import ObservedGraph

/// The error the bodies below throw.
private struct Thrown: Error, Equatable {}

/// Everything one test hears: every change through the context (as `ChangeRecorder` lines),
/// every objects-did-change event, and per-key observers' calls.
private final class Listener {
  let changes: ChangeRecorder
  var events: [String] = []
  var calls: [String] = []
  var tokens: [ObservationToken] = []

  init(_ context: ObjectContext) {
    changes = ChangeRecorder(context: context)
    tokens.append(
      context.onObjectsDidChange { [unowned self] event in events.append(event.description) })
  }

  /// Records each call of an observer of `key` on `object` as `name: old -> new`.
  func observe(_ object: ManagedObject, _ key: String, options: ObservationOptions) throws {
    tokens.append(
      try object.observe(keyPath: key, options: options) { [unowned self] change in
        let old = change.oldValue.map { ChangeRecorder.render($0) } ?? "-"
        let new = change.newValue.map { ChangeRecorder.render($0) } ?? "-"
        let indexes = change.indexes.map { " \($0)" } ?? ""
        calls.append(
          "\(key) \(change.kind.rawValue)\(change.isPrior ? " prior" : "") \(old) -> \(new)"
            + indexes)
      })
  }

  func takeEvents() -> [String] {
    defer { events.removeAll() }
    return events
  }

  func takeCalls() -> [String] {
    defer { calls.removeAll() }
    return calls
  }
}

@Suite struct TransactionTests {
  // MARK: Who hears what

  /// Nobody outside the library hears the body's changes while it runs; at the commit each key is
  /// heard once, in the order each first changed, from its value before the transaction to its
  /// value at the commit.
  @Test func eachKeyIsHeardOnceAtTheCommitInTheOrderItFirstChanged() throws {
    let world = try UndoModel.world(saved: true)
    let (box, other) = (world.boxes[0], world.boxes[1])
    let tags = world.tags
    let listener = Listener(world.context)
    try listener.observe(box, "label", options: [.old, .new])
    try listener.observe(box, "tags", options: [.old, .new])
    world.context.transaction(actionName: "Edit") {
      box.label = "one"
      other.weight = 9
      box.label = "two"
      box.tags = [tags[2], tags[0], tags[3]]  // was [0, 1, 2]
      box.crates = [world.crates[1]]  // was {0}
      box.shelf = world.shelves[1]
      box.shelf = world.shelves[0]  // back where it was: not heard
      other.label = "x"
      other.label = "box 1"  // back where it was: heard with equal values
      #expect(listener.changes.isEmpty && listener.calls.isEmpty && listener.events.isEmpty)
      #expect(world.context.isInTransaction)
    }
    #expect(!world.context.isInTransaction)
    #expect(
      listener.changes.mismatch([
        #"UndoBox#3.label setting old="box 0" new="two""#,
        "UndoBox#4.weight setting old=1.0 new=9.0",
        "UndoBox#3.tags removal old=[UndoTag#7, UndoTag#8] indexes=[0, 1]",
        "UndoBox#3.tags insertion new=[UndoTag#7, UndoTag#10] indexes=[1, 2]",
        "UndoTag#8.box setting old=UndoBox#3 new=nil",
        "UndoTag#10.box setting old=nil new=UndoBox#3",
        "UndoBox#3.crates removal old={UndoCrate#14}",
        "UndoBox#3.crates insertion new={UndoCrate#15}",
        "UndoCrate#14.boxes removal old={UndoBox#3}",
        "UndoCrate#15.boxes insertion new={UndoBox#3}",
        #"UndoBox#4.label setting old="box 1" new="box 1""#,
      ]) == nil)
    #expect(
      listener.takeCalls() == [
        #"label setting "box 0" -> "two""#,
        "tags removal [UndoTag#7, UndoTag#8] -> - [0, 1]",
        "tags insertion - -> [UndoTag#7, UndoTag#10] [1, 2]",
      ])
    #expect(
      listener.takeEvents() == [
        "inserted [] updated [UndoBox#3: crates label tags, UndoBox#4: weight, "
          + "UndoCrate#14: boxes, UndoCrate#15: boxes, UndoTag#10: box, UndoTag#8: box] "
          + "deleted [] refreshed []"
      ])
    #expect(world.log.undoCount == 1 && world.log.undoActionName == "Edit")
    try world.log.undo()
    #expect(box.label == "box 0" && box.tags == Array(tags[0..<3]) && other.weight == 1)
    #expect(box.crates == [world.crates[0]] && other.label == "box 1")
    #expect(!world.context.hasChanges)
  }

  /// Prior observers are called at the commit, when the object already holds the new value.
  @Test func priorObserversAreCalledAtTheCommitWithTheNewValueInPlace() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    var seen: [String] = []
    let token = box.observe(\.weight, options: [.old, .new, .prior]) { box, change in
      seen.append(
        "\(change.isPrior ? "prior" : "after") old=\(change.oldValue.map { "\($0)" } ?? "-") "
          + "new=\(change.newValue.map { "\($0)" } ?? "-") held=\(box.weight)")
    }
    defer { token.invalidate() }
    world.context.transaction {
      box.weight = 4
      box.weight = 5
    }
    #expect(seen == ["prior old=0.0 new=- held=5.0", "after old=0.0 new=5.0 held=5.0"])
  }

  /// A key-path observer hears the transaction once, from the value before it; its links follow
  /// the graph at once, so a change to the new path's end made in the body counts.
  @Test func aKeyPathObserverHearsOnceFromTheValueBeforeTheTransaction() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    var seen: [String] = []
    let token = try box.observe(keyPath: "shelf.name", options: [.old, .new]) { change in
      seen.append(
        "\(ChangeRecorder.render(change.oldValue ?? nil)) -> \(ChangeRecorder.render(change.newValue ?? nil))"
      )
    }
    defer { token.invalidate() }
    world.context.transaction {
      box.shelf = world.shelves[1]
      world.shelves[1].name = "moved to"
      world.shelves[0].name = "left behind"  // no longer on the path: not heard
    }
    #expect(seen == [#""shelf 0" -> "moved to""#])
    #expect(throws: Thrown()) {
      try world.context.transaction {
        box.shelf = world.shelves[0]
        throw Thrown()
      }
    }
    #expect(seen.count == 1, "a thrown transaction is heard by no one")
    world.shelves[1].name = "after"
    #expect(seen.last == #""moved to" -> "after""#, "the links stayed on the graph")
  }

  /// Swift Observation hears nothing in the body, and the commit's changes after it.
  @Test func swiftObservationHearsTheCommit() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    let fired = Flag()
    withObservationTracking {
      _ = box.label
    } onChange: {
      fired.set()
    }
    world.context.transaction {
      box.label = "changed"
      #expect(!fired.isSet)
    }
    #expect(fired.isSet)
  }

  /// Objects-did-change subscribers, and so live results, see the state before the transaction
  /// until the commit. `.initial` registered in the body is delivered at once, uncommitted.
  @Test func liveResultsAndInitialCallsInTheBody() throws {
    let world = try UndoModel.world(saved: true)
    let results = try FetchedResults(
      context: world.context,
      request: FetchRequest<UndoBox>(
        matching: try FetchPredicate(format: "weight >= 2"), sortedBy: [FetchSort("weight")]))
    #expect(results.objects.map(\.label) == ["box 2", "box 3"])
    var initial: [String] = []
    try world.context.transaction {
      world.boxes[0].weight = 10
      let token = try world.boxes[0].observe(keyPath: "weight", options: [.initial, .new]) {
        initial.append("\($0.newValue.map { "\($0 ?? "nil")" } ?? "-")")
      }
      #expect(initial == ["10.0"])
      token.invalidate()
      world.context.processPendingChanges()  // does nothing in the body
      #expect(results.objects.map(\.label) == ["box 2", "box 3"])
    }
    #expect(results.objects.map(\.label) == ["box 2", "box 3", "box 0"])
  }

  // MARK: A throw

  /// A thrown transaction: everything taken back — values, both sides of relationships, inserts,
  /// deletes with their cascades — heard by no one, nothing posted, no undo group; objects
  /// inserted in it are gone and their identifiers are not used again.
  @Test func aThrownTransactionLeavesNothingAndIsHeardByNoOne() throws {
    let world = try UndoModel.world(saved: true)
    let (box, shelf) = (world.boxes[0], world.shelves[1])
    let listener = Listener(world.context)
    try listener.observe(box, "label", options: [.old, .new, .prior])
    var inserted: ObjectID?
    #expect(throws: Thrown()) {
      try world.context.transaction(actionName: "Rearrange") {
        box.label = "moved"
        box.shelf = shelf
        inserted = world.context.insert(UndoTag.self).objectID
        try world.context.delete(world.boxes[1])  // its lid cascades
        throw Thrown()
      }
    }
    #expect(listener.changes.isEmpty && listener.calls.isEmpty)
    world.context.processPendingChanges()
    #expect(listener.takeEvents().isEmpty)
    #expect(box.label == "box 0" && box.shelf === world.shelves[0])
    #expect(world.boxes[1].isLive && world.lids[1].isLive && world.boxes[1].lid === world.lids[1])
    #expect(world.shelves[0].boxes.contains(world.boxes[1]))
    #expect(!world.context.hasChanges && world.log.undoCount == 0 && world.log.redoCount == 0)
    #expect(world.log.groupingLevel == 0)
    let gone = try #require(inserted)
    #expect(world.context.object(with: gone) == nil)
    let next = world.context.insert(UndoTag.self)
    #expect(next.objectID.key > gone.key, "the identifier of the thrown insert is not reused")
  }

  /// Nested transactions are savepoints: an inner throw takes back the inner changes only, and
  /// nothing of it is heard at the commit.
  @Test func anInnerThrowTakesBackOnlyTheInnerChanges() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    let listener = Listener(world.context)
    world.context.transaction(actionName: "Outer") {
      box.label = "outer"
      #expect(throws: Thrown()) {
        try world.context.transaction(actionName: "Inner") {
          box.label = "inner"
          box.weight = 7
          world.boxes[2].shelf = nil
          throw Thrown()
        }
      }
      #expect(box.label == "outer" && box.weight == 0 && world.boxes[2].shelf != nil)
      world.context.transaction { box.lid = nil }
    }
    #expect(
      listener.changes.mismatch([
        #"UndoBox#3.label setting old="box 0" new="outer""#,
        "UndoBox#3.lid setting old=UndoLid#11 new=nil",
        "UndoLid#11.box setting old=UndoBox#3 new=nil",
      ]) == nil)
    #expect(listener.takeEvents().count == 1)
    #expect(world.log.undoCount == 1 && world.log.undoActionName == "Outer")
    try world.log.undo()
    #expect(box.label == "box 0" && box.lid === world.lids[0] && !world.context.hasChanges)
    try world.log.redo()
    #expect(box.label == "outer" && box.lid == nil)
  }

  /// A transaction that ends where it started leaves no undo group and posts nothing; the
  /// attribute it set and set back is heard once with equal values.
  @Test func aTransactionThatEndsWhereItStartedLeavesNoUndoStep() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    let listener = Listener(world.context)
    world.context.transaction(actionName: "Nothing") {
      box.weight = 3
      box.weight = 0
      box.tags = [world.tags[1]]
      box.tags = Array(world.tags[0..<3])
    }
    #expect(listener.changes.mismatch(["UndoBox#3.weight setting old=0.0 new=0.0"]) == nil)
    #expect(listener.takeEvents().isEmpty)
    #expect(world.log.undoCount == 0 && !world.context.hasChanges)
  }

  /// Changes observers make while the commit is delivered are heard as usual and join the
  /// transaction's undo group and event.
  @Test func changesObserversMakeAtTheCommitJoinItsGroupAndEvent() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    let token = box.observe(\.label) { box, _ in box.weight = Double(box.label.count) }
    defer { token.invalidate() }
    let listener = Listener(world.context)
    world.context.transaction(actionName: "Relabel") {
      box.label = "four"
      #expect(box.weight == 0, "the observer hears nothing in the body")
    }
    #expect(box.weight == 4)
    // The observer answers while the label is delivered, before change recorders hear the label
    // (as outside a transaction).
    #expect(
      listener.changes.mismatch([
        "UndoBox#3.weight setting old=0.0 new=4.0",
        #"UndoBox#3.label setting old="box 0" new="four""#,
      ]) == nil)
    #expect(
      listener.takeEvents() == [
        "inserted [] updated [UndoBox#3: label weight] deleted [] refreshed []"
      ])
    #expect(world.log.undoCount == 1)
    try world.log.undo()
    // The undo takes back both; the observer answers the label's undo ("box 0" has 5 letters).
    #expect(box.label == "box 0" && box.weight == 5)
  }

  /// Inserted and deleted objects are heard as such by change recorders at the commit; an object
  /// inserted and deleted again in the body is not heard at all.
  @Test func insertsAndDeletesAreHeardAtTheCommit() throws {
    let world = try UndoModel.world(saved: true)
    let listener = Listener(world.context)
    try world.context.transaction {
      let tag = world.context.insert(UndoTag.self)
      tag.text = "fleeting"
      try world.context.delete(tag)
      let kept = world.context.insert(UndoTag.self)
      kept.text = "kept"
      try world.context.delete(world.tags[3])
    }
    #expect(
      listener.changes.mismatch([
        "UndoTag#18.@lifecycle setting new=insert",
        #"UndoTag#18.text setting old="" new="kept""#,
        "UndoTag#10.@lifecycle setting new=delete",
      ]) == nil)
    #expect(
      listener.takeEvents() == [
        "inserted [UndoTag#18] updated [] deleted [UndoTag#10] refreshed []"
      ])
  }

  /// `transaction(save: true)` whose save fails validation: the body's changes are taken back,
  /// heard by no one; what was pending before stays pending. A later one saves everything.
  @Test func aSaveThatFailsValidationTakesBackTheBodyOnly() throws {
    let world = try UndoModel.world(saved: true)
    world.boxes[3].label = "pending"
    world.context.processPendingChanges()
    let undoCount = world.log.undoCount
    let listener = Listener(world.context)
    #expect {
      try world.context.transaction(save: true) {
        world.boxes[0].weight = .nan  // no store keeps NaN exactly: the save refuses it
        world.boxes[1].label = "also"
      }
    } throws: { error in
      (error as? ObjectGraphError)?.kind == .invalidValue
    }
    #expect(listener.changes.isEmpty && listener.takeEvents().isEmpty)
    #expect(world.boxes[0].weight == 0 && world.boxes[1].label == "box 1")
    #expect(world.boxes[3].label == "pending" && world.boxes[3].isUpdated)
    #expect(world.context.updatedObjects == [world.boxes[3]])
    #expect(world.log.undoCount == undoCount && !world.context.isInTransaction)
    try world.context.transaction(actionName: "Save", save: true) {
      world.boxes[1].label = "saved"
    }
    #expect(!world.context.hasChanges && world.log.undoActionName == "Save")
    #expect(
      listener.changes.mismatch([#"UndoBox#4.label setting old="box 1" new="saved""#]) == nil)
  }

  /// A key-path observer with `.prior` gets its prior call at the commit too, before its change.
  @Test func aKeyPathObserversPriorCallComesAtTheCommit() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    var seen: [String] = []
    let token = try box.observe(keyPath: "lid.color", options: [.old, .new, .prior]) { change in
      let old = ChangeRecorder.render(change.oldValue ?? nil)
      let new = change.newValue.map { ChangeRecorder.render($0) } ?? "-"
      seen.append(
        "\(change.isPrior ? "prior" : "after") \(old) -> \(new) (\(box.lid?.color ?? "nil"))")
    }
    defer { token.invalidate() }
    world.context.transaction {
      box.lid = world.lids[2]
      world.lids[2].color = "red"
      #expect(seen.isEmpty)
    }
    #expect(seen == [#"prior "grey" -> - (red)"#, #"after "grey" -> "red" (red)"#])
  }

  // MARK: Calls in the body

  /// `save()`, `undo()` and `redo()` throw in the body; a refresh throws for an object the body
  /// changed and works for others; rollback and reset stop the program (TrapTests).
  @Test func callsTheBodyCannotMake() throws {
    let world = try UndoModel.world(saved: true)
    world.boxes[3].label = "undoable"
    world.context.processPendingChanges()
    try world.context.transaction {
      world.boxes[0].label = "changed"
      #expect(throws: ObjectGraphError.self) { try world.context.save() }
      #expect { try world.log.undo() } throws: { error in
        (error as? ObjectGraphError)?.kind == .transactionInProgress
      }
      #expect { try world.log.redo() } throws: { error in
        (error as? ObjectGraphError)?.kind == .transactionInProgress
      }
      #expect { try world.context.refresh(world.boxes[0], mergeChanges: false) } throws: {
        error in (error as? ObjectGraphError)?.kind == .transactionInProgress
      }
      try world.context.refresh(world.boxes[1], mergeChanges: false)
      #expect { try world.context.transaction(save: true) {} } throws: { error in
        (error as? ObjectGraphError)?.kind == .transactionInProgress
      }
    }
    #expect(world.boxes[0].label == "changed" && world.boxes[3].label == "undoable")
    try world.log.undo()
    #expect(world.boxes[0].label == "box 0", "undo works again after the transaction")
  }

  // MARK: Hooks

  /// After-commit hooks run once the outermost transaction commits, after-rollback hooks once it
  /// throws; a nested transaction that throws drops its commit hooks and keeps its rollback ones.
  @Test func hooksRunWhenTheOutermostTransactionEnds() throws {
    let world = try UndoModel.world(saved: true)
    var ran: [String] = []
    world.context.afterTransaction(onCommit: { ran.append("outside") })
    #expect(ran == ["outside"], "outside a transaction a hook runs at once")
    world.context.transaction {
      world.context.afterTransaction(
        onCommit: { ran.append("commit 1") }, onRollback: { ran.append("rollback 1") })
      #expect(throws: Thrown()) {
        try world.context.transaction {
          world.context.afterTransaction(
            onCommit: { ran.append("commit 2") }, onRollback: { ran.append("rollback 2") })
          throw Thrown()
        }
      }
      world.boxes[0].label = "x"
      #expect(ran == ["outside"])
    }
    #expect(ran == ["outside", "commit 1", "rollback 2"])
    ran = []
    #expect(throws: Thrown()) {
      try world.context.transaction {
        world.context.afterTransaction(
          onCommit: { ran.append("commit") }, onRollback: { ran.append("rollback") })
        throw Thrown()
      }
    }
    #expect(ran == ["rollback"])
  }
}
