import Testing

@testable import UndoLog

/// In this package's test process the log's checks after a mutation also walk steps and groups
/// (see `FullChecks`): a corruption only such a walk sees is caught by the next mutation.
@Suite("Full checks of the log")
struct LogFullChecksTests {
  @Test func areOnInThisPackagesTestProcess() {
    #expect(FullChecks.isOn)
  }

  #if DEBUG
    /// A stale size cache of an open group: only a walk of its steps sees it.
    @Test func aMutationWalksTheOpenGroups() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        let log = UndoLog()
        log.beginGroup()
        log.register(AddStep(counter: Counter(), delta: 1))
        log.current.byteSize += 1
        log.beginGroup()
      }
      let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(text.contains("group size cache is stale"), "standard error: \(text)")
    }

    /// A group id seen twice below the top of the stack: only the scan of the whole history
    /// sees it.
    @Test func aMutationScansTheWholeHistoryNowAndThen() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        let log = UndoLog()
        let counter = Counter()
        for delta in 1...3 {
          log.register(AddStep(counter: counter, delta: delta))
          log.markEventBoundary()
        }
        var groups = Array(log.undoStack.groups)
        groups[1].id = groups[0].id
        log.undoStack = GroupStack()
        for group in groups { log.undoStack.push(group) }
        log.disableRegistration()
      }
      let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(text.contains("twice"), "standard error: \(text)")
    }
  #endif
}
