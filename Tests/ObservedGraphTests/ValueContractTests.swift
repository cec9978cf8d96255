import Foundation
import ObservedGraph
import Testing
import UndoLog

// The value contract: every attribute type converts to and from `StoredValue`, `StoredValue` is
// Codable, standard-library collections are attributes, and `Float` takes only what it can hold.

/// A transformable struct whose properties are declared out of alphabetical order, so that its
/// stored JSON shows the keys sorted.
private struct Tile: TransformableValue {
  var zIndex = 0
  var label = ""
  var area = 0
}

/// Standard-library collections as attributes, with no conformance written for them.
private final class Bag: ManagedObject {
  @Attribute var tags: [String] = []
  @Attribute var counts: [String: Int] = [:]
  @Attribute var ids: Set<Int> = []
  @Attribute var maybe: [Double]? = nil
}

private let bagModel = try! ObjectModel(types: [Bag.self])

/// The bytes of a JSON text.
private func json(_ text: String) -> Data { Data(text.utf8) }

extension ValueContract {
  /// One row of the conversion table: a value of an attribute type and exactly what it is stored as.
  struct StoredCase: Sendable, CustomTestStringConvertible {
    let type: AttributeType
    let value: any Hashable & Sendable
    let stored: StoredValue

    var testDescription: String { "\(type): \(value)" }

    static let all: [StoredCase] = [
      StoredCase(type: .string, value: "Dune", stored: .string("Dune")),
      StoredCase(type: .bool, value: true, stored: .bool(true)),
      StoredCase(type: .int16, value: Int16(-300), stored: .integer(-300)),
      StoredCase(type: .int32, value: Int32(70_000), stored: .integer(70_000)),
      StoredCase(type: .int64, value: Int64.max, stored: .integer(.max)),
      StoredCase(type: .int, value: -7, stored: .integer(-7)),
      StoredCase(type: .float, value: Float(0.1), stored: .double(0.100_000_001_490_116_12)),
      StoredCase(type: .double, value: 0.1, stored: .double(0.1)),
      StoredCase(
        type: .decimal, value: Decimal(string: "12.34")!,
        stored: .decimal(Decimal(string: "12.34")!)
      ),
      StoredCase(
        type: .date, value: Date(timeIntervalSinceReferenceDate: 123.456),
        stored: .date(Date(timeIntervalSinceReferenceDate: 123.456))),
      StoredCase(type: .data, value: Data([0, 255, 7]), stored: .data(Data([0, 255, 7]))),
      StoredCase(
        type: .uuid, value: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        stored: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
      StoredCase(
        type: .url, value: URL(string: "https://example.com/a?b=c")!,
        stored: .url(URL(string: "https://example.com/a?b=c")!)),
      StoredCase(
        type: .transformable(Tile.self), value: Tile(zIndex: 1, label: "a", area: 6),
        stored: .data(json(#"{"area":6,"label":"a","zIndex":1}"#))),
      StoredCase(
        type: .transformable([String].self), value: ["b", "a"], stored: .data(json(#"["b","a"]"#))),
      StoredCase(
        type: .transformable([String: Int].self), value: ["c": 3, "a": 1, "b": 2],
        stored: .data(json(#"{"a":1,"b":2,"c":3}"#))),
      StoredCase(
        type: .transformable([Double].self), value: [1.5, .infinity, -.infinity],
        stored: .data(json(#"[1.5,"inf","-inf"]"#))),
    ]
  }

  /// A stored value that does not belong to an attribute type.
  struct WrongStoredCase: Sendable, CustomTestStringConvertible {
    let type: AttributeType
    let stored: StoredValue

    var testDescription: String { "\(stored) as \(type)" }

    static let all: [WrongStoredCase] = [
      WrongStoredCase(type: .string, stored: .integer(1)),
      WrongStoredCase(type: .bool, stored: .integer(1)),
      WrongStoredCase(type: .int16, stored: .string("1")),
      WrongStoredCase(type: .int16, stored: .integer(70_000)),
      WrongStoredCase(type: .int32, stored: .integer(Int64(Int32.max) + 1)),
      WrongStoredCase(type: .int64, stored: .double(1)),
      WrongStoredCase(type: .float, stored: .double(1e300)),
      WrongStoredCase(type: .double, stored: .integer(1)),
      WrongStoredCase(type: .decimal, stored: .double(1.5)),
      WrongStoredCase(type: .date, stored: .double(100)),
      WrongStoredCase(type: .data, stored: .string("AQID")),
      WrongStoredCase(type: .uuid, stored: .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
      WrongStoredCase(type: .url, stored: .string("https://example.com")),
      WrongStoredCase(type: .transformable(Tile.self), stored: .string("{}")),
      WrongStoredCase(type: .transformable(Tile.self), stored: .data(json("not json"))),
      WrongStoredCase(type: .transformable([String].self), stored: .data(json("[1,2]"))),
    ]
  }

  /// One stored value and its exact JSON.
  struct ArchivedCase: Sendable, CustomTestStringConvertible {
    let stored: StoredValue
    let json: String

    var testDescription: String { json }

    static let all: [ArchivedCase] = [
      ArchivedCase(stored: .integer(3), json: #"{"integer":3}"#),
      ArchivedCase(stored: .integer(.min), json: #"{"integer":-9223372036854775808}"#),
      ArchivedCase(stored: .double(12.5), json: #"{"double":12.5}"#),
      ArchivedCase(stored: .double(.infinity), json: #"{"double":"inf"}"#),
      ArchivedCase(stored: .double(-.infinity), json: #"{"double":"-inf"}"#),
      ArchivedCase(stored: .decimal(Decimal(string: "12.34")!), json: #"{"decimal":"12.34"}"#),
      ArchivedCase(
        stored: .decimal(Decimal(string: "-123456789012345678901234567890.125")!),
        json: #"{"decimal":"-123456789012345678901234567890.125"}"#),
      ArchivedCase(stored: .string("Dune"), json: #"{"string":"Dune"}"#),
      ArchivedCase(stored: .bool(false), json: #"{"bool":false}"#),
      ArchivedCase(
        stored: .date(Date(timeIntervalSinceReferenceDate: 7200.123_456_789)),
        json: #"{"date":7200.123456789}"#),
      ArchivedCase(stored: .data(Data([1, 2, 3])), json: #"{"data":"AQID"}"#),
      ArchivedCase(stored: .data(Data()), json: #"{"data":""}"#),
      ArchivedCase(
        stored: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        json: #"{"uuid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#),
      ArchivedCase(
        stored: .url(URL(string: "https://example.com/a?b=c")!),
        json: #"{"url":"https://example.com/a?b=c"}"#),
    ]
  }
}

@Suite struct ValueContract {
  // MARK: AttributeType ↔ StoredValue

  @Test(arguments: StoredCase.all)
  func roundTrip(_ row: StoredCase) throws {
    #expect(ObjectIdentifier(row.type.valueType) == ObjectIdentifier(type(of: row.value)))
    let stored = try row.type.storedValue(of: row.value)
    #expect(stored == row.stored)
    let back = try row.type.value(from: stored)
    #expect(sameType(back, row.value), "\(type(of: back))")
    let hashable = try #require(back as? any Hashable)
    #expect(AnyHashable(hashable) == AnyHashable(row.value))
  }

  @Test(arguments: WrongStoredCase.all)
  func wrongStoredCase(_ row: WrongStoredCase) {
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try row.type.value(from: row.stored)
    }
    #expect(error?.kind == .wrongType)
    #expect(error?.value == row.stored.description)
    #expect(error?.description == "\(row.stored) is not a stored value of type \(row.type)")
  }

  @Test func valuesByName() throws {
    #expect(try AttributeType.int16.storedValue(of: 12) == .integer(12))
    #expect(try AttributeType.double.storedValue(of: Float(0.5)) == .double(0.5))
    #expect(try AttributeType.float.storedValue(of: 0.1) == .double(Double(Float(0.1))))
    for (type, value) in [
      (AttributeType.string, 12 as any Sendable), (.int16, 70_000), (.float, 1e300),
      (.uuid, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), (.transformable(Tile.self), [1, 2]),
    ] {
      let error = #expect(throws: ObjectGraphError.self) { _ = try type.storedValue(of: value) }
      #expect(error?.kind == .wrongType)
      #expect(error?.description.hasSuffix("is not a value of type \(type)") == true)
    }
  }

  @Test func equalValuesGiveEqualBytes() throws {
    let keys = (0..<40).map { "key\($0)" }
    var forward: [String: Int] = [:]
    for (index, key) in keys.enumerated() { forward[key] = index }
    var backward: [String: Int] = [:]
    for (index, key) in keys.enumerated().reversed() { backward[key] = index }
    let dictionaries = AttributeType.transformable([String: Int].self)
    #expect(try dictionaries.storedValue(of: forward) == dictionaries.storedValue(of: backward))

    let up = Set(0..<40)
    let down = Set((0..<40).reversed())
    let sets = AttributeType.transformable(Set<Int>.self)
    let stored = try sets.storedValue(of: up)
    #expect(try sets.storedValue(of: down) == stored)
    #expect(try sets.value(from: stored) as? Set<Int> == up)
    let small = try sets.storedValue(of: Set([10, 2, 33]))
    // Elements in the order of their JSON texts, whatever order the set iterates in.
    #expect(small == .data(json("[10,2,33]")))
    #expect(try Set<Int>.attributeType.storedValue(of: down) == stored)
  }

  // MARK: StoredValue is Codable

  @Test(arguments: ArchivedCase.all)
  func archivedForm(_ row: ArchivedCase) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let data = try encoder.encode(row.stored)
    #expect(String(decoding: data, as: UTF8.self) == row.json)
    #expect(try JSONDecoder().decode(StoredValue.self, from: data) == row.stored)
    #expect(try JSONDecoder().decode(StoredValue.self, from: json(row.json)) == row.stored)
  }

  @Test func archivedNaN() throws {
    let data = try JSONEncoder().encode(StoredValue.double(.nan))
    #expect(String(decoding: data, as: UTF8.self) == #"{"double":"nan"}"#)
    let back = try JSONDecoder().decode(StoredValue.self, from: data)
    guard case .double(let value) = back else {
      Issue.record("decoded \(back)")
      return
    }
    #expect(value.isNaN)
  }

  @Test func archivedExactly() throws {
    let values: [StoredValue] = [
      .double(0.1), .double(-0.0), .double(.greatestFiniteMagnitude),
      .double(.leastNonzeroMagnitude), .decimal(Decimal(string: "0.000000000000000000000000001")!),
      .date(Date(timeIntervalSinceReferenceDate: -978_307_200.000_001)),
      .date(Date(timeIntervalSinceReferenceDate: 0.1 + 0.2)),
      .data(Data((0...255).map { UInt8($0) })), .string("\u{0}\"\\\n é 🎲"),
      .url(URL(fileURLWithPath: "/tmp/a b/ç")),
    ]
    let data = try JSONEncoder().encode(values)
    let back = try JSONDecoder().decode([StoredValue].self, from: data)
    #expect(back == values)
    guard case .double(let zero) = back[1] else { return }
    #expect(zero.sign == .minus)
  }

  @Test(arguments: [
    #"{"integer":1,"bool":true}"#, #"{"float":1.5}"#, #"{}"#, #"[1]"#, #""integer""#,
    #"{"uuid":"not-a-uuid"}"#, #"{"integer":1.5}"#, #"{"integer":"1"}"#, #"{"double":"NaN"}"#,
    #"{"double":true}"#, #"{"data":"***"}"#, #"{"decimal":"abc"}"#, #"{"decimal":"12abc"}"#,
    #"{"decimal":"1.2.3"}"#, #"{"date":"yesterday"}"#, #"{"string":null}"#, #"{"bool":1}"#,
  ])
  func malformedArchive(_ text: String) {
    #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(StoredValue.self, from: json(text))
    }
  }

  @Test func decimalNaN() throws {
    let data = try JSONEncoder().encode(StoredValue.decimal(.nan))
    let back = try JSONDecoder().decode(StoredValue.self, from: data)
    guard case .decimal(let value) = back else {
      Issue.record("decoded \(back)")
      return
    }
    #expect(value.isNaN)
  }

  // MARK: Collections as attributes

  @Test func collectionTypesInTheModel() throws {
    let entity = try #require(bagModel.entity(named: "Bag"))
    let types = Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, $0) })
    #expect(types["tags"]?.type.name == "transformable(Array<String>)")
    #expect(types["counts"]?.type.name == "transformable(Dictionary<String, Int>)")
    #expect(types["ids"]?.type.name == "transformable(Set<Int>)")
    #expect(types["maybe"]?.type.name == "transformable(Array<Double>)")
    #expect(types["tags"]?.type == .transformable([String].self))
    #expect(types.values.filter(\.isOptional).map(\.name) == ["maybe"])
    #expect(types["tags"]?.defaultValue as? [String] == [])
    #expect(types["maybe"].map { $0.defaultValue == nil } == true)
  }

  @Test func collectionsTypedAndByKey() throws {
    let context = ObjectContext(model: bagModel)
    let bag = context.insert(Bag.self)
    #expect(bag.tags == [] && bag.counts == [:] && bag.ids == [] && bag.maybe == nil)
    bag.tags = ["x"]
    bag.counts = ["a": 1]
    bag.ids = [3, 1]
    bag.maybe = [0.5]
    #expect(try bag.value(forKey: "tags") as? [String] == ["x"])
    #expect(try bag.value(forKey: "counts") as? [String: Int] == ["a": 1])
    #expect(try bag.value(forKey: "ids") as? Set<Int> == [1, 3])
    #expect(try bag.value(forKey: "maybe") as? [Double] == [0.5])

    try bag.setValue(["a", "b"], forKey: "tags")
    try bag.setValue(["b": 2], forKey: "counts")
    try bag.setValue(Set([7]), forKey: "ids")
    try bag.setValue(nil, forKey: "maybe")
    #expect(bag.tags == ["a", "b"])
    #expect(bag.counts == ["b": 2])
    #expect(bag.ids == [7])
    #expect(bag.maybe == nil)
    #expect(try bag.value(forKey: "maybe") == nil)
    #expect(sameType(try #require(try bag.value(forKey: "tags")), [String]()))

    let before = GraphSnapshot(context)
    for (key, value) in [("tags", [1, 2] as Any), ("counts", ["a": "b"]), ("ids", [7])] {
      let error = #expect(throws: ObjectGraphError.self) { try bag.setValue(value, forKey: key) }
      #expect(error?.kind == .wrongType)
      #expect(error?.entity == "Bag" && error?.key == key)
    }
    let error = #expect(throws: ObjectGraphError.self) { try bag.setValue(nil, forKey: "tags") }
    #expect(error?.kind == .nilNotAllowed)
    #expect(GraphSnapshot(context) == before)
  }

  @Test func collectionsObserved() throws {
    let context = ObjectContext(model: bagModel)
    let bag = context.insert(Bag.self)
    var tags: [ObservedChange<[String]>] = []
    let token = bag.observe(\.tags, options: [.old, .new]) { _, change in tags.append(change) }
    var ids: [ObservedChange<Set<Int>>] = []
    let idToken = bag.observe(\.ids, options: [.old, .new]) { _, change in ids.append(change) }
    try bag.setValue(["a", "b"], forKey: "tags")
    bag.tags.append("c")
    bag.tags = ["a", "b", "c"]  // an equal value still notifies, with equal old and new
    bag.ids = [2, 1]
    #expect(
      tags == [
        ObservedChange(
          kind: .setting, oldValue: [], newValue: ["a", "b"], indexes: nil, isPrior: false),
        ObservedChange(
          kind: .setting, oldValue: ["a", "b"], newValue: ["a", "b", "c"], indexes: nil,
          isPrior: false),
        ObservedChange(
          kind: .setting, oldValue: ["a", "b", "c"], newValue: ["a", "b", "c"], indexes: nil,
          isPrior: false),
      ])
    #expect(
      ids == [
        ObservedChange(
          kind: .setting, oldValue: [], newValue: [1, 2], indexes: nil, isPrior: false)
      ])
    token.invalidate()
    idToken.invalidate()
  }

  @Test func collectionsUndone() throws {
    let context = ObjectContext(model: bagModel)
    let log = UndoLog()
    context.undoLog = log
    let bag = context.insert(Bag.self)
    bag.tags = ["kept"]
    bag.counts = ["n": 1]
    context.processPendingChanges()

    try bag.setValue(["a", "b"], forKey: "tags")
    bag.counts["m"] = 2
    bag.ids = [5, 6]
    bag.maybe = [.nan, 1]
    context.processPendingChanges()
    try log.undo()
    #expect(bag.tags == ["kept"])
    #expect(bag.counts == ["n": 1])
    #expect(bag.ids == [])
    #expect(bag.maybe == nil)
    try log.redo()
    #expect(bag.tags == ["a", "b"])
    #expect(bag.counts == ["n": 1, "m": 2])
    #expect(bag.ids == [5, 6])
    #expect(bag.maybe?.count == 2 && bag.maybe?[0].isNaN == true && bag.maybe?[1] == 1)
    context._checkInvariants()
  }

  // MARK: Float

  @Test func floatRefusesWhatItCannotHold() throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    expectGraphError(.wrongType, entity: "Specimen", key: "single", value: "1e+300", in: context) {
      try specimen.setValue(1e300, forKey: "single")
    }
    expectGraphError(.wrongType, entity: "Specimen", key: "single", value: "-1e+39", in: context) {
      try specimen.setValue(-1e39, forKey: "single")
    }
    expectGraphError(.wrongType, entity: "Specimen", key: "single", value: "16777217", in: context)
    {
      try specimen.setValue(16_777_217, forKey: "single")
    }
    expectGraphError(
      .wrongType, entity: "Specimen", key: "single", value: "9223372036854775807", in: context
    ) {
      try specimen.setValue(Int64.max, forKey: "single")
    }
    #expect(specimen.single == 1.5)
    #expect(try specimen.value(forKey: "single") as? Float == 1.5)
  }

  @Test func floatAcceptsWhatItCanHold() throws {
    let context = ObjectContext(model: Specimens.model)
    let specimen = context.insert(Specimen.self)
    try specimen.setValue(0.1, forKey: "single")
    #expect(specimen.single == Float(0.1))
    #expect(sameType(try #require(try specimen.value(forKey: "single")), Float(0)))
    try specimen.setValue(16_777_216, forKey: "single")
    #expect(specimen.single == 16_777_216)
    try specimen.setValue(Double(Float.greatestFiniteMagnitude), forKey: "single")
    #expect(specimen.single == .greatestFiniteMagnitude)
    try specimen.setValue(Double.infinity, forKey: "single")
    #expect(specimen.single == .infinity)
    try specimen.setValue(-Double.infinity, forKey: "single")
    #expect(specimen.single == -.infinity)
    try specimen.setValue(Double.nan, forKey: "single")
    #expect(specimen.single.isNaN)
    try specimen.setValue(Float(2.5), forKey: "single")
    #expect(specimen.single == 2.5)
  }
}
