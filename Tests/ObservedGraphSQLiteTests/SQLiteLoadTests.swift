import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

final class Gauge: ManagedObject {
  @Attribute var label: String = ""
  @Attribute var note: String?
  @Attribute var count: Int = 0
  @Attribute var limit: Int?
  @Attribute var serial: Int64 = 0
  @Attribute var batch: Int64?
  @Attribute var reading: Double = 0
  @Attribute var target: Double?
  @Attribute var isOn: Bool = false
  @Attribute var isCalibrated: Bool?
  @Attribute var checked: Date = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var serviced: Date?
  @Attribute var channel: Int16 = 0
  @Relationship(inverse: "gauges") var panel: Panel?
}

final class Panel: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "panel") var gauges: Set<Gauge>
}

/// How the store's rows reach a context's objects: straight into typed fields through the
/// context's loader, for a to-many's members and for faults loaded by identifier; a row that fails
/// halfway leaves no object half loaded.
@Suite struct SQLiteLoadTests {
  static let model = try! ObjectModel(types: [Gauge.self, Panel.self])

  /// The values of a gauge, as text, every typed field included.
  static func values(_ gauge: Gauge) -> String {
    "\(gauge.label)|\(String(describing: gauge.note))|\(gauge.count)|"
      + "\(String(describing: gauge.limit))|\(gauge.serial)|\(String(describing: gauge.batch))|"
      + "\(gauge.reading)|\(String(describing: gauge.target))|\(gauge.isOn)|"
      + "\(String(describing: gauge.isCalibrated))|\(gauge.checked.timeIntervalSinceReferenceDate)|"
      + "\(String(describing: gauge.serviced?.timeIntervalSinceReferenceDate))|\(gauge.channel)|"
      + "\(gauge.panel?.name ?? "-")"
  }

  /// A panel with a gauge that has every value and one that has none, saved to a new file.
  static func savedPanel(_ folder: SQLiteConnectionTests.Folder) throws
    -> (URL, ObjectID, [ObjectID: String])
  {
    let url = folder.url.appendingPathComponent("panel.sqlite")
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).viewContext
    let panel = context.insert(Panel.self)
    panel.name = "Boiler"
    let full = context.insert(Gauge.self)
    full.label = "Pressure ✓"
    full.note = "check weekly"
    full.count = -7
    full.limit = 12
    full.serial = 9_000_000_000
    full.batch = -3
    full.reading = 1.25
    full.target = 2.5
    full.isOn = true
    full.isCalibrated = false
    full.checked = Date(timeIntervalSinceReferenceDate: 1_000.5)
    full.serviced = Date(timeIntervalSinceReferenceDate: -20)
    full.channel = 513
    full.panel = panel
    let empty = context.insert(Gauge.self)
    empty.panel = panel
    try context.save()
    let expected = [full.objectID: values(full), empty.objectID: values(empty)]
    try store.close()
    return (url, panel.objectID, expected)
  }

  @Test func typedFieldsOfEveryCommonTypeComeBackThroughTheMembersLoad() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, panelID, expected) = try Self.savedPanel(folder)
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    let panel = try #require(context.object(with: panelID) as? Panel)
    let gauges = panel.gauges
    #expect(gauges.count == 2)
    #expect(gauges.allSatisfy { $0.isFault }, "members stay faults until read")
    for gauge in gauges {
      #expect(Self.values(gauge) == expected[gauge.objectID])
    }
    #expect(Set(gauges.map(\.objectID)) == Set(expected.keys))
  }

  @Test func typedFieldsOfEveryCommonTypeComeBackThroughALoadByIdentifier() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _, expected) = try Self.savedPanel(folder)
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    for (id, values) in expected {
      let gauge = try #require(context.object(with: id) as? Gauge)
      #expect(gauge.isFault)
      #expect(Self.values(gauge) == values)
    }
  }

  @Test func aRowThatFailsHalfwayLeavesNoObjectHalfLoaded() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, panelID, expected) = try Self.savedPanel(folder)
    let store = try SQLiteStore(url: url, model: Self.model)
    // Another program wrote text where one gauge's date belongs: the members' load fails at
    // that row, after other rows (or other columns of the row) were put in place.
    let broken = try #require(expected.keys.max { $0.key < $1.key })
    try store.connection.execute(
      #"UPDATE "Gauge" SET "serviced" = 'soon' WHERE "og_pk" = \#(broken.key)"#)
    let context = PersistentContainer(store: store).newContext()
    let panel = try #require(context.object(with: panelID))
    // The other gauges are held as faults, so the failed load finds and begins them.
    let held = expected.keys.filter { $0 != broken }.compactMap { context.object(with: $0) }
    #expect(held.count == expected.count - 1)
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try panel.value(forKey: "gauges")
    }
    #expect(error?.kind == .wrongType && error?.key == "serviced")
    // Each gauge the failed load began is a fault without values: reading it loads its own row.
    for case let gauge as Gauge in held {
      #expect(gauge.isFault)
      var trace: [String] = []
      store.connection.trace = { sql, _, _ in trace.append(sql) }
      #expect(Self.values(gauge) == expected[gauge.objectID])
      store.connection.trace = nil
      #expect(trace.count == 1, "its values were loaded again, not taken from the failed load")
    }
    let gauge = try #require(context.object(with: broken))
    #expect(throws: ObjectGraphError.self) { try gauge.fulfilFault() }
    #expect(gauge.isFault)
  }
}
