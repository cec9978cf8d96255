import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Each change carries the origin in force when it was made: `withOrigin`, a transaction's
/// origin, `.undo` and `.redo` during a replay, otherwise `.local`.
@Suite struct ChangeOriginTests {
  /// Observers, typed and by key, and change recorders see each change's origin; `withOrigin`
  /// nests, and the origin before it is back after it.
  @Test func observersSeeTheOriginInForce() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    var typed: [String] = []
    let typedToken = box.observe(\.weight, options: [.new]) { _, change in
      typed.append("\(change.newValue ?? -1) \(change.origin)")
    }
    defer { typedToken.invalidate() }
    var byKey: [String] = []
    let keyToken = try box.observe(keyPath: "label", options: [.new, .prior]) { change in
      byKey.append("\(change.isPrior ? "prior" : "after") \(change.origin)")
    }
    defer { keyToken.invalidate() }
    let recorder = ChangeRecorder(context: world.context)
    recorder.showsOrigins = true
    box.weight = 1
    try world.context.withOrigin("import") {
      #expect(world.context.origin == "import")
      box.weight = 2
      try world.context.withOrigin("sync") { box.label = "synced" }
      box.shelf = world.shelves[1]
    }
    #expect(world.context.origin == .local)
    #expect(typed == ["1.0 local", "2.0 import"])
    #expect(byKey == ["prior sync", "after sync"])
    #expect(
      recorder.mismatch([
        "UndoBox#3.weight setting old=0.0 new=1.0 origin=local",
        "UndoBox#3.weight setting old=1.0 new=2.0 origin=import",
        #"UndoBox#3.label setting old="box 0" new="synced" origin=sync"#,
        "UndoBox#3.shelf setting old=UndoShelf#1 new=UndoShelf#2 origin=import",
        "UndoShelf#1.boxes removal old={UndoBox#3} origin=import",
        "UndoShelf#2.boxes insertion new={UndoBox#3} origin=import",
      ]) == nil)
  }

  /// The typed observer's own delivery (a set that nothing else hears) carries the origin too.
  @Test func aTypedSetDeliveredDirectlyCarriesTheOrigin() throws {
    let context = ObjectContext(model: UndoModel.model, participatesInSwiftObservation: false)
    let box = context.insert(UndoBox.self)
    context.processPendingChanges()
    var seen: [ChangeOrigin] = []
    let token = box.observe(\.weight, options: [.new]) { _, change in seen.append(change.origin) }
    defer { token.invalidate() }
    box.weight = 1  // tracked: the whole path
    box.weight = 2  // tracked and pending: the observer's own delivery
    try context.withOrigin("import") { box.weight = 3 }
    #expect(seen == [.local, .local, "import"])
  }

  /// Every change of an undo carries `.undo`, of a redo `.redo` — including what observers change
  /// meanwhile; the origin in force before comes back.
  @Test func undoAndRedoCarryTheirOrigin() throws {
    let world = try UndoModel.world(saved: true)
    world.context.trackedOrigins = [.local, "import"]  // the import is recorded, and undone
    let box = world.boxes[0]
    try world.context.withOrigin("import") { box.label = "imported" }
    world.context.processPendingChanges()
    var seen: [String] = []
    let token = box.observe(\.label, options: [.new]) { box, change in
      seen.append("label \(change.origin)")
      box.weight = Double(box.label.count)
    }
    defer { token.invalidate() }
    let weights = box.observe(\.weight, options: [.new]) { _, change in
      seen.append("weight \(change.origin)")
    }
    defer { weights.invalidate() }
    try world.context.withOrigin("user") {
      try world.log.undo()
      #expect(world.context.origin == "user")
    }
    #expect(seen == ["label undo", "weight undo"])
    seen = []
    try world.log.redo()
    // The redo takes the observer's answer back first (the undo recorded it), then the label.
    #expect(seen == ["weight redo", "label redo", "weight redo"])
    #expect(world.context.origin == .local)
  }

  /// A transaction's changes carry its origin at the commit, and so do the changes observers
  /// make while the commit is delivered; a transaction without one takes the origin in force.
  @Test func aTransactionsChangesCarryItsOrigin() throws {
    let world = try UndoModel.world(saved: true)
    let box = world.boxes[0]
    let recorder = ChangeRecorder(context: world.context)
    recorder.showsOrigins = true
    let token = box.observe(\.label) { box, _ in box.weight = 5 }
    defer { token.invalidate() }
    world.context.transaction(origin: "import") {
      box.label = "imported"
      #expect(world.context.origin == "import")
      world.context.transaction { box.lid = nil }  // nested: the same origin
    }
    #expect(world.context.origin == .local)
    #expect(
      recorder.mismatch([
        "UndoBox#3.weight setting old=0.0 new=5.0 origin=import",
        #"UndoBox#3.label setting old="box 0" new="imported" origin=import"#,
        "UndoBox#3.lid setting old=UndoLid#11 new=nil origin=import",
        "UndoLid#11.box setting old=UndoBox#3 new=nil origin=import",
      ]) == nil)
    try world.context.withOrigin("sync") {
      world.context.transaction { box.label = "synced" }
    }
    #expect(recorder.records.map(\.origin) == ["sync", "sync"])
  }

  /// In a transaction's body another origin is refused; the reserved origins are refused
  /// everywhere; nothing runs then.
  @Test func originsThatCannotBePutInForce() throws {
    let world = try UndoModel.world(saved: true)
    var ran = false
    for reserved in [ChangeOrigin.undo, .redo, .merge] {
      #expect {
        try world.context.withOrigin(reserved) { ran = true }
      } throws: { error in
        (error as? ObjectGraphError)?.kind == .invalidOrigin
      }
      #expect {
        try world.context.transaction(origin: reserved, save: false) { ran = true }
      } throws: { error in
        (error as? ObjectGraphError)?.kind == .invalidOrigin
      }
    }
    try world.context.transaction(origin: "import", save: false) {
      #expect {
        try world.context.withOrigin("sync") { ran = true }
      } throws: { error in
        (error as? ObjectGraphError)?.kind == .invalidOrigin
      }
      #expect {
        try world.context.transaction(origin: "sync", save: false) { ran = true }
      } throws: { error in
        (error as? ObjectGraphError)?.kind == .invalidOrigin
      }
      try world.context.withOrigin("import") { world.boxes[0].label = "same origin" }
    }
    #expect(!ran && world.boxes[0].label == "same origin")
    #expect(ChangeOrigin.local.isReserved && !ChangeOrigin("import").isReserved)
  }

  /// Origins encode as their names, and saves name the context's author.
  @Test func originsAreCodableAndSavesNameTheirAuthor() throws {
    let data = try JSONEncoder().encode([ChangeOrigin.local, "import"])
    #expect(String(decoding: data, as: UTF8.self) == #"["local","import"]"#)
    #expect(try JSONDecoder().decode([ChangeOrigin].self, from: data) == [.local, "import"])
    let world = try UndoModel.world(saved: true)
    var authors: [String?] = []
    let token = world.context.onDidSave { authors.append($0.author) }
    defer { token.invalidate() }
    world.boxes[0].label = "a"
    try world.context.save()
    world.context.author = "importer"
    world.boxes[0].label = "b"
    try world.context.save()
    #expect(authors == [nil, "importer"])
  }
}

/// The table of origin names is shared by every task: origins made at once from many tasks get
/// one number per name.
@Suite struct ChangeOriginConcurrencyTests {
  @Test func originsMadeFromManyTasksAtOnceAgree() async {
    let names = (0..<32).map { "task origin \($0)" }
    let made = await withTaskGroup(of: [ChangeOrigin].self) { group in
      for task in 0..<8 {
        group.addTask {
          names.indices.map { ChangeOrigin(names[($0 + task) % names.count]) }
        }
      }
      var all: [[ChangeOrigin]] = []
      for await origins in group { all.append(origins) }
      return all
    }
    #expect(made.count == 8)
    for origins in made {
      #expect(Set(origins).count == names.count)
      for origin in origins { #expect(origin == ChangeOrigin(origin.name)) }
    }
    #expect(Set(made.flatMap { $0 }.map(\.name)) == Set(names))
  }
}
