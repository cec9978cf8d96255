import Foundation
import ObservedGraph
import ObservedGraphSQLite
import Testing
import UndoLog

/// What the random-operation run found, each as a small case of its own: undo across a save,
/// no-action references to objects whose deletion was saved, rollback with nothing to roll back,
/// and fetches through relationships to objects with unsaved changes.
@Suite struct RandomFindingsTests {
  /// A store in a temporary file with an undo log; the file goes when the value does.
  final class World {
    let folder: URL
    let store: SQLiteStore
    let context: ObjectContext
    let log = UndoLog()

    init() throws {
      folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("og-findings-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      store = try SQLiteStore(
        url: folder.appendingPathComponent("findings.sqlite"), model: RandomModel.model)
      context = PersistentContainer(store: store).viewContext
      context.undoLog = log
    }

    deinit {
      try? store.close()
      try? FileManager.default.removeItem(at: folder)
    }

    func save() throws {
      context.processPendingChanges()
      try context.save()
    }

    /// A saved note in a bin, beside nine saved folders with a note each: loading the folders'
    /// notes (more to-manys than a context keeps loaded) lets a note nothing holds leave memory.
    func noteInABinBesideNineFolders() throws -> (note: ObjectID, bin: ObjectID, [ObjectID]) {
      let note = context.insert(RNote.self)
      let bin = context.insert(RBin.self)
      note.bin = bin
      let folders = (0..<9).map { _ in
        let folder = context.insert(RFolder.self)
        context.insert(RNote.self).folder = folder
        return folder.objectID
      }
      try save()
      return (note.objectID, bin.objectID, folders)
    }

    /// Loads the notes of each folder.
    func loadNotes(of folders: [ObjectID]) throws {
      for id in folders { _ = try #require(context.existingObject(with: id) as? RFolder).notes }
    }

    func all(_ entity: String) throws -> [ObjectID] {
      try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).map(\.objectID)
    }
  }

  @Test func undoingAnInsertAfterItsSaveDeletesAnObjectThatLeftMemory() throws {
    let world = try World()
    do {
      _ = world.context.insert(RCover.self)
      try world.save()
    }
    try world.log.undo()
    #expect(try world.all("RCover").isEmpty)
    try world.save()
    #expect(try world.all("RCover").isEmpty)
    try world.log.redo()
    #expect(try world.all("RCover").count == 1)
  }

  @Test func rollbackWithNothingToRollBackEmptiesTheUndoLog() throws {
    let world = try World()
    world.context.insert(RTag.self).name = "x"
    try world.save()
    #expect(world.log.canUndo)
    world.context.rollback()
    #expect(!world.log.canUndo && !world.log.canRedo)
  }

  @Test func aFetchThroughAToOneSeesUnsavedChangesOfTheObjectItReaches() throws {
    let world = try World()
    let folder = world.context.insert(RFolder.self)
    folder.title = "Inbox"
    let note = world.context.insert(RNote.self)
    note.folder = folder
    try world.save()
    folder.title = "archive"
    for (title, expected) in [("Inbox", [ObjectID]()), ("archive", [note.objectID])] {
      let request = FetchRequest<ManagedObject>(
        entityName: "RNote", predicate: try FetchPredicate(format: "folder.title == %@", title))
      #expect(try world.context.fetch(request).map(\.objectID) == expected, "title \(title)")
      #expect(try world.context.count(for: request) == expected.count, "title \(title)")
    }
  }

  /// A note's bin is deleted under a no-action rule and the deletion saved; the note, reloaded,
  /// names it through a fault whose row is gone.
  static func noteOfASavedDeletedBin(_ world: World) throws -> (RNote, ObjectID) {
    let note = world.context.insert(RNote.self)
    let binID: ObjectID
    do {
      let bin = world.context.insert(RBin.self)
      binID = bin.objectID
      note.bin = bin
      try world.save()
      try world.context.delete(bin)
      try world.save()
    }
    try world.context.refresh(note, mergeChanges: false)
    #expect((try note.value(forKey: "bin") as? ManagedObject)?.objectID == binID)
    return (note, binID)
  }

  @Test func changingANoActionReferenceToAnObjectWhoseDeletionWasSaved() throws {
    let world = try World()
    let (note, _) = try Self.noteOfASavedDeletedBin(world)
    let other = world.context.insert(RBin.self)
    try other.mutableSet(forKey: "notes").insert(note)
    #expect(note.bin === other)
    try world.context.delete(note)
    #expect(other.notes.isEmpty)
  }

  @Test func undoingASavedDeleteThatANoActionReferenceReloadedAsAFault() throws {
    let world = try World()
    let (note, binID) = try Self.noteOfASavedDeletedBin(world)
    try world.log.undo()
    let bin = try world.context.existingObject(with: binID)
    #expect(!bin.isDeleted && bin.isInserted)
    #expect(try note.value(forKey: "bin") as? ManagedObject === bin)
    #expect((try bin.value(forKey: "notes") as? Set<ManagedObject>) == [note])
  }

  /// A key set twice in one undo group, saved, then the group undone: the value the undo puts
  /// back differs from the saved one, so it is a change the next save writes.
  @Test(arguments: [false, true])
  func undoingPastASaveKeepsTheChangeToSave(bracketed: Bool) throws {
    let world = try World()
    let tag = world.context.insert(RTag.self)
    tag.name = "y"
    try world.save()
    world.log.removeAllActions()
    tag.name = "X"
    if bracketed {
      tag.willChangeValue(forKey: "name")
      try tag.setPrimitiveValue("", forKey: "name")
      tag.didChangeValue(forKey: "name")
    } else {
      tag.name = ""
    }
    try world.save()
    try world.log.undo()
    #expect(tag.name == "y" && tag.hasChanges)
    try world.save()
    try world.context.refresh(tag, mergeChanges: false)
    #expect(tag.name == "y")
  }

  @Test func undoingPastASaveKeepsARelationshipChangeToSave() throws {
    let world = try World()
    let note = world.context.insert(RNote.self)
    let (first, second) = (world.context.insert(RFolder.self), world.context.insert(RFolder.self))
    note.folder = first
    try world.save()
    world.log.removeAllActions()
    note.folder = second
    note.folder = nil
    try world.save()
    try world.log.undo()
    #expect(note.folder === first && note.hasChanges)
    try world.save()
    try world.context.refresh(note, mergeChanges: false)
    #expect(note.folder === first)
  }

  /// Undoing and redoing a deletion across saves (the whole history, as the run's barrier check
  /// does) leaves the other side's committed value the store's: a rollback then puts back the
  /// saved members, not the ones the undo step kept before the later save. The deletion takes
  /// the quiet path (no observer), whose replay tracks slots as the mutation path does.
  @Test func undoAndRedoOfADeletionAcrossSavesKeepTheOtherSidesCommittedValue() throws {
    let world = try World()
    let bin = world.context.insert(RBin.self)
    let note = world.context.insert(RNote.self)
    note.bin = bin
    try world.save()
    world.log.removeAllActions()
    try world.context.delete(note)
    try world.save()
    let other = world.context.insert(RNote.self)
    other.bin = bin
    try world.save()
    try world.log.undo()
    try world.log.undo()
    #expect(bin.notes == [note] && bin.hasChanges)
    try world.log.redo()
    try world.log.redo()
    #expect(bin.notes == [other] && !bin.hasChanges)
    try world.context.delete(bin)
    world.context.rollback()
    #expect(bin.notes == [other] && !bin.isDeleted)
  }

  /// An object whose deletion under a no-action rule was saved, still held (here by the test; in
  /// an app by the undo log): an object loaded afterwards whose row names it reads it, as one that
  /// stayed in memory does, not nil.
  @Test func aRowNamingAHeldObjectWhoseDeletionWasSavedReadsIt() throws {
    let world = try World()
    let (noteID, binID, folders) = try world.noteInABinBesideNineFolders()
    world.context.reset()
    let bin = try world.context.existingObject(with: binID)
    try world.context.delete(bin)  // loads the bin's notes
    try world.loadNotes(of: folders)  // lets the note leave memory
    #expect(!world.context.registeredObjects.contains { $0.objectID == noteID })
    try world.save()
    let note = try world.context.existingObject(with: noteID)
    #expect(try note.value(forKey: "bin") as? ManagedObject === bin)
  }

  /// A note names a bin whose deletion under a no-action rule was saved; deleting the note and
  /// rolling back brings it back naming that bin, as the file does.
  @Test(arguments: 0..<4)
  func rollingBackTheDeletionOfANoteThatNamesASavedDeletedBin(_ variant: Int) throws {
    let world = try World()
    var note = world.context.insert(RNote.self)
    let noteID = note.objectID
    let binID: ObjectID
    do {
      let bin = world.context.insert(RBin.self)
      binID = bin.objectID
      note.bin = bin
      try world.save()
      try world.context.delete(bin)
      try world.save()
    }
    if variant & 1 == 1 { world.log.removeAllActions() }
    if variant & 2 == 2 {
      world.context.reset()
      note = try #require(try world.context.existingObject(with: noteID) as? RNote)
    }
    try world.context.delete(note)
    world.context.rollback()
    #expect(!note.isDeleted)
    #expect((try note.value(forKey: "bin") as? ManagedObject)?.objectID == binID)
  }

  /// A bin whose deletion was saved comes back by undo (as a new insert, its row being gone),
  /// and a rollback takes it out again; a note loaded afterwards whose row names the bin reads
  /// it, not nil (a note that stayed in memory names it too).
  @Test func aRowNamingAnObjectAnUndoBroughtBackAndARollbackTookOutReadsIt() throws {
    let world = try World()
    let (noteID, binID, folders) = try world.noteInABinBesideNineFolders()
    world.log.removeAllActions()
    try world.context.delete(try world.context.existingObject(with: binID))
    try world.save()
    try world.log.undo()
    let bin = try #require(world.context.registeredObjects.first { $0.objectID == binID })
    #expect(bin.isInserted)
    world.context.rollback()
    #expect(bin.context == nil || !world.context.registeredObjects.contains(bin))
    try world.loadNotes(of: folders)  // lets the note leave memory
    #expect(!world.context.registeredObjects.contains { $0.objectID == noteID })
    let note = try world.context.existingObject(with: noteID)
    #expect(try note.value(forKey: "bin") as? ManagedObject === bin)
  }
}
