import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// What a to-many proxy loads before it changes a relationship of a context with a store: the
/// owner, the objects it adds or removes and their other sides — not the members it leaves in
/// place, which stay faults (adding one member to a relationship of *m* members costs O(1)
/// loads, not O(*m*)).
@Suite struct ProxyPreloadTests {
  /// A panel with three saved gauges, reopened: the panel is fulfilled and its gauges are
  /// faults.
  static func reopenedPanel(_ folder: SQLiteConnectionTests.Folder) throws
    -> (ObjectContext, Panel, [Gauge], SQLiteStore)
  {
    let (url, panelID, _) = try SQLiteLoadTests.savedPanel(folder)
    let writer = try SQLiteStore(url: url, model: SQLiteLoadTests.model)
    let writing = PersistentContainer(store: writer).viewContext
    let third = writing.insert(Gauge.self)
    third.label = "Flow"
    third.panel = try #require(writing.object(with: panelID) as? Panel)
    try writing.save()
    try writer.close()
    let store = try SQLiteStore(url: url, model: SQLiteLoadTests.model)
    let context = PersistentContainer(store: store).viewContext
    let panel = try #require(context.object(with: panelID) as? Panel)
    #expect(panel.name == "Boiler")
    let gauges = panel.gauges.sorted { $0.objectID.key < $1.objectID.key }
    #expect(gauges.count == 3 && gauges.allSatisfy(\.isFault))
    return (context, panel, gauges, store)
  }

  @Test func insertingThroughTheProxyLeavesTheOtherMembersFaults() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (context, panel, gauges, store) = try Self.reopenedPanel(folder)
    let added = context.insert(Gauge.self)
    try panel.mutableSet(forKey: "gauges").insert(added)
    #expect(added.panel === panel)
    #expect(panel.gauges == Set(gauges + [added]))
    #expect(gauges.map(\.isFault) == [true, true, true])
    try context.save()
    #expect(gauges.map(\.isFault) == [true, true, true])
    withExtendedLifetime(context) {}
    try store.close()
  }

  @Test func removingThroughTheProxyLoadsOnlyTheMemberRemoved() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (context, panel, gauges, store) = try Self.reopenedPanel(folder)
    try panel.mutableSet(forKey: "gauges").remove(gauges[1])
    #expect(gauges[1].panel == nil)
    #expect(panel.gauges == [gauges[0], gauges[2]])
    #expect(gauges.map(\.isFault) == [true, false, true])
    withExtendedLifetime(context) {}
    try store.close()
  }

  /// Replacing the members reads every member that leaves, and the one that stays is named by
  /// the caller: all are loaded first, so that a member the store cannot load throws before
  /// anything changes.
  @Test func replacingByKeyValueCodingLoadsTheMembersThatLeave() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (context, panel, gauges, store) = try Self.reopenedPanel(folder)
    try panel.setValue(Set([gauges[0]]), forKey: "gauges")
    #expect(panel.gauges == [gauges[0]])
    #expect(gauges[1].panel == nil && gauges[2].panel == nil)
    #expect(gauges.map(\.isFault) == [false, false, false])
    withExtendedLifetime(context) {}
    try store.close()
  }
}
