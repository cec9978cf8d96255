import Foundation
import ObservedGraph
import Testing

// Models as data: entity, attribute and relationship descriptions written as JSON and read back
// into a model a generic editor can use, and the name form of attribute types.

/// The Swift types the workshop model's transformable attributes name.
private let workshopTypes: [any (Codable & Hashable & Sendable).Type] = [
  Dimensions.self, [String].self,
]

/// A hand-built model with every attribute type, optional, transient and required attributes,
/// defaults, to-one, to-many and ordered relationships with every delete rule, counts, an abstract
/// parent entity, a self-inverse relationship and one with no inverse.
private func workshopEntities() -> [EntityDescription] {
  [
    EntityDescription(
      name: "Item", parent: "Thing",
      attributes: [
        AttributeDescription(name: "text", type: .string, defaultValue: "t"),
        AttributeDescription(name: "flag", type: .bool, defaultValue: true),
        AttributeDescription(name: "small", type: .int16, defaultValue: Int16(-16)),
        AttributeDescription(name: "medium", type: .int32, defaultValue: Int32(70_000)),
        AttributeDescription(name: "large", type: .int64, defaultValue: Int64.min),
        AttributeDescription(name: "whole", type: .int, defaultValue: 7),
        AttributeDescription(name: "single", type: .float, defaultValue: Float(0.1)),
        AttributeDescription(name: "double", type: .double, defaultValue: 2.5e-300),
        AttributeDescription(
          name: "decimal", type: .decimal, defaultValue: Decimal(string: "3.25")!),
        AttributeDescription(
          name: "date", type: .date, defaultValue: Date(timeIntervalSinceReferenceDate: 0.125)),
        AttributeDescription(name: "data", type: .data, defaultValue: Data([1, 2])),
        AttributeDescription(
          name: "uuid", type: .uuid,
          defaultValue: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        AttributeDescription(
          name: "url", type: .url, defaultValue: URL(string: "https://example.com/a")!),
        AttributeDescription(
          name: "size", type: .transformable(Dimensions.self),
          defaultValue: Dimensions(width: 1, height: 2)),
        AttributeDescription(
          name: "words", type: .transformable([String].self), defaultValue: ["a", "b"]),
        AttributeDescription(name: "note", type: .string),
        AttributeDescription(name: "code", type: .string, isOptional: false),
        AttributeDescription(name: "nick", type: .string, defaultValue: "n", isOptional: true),
        AttributeDescription(name: "scratch", type: .int, defaultValue: 0, isTransient: true),
      ],
      relationships: [
        RelationshipDescription(name: "pinnedIn", destination: "Folder", inverse: "pinned"),
        RelationshipDescription(
          name: "related", destination: "Item", inverse: .noInverse, toMany: true),
      ]),
    EntityDescription(
      name: "Thing", isAbstract: true, attributes: [.nameString],
      relationships: [
        RelationshipDescription(name: "folder", destination: "Folder", inverse: "things")
      ]),
    EntityDescription(
      name: "Folder", attributes: [.nameString],
      relationships: [
        RelationshipDescription(
          name: "things", destination: "Thing", inverse: "folder", toMany: true,
          deleteRule: .cascade, minCount: 1, maxCount: 5),
        RelationshipDescription(
          name: "pinned", destination: "Item", inverse: "pinnedIn", toMany: true, ordered: true,
          deleteRule: .deny),
        RelationshipDescription(
          name: "parent", destination: "Folder", inverse: "children", deleteRule: .noAction,
          isOptional: false),
        RelationshipDescription(
          name: "children", destination: "Folder", inverse: "parent", toMany: true),
        RelationshipDescription(name: "mirror", destination: "Folder", inverse: "mirror"),
      ]),
  ]
}

/// A stored value as exact text (`StoredValue.description` counts bytes of data only).
private func exact(_ stored: StoredValue) -> String {
  guard case .data(let data) = stored else { return stored.description }
  return "data(\(data.base64EncodedString()))"
}

/// Every field of a model one can read, one line per entity and property.
private func readableFields(_ model: ObjectModel) -> [String] {
  var lines: [String] = []
  for entity in model.entities {
    lines.append(
      "\(entity.name) parent=\(entity.parentName ?? "-")/\(entity.parent?.name ?? "-") "
        + "abstract=\(entity.isAbstract) sub=\(entity.subentities.map(\.name).sorted()) "
        + "properties=\(entity.propertyNames) attributes=\(entity.allAttributes.map(\.name)) "
        + "relationships=\(entity.allRelationships.map(\.name))")
    for attribute in entity.attributes {
      var defaultValue = "none"
      if let value = attribute.defaultValue {
        let stored = (try? attribute.type.storedValue(of: value)).map(exact) ?? "unstorable"
        defaultValue = "\(stored) as \(type(of: value))"
      }
      lines.append(
        "  \(entity.name).\(attribute.name): \(attribute.type.name) "
          + "valueType=\(attribute.type.valueType) default=\(defaultValue) "
          + "optional=\(attribute.isOptional) transient=\(attribute.isTransient)")
    }
    for relationship in entity.relationships {
      let inverse =
        switch relationship.inverse {
        case .named(let name)?: name
        case .noInverse?: "<none on purpose>"
        case nil: "<missing>"
        }
      let destination = entity.destination(ofRelationship: relationship.name)?.name ?? "?"
      lines.append(
        "  \(entity.name).\(relationship.name) -> \(relationship.destination)/\(destination) "
          + "inverse=\(inverse) toMany=\(relationship.isToMany) ordered=\(relationship.isOrdered) "
          + "rule=\(relationship.deleteRule) optional=\(relationship.isOptional) "
          + "counts=\(relationship.minCount)...\(relationship.maxCount)")
    }
  }
  return lines
}

/// Writes a model's entities as JSON and reads them back into a new model.
private func roundTrip(
  _ model: ObjectModel, types: [any (Codable & Hashable & Sendable).Type] = []
) throws -> ObjectModel {
  let data = try JSONEncoder().encode(model.entities)
  let decoder = JSONDecoder()
  decoder.userInfo[AttributeType.transformableTypesKey] = types
  return try ObjectModel(entities: decoder.decode([EntityDescription].self, from: data))
}

/// The JSON text of a value, keys sorted.
private func sortedJSON(_ value: some Encodable) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}

extension ModelCodable {
  /// A built-in attribute type and its name.
  struct TypeNameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let type: AttributeType
    let valueType: any Sendable.Type

    var testDescription: String { name }

    static let all: [TypeNameCase] = [
      TypeNameCase(name: "string", type: .string, valueType: String.self),
      TypeNameCase(name: "bool", type: .bool, valueType: Bool.self),
      TypeNameCase(name: "int16", type: .int16, valueType: Int16.self),
      TypeNameCase(name: "int32", type: .int32, valueType: Int32.self),
      TypeNameCase(name: "int64", type: .int64, valueType: Int64.self),
      TypeNameCase(name: "int", type: .int, valueType: Int.self),
      TypeNameCase(name: "float", type: .float, valueType: Float.self),
      TypeNameCase(name: "double", type: .double, valueType: Double.self),
      TypeNameCase(name: "decimal", type: .decimal, valueType: Decimal.self),
      TypeNameCase(name: "date", type: .date, valueType: Date.self),
      TypeNameCase(name: "data", type: .data, valueType: Data.self),
      TypeNameCase(name: "uuid", type: .uuid, valueType: UUID.self),
      TypeNameCase(name: "url", type: .url, valueType: URL.self),
    ]
  }
}

@Suite struct ModelCodable {
  // MARK: Descriptions as JSON

  @Test func bookStoreRoundTrip() throws {
    let decoded = try roundTrip(BookStore.model)
    #expect(readableFields(decoded) == readableFields(BookStore.model))
    #expect(decoded.entities.allSatisfy { $0.objectClass == ManagedObject.self })
    let book = try #require(decoded.entity(named: "Book"))
    #expect(book.propertyNames == ["title", "price", "isbn", "category", "pages"])
    let isbn = try #require(book.attributes.first { $0.name == "isbn" })
    #expect(isbn.isOptional && isbn.defaultValue == nil && isbn.type == .string)
    let price = try #require(book.attributes.first { $0.name == "price" })
    #expect(price.defaultValue as? Double == 0 && !price.isOptional)
    let pages = try #require(book.relationships.first { $0.name == "pages" })
    #expect(pages.inverse == "book" && pages.isOrdered && pages.deleteRule == .cascade)
    #expect(book.destination(ofRelationship: "category")?.name == "BookCategory")
  }

  @Test func bookStoreAsGenericObjects() throws {
    let context = ObjectContext(model: try roundTrip(BookStore.model))
    let fiction = try context.make("BookCategory", "Fiction")
    #expect(ObjectIdentifier(type(of: fiction)) == ObjectIdentifier(ManagedObject.self))
    let book = try context.insertObject(forEntityName: "Book")
    #expect(try book.value(forKey: "title") as? String == "")
    #expect(try book.value(forKey: "price") as? Double == 0)
    #expect(try book.value(forKey: "isbn") == nil)
    try book.setValue("Dune", forKey: "title")
    try book.setValue(12, forKey: "price")
    try book.setValue(fiction, forKey: "category")
    #expect(try book.value(forKey: "price") as? Double == 12)
    #expect(try fiction.set("books") == [book])
    #expect(try book.value(forKeyPath: "category.name") as? String == "Fiction")
    let first = try context.insertObject(forEntityName: "Page")
    let second = try context.insertObject(forEntityName: "Page")
    try book.mutableOrderedSet(forKey: "pages").append(second)
    try first.setValue(book, forKey: "book")
    #expect(try book.list("pages") == [second, first])
    #expect(try first.one("book") === book)
    let error = #expect(throws: ObjectGraphError.self) {
      try book.setValue(first, forKey: "category")
    }
    #expect(error?.kind == .wrongEntity)
    try context.delete(book)
    #expect(first.isDeleted && second.isDeleted)
    #expect(try fiction.set("books").isEmpty)
    context._checkInvariants()
  }

  @Test func workshopRoundTrip() throws {
    let original = try ObjectModel(entities: workshopEntities())
    let decoded = try roundTrip(original, types: workshopTypes)
    let fields = readableFields(decoded)
    #expect(fields == readableFields(original))
    // The rendering above is only as good as what it shows: spot-check it against the source.
    #expect(fields.count == 3 + 19 + 2 + 1 + 1 + 1 + 5)
    #expect(
      fields.contains(
        "  Item.size: transformable(Dimensions) valueType=Dimensions "
          + #"default=data(eyJoZWlnaHQiOjIsIndpZHRoIjoxfQ==) as Dimensions optional=false "#
          + "transient=false"))
    #expect(
      fields.contains(
        "  Item.single: float valueType=Float default=double(0.10000000149011612) as Float "
          + "optional=false transient=false"))
    #expect(
      fields.contains(
        "  Item.code: string valueType=String default=none optional=false transient=false"))
    #expect(
      fields.contains(
        "  Item.nick: string valueType=String default=string(\"n\") as String optional=true "
          + "transient=false"))
    #expect(
      fields.contains(
        "  Item.scratch: int valueType=Int default=integer(0) as Int optional=false "
          + "transient=true"))
    #expect(
      fields.contains(
        "  Item.related -> Item/Item inverse=<none on purpose> toMany=true ordered=false "
          + "rule=nullify optional=true counts=0...0"))
    #expect(
      fields.contains(
        "  Folder.things -> Thing/Thing inverse=folder toMany=true ordered=false rule=cascade "
          + "optional=true counts=1...5"))
    #expect(
      fields.contains(
        "  Folder.pinned -> Item/Item inverse=pinnedIn toMany=true ordered=true rule=deny "
          + "optional=true counts=0...0"))
    #expect(
      fields.contains(
        "  Folder.parent -> Folder/Folder inverse=children toMany=false ordered=false "
          + "rule=noAction optional=false counts=0...0"))
    #expect(
      fields.contains(
        "Thing parent=-/- abstract=true sub=[\"Item\"] properties=[\"name\", \"folder\"] "
          + "attributes=[\"name\"] relationships=[\"folder\"]"))
    let item = try #require(decoded.entity(named: "Item"))
    #expect(item.parent === decoded.entity(named: "Thing"))
    let medium = try #require(item.attributes.first { $0.name == "medium" })
    #expect(medium.defaultValue as? Int32 == 70_000)
    let large = try #require(item.attributes.first { $0.name == "large" })
    #expect(large.defaultValue as? Int64 == .min)
    let size = try #require(item.attributes.first { $0.name == "size" })
    #expect(size.defaultValue as? Dimensions == Dimensions(width: 1, height: 2))
    let date = try #require(item.attributes.first { $0.name == "date" })
    #expect(date.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 0.125))
  }

  @Test func workshopAsGenericObjects() throws {
    let model = try roundTrip(try ObjectModel(entities: workshopEntities()), types: workshopTypes)
    let context = ObjectContext(model: model)
    let error = #expect(throws: ObjectGraphError.self) {
      try context.insertObject(forEntityName: "Thing")
    }
    #expect(error?.kind == .abstractEntity)
    let item = try context.insertObject(forEntityName: "Item")
    #expect(try item.value(forKey: "size") as? Dimensions == Dimensions(width: 1, height: 2))
    #expect(try item.value(forKey: "words") as? [String] == ["a", "b"])
    #expect(try item.value(forKey: "single") as? Float == Float(0.1))
    #expect(try item.value(forKey: "name") as? String == "")
    #expect(try item.value(forKey: "note") == nil)
    #expect(try item.value(forKey: "code") == nil)
    try item.setValue(["c"], forKey: "words")
    try item.setValue(Dimensions(width: 5, height: 6), forKey: "size")
    #expect(try item.value(forKey: "words") as? [String] == ["c"])
    let folder = try context.make("Folder", "root")
    let other = try context.make("Folder", "other")
    try item.setValue(folder, forKey: "folder")
    #expect(try folder.set("things") == [item])
    try folder.mutableOrderedSet(forKey: "pinned").append(item)
    #expect(try item.one("pinnedIn") === folder)
    try other.setValue(folder, forKey: "parent")
    #expect(try folder.set("children") == [other])
    try folder.setValue(other, forKey: "mirror")
    #expect(try other.one("mirror") === folder)
    let twin = try context.insertObject(forEntityName: "Item")
    try item.mutableSet(forKey: "related").insert(twin)
    #expect(try twin.set("related").isEmpty)
    let denied = #expect(throws: ObjectGraphError.self) { try context.delete(folder) }
    #expect(denied?.kind == .deleteDenied)
    context._checkInvariants()
  }

  @Test func archivedForm() throws {
    let category = try #require(BookStore.model.entity(named: "BookCategory"))
    #expect(
      try sortedJSON(category)
        == #"{"attributes":[{"defaultValue":{"string":""},"isOptional":false,"isTransient":false,"#
        + #""name":"name","type":"string"}],"isAbstract":false,"name":"BookCategory","#
        + #""relationships":[{"deleteRule":"nullify","destination":"Book","inverse":"category","#
        + #""isOptional":true,"isOrdered":false,"isToMany":true,"maxCount":0,"minCount":0,"#
        + #""name":"books"}]}"#)
    let related = RelationshipDescription(
      name: "related", destination: "Item", inverse: .noInverse, toMany: true)
    #expect(
      try sortedJSON(related)
        == #"{"deleteRule":"nullify","destination":"Item","isOptional":true,"isOrdered":false,"#
        + #""isToMany":true,"maxCount":0,"minCount":0,"name":"related","noInverse":true}"#)
    let child = EntityDescription(name: "Car", parent: "Vehicle", isAbstract: true)
    #expect(
      try sortedJSON(child)
        == #"{"attributes":[],"isAbstract":true,"name":"Car","parent":"Vehicle","#
        + #""relationships":[]}"#)
  }

  @Test func absentFieldsTakeTheInitializersDefaults() throws {
    let text = #"""
      [{"name": "Note",
        "attributes": [{"name": "title", "type": "string", "defaultValue": {"string": "x"}},
                       {"name": "body", "type": "string"}],
        "relationships": [{"name": "topic", "destination": "Topic", "inverse": "notes"}]},
       {"name": "Topic",
        "relationships": [{"name": "notes", "destination": "Note", "inverse": "topic",
                           "isToMany": true}]}]
      """#
    let entities = try JSONDecoder().decode([EntityDescription].self, from: Data(text.utf8))
    let model = try ObjectModel(entities: entities)
    let note = try #require(model.entity(named: "Note"))
    #expect(note.parentName == nil && !note.isAbstract)
    let title = note.attributes[0]
    #expect(title.defaultValue as? String == "x" && !title.isOptional && !title.isTransient)
    let body = note.attributes[1]
    #expect(body.defaultValue == nil && body.isOptional)
    let topic = note.relationships[0]
    #expect(!topic.isToMany && !topic.isOrdered && topic.deleteRule == .nullify)
    #expect(topic.isOptional && topic.minCount == 0 && topic.maxCount == 0)
    #expect(model.entity(named: "Topic")?.attributes.isEmpty == true)
  }

  @Test(arguments: [
    #"{"name":"n","type":"int16","defaultValue":{"string":"x"}}"#,
    #"{"name":"n","type":"int16","defaultValue":{"integer":70000}}"#,
    #"{"name":"n","type":"float","defaultValue":{"double":1e300}}"#,
    #"{"name":"n","type":"string","defaultValue":{"string":"x","bool":true}}"#,
    #"{"type":"string"}"#, #"{"name":"n"}"#, #"{"name":"n","type":"text"}"#,
  ])
  func malformedAttribute(_ text: String) {
    #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(AttributeDescription.self, from: Data(text.utf8))
    }
  }

  @Test(arguments: [
    #"{"name":"r","destination":"D","deleteRule":"explode"}"#, #"{"name":"r"}"#,
    #"{"destination":"D"}"#, #"{"name":"r","destination":"D","isToMany":"yes"}"#,
  ])
  func malformedRelationship(_ text: String) {
    #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(RelationshipDescription.self, from: Data(text.utf8))
    }
  }

  @Test func defaultOfTheWrongTypeIsNotWritten() {
    let attribute = AttributeDescription(name: "count", type: .int16, defaultValue: "many")
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try JSONEncoder().encode(attribute)
    }
    #expect(error?.kind == .invalidDefault)
    #expect(error?.key == "count")
    #expect(error?.description.contains("\"many\"") == true)
  }

  // MARK: Type names

  @Test(arguments: TypeNameCase.all)
  func builtInName(_ row: TypeNameCase) throws {
    let type = try AttributeType(name: row.name)
    #expect(type == row.type)
    #expect(type.name == row.name && type.description == row.name)
    #expect(ObjectIdentifier(type.valueType) == ObjectIdentifier(row.valueType))
    #expect(try sortedJSON(row.type) == "\"\(row.name)\"")
    #expect(
      try JSONDecoder().decode(AttributeType.self, from: Data("\"\(row.name)\"".utf8)) == type)
  }

  @Test func transformableNames() throws {
    let size = try AttributeType(
      name: "transformable(Dimensions)", transformableTypes: [[String].self, Dimensions.self])
    #expect(size == .transformable(Dimensions.self))
    #expect(ObjectIdentifier(size.valueType) == ObjectIdentifier(Dimensions.self))
    #expect(
      try size.value(from: .data(Data(#"{"height":2,"width":1}"#.utf8))) as? Dimensions
        == Dimensions(width: 1, height: 2))
    let words = try AttributeType(
      name: "transformable(Array<String>)", transformableTypes: [Dimensions.self, [String].self])
    #expect(words == .transformable([String].self))
    #expect(words == [String].attributeType)
    for types in [[], [[String].self] as [any (Codable & Hashable & Sendable).Type]] {
      let error = #expect(throws: ObjectGraphError.self) {
        _ = try AttributeType(name: "transformable(Dimensions)", transformableTypes: types)
      }
      #expect(error?.kind == .unknownType)
      #expect(error?.value == "transformable(Dimensions)")
      #expect(error?.description.contains("transformableTypes") == true)
    }
  }

  @Test(arguments: ["integer", "", "Int16", "String", "transformable", "double "])
  func unknownName(_ name: String) {
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try AttributeType(name: name, transformableTypes: workshopTypes)
    }
    #expect(error?.kind == .unknownType)
    #expect(error?.value == name)
    let text = error?.description ?? ""
    #expect(text.contains("'\(name)'"))
    #expect(
      text.contains(
        "string, bool, int16, int32, int64, int, float, double, decimal, date, data, uuid, url"))
  }

  @Test func decodingAnUnknownTypeNamesTheKey() throws {
    let text = #"""
      [{"name": "Page", "attributes": [{"name": "size", "type": "transformable(Dimensions)"}]}]
      """#
    let plain = JSONDecoder()
    let others = JSONDecoder()
    others.userInfo[AttributeType.transformableTypesKey] = [[String].self]
    for decoder in [plain, others] {
      let error = #expect(throws: DecodingError.self) {
        _ = try decoder.decode([EntityDescription].self, from: Data(text.utf8))
      }
      guard case .dataCorrupted(let context)? = error else {
        Issue.record("expected dataCorrupted, got \(String(describing: error))")
        continue
      }
      #expect(context.debugDescription.contains("AttributeType.transformableTypesKey"))
      #expect(context.debugDescription.contains("transformable(Dimensions)"))
      #expect(context.codingPath.map(\.stringValue).last == "type")
    }
    let decoder = JSONDecoder()
    decoder.userInfo[AttributeType.transformableTypesKey] = workshopTypes
    let entities = try decoder.decode([EntityDescription].self, from: Data(text.utf8))
    #expect(entities[0].attributes[0].type == .transformable(Dimensions.self))
  }
}

extension ModelCodable {
  /// A model with fetched properties, as JSON and back: the predicate as text, the sort keys,
  /// and an entity without any writes no key for them.
  @Test func fetchedPropertiesRoundTrip() throws {
    let bargains = FetchedPropertyDescription(
      name: "bargains", destination: "Item",
      predicate: try FetchPredicate(
        format: "price < 12 AND shelf == $FETCH_SOURCE AND name BEGINSWITH[cd] 'é'"),
      sortDescriptors: [
        FetchSort("name", comparison: .localizedStandard), FetchSort("price", ascending: false),
      ])
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Shelf", attributes: [AttributeDescription(name: "name", type: .string)],
        relationships: [
          RelationshipDescription(
            name: "items", destination: "Item", inverse: "shelf", toMany: true)
        ],
        fetchedProperties: [bargains]),
      EntityDescription(
        name: "Item",
        attributes: [
          AttributeDescription(name: "name", type: .string),
          AttributeDescription(name: "price", type: .double),
        ],
        relationships: [
          RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items")
        ]),
    ])
    let decoded = try roundTrip(model)
    #expect(decoded.entity(named: "Shelf")?.fetchedProperties == [bargains])
    #expect(decoded.entity(named: "Item")?.fetchedProperties == [])
    let item = try sortedJSON(try #require(model.entity(named: "Item")))
    #expect(!item.contains("fetchedProperties"))
    let broken = Data(
      #"{"name": "Shelf", "fetchedProperties": [{"name": "x", "destination": "Item", "predicate": "price <"}]}"#
        .utf8)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(EntityDescription.self, from: broken)
    }
  }
}
