import Testing

@testable import UndoLog

@Suite("Registration")
struct RegistrationTests {
  @Test func initialState() {
    let log = UndoLog()
    #expect(log.groupsByEvent)
    #expect(log.levelsOfUndo == 0)
    #expect(log.byteLimit == 0)
    #expect(log.groupingLevel == 0)
    #expect(log.isRegistrationEnabled)
    #expect(!log.canUndo && !log.canRedo)
    #expect(!log.isUndoing && !log.isRedoing)
    #expect(log.undoActionName == "" && log.redoActionName == "")
    #expect(log.coalescingWindow == nil)
  }

  @Test func valueStepUndoesAndRedoesWithoutClosures() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(5, in: log)
    log.markEventBoundary()
    try log.undo()
    #expect(counter.value == 0)
    #expect(log.redoCount == 1 && log.undoCount == 0)
    let inverse = try #require(log.redoStack.last?.steps.first as? AddStep)
    #expect(inverse.delta == 5)
    try log.redo()
    #expect(counter.value == 5)
    let again = try #require(log.undoStack.last?.steps.first as? AddStep)
    #expect(again.delta == -5)
    try log.undo()
    #expect(counter.value == 0)
  }

  @Test func closureHandlerRegistersItsOwnInverse() throws {
    let log = UndoLog()
    // The handlers capture the log, which holds them: empty it at the end so that both go.
    defer { log.removeAllActions() }
    let counter = Counter()
    func set(_ value: Int) {
      let old = counter.value
      log.registerUndo(withTarget: counter) { _ in set(old) }
      counter.value = value
    }
    set(7)
    log.markEventBoundary()
    try log.undo()
    #expect(counter.value == 0)
    #expect(log.canRedo)
    try log.redo()
    #expect(counter.value == 7)
    #expect(log.canUndo && !log.canRedo)
  }

  @Test func closureTargetIsHeldWeakly() throws {
    let log = UndoLog()
    var ran = false
    weak var weakTarget: Counter?
    do {
      let target = Counter()
      weakTarget = target
      log.registerUndo(withTarget: target) { _ in ran = true }
    }
    #expect(weakTarget == nil)
    log.markEventBoundary()
    try log.undo()
    #expect(!ran)
    #expect(!log.canRedo)
  }

  @Test func disabledRegistrationRecordsNothing() throws {
    let log = UndoLog()
    let counter = Counter()
    log.disableRegistration()
    log.disableRegistration()
    counter.add(1, in: log)
    log.registerUndo(withTarget: counter) { $0.value = 99 }
    try log.enableRegistration()
    #expect(!log.isRegistrationEnabled)
    counter.add(1, in: log)
    try log.enableRegistration()
    #expect(log.isRegistrationEnabled)
    #expect(!log.canUndo)
    #expect(log.groupingLevel == 0)
    counter.add(1, in: log)
    #expect(log.canUndo)
  }

  @Test func enablingMoreThanDisabledThrowsAndChangesNothing() throws {
    let log = UndoLog()
    log.disableRegistration()
    try log.enableRegistration()
    #expect(throws: UndoLogError.registrationNotDisabled) { try log.enableRegistration() }
    #expect(log.isRegistrationEnabled)
    log.disableRegistration()
    #expect(!log.isRegistrationEnabled)
  }

  @Test func registrationOutsideUndoClearsRedo() throws {
    let log = UndoLog()
    let counter = Counter()
    counter.add(1, in: log)
    log.markEventBoundary()
    try log.undo()
    #expect(log.canRedo)
    counter.add(2, in: log)
    #expect(!log.canRedo)
    #expect(log.redoActionName == "")
  }

  @Test func registrationWithoutEventGroupingFormsItsOwnGroup() {
    let log = UndoLog()
    log.groupsByEvent = false
    let counter = Counter()
    counter.add(1, in: log)
    counter.add(2, in: log)
    #expect(log.groupingLevel == 0)
    #expect(log.undoCount == 2)
  }

  @Test func byteSizeCountsStepsOnBothStacksAndOpenGroups() throws {
    let log = UndoLog()
    log.register(SizedStep(size: 10))
    #expect(log.byteSize == 10)
    log.markEventBoundary()
    log.beginGroup()
    log.register(SizedStep(size: 5))
    #expect(log.byteSize == 15)
    try log.endGroup()
    log.markEventBoundary()
    try log.undo()
    #expect(log.byteSize == 15)
    #expect(EmptyUndoStep().byteSize == 0)
    #expect(AddStep(counter: Counter(), delta: 1).byteSize == MemoryLayout<AddStep>.size)
  }
}
