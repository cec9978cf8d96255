import Foundation
import ObservedGraph
import Testing

// Small models for the object-graph tests, beyond the seeds' three in Fixtures.swift.

// MARK: Every attribute type, typed

/// A `Codable` value stored as itself (a "transformable" attribute).
struct Dimensions: TransformableValue {
  var width = 0.0
  var height = 0.0
}

/// One typed attribute of every supported type, an optional one and a transient one.
final class Specimen: ManagedObject {
  @Attribute var text: String = "text"
  @Attribute var flag: Bool = true
  @Attribute var small: Int16 = 16
  @Attribute var medium: Int32 = 32
  @Attribute var large: Int64 = 64
  @Attribute var single: Float = 1.5
  @Attribute var double: Double = 2.5
  @Attribute var decimal: Decimal = Decimal(string: "3.25")!
  @Attribute var date: Date = Date(timeIntervalSince1970: 100)
  @Attribute var data: Data = Data([1, 2, 3])
  @Attribute var uuid: UUID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
  @Attribute var url: URL = URL(string: "https://example.com/a")!
  @Attribute var size: Dimensions = Dimensions(width: 1, height: 2)
  @Attribute var note: String?
  @Attribute(transient: true) var scratch: Int = 7
}

enum Specimens {
  static let model = try! ObjectModel(types: [Specimen.self])
}

/// One row of the attribute-type table: a key of `Specimen`, its type's name, its default, another
/// value of the type, and a value of a wrong type.
struct AttributeCase: Sendable, CustomTestStringConvertible {
  let key: String
  let type: AttributeType
  let typeName: String
  let defaultValue: any Hashable & Sendable
  let newValue: any Hashable & Sendable
  let wrongValue: any Sendable

  var testDescription: String { "\(key): \(typeName)" }

  static let all: [AttributeCase] = [
    AttributeCase(
      key: "text", type: .string, typeName: "string", defaultValue: "text", newValue: "other",
      wrongValue: 12),
    AttributeCase(
      key: "flag", type: .bool, typeName: "bool", defaultValue: true, newValue: false,
      wrongValue: "yes"),
    AttributeCase(
      key: "small", type: .int16, typeName: "int16", defaultValue: Int16(16),
      newValue: Int16(-300), wrongValue: "16"),
    AttributeCase(
      key: "medium", type: .int32, typeName: "int32", defaultValue: Int32(32),
      newValue: Int32(70_000), wrongValue: 2.5),
    AttributeCase(
      key: "large", type: .int64, typeName: "int64", defaultValue: Int64(64),
      newValue: Int64.max, wrongValue: "64"),
    AttributeCase(
      key: "single", type: .float, typeName: "float", defaultValue: Float(1.5),
      newValue: Float(-0.25), wrongValue: "1.5"),
    AttributeCase(
      key: "double", type: .double, typeName: "double", defaultValue: 2.5, newValue: 1e100,
      wrongValue: "2.5"),
    AttributeCase(
      key: "decimal", type: .decimal, typeName: "decimal",
      defaultValue: Decimal(string: "3.25")!, newValue: Decimal(string: "0.1")!, wrongValue: 3.25),
    AttributeCase(
      key: "date", type: .date, typeName: "date", defaultValue: Date(timeIntervalSince1970: 100),
      newValue: Date(timeIntervalSince1970: 2_000_000), wrongValue: 100),
    AttributeCase(
      key: "data", type: .data, typeName: "data", defaultValue: Data([1, 2, 3]),
      newValue: Data(), wrongValue: [UInt8(1)]),
    AttributeCase(
      key: "uuid", type: .uuid, typeName: "uuid",
      defaultValue: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
      newValue: UUID(uuidString: "00000000-0000-0000-0000-000000000002")!,
      wrongValue: "00000000-0000-0000-0000-000000000002"),
    AttributeCase(
      key: "url", type: .url, typeName: "url", defaultValue: URL(string: "https://example.com/a")!,
      newValue: URL(fileURLWithPath: "/tmp/b"), wrongValue: "https://example.com/a"),
    AttributeCase(
      key: "size", type: .transformable(Dimensions.self), typeName: "transformable(Dimensions)",
      defaultValue: Dimensions(width: 1, height: 2), newValue: Dimensions(width: 3, height: 4),
      wrongValue: [1.0, 2.0]),
  ]
}

// MARK: Hooks

/// A generic object that records the hooks the context calls on it.
final class TrackedObject: ManagedObject {
  var prepareCount = 0
  /// For each relationship, the names of the members it held when `prepareForDeletion` ran.
  var seenAtPrepare: [String: [String]] = [:]

  override func prepareForDeletion() {
    super.prepareForDeletion()
    prepareCount += 1
    for relationship in entity.allRelationships {
      let value = (try? primitiveValue(forKey: relationship.name)) ?? nil
      seenAtPrepare[relationship.name] = Self.names(value)
    }
  }

  /// The `name` attribute of an object or of each member of a collection, sorted.
  static func names(_ value: Any?) -> [String] {
    let objects: [ManagedObject]
    if let object = value as? ManagedObject {
      objects = [object]
    } else if let set = value as? Set<ManagedObject> {
      objects = Array(set)
    } else if let array = value as? [ManagedObject] {
      objects = array
    } else {
      objects = []
    }
    return objects.map { (try? $0.primitiveValue(forKey: "name") as? String) ?? "?" }.sorted()
  }
}

// MARK: Dynamic models

extension AttributeDescription {
  /// A non-optional string attribute `name` with the default "".
  static var nameString: AttributeDescription {
    AttributeDescription(name: "name", type: .string, defaultValue: "")
  }
}

/// Small hand-built models, one per feature.
enum Dynamic {
  /// A one-to-one: Person.passport ↔ Passport.holder.
  static let passports = try! ObjectModel(entities: [
    EntityDescription(
      name: "Person", attributes: [.nameString],
      relationships: [
        RelationshipDescription(name: "passport", destination: "Passport", inverse: "holder")
      ]),
    EntityDescription(
      name: "Passport", attributes: [.nameString],
      relationships: [
        RelationshipDescription(name: "holder", destination: "Person", inverse: "passport")
      ]),
  ])

  /// A cascade cycle: A.b cascades to B, B.a cascades back to A (both to-many, many-to-many).
  static let cascadeCycle = try! ObjectModel(entities: [
    EntityDescription(
      name: "A", attributes: [.nameString],
      relationships: [
        RelationshipDescription(
          name: "bs", destination: "B", inverse: "as", toMany: true, deleteRule: .cascade)
      ], objectClass: TrackedObject.self),
    EntityDescription(
      name: "B", attributes: [.nameString],
      relationships: [
        RelationshipDescription(
          name: "as", destination: "A", inverse: "bs", toMany: true, deleteRule: .cascade)
      ], objectClass: TrackedObject.self),
  ])

  /// A hub with one to-many relationship per delete rule, each to a spoke's to-one inverse.
  static let rules = try! ObjectModel(entities: [
    EntityDescription(
      name: "Hub", attributes: [.nameString],
      relationships: DeleteRule.allCases.map { rule in
        RelationshipDescription(
          name: "\(rule.rawValue)Spokes", destination: "Spoke",
          inverse: .named("\(rule.rawValue)Hub"),
          toMany: true, deleteRule: rule)
      }, objectClass: TrackedObject.self),
    EntityDescription(
      name: "Spoke", attributes: [.nameString],
      relationships: DeleteRule.allCases.map { rule in
        RelationshipDescription(
          name: "\(rule.rawValue)Hub", destination: "Hub",
          inverse: .named("\(rule.rawValue)Spokes"))
      }, objectClass: TrackedObject.self),
  ])

  /// Inheritance: abstract Vehicle (wheels), Car and Bike below it; a Garage holds any vehicle,
  /// a Lot holds cars only.
  static let vehicles = try! ObjectModel(entities: [
    EntityDescription(
      name: "Car", parent: "Vehicle",
      attributes: [AttributeDescription(name: "seats", type: .int16, defaultValue: Int16(5))],
      relationships: [RelationshipDescription(name: "lot", destination: "Lot", inverse: "cars")]),
    EntityDescription(name: "Bike", parent: "Vehicle"),
    EntityDescription(
      name: "Vehicle", isAbstract: true,
      attributes: [
        .nameString, AttributeDescription(name: "wheels", type: .int16, defaultValue: Int16(4)),
      ],
      relationships: [
        RelationshipDescription(name: "garage", destination: "Garage", inverse: "vehicles")
      ]),
    EntityDescription(
      name: "Garage", attributes: [.nameString],
      relationships: [
        RelationshipDescription(
          name: "vehicles", destination: "Vehicle", inverse: "garage", toMany: true)
      ]),
    EntityDescription(
      name: "Lot", attributes: [.nameString],
      relationships: [
        RelationshipDescription(name: "cars", destination: "Car", inverse: "lot", toMany: true)
      ]),
  ])

  /// Validation rules: a ship needs a name (no default) and a captain, 2...3 sailors when it has
  /// any, and at least one port.
  static let ships = try! ObjectModel(entities: [
    EntityDescription(
      name: "Ship",
      attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
      relationships: [
        RelationshipDescription(
          name: "crew", destination: "Sailor", inverse: "ship", toMany: true, minCount: 2,
          maxCount: 3),
        RelationshipDescription(
          name: "captain", destination: "Sailor", inverse: "commands", isOptional: false),
        RelationshipDescription(
          name: "ports", destination: "Port", inverse: "ships", toMany: true, isOptional: false),
      ]),
    EntityDescription(
      name: "Sailor", attributes: [.nameString],
      relationships: [
        RelationshipDescription(name: "ship", destination: "Ship", inverse: "crew"),
        RelationshipDescription(name: "commands", destination: "Ship", inverse: "captain"),
      ]),
    EntityDescription(
      name: "Port", attributes: [.nameString],
      relationships: [
        RelationshipDescription(name: "ships", destination: "Ship", inverse: "ports", toMany: true)
      ]),
  ])
}

extension ObjectContext {
  /// Inserts a generic object and sets its `name`.
  func make(_ entity: String, _ name: String) throws -> ManagedObject {
    let object = try insertObject(forEntityName: entity)
    try object.setValue(name, forKey: "name")
    return object
  }
}

extension ManagedObject {
  /// A relationship's members as a set (unordered to-many).
  func set(_ key: String) throws -> Set<ManagedObject> {
    try value(forKey: key) as? Set<ManagedObject> ?? []
  }

  /// A relationship's members as an array (ordered to-many).
  func list(_ key: String) throws -> [ManagedObject] {
    try value(forKey: key) as? [ManagedObject] ?? []
  }

  /// A to-one relationship's object.
  func one(_ key: String) throws -> ManagedObject? {
    try value(forKey: key) as? ManagedObject
  }
}
