import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// An exhibit, whose sub-entity's objects a fetch of exhibits returns too.
class Exhibit: ManagedObject {
  @Attribute var name: String = ""
}

final class Fossil: Exhibit {
  @Attribute var age: Int = 0
}

/// An object with an attribute of every stored type, the common ones also optional.
final class Specimen: ManagedObject {
  /// How many times the object awoke from a fetch.
  var awakenings = 0

  @Attribute var text: String = ""
  @Attribute var note: String?
  @Attribute var small: Int16 = 0
  @Attribute var medium: Int32 = 0
  @Attribute var large: Int64 = 0
  @Attribute var largeOrNil: Int64?
  @Attribute var number: Int = 0
  @Attribute var numberOrNil: Int?
  @Attribute var single: Float = 0
  @Attribute var real: Double = 0
  @Attribute var realOrNil: Double?
  @Attribute var flag: Bool = false
  @Attribute var flagOrNil: Bool?
  @Attribute var when: Date = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var whenOrNil: Date?
  @Attribute var amount: Decimal = 0
  @Attribute var bytes: Data = Data()
  @Attribute var tag: UUID?
  @Attribute var link: URL?
  @Relationship(inverse: "specimens") var tray: Tray?

  override func awakeFromFetch() {
    super.awakeFromFetch()
    awakenings += 1
  }
}

final class Tray: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "tray") var specimens: Set<Specimen>
}

/// A store that gives every value as a ``StoredObject``: the protocol's general load path, which
/// goes through ``ObjectLoader/load(_:)`` and the `StoredValue` of each attribute. Its fetch names
/// the objects only, so their values load through that path when read.
final class StoredObjectsStore: PersistentStore {
  let base: SQLiteStore

  init(_ base: SQLiteStore) {
    self.base = base
  }

  var model: ObjectModel { base.model }
  var identifier: UUID { base.identifier }
  var metadata: [String: String] { base.metadata }
  var isClosed: Bool { base.isClosed }
  func close() throws { try base.close() }
  func reserveKeys(_ count: Int) -> Range<Int64> { base.reserveKeys(count) }
  func loadObjects(_ ids: [ObjectID]) throws -> [StoredObject] { try base.loadObjects(ids) }
  func loadMembers(of id: ObjectID, relationship: String) throws -> [StoredObject] {
    try base.loadMembers(of: id, relationship: relationship)
  }
  func save(_ changes: StoreChanges) throws { try base.save(changes) }
  func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool {
    var named = request
    named.loadsValues = false
    return try base.fetch(named, into: loader)
  }
}

/// The typed path of a load (a column of a common type put straight into its field, without a
/// `StoredValue`) gives the same objects and values as the general path, for every attribute type,
/// optional and nil values, and text beyond ASCII; each object awakes from fetch once.
@Suite struct SQLiteTypedLoadTests {
  static let model = try! ObjectModel(types: [Specimen.self, Tray.self])

  /// The values of a specimen, every attribute as text.
  static func values(_ specimen: Specimen) -> String {
    [
      specimen.text, String(describing: specimen.note), "\(specimen.small)", "\(specimen.medium)",
      "\(specimen.large)", String(describing: specimen.largeOrNil), "\(specimen.number)",
      String(describing: specimen.numberOrNil), "\(specimen.single)", "\(specimen.real)",
      String(describing: specimen.realOrNil), "\(specimen.flag)",
      String(describing: specimen.flagOrNil), "\(specimen.when.timeIntervalSinceReferenceDate)",
      String(describing: specimen.whenOrNil?.timeIntervalSinceReferenceDate),
      "\(specimen.amount)", specimen.bytes.base64EncodedString(),
      String(describing: specimen.tag), String(describing: specimen.link),
      specimen.tray?.name ?? "-",
    ].joined(separator: "|")
  }

  /// Texts of every kind: ASCII, empty, beyond ASCII (accents, CJK, emoji, combining marks), and
  /// a NUL inside.
  static let texts = [
    "plain", "", "Ünïcödé ✓", "日本語のテキスト", "🦊🚀 emoji", "e\u{301}", "nul\u{0}inside",
  ]

  /// A tray with a specimen per text: the even ones with every value (extremes included), the odd
  /// ones with nil in every optional; saved to a new file.
  static func savedTray(_ folder: SQLiteConnectionTests.Folder) throws -> (URL, ObjectID) {
    let url = folder.url.appendingPathComponent("tray.sqlite")
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).viewContext
    let tray = context.insert(Tray.self)
    tray.name = "Tray ✓"
    for (index, text) in texts.enumerated() {
      let specimen = context.insert(Specimen.self)
      specimen.text = text
      specimen.number = index
      specimen.tray = tray
      guard index.isMultiple(of: 2) else { continue }
      specimen.note = text + " note"
      specimen.small = index == 0 ? .min : .max
      specimen.medium = index == 2 ? .min : .max
      specimen.large = index == 4 ? .min : .max
      specimen.largeOrNil = -9_000_000_000
      specimen.number = index == 6 ? .min : index
      specimen.numberOrNil = index == 0 ? .max : -index
      specimen.single = 1.5
      specimen.real = index == 0 ? -0.0 : Double(index) / 3
      specimen.realOrNil = index == 2 ? .infinity : 2.25
      specimen.flag = true
      specimen.flagOrNil = index == 4
      specimen.when = Date(timeIntervalSinceReferenceDate: 86_400.5)
      specimen.whenOrNil = Date(timeIntervalSinceReferenceDate: -1_000)
      specimen.amount = Decimal(string: "12.345")!
      specimen.bytes = Data([0, 1, 2, 255])
      specimen.tag = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
      specimen.link = URL(string: "https://example.com/\(index)")
    }
    try context.save()
    let id = tray.objectID
    try store.close()
    return (url, id)
  }

  /// The specimens of a fetch in key order, described.
  static func described(_ specimens: [Specimen]) -> [String] {
    specimens.sorted { $0.objectID.key < $1.objectID.key }.map {
      "\($0.objectID.key): \(values($0))"
    }
  }

  @Test(arguments: [true, false])
  func aFetchGivesWhatTheGeneralPathGives(participates: Bool) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Self.savedTray(folder)
    let typed = try SQLiteStore(url: url, model: Self.model)
    let general = StoredObjectsStore(try SQLiteStore(url: url, model: Self.model))
    let typedContext = PersistentContainer(store: typed).newContext(
      participatesInSwiftObservation: participates)
    let generalContext = PersistentContainer(store: general).newContext(
      participatesInSwiftObservation: participates)
    for asFaults in [true, false] {
      var request = FetchRequest<Specimen>(matching: nil, sortedBy: [FetchSort("text")])
      request.returnsObjectsAsFaults = asFaults
      let fetched = try typedContext.fetch(request)
      let expected = try generalContext.fetch(request)
      #expect(fetched.map(\.objectID) == expected.map(\.objectID))
      #expect(fetched.map(\.text) == expected.map(\.text))
      #expect(Self.described(fetched) == Self.described(expected))
      #expect(Self.described(fetched).count == Self.texts.count)
      // Read twice: awoken from fetch once each, in each context.
      _ = Self.described(fetched)
      #expect((fetched + expected).allSatisfy { $0.awakenings == 1 })
      typedContext.reset()
      generalContext.reset()
    }
  }

  @Test func aMembersLoadGivesWhatTheGeneralPathGives() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, trayID) = try Self.savedTray(folder)
    let typed = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let general = PersistentContainer(
      store: StoredObjectsStore(try SQLiteStore(url: url, model: Self.model))
    ).newContext()
    let fromTyped = try #require(typed.object(with: trayID) as? Tray).specimens
    let fromGeneral = try #require(general.object(with: trayID) as? Tray).specimens
    #expect(fromTyped.allSatisfy { $0.isFault })
    #expect(Self.described(Array(fromTyped)) == Self.described(Array(fromGeneral)))
    #expect(fromTyped.count == Self.texts.count)
  }

  @Test func anObjectLoadedByIdentifierGetsWhatTheGeneralPathGives() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let (url, _) = try Self.savedTray(folder)
    let typed = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let general = PersistentContainer(
      store: StoredObjectsStore(try SQLiteStore(url: url, model: Self.model))
    ).newContext()
    var request = FetchRequest<Specimen>()
    request.fetchBatchSize = 2
    let ids = try general.fetch(request).map(\.objectID)
    #expect(ids.count == Self.texts.count)
    let fromTyped = ids.map { typed.object(with: $0) as! Specimen }
    let fromGeneral = ids.map { general.object(with: $0) as! Specimen }
    #expect(Self.described(fromTyped) == Self.described(fromGeneral))
  }

  @Test func aFetchGivesObjectsOfTheRequestsClassAndItsSubclasses() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("exhibits.sqlite")
    let model = try ObjectModel(types: [Exhibit.self, Fossil.self])
    let writer = PersistentContainer(store: try SQLiteStore(url: url, model: model)).viewContext
    for index in 0..<4 {
      let exhibit =
        index.isMultiple(of: 2) ? writer.insert(Exhibit.self) : writer.insert(Fossil.self)
      exhibit.name = "exhibit \(index)"
    }
    try writer.save()
    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: model)).viewContext
    let sorted = [FetchSort("name")]
    let exhibits = try reader.fetch(FetchRequest<Exhibit>(matching: nil, sortedBy: sorted))
    #expect(exhibits.map(\.name) == (0..<4).map { "exhibit \($0)" })
    #expect(exhibits.map { $0 is Fossil } == [false, true, false, true])
    let fossils = try reader.fetch(FetchRequest<Fossil>(matching: nil, sortedBy: sorted))
    #expect(fossils.map(\.name) == ["exhibit 1", "exhibit 3"])
    #expect(
      fossils.map(ObjectIdentifier.init) == [exhibits[1], exhibits[3]].map(ObjectIdentifier.init))
    let named = try reader.fetch(
      FetchRequest<ManagedObject>(entityName: "Exhibit", sortDescriptors: sorted))
    #expect(named.map(ObjectIdentifier.init) == exhibits.map(ObjectIdentifier.init))
    var onlyExhibits = FetchRequest<Exhibit>(matching: nil, sortedBy: sorted)
    onlyExhibits.includesSubentities = false
    #expect(try reader.fetch(onlyExhibits).map(\.name) == ["exhibit 0", "exhibit 2"])
  }

  /// Four specimens per tray, specimen `n` in tray `n × 37` modulo the tray count; saved to a
  /// new file. The loader remembers 1,024 related objects by key: 70 trays fill some of its
  /// places, 1,100 trays more than all of them (keys share places, and the load clears the
  /// whole table when it ends).
  static func savedTrays(_ folder: SQLiteConnectionTests.Folder, count: Int = 70) throws -> URL {
    let url = folder.url.appendingPathComponent("trays.sqlite")
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).viewContext
    let trays = (0..<count).map { index in
      let tray = context.insert(Tray.self)
      tray.name = "tray \(index)"
      return tray
    }
    for number in 0..<(4 * count) {
      let specimen = context.insert(Specimen.self)
      specimen.number = number
      specimen.tray = trays[(number * 37) % count]
    }
    try context.save()
    try store.close()
    return url
  }

  @Test(arguments: [70, 1_100])
  func eachRowsToOneIsTheObjectItNames(trayCount: Int) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = try Self.savedTrays(folder, count: trayCount)
    let context = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let specimens = try context.fetch(
      FetchRequest<Specimen>(matching: nil, sortedBy: [FetchSort("number")]))
    let numbers = Array(0..<(4 * trayCount))
    #expect(specimens.map(\.number) == numbers)
    #expect(specimens.map { $0.tray?.name } == numbers.map { "tray \(($0 * 37) % trayCount)" })
    // One object per tray, whichever row named it.
    let trays = Dictionary(grouping: specimens) { $0.tray!.name }
    for (_, members) in trays {
      #expect(Set(members.map { ObjectIdentifier($0.tray!) }).count == 1)
    }
    #expect(trays.count == trayCount)
  }

  /// A weak reference, to see objects leave memory.
  final class Weak {
    weak var object: ManagedObject?
    init(_ object: ManagedObject?) { self.object = object }
  }

  @Test(arguments: [70, 1_100])
  func aLoadHoldsNoRelatedObjectAfterItEnds(trayCount: Int) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = try Self.savedTrays(folder, count: trayCount)
    let context = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    var trays: [Weak] = []
    do {
      let specimens = try context.fetch(FetchRequest<Specimen>())
      trays = specimens.map { Weak($0.tray) }
      #expect(trays.allSatisfy { $0.object != nil })
    }
    // The specimens are gone, and with them the only references to their trays.
    #expect(trays.allSatisfy { $0.object == nil })
    // A second load starts with nothing remembered: its trays are the context's objects again.
    let again = try context.fetch(FetchRequest<Specimen>())
    #expect(Set(again.map { $0.tray!.name }).count == trayCount)
  }
}
