import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Each change keeps its own origin in events and saves, and every kind of listener can hear only
/// chosen origins; a filter decides who is told, never the state.
@Suite struct OriginFilterTests {
  /// Typed, by-key and key-path observers and change recorders hear only the origins their filter
  /// admits, prior calls included; an `.initial` call is made whatever the origin in force.
  @Test func observersHearOnlyTheOriginsTheirFilterAdmits() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    var heard: [String] = []
    let typed = box.observe(\.weight, options: [.initial, .new], origins: .only(["import"])) {
      _, change in heard.append("typed \(change.newValue!) \(change.origin)")
    }
    defer { typed.invalidate() }
    let byKey = try box.observe(
      keyPath: "label", options: [.new, .prior], origins: .excluding(["import"])
    ) { change in heard.append("label \(change.isPrior ? "prior" : "after") \(change.origin)") }
    defer { byKey.invalidate() }
    let path = try box.observe(
      keyPath: "shelf.name", options: [.initial, .new], origins: .only(["import"])
    ) { change in heard.append("path \(change.newValue.map { "\($0!)" } ?? "-") \(change.origin)") }
    defer { path.invalidate() }
    let recorder = ChangeRecorder(context: world.context, origins: .only(["import"]))
    recorder.showsOrigins = true
    let watching = try ChangeRecorder(
      observing: [box], keys: ["weight"], origins: .excluding(["import"]))
    watching.showsOrigins = true

    #expect(heard == ["typed 0.0 local", "path shelf 0 local"])
    heard.removeAll()
    box.weight = 1
    box.label = "mine"
    world.shelves[0].name = "local shelf"
    try world.context.withOrigin("import") {
      box.weight = 2
      box.weight = 3
      box.label = "theirs"
      world.shelves[0].name = "imported shelf"
    }
    #expect(
      heard == [
        "label prior local", "label after local", "typed 2.0 import", "typed 3.0 import",
        "path imported shelf import",
      ])
    #expect(
      recorder.mismatch([
        "UndoBox#3.weight setting old=1.0 new=2.0 origin=import",
        "UndoBox#3.weight setting old=2.0 new=3.0 origin=import",
        #"UndoBox#3.label setting old="mine" new="theirs" origin=import"#,
        #"UndoShelf#1.name setting old="local shelf" new="imported shelf" origin=import"#,
      ]) == nil)
    #expect(watching.mismatch(["UndoBox#3.weight setting old=0.0 new=1.0 origin=local"]) == nil)
    // The state is the same whoever heard.
    #expect(box.weight == 3 && box.label == "theirs")
  }

  /// A filter's text, and what it admits.
  @Test func filtersAdmitWhatTheySay() {
    #expect(OriginFilter.all.admits("anything") && OriginFilter.all.description == "all")
    let only = OriginFilter.only(["b", "a"])
    #expect(only.admits("a") && !only.admits(.local) && only.description == "only [a, b]")
    let excluding = OriginFilter.excluding([.undo, .redo])
    #expect(excluding.admits(.local) && !excluding.admits(.redo))
    #expect(excluding.description == "excluding [redo, undo]")
    #expect(only.admitsAny(of: [.local, "b"]) && !only.admitsAny(of: [.local]))
    #expect(!excluding.admitsAny(of: []) && OriginFilter.all.admitsAny(of: []))
  }

  /// An event made by one origin has that origin for every object and key it names, and none for
  /// objects it does not name.
  @Test func anEventOfOneOriginNamesIt() throws {
    let world = try UndoModel.world(saved: true)
    var events: [ObjectsDidChange] = []
    let token = world.context.onObjectsDidChange { events.append($0) }
    defer { token.invalidate() }
    try world.context.withOrigin("import") {
      world.boxes[0].weight = 5
      _ = world.context.insert(UndoTag.self)
    }
    world.context.processPendingChanges()
    let event = try #require(events.first)
    #expect(events.count == 1 && event.origins == ["import"])
    #expect(event.origins(of: world.boxes[0].objectID) == ["import"])
    #expect(event.origins(of: world.boxes[0].objectID, key: "weight") == ["import"])
    #expect(event.origins(of: world.boxes[0].objectID, key: "label") == [])
    #expect(event.origins(of: world.boxes[1].objectID) == [])
    // An inserted object is named as a whole, not by key.
    let tag = try #require(event.inserted.first)
    #expect(event.origins(of: tag) == ["import"] && event.origins(of: tag, key: "text") == [])
  }

  /// With several origins, each object and key keeps its own: a key changed by two origins has
  /// both, an insert or delete has its own, and the order of the changes does not matter.
  @Test func anEventOfSeveralOriginsKeepsEachChangesOrigin() throws {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    var events: [ObjectsDidChange] = []
    let token = context.onObjectsDidChange { events.append($0) }
    defer { token.invalidate() }
    let (box0, box1, box2) = (world.boxes[0], world.boxes[1], world.boxes[2])
    box0.weight = 10  // local first: the ledger is not mixed yet
    box2.weight = 20
    var added: UndoTag?
    try context.withOrigin("import") {
      box0.label = "imported"
      box1.weight = 11
      box2.weight = 21  // the same key, a second origin
      added = context.insert(UndoTag.self)
    }
    box1.weight = 12  // the same key again, local after import
    try context.delete(world.boxes[3])
    context.processPendingChanges()
    let event = try #require(events.first)
    #expect(events.count == 1)
    #expect(event.origins == [.local, "import"])
    #expect(event.origins(of: box0.objectID, key: "weight") == [.local])
    #expect(event.origins(of: box0.objectID, key: "label") == ["import"])
    #expect(event.origins(of: box0.objectID) == [.local, "import"])
    #expect(event.origins(of: box1.objectID, key: "weight") == [.local, "import"])
    #expect(event.origins(of: box2.objectID, key: "weight") == [.local, "import"])
    #expect(event.origins(of: try #require(added).objectID) == ["import"])
    #expect(event.origins(of: world.boxes[3].objectID) == [.local])
    // The next event starts again: one origin.
    box0.weight = 30
    context.processPendingChanges()
    #expect(events.count == 2 && events[1].origins == [.local])
  }

  /// A set that would be quiet (its slot tracked and pending) under another origin is noted:
  /// with no listener, with typed observers, with an undo log, and by key.
  @Test func aSetOfATrackedAndPendingSlotNotesANewOrigin() throws {
    for shape in ["quiet", "observed", "recorded", "byKey"] {
      let context = ObjectContext(model: UndoModel.model, participatesInSwiftObservation: false)
      let box = context.insert(UndoBox.self)
      try context.save()
      var events: [ObjectsDidChange] = []
      let token = context.onObjectsDidChange { events.append($0) }
      defer { token.invalidate() }
      var heard: [Double] = []
      let observer = box.observe(\.weight, origins: .only(["import"])) { _, change in
        heard.append(change.newValue!)
      }
      if shape != "observed" { observer.invalidate() }
      let log = UndoLog()
      if shape == "recorded" { context.undoLog = log }
      func set(_ weight: Double) throws {
        if shape == "byKey" {
          try box.setValue(weight, forKey: "weight")
        } else {
          box.weight = weight
        }
      }
      try set(1)
      try set(2)  // tracked and pending: quiet from now on under `.local`
      try context.withOrigin("import") { try set(3) }
      try set(4)
      context.processPendingChanges()
      #expect(events.count == 1, "\(shape)")
      #expect(heard == (shape == "observed" ? [3] : []), "\(shape)")
      #expect(events.first?.origins(of: box.objectID, key: "weight") == [.local, "import"])
      var saved: [SavedObjects] = []
      let saves = context.onDidSave { saved.append($0) }
      defer { saves.invalidate() }
      try context.save()
      #expect(saved.first?.origins(of: box.objectID) == [.local, "import"], "\(shape)")
      observer.invalidate()
    }
  }

  /// Subscribers with a filter get each event restricted to the changes it admits, and no call
  /// for an event with none; streams too.
  @Test func subscribersHearTheirPartOfAnEvent() async throws {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    var imports: [String] = []
    var others: [String] = []
    var all: [String] = []
    let tokens = [
      context.onObjectsDidChange(origins: .only(["import"])) { imports.append("\($0)") },
      context.onObjectsDidChange(origins: .excluding(["import"])) { others.append("\($0)") },
      context.onObjectsDidChange { all.append("\($0)") },
    ]
    defer {
      for token in tokens { token.invalidate() }
    }
    let stream = context.objectsDidChange(origins: .only(["import"]))
    world.boxes[0].weight = 10
    try context.withOrigin("import") {
      world.boxes[0].label = "imported"
      world.boxes[1].weight = 11
    }
    context.processPendingChanges()
    world.boxes[2].weight = 12  // local only: the import subscriber is not called
    context.processPendingChanges()
    #expect(
      imports == [
        "inserted [] updated [UndoBox#3: label, UndoBox#4: weight] deleted [] refreshed []"
      ])
    #expect(
      others == [
        "inserted [] updated [UndoBox#3: weight] deleted [] refreshed []",
        "inserted [] updated [UndoBox#5: weight] deleted [] refreshed []",
      ])
    #expect(
      all == [
        "inserted [] updated [UndoBox#3: label weight, UndoBox#4: weight] deleted [] refreshed []",
        "inserted [] updated [UndoBox#5: weight] deleted [] refreshed []",
      ])
    var iterator = stream.makeAsyncIterator()
    let first = try #require(await iterator.next())
    #expect("\(first)" == imports[0])
    #expect(first.origins == ["import"])
  }

  /// The did-save event gives the save's origins and each object change's: an insert's and a
  /// delete's own, an update's those of its saved keys.
  @Test func savedObjectsGiveEachObjectChangesOrigins() throws {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    var saved: [SavedObjects] = []
    let token = context.onDidSave { saved.append($0) }
    defer { token.invalidate() }
    world.boxes[0].weight = 10
    var added: UndoTag?
    try context.withOrigin("import") {
      world.boxes[1].label = "imported"
      added = context.insert(UndoTag.self)
      added?.text = "new"
    }
    world.boxes[1].weight = 11
    try context.delete(world.boxes[3])
    try context.save()
    let save = try #require(saved.first)
    #expect(save.origins == [.local, "import"])
    #expect(save.origins(of: world.boxes[0].objectID) == [.local])
    #expect(save.origins(of: world.boxes[1].objectID) == [.local, "import"])
    #expect(save.origins(of: try #require(added).objectID) == ["import"])
    #expect(save.origins(of: world.boxes[3].objectID) == [.local])
    #expect(save.origins(of: world.boxes[2].objectID) == [])
    // The next save starts again.
    try context.withOrigin("import") { world.boxes[2].weight = 12 }
    try context.save()
    #expect(saved.count == 2 && saved[1].origins == ["import"])
    #expect(saved[1].origins(of: world.boxes[2].objectID) == ["import"])
    #expect(saved[1].origins(of: world.boxes[0].objectID) == [])
  }

  /// Undo's and redo's changes carry their origins into the event and the save.
  @Test func undoAndRedoOriginsReachTheEventAndTheSave() throws {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    var events: [ObjectsDidChange] = []
    let token = context.onObjectsDidChange { events.append($0) }
    defer { token.invalidate() }
    world.boxes[0].weight = 10
    context.processPendingChanges()
    try world.log.undo()
    context.processPendingChanges()
    #expect(events.count == 2 && events[1].origins == [.undo])
    try world.log.redo()
    context.processPendingChanges()
    #expect(events.count == 3 && events[2].origins == [.redo])
    world.boxes[1].weight = 11
    var saved: [SavedObjects] = []
    let saves = context.onDidSave { saved.append($0) }
    defer { saves.invalidate() }
    try context.save()
    // The undo took box 0's change back to the saved value; the redo's change is what is saved.
    #expect(saved.first?.origins == [.redo, .local])
    #expect(saved.first?.origins(of: world.boxes[0].objectID) == [.redo])
    #expect(saved.first?.origins(of: world.boxes[1].objectID) == [.local])
  }

  /// A handler of live results with a filter does not hear a change made only by origins it
  /// leaves out; the change folds into the next one it hears, whose difference goes from what it
  /// heard last to the objects now. The results follow every change.
  @Test func liveResultsFoldWhatAHandlerDoesNotHear() throws {
    let world = try UndoModel.world(saved: true)
    let context = world.context
    let results = try FetchedResults(
      context: context,
      request: FetchRequest<UndoBox>(matching: nil, sortedBy: [FetchSort("weight")]))
    func labels(_ boxes: [UndoBox]) -> [String] { boxes.map(\.label) }
    var localView = results.objects
    var localChanges: [FetchedResults<UndoBox>.Change] = []
    let local = results.onChange(origins: .only([.local])) { change in
      localChanges.append(change)
      localView = localView.applying(change.difference)!
      for (object, offset) in zip(change.updated, change.updatedOffsets) {
        #expect(results.objects[offset] === object)
      }
    }
    defer { local.invalidate() }
    var allView = results.objects
    var allCount = 0
    let all = results.onChange { change in
      allCount += 1
      allView = allView.applying(change.difference)!
    }
    defer { all.invalidate() }
    #expect(labels(results.objects) == ["box 0", "box 1", "box 2", "box 3"])

    // An import moves box 0 last, and a local rename of a shelf (which the results do not read)
    // shares its event: only the import made the results' change.
    try context.withOrigin("import") { world.boxes[0].weight = 100 }
    world.shelves[0].name = "renamed"
    context.processPendingChanges()
    #expect(labels(results.objects) == ["box 1", "box 2", "box 3", "box 0"])
    #expect(allCount == 1 && labels(allView) == labels(results.objects))
    #expect(localChanges.isEmpty && labels(localView) == ["box 0", "box 1", "box 2", "box 3"])

    // An import changes box 2 in place; then a local change moves box 3 first: the local handler
    // hears one change from what it heard last, with box 2 changed in place.
    try context.withOrigin("import") { world.boxes[2].label = "box 2 imported" }
    context.processPendingChanges()
    #expect(allCount == 2 && localChanges.isEmpty)
    world.boxes[3].weight = -1
    context.processPendingChanges()
    #expect(allCount == 3 && localChanges.count == 1)
    #expect(labels(localView) == labels(results.objects))
    #expect(labels(results.objects) == ["box 3", "box 1", "box 2 imported", "box 0"])
    let folded = try #require(localChanges.first)
    #expect(folded.updated.map(\.label) == ["box 2 imported"] && folded.updatedOffsets == [2])
    #expect(Set(folded.inserted.map(\.label)) == ["box 3", "box 0"])

    // Heard again: the next local change is delivered as it is.
    world.boxes[1].weight = 50
    context.processPendingChanges()
    #expect(localChanges.count == 2 && labels(localView) == labels(results.objects))
    #expect(localChanges[1].inserted.map(\.label) == ["box 1"])
  }
}
