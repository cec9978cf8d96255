import Testing

@testable import UndoLog

@Suite("Errors")
struct ErrorTests {
  static let all: [UndoLogError] = [
    .noGroupToEnd, .registrationNotDisabled, .nestedGroupsOpen, .groupOpen, .undoInProgress,
    .checkpointUnavailable, .checkpointOnRedoSide, .checkpointOfAnotherLog, .notArchivable,
  ]

  @Test(arguments: all)
  func messagesAreDistinctAndSayWhatHappened(error: UndoLogError) {
    #expect(!error.description.isEmpty)
    let others = Self.all.filter { $0 != error }
    #expect(others.count == Self.all.count - 1)
    #expect(!others.map(\.description).contains(error.description))
  }

  @Test func detailShowsInTheMessageButNotInEquality() {
    let log = UndoLog()
    log.beginGroup()
    log.beginGroup()
    do {
      try log.undo()
      Issue.record("undo with nested groups did not throw")
    } catch let error as UndoLogError {
      #expect(error == .nestedGroupsOpen)
      #expect(error.description.contains("grouping level 3"))
      #expect(Set([error, .nestedGroupsOpen]).count == 1)
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }
}
