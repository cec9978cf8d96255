import Foundation
import ObservedGraph
import Testing
import UndoLog

@testable import ObservedGraphSQLite

/// A transformable value holding numbers JSON cannot write, a date and text.
struct EdgeReading: TransformableValue {
  var value: Double
  var at: Date
  var label: String
}

/// An object with an attribute of every type the library supports, to carry edge values.
final class Extreme: ManagedObject {
  @Attribute var ordinal: Int = 0
  @Attribute var text: String = ""
  @Attribute var textOrNil: String?
  @Attribute var flag: Bool = false
  @Attribute var small: Int16 = 0
  @Attribute var medium: Int32 = 0
  @Attribute var large: Int64 = 0
  @Attribute var number: Int = 0
  @Attribute var single: Float = 0
  @Attribute var singleOrNil: Float?
  @Attribute var real: Double = 0
  @Attribute var realOrNil: Double?
  @Attribute var amount: Decimal = 0
  @Attribute var amountOrNil: Decimal?
  @Attribute var when: Date = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var whenOrNil: Date?
  @Attribute var bytes: Data = Data()
  @Attribute var tag: UUID = EdgeValueTests.zeroUUID
  @Attribute var link: URL?
  @Attribute var reading = EdgeReading(
    value: 0, at: Date(timeIntervalSinceReferenceDate: 0), label: "")
  @Attribute var words: [String] = []
  @Attribute var figures: [Double] = []
}

/// Edge values of every attribute type go through a save and a reopened file, through an
/// archived undo history, and through fetch predicates in memory and in SQL, and come back as
/// they went (`-0.0` as `+0.0` from the file, as documented). NaN, which SQLite cannot keep, is
/// refused by a save; NULL where an older file kept NaN loads as NaN; a value longer than
/// SQLite takes is refused with an error that names it.
@Suite struct EdgeValueTests {
  static let zeroUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  static let model = try! ObjectModel(types: [Extreme.self])

  // MARK: The edge values

  /// One attribute's edge values, how two of its values are the same (the test's equality), and
  /// how the fetch predicates compare it.
  struct Column: CustomTestStringConvertible, Sendable {
    let key: String
    /// Makes the values anew at each use: a `Data` kept in a global is reported by
    /// LeakSanitizer, which cannot follow the reference `Data` keeps.
    private let makeValues: @Sendable () -> [any Sendable]
    /// Compared with `<`, `<=`, `>`, `>=` besides `==` and `!=`.
    let ordered: Bool
    /// Whether the SQLite store translates its comparisons to SQL (the others it leaves to
    /// the context, which evaluates them on the rows it loads).
    let inSQL: Bool
    /// The predicate constant of a value; nil when the attribute is not compared.
    let constant: (@Sendable (Any) -> StoredValue)?
    let same: @Sendable (Any?, Any?) -> Bool
    /// What comes back from the file: `-0.0` as `+0.0`.
    let fromFile: @Sendable (Any?) -> Any?

    init(
      key: String, values: @autoclosure @escaping @Sendable () -> [any Sendable],
      ordered: Bool = true, inSQL: Bool = true,
      constant: (@Sendable (Any) -> StoredValue)? = nil,
      same: @escaping @Sendable (Any?, Any?) -> Bool,
      fromFile: @escaping @Sendable (Any?) -> Any? = { $0 }
    ) {
      self.key = key
      makeValues = values
      self.ordered = ordered
      self.inSQL = inSQL
      self.constant = constant
      self.same = same
      self.fromFile = fromFile
    }

    var values: [any Sendable] { makeValues() }
    var testDescription: String { key }
  }

  /// Equal when both are nil, or both are `T` and `equal` says so.
  static func same<T>(_ equal: @escaping @Sendable (T, T) -> Bool)
    -> @Sendable (Any?, Any?) -> Bool
  {
    { a, b in
      if a == nil || b == nil { return a == nil && b == nil }
      guard let x = a as? T, let y = b as? T else { return false }
      return equal(x, y)
    }
  }

  static let strings: [any Sendable] = [
    "", "a", "Z", "z", "é", "e\u{301}", "a\u{0}b", "\u{0}", "🇫🇷", "👩‍👩‍👧",
    String(repeating: "long é ", count: 20_000),
  ]
  static func integers<T: FixedWidthInteger & Sendable>(_: T.Type) -> [any Sendable] {
    [T.min, T.min + 1, T(-1), T(0), T(1), T.max - 1, T.max]
  }
  static func floats<T: BinaryFloatingPoint & Sendable>(_: T.Type) -> [any Sendable] {
    [
      -T.infinity, -T.greatestFiniteMagnitude, T(-1), -T.leastNormalMagnitude,
      -T.leastNonzeroMagnitude, -T(0), T(0), T.leastNonzeroMagnitude, T.leastNormalMagnitude / 2,
      T.leastNormalMagnitude, T(1) / T(10), T(1), T(3), T(1) + T.ulpOfOne,
      T.greatestFiniteMagnitude,
      T.infinity,
    ]
  }
  static let decimals: [any Sendable] = [
    Decimal(0), Decimal(-1), Decimal(string: "0.1")!, Decimal.greatestFiniteMagnitude,
    Decimal.leastFiniteMagnitude, Decimal.leastNonzeroMagnitude, -Decimal.leastNonzeroMagnitude,
    Decimal(string: "12345678901234567890123456789012345678")!,
    Decimal(string: "-0.00000000000000000000000000000000000001")!,
    Decimal(string: "1e100")!,
  ]
  static let dates: [any Sendable] = [
    0.0, -0.0, 1e-9, 1.000_000_1, 123_456_789.123_456_789, -62_135_769_600.000_001,
    Date.distantPast.timeIntervalSinceReferenceDate,
    Date.distantFuture.timeIntervalSinceReferenceDate,
    -1e300, 1e300, Double.leastNonzeroMagnitude, -Double.greatestFiniteMagnitude,
    Double.greatestFiniteMagnitude, -Double.infinity, Double.infinity,
  ].map { Date(timeIntervalSinceReferenceDate: $0) }
  static var datas: [any Sendable] {
    [
      Data(), Data([0]), Data([0, 255, 0]),
      Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
    ]
  }
  static let uuids: [any Sendable] = [
    zeroUUID,
    UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
    UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
  ]
  static let links: [any Sendable] =
    [
      URL(string: "https://example.com/")!,
      URL(string: "https://example.com/b%C3%BCcher?q=%C3%9F#x")!,
      URL(string: "file:///tmp/a%20b")!, URL(string: "mailto:a@b.c")!,
      URL(string: "relative/path")!,
      URL(string: "https://xn--bcher-kva.de/")!,
    ] + (URL(string: "https://bücher.de/ü?q=ß").map { [$0] } ?? [])
  static let readings: [any Sendable] = [
    EdgeReading(value: .infinity, at: Date(timeIntervalSinceReferenceDate: -.infinity), label: ""),
    EdgeReading(value: -.greatestFiniteMagnitude, at: .distantFuture, label: "a\u{0}b e\u{301}"),
    EdgeReading(
      value: .leastNonzeroMagnitude, at: Date(timeIntervalSinceReferenceDate: 1e-9), label: "🇫🇷"),
  ]

  static func bits(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern }
  static func positiveZero(_ value: Any?) -> Any? {
    switch value {
    case let number as Double where number == 0: 0.0 as Double
    case let number as Float where number == 0: 0 as Float
    default: value
    }
  }

  static let columns: [Column] = [
    Column(
      key: "text", values: strings, constant: { .string($0 as! String) },
      same: same { (a: String, b: String) in Array(a.utf8) == Array(b.utf8) }),
    Column(
      key: "textOrNil", values: [nil as String?] + strings, constant: { .string($0 as! String) },
      same: same { (a: String, b: String) in Array(a.utf8) == Array(b.utf8) }),
    Column(
      key: "flag", values: [false, true], ordered: false, constant: { .bool($0 as! Bool) },
      same: same { (a: Bool, b: Bool) in a == b }),
    Column(
      key: "small", values: integers(Int16.self), constant: { .integer(Int64($0 as! Int16)) },
      same: same { (a: Int16, b: Int16) in a == b }),
    Column(
      key: "medium", values: integers(Int32.self), constant: { .integer(Int64($0 as! Int32)) },
      same: same { (a: Int32, b: Int32) in a == b }),
    Column(
      key: "large", values: integers(Int64.self), constant: { .integer($0 as! Int64) },
      same: same { (a: Int64, b: Int64) in a == b }),
    Column(
      key: "number", values: integers(Int.self), constant: { .integer(Int64($0 as! Int)) },
      same: same { (a: Int, b: Int) in a == b }),
    Column(
      key: "single", values: floats(Float.self), constant: { .double(Double($0 as! Float)) },
      same: same { (a: Float, b: Float) in a.bitPattern == b.bitPattern }, fromFile: positiveZero),
    Column(
      key: "singleOrNil", values: [nil as Float?] + floats(Float.self),
      constant: { .double(Double($0 as! Float)) },
      same: same { (a: Float, b: Float) in a.bitPattern == b.bitPattern }, fromFile: positiveZero),
    Column(
      key: "real", values: floats(Double.self), constant: { .double($0 as! Double) },
      same: same(bits), fromFile: positiveZero),
    Column(
      key: "realOrNil", values: [nil as Double?] + floats(Double.self),
      constant: { .double($0 as! Double) }, same: same(bits), fromFile: positiveZero),
    Column(
      key: "amount", values: decimals, inSQL: false, constant: { .decimal($0 as! Decimal) },
      same: same { (a: Decimal, b: Decimal) in a == b }),
    Column(
      key: "amountOrNil", values: [nil as Decimal?] + decimals, inSQL: false,
      constant: { .decimal($0 as! Decimal) }, same: same { (a: Decimal, b: Decimal) in a == b }),
    Column(
      key: "when", values: dates, constant: { .date($0 as! Date) },
      same: same { (a: Date, b: Date) in
        a.timeIntervalSinceReferenceDate == b.timeIntervalSinceReferenceDate
      }),
    Column(
      key: "whenOrNil", values: [nil as Date?] + dates, constant: { .date($0 as! Date) },
      same: same { (a: Date, b: Date) in
        a.timeIntervalSinceReferenceDate == b.timeIntervalSinceReferenceDate
      }),
    Column(
      key: "bytes", values: datas, ordered: false, constant: { .data($0 as! Data) },
      same: same { (a: Data, b: Data) in Array(a) == Array(b) }),
    Column(
      key: "tag", values: uuids, ordered: false, constant: { .uuid($0 as! UUID) },
      same: same { (a: UUID, b: UUID) in a == b }),
    Column(
      key: "link", values: [nil as URL?] + links, ordered: false, constant: { .url($0 as! URL) },
      same: same { (a: URL, b: URL) in Array(a.absoluteString.utf8) == Array(b.absoluteString.utf8)
      }),
    Column(
      key: "reading", values: readings, ordered: false, inSQL: false,
      same: same { (a: EdgeReading, b: EdgeReading) in
        bits(a.value, b.value) && a.at == b.at && Array(a.label.utf8) == Array(b.label.utf8)
      }),
    Column(
      key: "words",
      values: [[String](), [""], ["a\u{0}b", "e\u{301}", "é"], strings.map { $0 as! String }],
      ordered: false, inSQL: false,
      same: same { (a: [String], b: [String]) in
        a.map { Array($0.utf8) } == b.map { Array($0.utf8) }
      }),
    Column(
      key: "figures",
      values: [[Double](), [-0.0, 0.0], floats(Double.self).map { $0 as! Double }],
      ordered: false, inSQL: false,
      same: same { (a: [Double], b: [Double]) in a.map(\.bitPattern) == b.map(\.bitPattern) }),
  ]

  /// How many objects carry the values: object `i` holds value `i % count` of each attribute.
  static let objectCount = columns.map(\.values.count).max()!

  /// The value of `column` object `ordinal` holds.
  static func value(_ column: Column, _ ordinal: Int) -> Any? {
    let value = column.values[ordinal % column.values.count]
    if case Optional<Any>.none = value as Any? { return nil }
    return unwrapped(value)
  }

  /// A value out of any optional it was written in (`nil as Double?` held in an `Any`).
  static func unwrapped(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    return mirror.children.first.map { unwrapped($0.value) } ?? nil
  }

  /// Inserts the objects into `context`, each with its values.
  @discardableResult
  static func insertObjects(into context: ObjectContext) throws -> [Extreme] {
    try (0..<objectCount).map { ordinal in
      let object = context.insert(Extreme.self)
      object.ordinal = ordinal
      for column in columns { try object.setValue(value(column, ordinal), forKey: column.key) }
      return object
    }
  }

  /// The objects of `context` in the order of their ordinals.
  static func fetchAll(_ context: ObjectContext) throws -> [Extreme] {
    try context.fetch(FetchRequest<Extreme>(matching: nil, sortedBy: [FetchSort("ordinal")]))
  }

  /// Checks that each object holds its values, as `expected` maps them.
  static func expectValues(
    _ objects: [Extreme], _ expected: (Column, Any?) -> Any?, _ source: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(objects.map(\.ordinal) == Array(0..<objectCount), sourceLocation: sourceLocation)
    for object in objects {
      for column in columns {
        let want = expected(column, value(column, object.ordinal))
        let got = unwrapped(try object.value(forKey: column.key) as Any)
        let message =
          "\(source): object \(object.ordinal).\(column.key) is \(String(describing: got)), "
          + "not \(String(describing: want))"
        #expect(column.same(got, want), Comment(rawValue: message), sourceLocation: sourceLocation)
      }
    }
  }

  /// A file of saved objects with the edge values, and its URL.
  static func savedFile(_ folder: SQLiteConnectionTests.Folder) throws -> URL {
    let url = folder.url.appendingPathComponent("Edges.sqlite")
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).newContext()
    try insertObjects(into: context)
    try context.save()
    try store.close()
    return url
  }

  /// A new log holding `log`'s history, archived as JSON and read back.
  static func archivedAndRestored(_ log: UndoLog) throws -> UndoLog {
    let archive = try JSONEncoder().encode(try log.history())
    let decoder = JSONDecoder()
    decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
    let restored = UndoLog()
    try restored.restore(try decoder.decode(UndoLog.History.self, from: archive))
    return restored
  }

  // MARK: Round trips

  @Test func everyEdgeValueComesBackFromAReopenedFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = try Self.savedFile(folder)
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    try Self.expectValues(try Self.fetchAll(context), { $0.fromFile($1) }, "reopened file")
  }

  @Test func minusZeroComesBackFromTheFileAsPlusZero() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("Zero.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    let object = context.insert(Extreme.self)
    (object.real, object.single, object.realOrNil) = (-0.0, -0.0, -0.0)
    object.figures = [-0.0]
    try context.save()
    #expect(object.real.sign == .minus, "the object in memory keeps its value")
    let reopened = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let loaded = try #require(try Self.fetchAll(reopened).first)
    #expect(loaded.real.bitPattern == (0.0 as Double).bitPattern)
    #expect(loaded.single.bitPattern == (0 as Float).bitPattern)
    #expect(loaded.realOrNil?.bitPattern == (0.0 as Double).bitPattern)
    // Inside a transformable value's JSON, the sign stays.
    #expect(loaded.figures.map(\.bitPattern) == [(-0.0 as Double).bitPattern])
  }

  @Test func everyEdgeValueComesBackThroughAnArchivedUndoHistory() throws {
    let context = ObjectContext(model: Self.model)
    let objects = (0..<Self.objectCount).map { ordinal in
      let object = context.insert(Extreme.self)
      object.ordinal = ordinal
      return object
    }
    context.processPendingChanges()
    let log = UndoLog()
    context.undoLog = log
    try context.performAction("Edges") {
      for object in objects {
        for column in Self.columns {
          try object.setValue(Self.value(column, object.ordinal), forKey: column.key)
        }
      }
    }
    let restored = try Self.archivedAndRestored(log)
    context.undoLog = restored
    try restored.undo()
    let fresh = ObjectContext(model: Self.model).insert(Extreme.self)
    for object in objects {
      for column in Self.columns {
        // Setting -0.0 over 0.0 changes nothing (they are equal): nothing to undo there.
        let got = Self.positiveZero(Self.unwrapped(try object.value(forKey: column.key) as Any))
        let initial = Self.unwrapped(try fresh.value(forKey: column.key) as Any)
        #expect(column.same(got, initial), "undone: \(object.ordinal).\(column.key)")
      }
    }
    try restored.redo()
    try Self.expectValues(objects, { $1 }, "redone from the archive")
  }

  // MARK: Predicates in memory and in SQL

  static let operators: [FetchComparison.Operator] = [
    .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
  ]

  @Test(arguments: columns.filter { $0.constant != nil })
  func comparisonsSelectTheSameObjectsInMemoryAndInSQL(_ column: Column) throws {
    let memory = ObjectContext(model: Self.model)
    try Self.insertObjects(into: memory)
    let folder = try SQLiteConnectionTests.Folder()
    let store = try SQLiteStore(url: try Self.savedFile(folder), model: Self.model)
    let file = PersistentContainer(store: store).newContext()
    let entity = try #require(Self.model.entity(named: "Extreme"))
    let operators = column.ordered ? Self.operators : [.equal, .notEqual]
    var compared = 0
    for value in column.values {
      guard let value = Self.unwrapped(value), let constant = column.constant?(value) else {
        continue
      }
      for op in operators {
        let predicate = FetchPredicate.comparison(
          FetchComparison(.keyPath(column.key), op, .constant(constant)))
        let request = FetchRequest<Extreme>(matching: predicate, sortedBy: [FetchSort("ordinal")])
        let inMemory = try memory.fetch(request).map(\.ordinal)
        let fromFile = try file.fetch(request).map(\.ordinal)
        #expect(inMemory == fromFile, "\(predicate)")
        if column.inSQL {
          // The store answered in SQL alone: the context tested nothing of it.
          let counted = try store.count(StoreFetch(entity: entity, predicate: predicate))
          #expect(counted == fromFile.count, "\(predicate) counted in SQL")
        }
        compared += 1
      }
    }
    #expect(compared >= column.values.count - 1)
  }

  // MARK: NaN

  /// The NaN of each attribute type that has one, by key.
  static let nans: [(key: String, value: any Sendable)] = [
    ("single", Float.nan), ("singleOrNil", Float.nan), ("real", Double.nan),
    ("realOrNil", Double.nan), ("amount", Decimal.nan), ("amountOrNil", Decimal.nan),
    ("when", Date(timeIntervalSinceReferenceDate: .nan)),
    ("whenOrNil", Date(timeIntervalSinceReferenceDate: .nan)),
  ]

  /// Checks an error of a save refused for NaN in `key`.
  static func expectNaNRefused(
    _ error: ObjectGraphError?, key: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(error?.kind == .invalidValue, sourceLocation: sourceLocation)
    #expect(error?.entity == "Extreme" && error?.key == key, sourceLocation: sourceLocation)
    #expect(error?.value?.lowercased().contains("nan") == true, sourceLocation: sourceLocation)
    #expect(
      error?.description.contains("Extreme.\(key)") == true, sourceLocation: sourceLocation)
  }

  @Test(arguments: nans.map(\.key))
  func aSaveRefusesNaNAndWritesNothing(_ key: String) throws {
    let nan = try #require(Self.nans.first { $0.key == key }?.value)
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("NaN.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    let saved = context.insert(Extreme.self)
    saved.ordinal = 1
    try context.save()
    // An inserted object, and a saved one changed: neither is written.
    let inserted = context.insert(Extreme.self)
    inserted.ordinal = 2
    try inserted.setValue(nan, forKey: key)
    saved.text = "changed"
    try saved.setValue(nan, forKey: key)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .multipleErrors && error?.underlying.count == 2)
    for underlying in error?.underlying ?? [] { Self.expectNaNRefused(underlying, key: key) }
    #expect(context.hasChanges && inserted.isInserted && saved.isUpdated)
    let file = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let rows = try Self.fetchAll(file)
    #expect(rows.map(\.ordinal) == [1] && rows[0].text == "")
    // Once the value is a number again, the save goes through.
    try inserted.setValue(Self.value(Self.columns.first { $0.key == key }!, 1), forKey: key)
    try saved.setValue(Self.value(Self.columns.first { $0.key == key }!, 1), forKey: key)
    try context.save()
  }

  @Test(arguments: nans.map(\.key))
  func aContextWithoutAStoreRefusesNaNToo(_ key: String) throws {
    let nan = try #require(Self.nans.first { $0.key == key }?.value)
    let context = ObjectContext(model: Self.model)
    let object = context.insert(Extreme.self)
    try object.setValue(nan, forKey: key)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    Self.expectNaNRefused(error, key: key)
    #expect(object.isInserted)
  }

  @Test func theSQLiteStoreRefusesNaNGivenToItDirectly() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let store = try SQLiteStore(
      url: folder.url.appendingPathComponent("Direct.sqlite"), model: Self.model)
    let context = PersistentContainer(store: store).newContext()
    let object = context.insert(Extreme.self)
    object.real = .nan
    let entity = try #require(Self.model.entity(named: "Extreme"))
    let properties = entity.propertyNames.map { name -> StoredProperty in
      name == "real" ? .attribute(.double(.nan)) : .omitted
    }
    let changes = StoreChanges(
      inserted: [StoredObject(id: object.objectID, properties: properties)], updated: [],
      deleted: [])
    let error = #expect(throws: ObjectGraphError.self) { try store.save(changes) }
    Self.expectNaNRefused(error, key: "real")
    #expect(try store.count(StoreFetch(entity: entity)) == 0)
  }

  @Test func nanComparesAsSwiftComparesAndSortsAfterEveryNumber() throws {
    // In a context of its own, and among saved rows of a file (the unsaved NaN is tested in
    // memory there): the same objects either way.
    let folder = try SQLiteConnectionTests.Folder()
    let store = try SQLiteStore(
      url: folder.url.appendingPathComponent("Sorted.sqlite"), model: Self.model)
    let withFile = PersistentContainer(store: store).newContext()
    for context in [ObjectContext(model: Self.model), withFile] {
      let numbers: [Double] = [1, -.infinity, .infinity, 0, -2]
      for (ordinal, number) in numbers.enumerated() {
        let object = context.insert(Extreme.self)
        object.ordinal = ordinal
        object.real = number
        object.single = Float(number)
        object.amount = number.isFinite ? Decimal(number) : Decimal(ordinal * 1000)
        object.when = Date(timeIntervalSinceReferenceDate: number)
      }
      if context === withFile { try context.save() }
      let odd = context.insert(Extreme.self)
      odd.ordinal = numbers.count
      (odd.real, odd.single, odd.amount) = (.nan, .nan, .nan)
      odd.when = Date(timeIntervalSinceReferenceDate: .nan)
      let all = Set(0...numbers.count)
      let constants: [(String, StoredValue)] = [
        ("real", .double(1)), ("single", .double(1)), ("amount", .decimal(1)),
        ("when", .date(Date(timeIntervalSinceReferenceDate: 1))), ("real", .double(.nan)),
        ("single", .double(.nan)), ("amount", .decimal(.nan)),
        ("when", .date(Date(timeIntervalSinceReferenceDate: .nan))),
      ]
      for (key, constant) in constants {
        for op in Self.operators {
          let predicate = FetchPredicate.comparison(
            FetchComparison(.keyPath(key), op, .constant(constant)))
          let fetched = Set(
            try context.fetch(FetchRequest<Extreme>(matching: predicate)).map(\.ordinal))
          #expect(
            fetched.contains(numbers.count) == (op == .notEqual),
            "NaN meets \(predicate) only for !=")
          if case .double(let number) = constant, number.isNaN {
            #expect(fetched == (op == .notEqual ? all : []), "\(predicate)")
          }
        }
        let ascending = try context.fetch(
          FetchRequest<Extreme>(matching: nil, sortedBy: [FetchSort(key)])
        ).map(\.ordinal)
        #expect(ascending.last == numbers.count, "NaN sorts after every number by \(key)")
        let descending = try context.fetch(
          FetchRequest<Extreme>(matching: nil, sortedBy: [FetchSort(key, ascending: false)])
        ).map(\.ordinal)
        #expect(descending == ascending.reversed(), "by \(key), descending")
      }
      let sorted = try context.fetch(
        FetchRequest<Extreme>(matching: nil, sortedBy: [FetchSort("real")]))
      #expect(sorted.map(\.real).dropLast() == [-.infinity, -2, 0, 1, .infinity])
    }
  }

  @Test func nanAndInfiniteDatesGoThroughAnArchivedUndoHistory() throws {
    let context = ObjectContext(model: Self.model)
    let object = context.insert(Extreme.self)
    context.processPendingChanges()
    let log = UndoLog()
    context.undoLog = log
    context.performAction("Odd") {
      object.when = Date(timeIntervalSinceReferenceDate: .nan)
      object.whenOrNil = Date(timeIntervalSinceReferenceDate: -.infinity)
      object.real = .nan
      object.amount = .nan
    }
    let restored = try Self.archivedAndRestored(log)
    context.undoLog = restored
    try restored.undo()
    #expect(object.when == Date(timeIntervalSinceReferenceDate: 0) && object.whenOrNil == nil)
    #expect(object.real == 0 && object.amount == 0)
    try restored.redo()
    #expect(object.when.timeIntervalSinceReferenceDate.isNaN)
    #expect(object.whenOrNil?.timeIntervalSinceReferenceDate == -.infinity)
    #expect(object.real.isNaN && object.amount.isNaN)
  }

  @Test func aModelWhoseDefaultDatesAreNotFiniteMakesAndReopensAFile() throws {
    let attributes = [
      AttributeDescription(
        name: "start", type: .date, defaultValue: Date(timeIntervalSinceReferenceDate: .nan)),
      AttributeDescription(
        name: "end", type: .date, defaultValue: Date(timeIntervalSinceReferenceDate: .infinity)),
    ]
    let model = try ObjectModel(entities: [EntityDescription(name: "Span", attributes: attributes)])
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("Span.sqlite")
    let context = PersistentContainer(store: try SQLiteStore(url: url, model: model)).newContext()
    let span = try context.insertObject(forEntityName: "Span")
    try span.setValue(Date(timeIntervalSinceReferenceDate: 5), forKey: "start")
    try context.save()
    let reopened = PersistentContainer(store: try SQLiteStore(url: url, model: model)).newContext()
    let loaded = try #require(
      try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Span")).first)
    #expect(try loaded.value(forKey: "start") as? Date == Date(timeIntervalSinceReferenceDate: 5))
    #expect(
      try loaded.value(forKey: "end") as? Date == Date(timeIntervalSinceReferenceDate: .infinity))
    let fresh = try reopened.insertObject(forEntityName: "Span")
    let start = try #require(try fresh.value(forKey: "start") as? Date)
    #expect(start.timeIntervalSinceReferenceDate.isNaN)
  }

  // MARK: What older files hold

  @Test func nullInANonOptionalFloatingPointColumnLoadsAsNaN() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = try Self.savedFile(folder)
    let store = try SQLiteStore(url: url, model: Self.model)
    // What earlier versions wrote for NaN, which SQLite keeps as NULL; and Decimal.nan's text.
    try store.connection.execute(
      #"UPDATE "Extreme" SET "real" = NULL, "single" = NULL, "amount" = 'NaN' WHERE "ordinal" = 3"#
    )
    for loadsValues in [true, false] {
      // Loaded by the fetch, and loaded as a fault by its identifier.
      let context = PersistentContainer(store: store).newContext()
      var request = FetchRequest<Extreme>(matching: nil, sortedBy: [FetchSort("ordinal")])
      // A batch size leaves the values to a load by identifiers when first read.
      request.fetchBatchSize = loadsValues ? 0 : 2
      let objects = try context.fetch(request)
      let odd = objects[3]
      #expect(odd.real.isNaN && odd.single.isNaN && odd.amount.isNaN)
      #expect(objects.filter { $0.real.isNaN }.count == 1)
    }
  }

  /// A non-optional attribute of each type other than `Float` and `Double`, and what another
  /// program may write in its column.
  static let nullColumns = [
    "text", "flag", "small", "number", "amount", "when", "bytes", "tag", "reading", "words",
  ]

  @Test(arguments: nullColumns)
  func nullInAnotherNonOptionalColumnThrowsNamingTheKey(_ key: String) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = try Self.savedFile(folder)
    let store = try SQLiteStore(url: url, model: Self.model)
    try store.connection.execute(#"UPDATE "Extreme" SET "\#(key)" = NULL WHERE "ordinal" = 2"#)
    let context = PersistentContainer(store: store).newContext()
    let error = #expect(throws: ObjectGraphError.self) { try Self.fetchAll(context) }
    #expect(error?.kind == .missingValue && error?.entity == "Extreme" && error?.key == key)
    #expect(error?.description.contains("NULL") == true)
    // The other rows load; the row itself stays a fault whose load throws again.
    let others = try context.fetch(
      FetchRequest<Extreme>(matching: try FetchPredicate(format: "ordinal != 2")))
    #expect(others.count == Self.objectCount - 1)
  }

  @Test func aStoreGivingNilForANonOptionalAttributeDoesNotStopTheProgram() throws {
    let store = InMemoryStore(model: Self.model)
    let entity = try #require(Self.model.entity(named: "Extreme"))
    let id = ObjectID(storeIdentifier: store.identifier, entityName: "Extreme", key: 1)
    let properties = entity.propertyNames.map { name -> StoredProperty in
      name == "ordinal" ? .attribute(.integer(7)) : .attribute(nil)
    }
    try store.save(
      StoreChanges(
        inserted: [StoredObject(id: id, properties: properties)], updated: [], deleted: []))
    let context = PersistentContainer(store: store).newContext()
    let object = try #require(try Self.fetchAll(context).first)
    #expect(object.ordinal == 7)
    #expect(object.real.isNaN && object.single.isNaN, "floating point: NaN")
    #expect(object.text == "" && object.small == 0 && object.tag == Self.zeroUUID, "defaults")
    #expect(object.realOrNil == nil && object.link == nil)
  }

  // MARK: Values longer than SQLite takes

  @Test(arguments: ["text", "bytes", "textOrNil", "words"])
  func aValueLongerThanSQLiteTakesIsRefusedNamingIt(_ key: String) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("Long.sqlite")
    let store = try SQLiteStore(url: url, model: Self.model)
    store.connection.lengthLimit = 1_000
    let context = PersistentContainer(store: store).newContext()
    let object = context.insert(Extreme.self)
    let long: any Sendable =
      switch key {
      case "bytes": Data(count: 1_001)
      case "words": [String(repeating: "w", count: 1_000)]
      default: String(repeating: "é", count: 501)  // 1,002 bytes
      }
    try object.setValue(long, forKey: key)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .tooLong && error?.entity == "Extreme" && error?.key == key)
    #expect(error?.description.contains("SQLite's limit of 1000 bytes") == true)
    #expect(object.isInserted)
    #expect(try store.count(StoreFetch(entity: object.entity)) == 0)
    // Within the limit, the update of the saved object is refused the same way.
    try object.setValue(Self.value(Self.columns.first { $0.key == key }!, 1), forKey: key)
    try context.save()
    try object.setValue(long, forKey: key)
    let update = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(update?.kind == .tooLong && update?.key == key)
    let reopened = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
      .newContext()
    let loaded = try #require(try Self.fetchAll(reopened).first)
    let stored = Self.unwrapped(try loaded.value(forKey: key) as Any)
    let column = Self.columns.first { $0.key == key }!
    #expect(column.same(stored, Self.value(column, 1)), "the file keeps the saved value")
  }

  @Test func aRowLongerThanSQLiteTakesIsRefusedNamingItsLongestValue() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let store = try SQLiteStore(
      url: folder.url.appendingPathComponent("Row.sqlite"), model: Self.model)
    store.connection.lengthLimit = 1_000
    let context = PersistentContainer(store: store).newContext()
    let object = context.insert(Extreme.self)
    object.text = String(repeating: "t", count: 500)
    object.bytes = Data(count: 600)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .tooLong && error?.entity == "Extreme" && error?.key == "bytes")
    #expect(try store.count(StoreFetch(entity: object.entity)) == 0)
  }
}
