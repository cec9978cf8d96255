import Foundation
import Testing

@testable import ObservedGraph

final class RuledBook: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var rating: Int = 3
  override class func rules(forKey key: String) -> AttributeRules {
    key == "rating" ? AttributeRules(minimum: 1, maximum: 5) : super.rules(forKey: key)
  }
  override class var indexedKeys: Set<String> { ["title"] }
}

@Suite("Attribute rules")
struct AttributeRulesTests {
  static func model(_ rules: [String: AttributeRules] = [:]) throws -> ObjectModel {
    try ObjectModel(entities: [
      EntityDescription(
        name: "Item",
        attributes: [
          AttributeDescription(
            name: "price", type: .double, defaultValue: 1.0,
            rules: rules["price"] ?? AttributeRules(minimum: 0, maximum: 100)),
          AttributeDescription(
            name: "code", type: .string, isOptional: true,
            rules: rules["code"]
              ?? AttributeRules(minimumLength: 2, maximumLength: 5, pattern: "[A-Z][0-9]*")),
          AttributeDescription(
            name: "count", type: .int16, defaultValue: Int16(0),
            rules: AttributeRules(minimum: -1)),
          AttributeDescription(
            name: "amount", type: .decimal, defaultValue: Decimal(1),
            rules: AttributeRules(maximum: 10)),
          AttributeDescription(
            name: "blob", type: .data, isOptional: true, rules: AttributeRules(maximumLength: 3)),
        ])
    ])
  }

  @Test func aSaveReportsEveryBrokenRuleAndCommitsNothing() throws {
    let context = ObjectContext(model: try Self.model())
    let item = try context.insertObject(forEntityName: "Item")
    try item.setValue(-0.5, forKey: "price")
    try item.setValue("a12345", forKey: "code")
    try item.setValue(Int16(-2), forKey: "count")
    try item.setValue(Decimal(string: "10.5")!, forKey: "amount")
    try item.setValue(Data([1, 2, 3, 4]), forKey: "blob")
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .multipleErrors)
    let found = (error?.underlying ?? []).map {
      "\($0.kind) \($0.entity).\($0.key ?? "") \($0.value ?? "")"
    }
    #expect(
      found == [
        "valueTooSmall Item.price -0.5 (Double)", "tooLong Item.code \"a12345\" (String)",
        "patternMismatch Item.code \"a12345\" (String)", "valueTooSmall Item.count -2 (Int16)",
        "valueTooLarge Item.amount 10.5 (Decimal)", "tooLong Item.blob 4 bytes (Data)",
      ], "\(found)")
    #expect(item.isInserted && context.hasChanges, "nothing was committed")

    // Mended, it saves; a nil optional value follows every rule.
    try item.setValue(100.0, forKey: "price")
    try item.setValue(nil, forKey: "code")
    try item.setValue(Int16(-1), forKey: "count")
    try item.setValue(Decimal(10), forKey: "amount")
    try item.setValue(Data([1, 2, 3]), forKey: "blob")
    try context.save()
    try item.setValue("B7", forKey: "code")
    try context.save()
    try item.setValue("B", forKey: "code")
    let short = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(short?.kind == .tooShort && short?.key == "code")
    try item.setValue("7B", forKey: "code")
    let pattern = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(pattern?.kind == .patternMismatch, "the whole string must match")
  }

  /// A broken rule of an inherited attribute names the object's own entity, as a missing value
  /// does (see `ObjectContext+Saving.swift`), not the entity that declares the attribute.
  @Test func anInheritedRuleNamesTheObjectsEntity() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Person", isAbstract: true,
        attributes: [
          AttributeDescription(
            name: "lastName", type: .string, defaultValue: "",
            rules: AttributeRules(minimumLength: 1))
        ]),
      EntityDescription(name: "Player", parent: "Person"),
    ])
    let context = ObjectContext(model: model)
    _ = try context.insertObject(forEntityName: "Player")
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .tooShort, "\(String(describing: error))")
    #expect(error?.entity == "Player" && error?.key == "lastName")
  }

  @Test func rulesThatDoNotFitTheirTypeAreRefusedWhenTheModelIsBuilt() {
    let cases: [(String, AttributeRules)] = [
      ("code", AttributeRules(minimum: 1)),
      ("price", AttributeRules(minimumLength: 1)),
      ("price", AttributeRules(pattern: "x")),
      ("price", AttributeRules(minimum: 5, maximum: 1)),
      ("code", AttributeRules(minimumLength: 3, maximumLength: 2)),
      ("code", AttributeRules(maximumLength: -1)),
      ("code", AttributeRules(pattern: "([unclosed")),
    ]
    for (key, rules) in cases {
      let error = #expect(throws: ObjectGraphError.self) { _ = try Self.model([key: rules]) }
      #expect(error?.kind == .invalidRule && error?.entity == "Item" && error?.key == key)
    }
  }

  @Test func classesGiveRulesAndIndexesAndTheyAreChecked() throws {
    let model = try ObjectModel(types: [RuledBook.self])
    let attributes = model.entity(named: "RuledBook")!.attributes
    #expect(
      attributes.first { $0.name == "rating" }?.rules == AttributeRules(minimum: 1, maximum: 5))
    #expect(attributes.first { $0.name == "title" }?.isIndexed == true)
    #expect(attributes.first { $0.name == "rating" }?.isIndexed == false)
    let context = ObjectContext(model: model)
    let book = context.insert(RuledBook.self)
    book.rating = 6
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .valueTooLarge && error?.value == "6 (Int)" && error?.key == "rating")
  }

  @Test func rulesAndIndexesSurviveCodingAndLeaveTheVersionHashAlone() throws {
    let model = try Self.model()
    let json = try JSONEncoder().encode(model.entities)
    let entities = try JSONDecoder().decode([EntityDescription].self, from: json)
    let price = entities[0].attributes[0]
    #expect(price.rules == AttributeRules(minimum: 0, maximum: 100))
    var indexed = entities[0].attributes
    indexed[0].isIndexed = true
    let again = try JSONDecoder().decode(
      AttributeDescription.self, from: try JSONEncoder().encode(indexed[0]))
    #expect(again.isIndexed && again.rules == price.rules)
    let bare = try JSONEncoder().encode(
      AttributeDescription(name: "x", type: .int, defaultValue: 0))
    #expect(!String(decoding: bare, as: UTF8.self).contains("rules"), "written only when used")
    let plain = try ObjectModel(entities: [
      EntityDescription(
        name: "Item",
        attributes: model.entities[0].attributes.map {
          AttributeDescription(
            name: $0.name, type: $0.type, defaultValue: $0.defaultValue, isOptional: $0.isOptional)
        })
    ])
    #expect(plain.versionHash == model.versionHash)
  }
}
