import Foundation
import Testing

@testable import UndoLog

/// Metadata the archive tests keep with their groups.
struct Selection: Codable, Sendable, Equatable {
  var player: String
  var range: ClosedRange<Int>
}

/// Metadata that cannot be archived.
struct Opaque: Sendable {}

@Suite("Archiving the history")
struct ArchiveTests {
  /// A log and the scoreboard it undoes, as the user left them.
  struct Document {
    let log = UndoLog()
    let board: Scoreboard

    init(board: Scoreboard) {
      self.board = board
      log.addParticipant(board)
    }

    /// What undo and redo show: the data and everything a menu reads.
    var state: State {
      State(
        scores: board.scores, title: board.title, canUndo: log.canUndo, canRedo: log.canRedo,
        undoName: log.undoActionName, redoName: log.redoActionName,
        undoSelection: log.undoMetadata["selection"] as? Selection,
        redoSelection: log.redoMetadata["selection"] as? Selection,
        undoNote: log.undoMetadata["note"] as? String,
        redoNote: log.redoMetadata["note"] as? String)
    }
  }

  struct State: Equatable {
    var scores: [String: Int]
    var title: String
    var canUndo: Bool
    var canRedo: Bool
    var undoName: String
    var redoName: String
    var undoSelection: Selection?
    var redoSelection: Selection?
    var undoNote: String?
    var redoNote: String?
  }

  /// Four groups, named, with metadata, one of them nested; the two newest undone.
  static func edited() throws -> Document {
    let document = Document(board: Scoreboard(id: "league"))
    let log = document.log
    let board = document.board

    board.set("ada", to: 3, in: log)
    log.setActionName("Ada Scores")
    log.setMetadata(Selection(player: "ada", range: 0...2), forKey: "selection")
    log.markEventBoundary()

    log.beginGroup()
    board.set("bob", to: 2, in: log)
    log.beginGroup()
    board.setTitle("Finals", in: log)
    log.setActionName("Rename")
    log.setMetadata("inner", forKey: "note")
    try log.endGroup()
    board.set("ada", to: 4, in: log)
    log.setActionName("Round Two")
    try log.endGroup()
    log.markEventBoundary()

    board.set("ada", to: 5, in: log)
    board.set("cy", to: 1, in: log)
    log.setActionName("Round Three")
    log.setMetadata(Selection(player: "cy", range: 1...1), forKey: "selection")
    log.setMetadata("third", forKey: "note")
    log.markEventBoundary()

    board.setTitle("Semifinals", in: log)
    log.markEventBoundary()

    try log.undo()
    try log.undo()
    return document
  }

  static func encoded(_ history: UndoLog.History) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(history)
  }

  static func decoded(
    _ data: Data,
    stepTypes: [any ArchivableUndoStep.Type] = [SetScore.self, SetTitle.self],
    metadataTypes: [any (Decodable & Sendable).Type] = [Selection.self, String.self]
  ) throws -> UndoLog.History {
    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = stepTypes
    decoder.userInfo[UndoLog.History.metadataTypesKey] = metadataTypes
    return try decoder.decode(UndoLog.History.self, from: data)
  }

  /// The message of the error `body` throws, which must be a `DecodingError.dataCorrupted`.
  static func corruption(_ body: () throws -> Void) -> String {
    do {
      try body()
    } catch DecodingError.dataCorrupted(let context) {
      return context.debugDescription
    } catch {
      Issue.record("expected DecodingError.dataCorrupted, got \(error)")
      return ""
    }
    Issue.record("expected DecodingError.dataCorrupted, nothing was thrown")
    return ""
  }

  @Test func aRestoredLogUndoesAndRedoesAsTheOriginal() throws {
    let original = try Self.edited()
    let data = try Self.encoded(original.log.history())

    let copy = Scoreboard(id: "league")
    copy.scores = original.board.scores
    copy.title = original.board.title
    let restored = Document(board: copy)
    restored.log.levelsOfUndo = 10
    try restored.log.restore(Self.decoded(data))
    #expect(restored.log.levelsOfUndo == 10)
    #expect(restored.log.undoCount == 2 && restored.log.redoCount == 2)
    #expect(restored.state == original.state)
    #expect(try Self.encoded(restored.log.history()) == data)
    restored.log._checkInvariants()

    // Walk the whole history both ways on both logs.
    let walk: [(UndoLog) throws -> Void] =
      [{ try $0.undo() }, { try $0.undo() }, { try $0.undo() }]
      + Array(repeating: { try $0.redo() }, count: 5) + [{ try $0.undo() }]
    var states: [State] = []
    for move in walk {
      try move(original.log)
      try move(restored.log)
      #expect(restored.state == original.state)
      #expect(restored.log.byteSize == original.log.byteSize)
      states.append(original.state)
      restored.log._checkInvariants()
    }
    #expect(states[0].scores == ["ada": 3] && states[0].undoName == "Ada Scores")
    #expect(states[1].scores.isEmpty && !states[1].canUndo && states[1].redoName == "Ada Scores")
    #expect(states[6].title == "Semifinals" && !states[6].canRedo)
    #expect(states[4].undoName == "Round Two" && states[4].undoNote == "inner")
    #expect(states[5].undoSelection == Selection(player: "cy", range: 1...1))
  }

  @Test func theHistoryIsInspectable() throws {
    let history = try Self.edited().log.history()
    #expect(history.undoGroups.map(\.actionName) == ["Ada Scores", "Round Two"])
    #expect(history.redoGroups.map(\.actionName) == ["", "Round Three"])
    let first = try #require(history.undoGroups.first)
    #expect(first.metadata["selection"] as? Selection == Selection(player: "ada", range: 0...2))
    #expect(
      first.steps.map { $0 as? SetScore } == [SetScore(board: "league", player: "ada", score: nil)])
    #expect(history.undoGroups[1].steps.count == 3)
    #expect(history.undoGroups[1].metadata["note"] as? String == "inner")
    #expect(history.redoGroups[0].steps.first is SetTitle)
  }

  @Test func theArchiveIsReadableJSON() throws {
    let data = try Self.encoded(Self.edited().log.history())
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(root["version"] as? Int == 1)
    let undoGroups = try #require(root["undoGroups"] as? [[String: Any]])
    let second = try #require(undoGroups.last)
    #expect(second["actionName"] as? String == "Round Two")
    let note = try #require((second["metadata"] as? [String: Any])?["note"] as? [String: Any])
    #expect(note["type"] as? String == "Swift.String")
    #expect(note["value"] as? String == "inner")
    let steps = try #require(second["steps"] as? [[String: Any]])
    let types = steps.map { $0["type"] as? String }
    #expect(types == [SetScore.archiveName, "setTitle", SetScore.archiveName])
    #expect(SetScore.archiveName == "UndoLogTests.SetScore")
    let title = try #require(steps[1]["step"] as? [String: Any])
    #expect(title["title"] as? String == "")
    #expect(title["board"] as? String == "league")
  }

  /// Labels travel with the archive, written only when there are some; the log neither writes
  /// nor reads them.
  @Test func labelsTravelWithTheArchive() throws {
    var history = try Self.edited().log.history()
    #expect(history.labels.isEmpty)
    let plain = try Self.encoded(history)
    let root = try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any])
    #expect(root["labels"] == nil)
    history.labels = ["document": "v3", "owner": "ada"]
    let labelled = try Self.encoded(history)
    #expect(try Self.decoded(labelled).labels == ["document": "v3", "owner": "ada"])
    #expect(try Self.decoded(plain).labels.isEmpty)
    let log = UndoLog()
    try log.restore(try Self.decoded(labelled))
    #expect(log.undoCount == 2 && log.redoCount == 2)
    #expect(try log.history().labels.isEmpty)
  }

  @Test func aClosureStepCannotBeArchived() throws {
    let log = UndoLog()
    let counter = Counter()
    Scoreboard(id: "x").set("ada", to: 1, in: log)
    log.markEventBoundary()
    Scoreboard(id: "x").set("ada", to: 1, in: log)
    log.registerUndo(withTarget: counter) { $0.value = 0 }
    log.markEventBoundary()
    let error = try #require(throws: UndoLogError.notArchivable) { try log.history() }
    #expect(error.description.contains("step 1 of undo group 1 of 2"))
    #expect(error.description.contains("ClosureStep<UndoLogTests.Counter>"))
    #expect(error.description.contains("registerUndo(withTarget:handler:) cannot be archived"))
    #expect(log.undoCount == 2)
  }

  @Test func aStepThatIsNotArchivableIsNamed() throws {
    let log = UndoLog()
    Counter().add(1, in: log)
    log.markEventBoundary()
    try log.undo()
    let error = try #require(throws: UndoLogError.notArchivable) { try log.history() }
    #expect(error.description.contains("step 0 of redo group 0 of 1"))
    #expect(error.description.contains("UndoLogTests.AddStep"))
    #expect(error.description.contains("does not conform to ArchivableUndoStep"))
  }

  @Test func metadataThatIsNotEncodableIsNamedWithItsKey() throws {
    let log = UndoLog()
    Scoreboard(id: "x").set("ada", to: 1, in: log)
    log.setMetadata(Opaque(), forKey: "opaque")
    log.setMetadata("fine", forKey: "note")
    log.markEventBoundary()
    let error = try #require(throws: UndoLogError.notArchivable) { try log.history() }
    #expect(error.description.contains("metadata \"opaque\" of undo group 0 of 1"))
    #expect(error.description.contains("UndoLogTests.Opaque, which is not Encodable"))
  }

  @Test func unknownTypeNamesFailToDecode() throws {
    let data = try Self.encoded(Self.edited().log.history())
    let step = Self.corruption { _ = try Self.decoded(data, stepTypes: [SetScore.self]) }
    #expect(step.contains("unknown undo step type \"setTitle\""))
    #expect(step.contains("UndoLog.History.stepTypesKey"))

    let metadata = Self.corruption { _ = try Self.decoded(data, metadataTypes: [String.self]) }
    #expect(metadata.contains("unknown metadata type \"UndoLogTests.Selection\""))
    #expect(metadata.contains("\"selection\""))
    #expect(metadata.contains("UndoLog.History.metadataTypesKey"))

    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.metadataTypesKey] =
      [Selection.self, String.self] as [any (Decodable & Sendable).Type]
    let missing = Self.corruption { _ = try decoder.decode(UndoLog.History.self, from: data) }
    #expect(missing.contains("unknown undo step type \"\(SetScore.archiveName)\""))
    #expect(missing.contains("UndoLog.History.stepTypesKey"))
  }

  @Test func malformedArchivesFailToDecode() throws {
    let empty = Data(
      #"{"undoGroups":[{"actionName":"","metadata":{},"steps":[]}],"redoGroups":[]}"#.utf8)
    #expect(Self.corruption { _ = try Self.decoded(empty) }.contains("holds no step"))

    let newer = Data(#"{"version":2,"undoGroups":[],"redoGroups":[]}"#.utf8)
    #expect(Self.corruption { _ = try Self.decoded(newer) }.contains("version 2"))

    let data = try Self.encoded(Self.edited().log.history())
    struct Impostor: ArchivableUndoStep {
      static var archiveName: String { "setTitle" }
      mutating func apply() -> any UndoStep { EmptyUndoStep() }
    }
    let ambiguous = Self.corruption {
      _ = try Self.decoded(data, stepTypes: [SetScore.self, SetTitle.self, Impostor.self])
    }
    #expect(ambiguous.contains("two undo step types"))
    _ = try Self.decoded(data, stepTypes: [SetScore.self, SetTitle.self, SetTitle.self])

    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = "SetScore"
    let wrongKind = Self.corruption { _ = try decoder.decode(UndoLog.History.self, from: data) }
    #expect(wrongKind.contains("expected [any ArchivableUndoStep.Type]"))
  }

  @Test func historyAndRestoreThrowWithAGroupOpenAndChangeNothing() throws {
    let document = try Self.edited()
    let log = document.log
    let history = try log.history()
    let mark = log.checkpoint()
    document.board.set("dee", to: 9, in: log)
    #expect(!log.canRedo)
    let before = (log.undoCount, log.byteSize, log.undoActionName, log.groupingLevel)

    let open = try #require(throws: UndoLogError.groupOpen) { try log.restore(history) }
    #expect(open.description.contains("restore(_:) at grouping level 1"))
    #expect(open.description.contains("markEventBoundary()"))
    #expect(throws: UndoLogError.groupOpen) { try log.history() }
    #expect((log.undoCount, log.byteSize, log.undoActionName, log.groupingLevel) == before)
    #expect(log.current.steps.count == 1)

    log.beginGroup()
    #expect(throws: UndoLogError.groupOpen) { try log.restore(history) }
    try log.endGroup()
    log.markEventBoundary()
    try log.undo(to: mark)  // the checkpoint still works: nothing was restored
    #expect(document.board.scores["dee"] == nil)
  }

  @Test func restoreWhileUndoingThrows() throws {
    let log = UndoLog()
    let history = try log.history()
    var caught: (any Error)?
    let counter = Counter()
    log.registerUndo(withTarget: counter) { _ in
      do { try log.restore(history) } catch { caught = error }
    }
    log.markEventBoundary()
    try log.undo()
    #expect(caught as? UndoLogError == .undoInProgress)
    #expect(!log.canUndo)
  }

  @Test func checkpointsFromBeforeARestoreAreUnavailable() throws {
    let document = try Self.edited()
    let log = document.log
    let early = log.checkpoint()
    try log.undo()
    let base = log.checkpoint()
    try log.redo()
    try log.restore(log.history())
    #expect(log.undoCount == 2 && log.redoCount == 2)
    #expect(throws: UndoLogError.checkpointUnavailable) { try log.undo(to: early) }
    #expect(throws: UndoLogError.checkpointUnavailable) { try log.undo(to: base) }
    let mark = log.checkpoint()
    try log.redo()
    try log.undo(to: mark)
    #expect(log.undoCount == 2)
  }

  @Test func restoreAppliesTheLimitsKeepsSettingsAndSendsNoEvent() throws {
    let history = try Self.edited().log.history()
    let document = Document(board: Scoreboard(id: "league"))
    let log = document.log
    log.levelsOfUndo = 1
    log.coalescingWindow = .seconds(1)
    log.groupsByEvent = false
    log.disableRegistration()
    var events: [UndoLog.Event] = []
    let subscription = log.onEvent { events.append($0) }
    try log.restore(history)
    #expect(events.isEmpty)
    #expect(log.undoCount == 1 && log.redoCount == 1)
    #expect(log.undoActionName == "Round Two" && log.redoActionName == "Round Three")
    #expect(log.levelsOfUndo == 1 && log.coalescingWindow == .seconds(1) && !log.groupsByEvent)
    #expect(!log.isRegistrationEnabled)
    let expected =
      history.undoGroups[1].steps.reduce(0) { $0 + $1.byteSize }
      + history.redoGroups[1].steps.reduce(0) { $0 + $1.byteSize }
    #expect(log.byteSize == expected)
    #expect(log.participants(of: Scoreboard.self).count == 1)
    log._checkInvariants()
    subscription.cancel()
  }

  @Test func restoringAnEmptyHistoryEmptiesTheLog() throws {
    let document = try Self.edited()
    try document.log.restore(UndoLog().history())
    #expect(!document.log.canUndo && !document.log.canRedo)
    #expect(document.log.byteSize == 0)
    document.log._checkInvariants()
  }
}
