import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// The context's parts check themselves: corrupting any one of them makes `_checkInvariants()`
/// stop with a message (debug builds run these checks after every change).
@Suite("Context parts check themselves")
struct ContextPartsTests {
  @Test func aHealthyContextPassesEveryCheck() throws {
    let s = BookStore.scenario()
    s.context.undoLog = UndoLog()
    try s.context.delete(s.books[0])
    s.context._checkInvariants()
    s.context.registry.checkInvariants()
    s.context.tracker.checkInvariants()
    s.context.center.checkInvariants()
    s.context.recorder.checkInvariants()
  }

  @Test func theRegistryCatchesAnObjectInTheWrongState() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      s.books[0].lifecycle = .detached
      s.context.registry.checkInvariants()
    }
  }

  @Test func theTrackerCatchesADirtyObjectWithNothingToSave() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      try? s.context.save()
      s.context.tracker.noteDirty(s.books[0])
      s.context.tracker.checkInvariants()
    }
  }

  @Test func theCenterCatchesAPendingObjectListedTwice() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      s.context.processPendingChanges()
      s.books[0].price = 1
      s.books[0].pending.listed = false
      s.books[0].price = 2
      s.context.center.checkInvariants()
    }
  }

  @Test func theGraphCheckCatchesAOneSidedRelationship() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      try? s.books[0].setPrimitiveValue(s.science, forKey: "category")
      s.context._checkInvariants()
    }
  }
}
