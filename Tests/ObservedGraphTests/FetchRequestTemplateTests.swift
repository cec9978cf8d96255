import Foundation
import ObservedGraph
import Testing

/// Fetch request templates kept in the model: declared when it is built (in code and in JSON),
/// looked up by name, and requests made from them with their variables filled in.
@Suite struct FetchRequestTemplateTests {
  /// Shelves hold items; an item has an attribute of every value type a variable can stand for.
  static let entities = [
    EntityDescription(
      name: "Shelf",
      attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
      relationships: [
        RelationshipDescription(name: "items", destination: "Item", inverse: "shelf", toMany: true)
      ]),
    EntityDescription(
      name: "Item",
      attributes: [
        AttributeDescription(name: "name", type: .string, defaultValue: ""),
        AttributeDescription(name: "color", type: .string, isOptional: true),
        AttributeDescription(name: "count", type: .int64, defaultValue: Int64(0)),
        AttributeDescription(name: "small", type: .int16, defaultValue: Int16(0)),
        AttributeDescription(name: "price", type: .double, defaultValue: 0.0),
        AttributeDescription(name: "isNew", type: .bool, defaultValue: false),
        AttributeDescription(name: "added", type: .date, isOptional: true),
        AttributeDescription(name: "cost", type: .decimal, isOptional: true),
        AttributeDescription(name: "code", type: .uuid, isOptional: true),
        AttributeDescription(name: "link", type: .url, isOptional: true),
        AttributeDescription(name: "blob", type: .data, isOptional: true),
      ],
      relationships: [
        RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items")
      ]),
  ]

  static let templates = [
    FetchRequestTemplate(
      name: "GreenItems", entityName: "Item",
      predicate: try! FetchPredicate(format: "color == 'Green'"),
      sortDescriptors: [FetchSort("name")]),
    FetchRequestTemplate(
      name: "ItemsInColor", entityName: "Item",
      predicate: try! FetchPredicate(format: "color == $color AND price < $limit"),
      sortDescriptors: [FetchSort("name")]),
    FetchRequestTemplate(
      name: "Cheapest", entityName: "Item", predicate: nil,
      sortDescriptors: [FetchSort("price"), FetchSort("name")], fetchLimit: 2),
  ]

  static let model = try! ObjectModel(entities: entities, fetchRequestTemplates: templates)

  static let codeA = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
  static let codeB = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!

  /// Four items on two shelves, each with distinct values.
  static func world() throws -> (ObjectContext, [String: ManagedObject]) {
    let context = ObjectContext(model: model)
    let top = try context.insertObject(forEntityName: "Shelf")
    try top.setValue("Top", forKey: "name")
    let bottom = try context.insertObject(forEntityName: "Shelf")
    try bottom.setValue("Bottom", forKey: "name")
    var objects = ["Top": top, "Bottom": bottom]
    let rows: [(String, String?, Int64, Int16, Double, Bool, Double, String, UUID, String, UInt8)] =
      [
        ("apple", "Green", 3, 30, 1.5, true, 100, "1.25", codeA, "https://a.example", 1),
        ("brick", "Red", 7, 70, 9, false, 200, "2.5", codeB, "https://b.example", 2),
        ("cress", "Green", 5, 50, 12, false, 300, "3.75", codeB, "https://c.example", 3),
        ("dust", nil, 0, 0, 0.25, true, 400, "0", codeA, "https://d.example", 4),
      ]
    for (index, row) in rows.enumerated() {
      let item = try context.insertObject(forEntityName: "Item")
      try item.setValue(row.0, forKey: "name")
      try item.setValue(row.1, forKey: "color")
      try item.setValue(row.2, forKey: "count")
      try item.setValue(row.3, forKey: "small")
      try item.setValue(row.4, forKey: "price")
      try item.setValue(row.5, forKey: "isNew")
      try item.setValue(Date(timeIntervalSinceReferenceDate: row.6), forKey: "added")
      try item.setValue(Decimal(string: row.7)!, forKey: "cost")
      try item.setValue(row.8, forKey: "code")
      try item.setValue(URL(string: row.9)!, forKey: "link")
      try item.setValue(Data([row.10]), forKey: "blob")
      try item.setValue(index < 2 ? top : bottom, forKey: "shelf")
      objects[row.0] = item
    }
    context.processPendingChanges()
    return (context, objects)
  }

  static func names(_ objects: [ManagedObject]) throws -> [String] {
    try objects.map { try $0.value(forKey: "name") as? String ?? "?" }
  }

  @Test func lookUpByName() throws {
    let model = Self.model
    #expect(model.fetchRequestTemplates == Self.templates)
    #expect(
      model.fetchRequestTemplatesByName.keys.sorted() == ["Cheapest", "GreenItems", "ItemsInColor"])
    #expect(model.fetchRequestTemplate(forName: "ItemsInColor") == Self.templates[1])
    #expect(model.fetchRequestTemplate(forName: "Missing") == nil)
    #expect(
      model.fetchRequestTemplate(forName: "ItemsInColor")?.variableNames == ["color", "limit"])
    #expect(model.fetchRequestTemplate(forName: "GreenItems")?.variableNames == [])
    #expect(
      Self.templates[1].description
        == "ItemsInColor: Item where color == $color AND price < $limit")
    #expect(Self.templates[2].description == "Cheapest: Item")
    // Templates change no stored data, so a model's version does not depend on them.
    #expect(try ObjectModel(entities: Self.entities).versionHash == model.versionHash)
    #expect(try ObjectModel(entities: Self.entities).fetchRequestTemplates.isEmpty)
  }

  @Test func requestFromTemplateFetchesExactly() throws {
    let (context, _) = try Self.world()
    let green = try Self.model.fetchRequestFromTemplate(withName: "GreenItems")
    #expect(green.entityName == "Item")
    #expect(green.predicate?.description == #"color == "Green""#)
    #expect(try Self.names(context.fetch(green)) == ["apple", "cress"])

    let cheapGreen = try Self.model.fetchRequestFromTemplate(
      withName: "ItemsInColor", substitutionVariables: ["color": "Green", "limit": 10])
    #expect(cheapGreen.predicate?.description == #"color == "Green" AND price < 10"#)
    #expect(try Self.names(context.fetch(cheapGreen)) == ["apple"])
    let red = try Self.model.fetchRequestFromTemplate(
      withName: "ItemsInColor", substitutionVariables: ["color": "Red", "limit": 100.0])
    #expect(try Self.names(context.fetch(red)) == ["brick"])

    let cheapest = try Self.model.fetchRequestFromTemplate(withName: "Cheapest")
    #expect(cheapest.fetchLimit == 2)
    #expect(cheapest.sortDescriptors == [FetchSort("price"), FetchSort("name")])
    #expect(try Self.names(context.fetch(cheapest)) == ["dust", "apple"])
  }

  /// Values for names the predicate does not hold are ignored, as Core Data ignores them.
  @Test func extraVariablesAreIgnored() throws {
    let (context, _) = try Self.world()
    let request = try Self.model.fetchRequestFromTemplate(
      withName: "GreenItems", substitutionVariables: ["color": "Red", "unused": 3])
    #expect(request.predicate?.description == #"color == "Green""#)
    #expect(try Self.names(context.fetch(request)) == ["apple", "cress"])
  }

  /// One variable of each value type, compared with the attribute of that type.
  struct Substitution: Sendable, CustomTestStringConvertible {
    let format: String
    let value: @Sendable (_ objects: [String: ManagedObject]) -> any FetchArgument
    let expected: [String]
    var testDescription: String { format }
  }

  static let substitutions: [Substitution] = [
    .init(format: "name == $v", value: { _ in "brick" }, expected: ["brick"]),
    .init(format: "name BEGINSWITH $v", value: { _ in Substring("cr") }, expected: ["cress"]),
    .init(format: "count == $v", value: { _ in 7 }, expected: ["brick"]),
    .init(format: "count > $v", value: { _ in Int64(4) }, expected: ["brick", "cress"]),
    .init(format: "small == $v", value: { _ in Int16(50) }, expected: ["cress"]),
    .init(format: "small < $v", value: { _ in Int32(40) }, expected: ["apple", "dust"]),
    .init(format: "count == $v", value: { _ in UInt8(3) }, expected: ["apple"]),
    .init(format: "price >= $v", value: { _ in 9.0 }, expected: ["brick", "cress"]),
    .init(format: "price == $v", value: { _ in Float(0.25) }, expected: ["dust"]),
    .init(format: "isNew == $v", value: { _ in true }, expected: ["apple", "dust"]),
    .init(
      format: "added > $v", value: { _ in Date(timeIntervalSinceReferenceDate: 250) },
      expected: ["cress", "dust"]),
    .init(format: "cost == $v", value: { _ in Decimal(string: "2.5")! }, expected: ["brick"]),
    .init(format: "code == $v", value: { _ in codeB }, expected: ["brick", "cress"]),
    .init(
      format: "link == $v", value: { _ in URL(string: "https://c.example")! },
      expected: ["cress"]),
    .init(format: "blob == $v", value: { _ in Data([4]) }, expected: ["dust"]),
    .init(format: "color == $v", value: { _ in String?.none }, expected: ["dust"]),
    .init(format: "shelf == $v", value: { $0["Bottom"]! }, expected: ["cress", "dust"]),
    .init(format: "shelf == $v", value: { $0["Top"]!.objectID }, expected: ["apple", "brick"]),
    .init(format: "SELF == $v", value: { $0["apple"]! }, expected: ["apple"]),
    .init(
      format: "name IN $v", value: { _ in ["dust", "apple", "zzz"] }, expected: ["apple", "dust"]),
    .init(format: "count IN $v", value: { _ in Set([0, 5]) }, expected: ["cress", "dust"]),
    .init(format: "price BETWEEN $v", value: { _ in [1.0, 9.0] }, expected: ["apple", "brick"]),
    .init(
      format: "shelf.name == $v", value: { _ in "Top" }, expected: ["apple", "brick"]),
    .init(format: "$v == name", value: { _ in "apple" }, expected: ["apple"]),
  ]

  @Test(arguments: substitutions)
  func substitutesEachValueType(_ row: Substitution) throws {
    let (context, objects) = try Self.world()
    let model = try ObjectModel(
      entities: Self.entities,
      fetchRequestTemplates: [
        FetchRequestTemplate(
          name: "T", entityName: "Item", predicate: try FetchPredicate(format: row.format),
          sortDescriptors: [FetchSort("name")])
      ])
    // The world's context is on `Self.model`: the same entities, so the request fetches there.
    let request = try model.fetchRequestFromTemplate(
      withName: "T", substitutionVariables: ["v": row.value(objects)])
    #expect(request.predicate?.description.contains("$") == false)
    #expect(try Self.names(context.fetch(request)) == row.expected)
  }

  @Test func typedRequest() throws {
    let model = try ObjectModel(
      types: [TemplateTeam.self],
      fetchRequestTemplates: [
        FetchRequestTemplate(
          name: "TeamsInColor", entityName: "TemplateTeam",
          predicate: try FetchPredicate(format: "uniformColor == $color"),
          sortDescriptors: [FetchSort("name")])
      ])
    let context = ObjectContext(model: model)
    for (name, color) in [("Heat", "Red"), ("Celtics", "Green"), ("Bucks", "Green")] {
      let team = context.insert(TemplateTeam.self)
      team.name = name
      team.uniformColor = color
    }
    let green = try model.fetchRequestFromTemplate(
      withName: "TeamsInColor", substitutionVariables: ["color": "Green"], as: TemplateTeam.self)
    let teams: [TemplateTeam] = try context.fetch(green)
    #expect(teams.map(\.name) == ["Bucks", "Celtics"])
    expectGraphError(.wrongEntity, entity: "TemplateTeam", value: "TeamsInColor", in: context) {
      _ = try model.fetchRequestFromTemplate(
        withName: "TeamsInColor", substitutionVariables: ["color": "Green"],
        as: TemplatePlayer.self)
    }
  }

  // MARK: - Errors when a request is made

  @Test func unknownTemplateThrows() throws {
    let (context, _) = try Self.world()
    let before = GraphSnapshot(context)
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try Self.model.fetchRequestFromTemplate(withName: "GreenTeams")
    }
    #expect(GraphSnapshot(context) == before)
    #expect(error?.kind == .unknownTemplate)
    #expect(error?.entity == "" && error?.key == nil)
    #expect(error?.value == "'GreenTeams'")
    #expect(
      error?.description
        == "the model has no fetch request template named 'GreenTeams' (it has GreenItems, "
        + "ItemsInColor, Cheapest)")
  }

  @Test func missingVariableThrows() throws {
    let (context, _) = try Self.world()
    let one = expectGraphError(.missingVariable, entity: "Item", key: "$limit", in: context) {
      _ = try Self.model.fetchRequestFromTemplate(
        withName: "ItemsInColor", substitutionVariables: ["color": "Red"])
    }
    #expect(
      one?.description
        == "Item.$limit: the fetch request template 'ItemsInColor' needs a value for $limit "
        + "(color == $color AND price < $limit)")
    let both = expectGraphError(.missingVariable, entity: "Item", key: "$color", in: context) {
      _ = try Self.model.fetchRequestFromTemplate(withName: "ItemsInColor")
    }
    #expect(both?.reason.contains("needs a value for $color, $limit") == true)
  }

  @Test func wrongTypeThrows() throws {
    let (context, _) = try Self.world()
    let error = expectGraphError(
      .wrongType, entity: "Item", key: "price", value: "$limit = \"cheap\" (String)", in: context
    ) {
      _ = try Self.model.fetchRequestFromTemplate(
        withName: "ItemsInColor", substitutionVariables: ["color": "Red", "limit": "cheap"])
    }
    #expect(error?.reason.hasPrefix("the fetch request template 'ItemsInColor' got ") == true)
    #expect(error?.reason.contains("for price < $limit") == true)
    expectGraphError(
      .wrongType, entity: "Item", key: "color", value: "$color = 12 (Int)", in: context
    ) {
      _ = try Self.model.fetchRequestFromTemplate(
        withName: "ItemsInColor", substitutionVariables: ["color": 12, "limit": 1])
    }
  }

  /// A value of another entity is refused, and `BETWEEN` without two bounds.
  @Test func wrongObjectAndShapeThrow() throws {
    let (context, objects) = try Self.world()
    let model = try ObjectModel(
      entities: Self.entities,
      fetchRequestTemplates: [
        FetchRequestTemplate(
          name: "OnShelf", entityName: "Item",
          predicate: try FetchPredicate(format: "shelf == $shelf AND price BETWEEN $range"))
      ])
    expectGraphError(.wrongType, entity: "Item", key: "shelf", value: "$shelf = Item#", in: context)
    {
      _ = try model.fetchRequestFromTemplate(
        withName: "OnShelf", substitutionVariables: ["shelf": objects["apple"]!, "range": [1, 2]])
    }
    expectGraphError(
      .invalidPredicate, entity: "Item", key: "price", value: "$range = 3 (Int)", in: context
    ) {
      _ = try model.fetchRequestFromTemplate(
        withName: "OnShelf", substitutionVariables: ["shelf": objects["Top"]!, "range": 3])
    }
  }

  // MARK: - Errors when the model is built

  static func build(_ templates: [FetchRequestTemplate]) throws {
    _ = try ObjectModel(entities: entities, fetchRequestTemplates: templates)
  }

  @Test func unknownEntityThrows() {
    let error = #expect(throws: ObjectGraphError.self) {
      try Self.build([FetchRequestTemplate(name: "GreenTeams", entityName: "Team")])
    }
    #expect(error?.kind == .unknownEntity)
    #expect(error?.entity == "Team")
    #expect(error?.value == "'GreenTeams'")
    #expect(
      error?.description
        == "Team: the fetch request template 'GreenTeams' fetches Team, which the model does "
        + "not have")
  }

  @Test func duplicateNameThrows() {
    let error = #expect(throws: ObjectGraphError.self) {
      try Self.build([
        FetchRequestTemplate(name: "All", entityName: "Item"),
        FetchRequestTemplate(name: "All", entityName: "Shelf"),
      ])
    }
    #expect(error?.kind == .duplicateTemplate)
    #expect(error?.entity == "Shelf")
    #expect(error?.description == "Shelf: the model has two fetch request templates named 'All'")
  }

  @Test func emptyNameThrows() {
    let error = #expect(throws: ObjectGraphError.self) {
      try Self.build([FetchRequestTemplate(name: "", entityName: "Item")])
    }
    #expect(error?.kind == .invalidName)
    #expect(error?.description == "Item: a fetch request template of Item has an empty name")
  }

  @Test func predicateAndSortAreChecked() throws {
    let badKey = #expect(throws: ObjectGraphError.self) {
      try Self.build([
        FetchRequestTemplate(
          name: "Bad", entityName: "Item", predicate: try FetchPredicate(format: "colour == $c"))
      ])
    }
    #expect(badKey?.kind == .unknownKey)
    #expect(badKey?.key == "colour")
    #expect(badKey?.reason.hasPrefix("the fetch request template 'Bad': ") == true)
    let badConstant = #expect(throws: ObjectGraphError.self) {
      try Self.build([
        FetchRequestTemplate(
          name: "Bad", entityName: "Item", predicate: try FetchPredicate(format: "price == 'x'"))
      ])
    }
    #expect(badConstant?.kind == .wrongType)
    let badSort = #expect(throws: ObjectGraphError.self) {
      try Self.build([
        FetchRequestTemplate(name: "Bad", entityName: "Item", sortDescriptors: [FetchSort("size")])
      ])
    }
    #expect(badSort?.kind == .unknownKey)
    #expect(badSort?.key == "size")
    #expect(badSort?.reason.contains("'Bad'") == true)
    // Variables are checked only when a request is made.
    try Self.build([
      FetchRequestTemplate(
        name: "Fine", entityName: "Item", predicate: try FetchPredicate(format: "price == $x"))
    ])
  }

  // MARK: - Copies and immutability

  @Test func requestIsACopy() throws {
    let (context, _) = try Self.world()
    var first = try Self.model.fetchRequestFromTemplate(
      withName: "ItemsInColor", substitutionVariables: ["color": "Green", "limit": 100])
    first.fetchLimit = 1
    first.predicate = .constant(false)
    first.sortDescriptors = [FetchSort("name", ascending: false)]
    #expect(try context.fetch(first).isEmpty)
    let second = try Self.model.fetchRequestFromTemplate(
      withName: "ItemsInColor", substitutionVariables: ["color": "Green", "limit": 100])
    #expect(second.fetchLimit == 0)
    #expect(second.sortDescriptors == [FetchSort("name")])
    #expect(try Self.names(context.fetch(second)) == ["apple", "cress"])
    #expect(Self.model.fetchRequestTemplate(forName: "ItemsInColor") == Self.templates[1])
  }

  @Test func templateIsACopy() throws {
    var template = try #require(Self.model.fetchRequestTemplate(forName: "GreenItems"))
    template.predicate = try FetchPredicate(format: "color == 'Red'")
    template.fetchLimit = 1
    var given = Self.templates
    given[0].entityName = "Shelf"
    #expect(Self.model.fetchRequestTemplate(forName: "GreenItems") == Self.templates[0])
    #expect(Self.model.fetchRequestTemplates[0].predicate?.description == #"color == "Green""#)
    let request = try Self.model.fetchRequestFromTemplate(withName: "GreenItems")
    #expect(request.predicate?.description == #"color == "Green""#)
    #expect(request.fetchLimit == 0)
  }

  // MARK: - JSON

  @Test func modelJSONKeepsTemplates() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = try encoder.encode(Self.model)
    let text = String(decoding: json, as: UTF8.self)
    #expect(
      text.contains(
        #"{"entityName":"Item","name":"ItemsInColor","predicate":"color == $color AND price < $limit","#
          + #""sortDescriptors":[{"ascending":true,"comparison":{"swift":{}},"keyPath":"name"}]}"#),
      "\(text)")
    let decoded = try JSONDecoder().decode(ObjectModel.self, from: json)
    #expect(decoded.fetchRequestTemplates == Self.templates)
    #expect(decoded.versionHash == Self.model.versionHash)
    let (context, _) = try Self.world()
    let request = try decoded.fetchRequestFromTemplate(
      withName: "ItemsInColor", substitutionVariables: ["color": "Green", "limit": 10])
    #expect(try Self.names(context.fetch(request)) == ["apple"])
  }

  @Test func modelJSONWithoutTemplates() throws {
    // A bare array of entities (the form `[EntityDescription]` writes) is a model too.
    let array = try JSONEncoder().encode(Self.entities)
    let model = try JSONDecoder().decode(ObjectModel.self, from: array)
    #expect(model.entities.map(\.name) == ["Shelf", "Item"])
    #expect(model.fetchRequestTemplates.isEmpty)
    let object = try JSONEncoder().encode(model)
    #expect(!String(decoding: object, as: UTF8.self).contains("fetchRequestTemplates"))
  }

  @Test func modelJSONErrors() throws {
    let shelf = #"{"name": "Shelf", "attributes": [{"name": "name", "type": "string"}]}"#
    let badPredicate = Data(
      (#"{"entities": ["# + shelf
        + #"], "fetchRequestTemplates": [{"name": "A", "entityName": "Shelf", "predicate": "name =="}]}"#)
        .utf8)
    let syntax = #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(ObjectModel.self, from: badPredicate)
    }
    #expect(String(describing: syntax).contains("predicate"))
    let unknownEntity = Data(
      (#"{"entities": ["# + shelf
        + #"], "fetchRequestTemplates": [{"name": "A", "entityName": "Box"}]}"#).utf8)
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try JSONDecoder().decode(ObjectModel.self, from: unknownEntity)
    }
    #expect(error?.kind == .unknownEntity)
    #expect(error?.entity == "Box")
    let noName = Data(
      (#"{"entities": ["# + shelf + #"], "fetchRequestTemplates": [{"entityName": "Shelf"}]}"#)
        .utf8)
    #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(ObjectModel.self, from: noName)
    }
  }
}

final class TemplateTeam: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var uniformColor: String = ""
}

final class TemplatePlayer: ManagedObject {
  @Attribute var name: String = ""
}
