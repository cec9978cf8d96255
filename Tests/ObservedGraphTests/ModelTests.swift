import Foundation
import ObservedGraph
import Testing

/// A typed class whose relationship declares no inverse at all (not even `.noInverse`).
private final class Loner: ManagedObject {
  @Relationship(inverse: nil) var friend: Loner?
}

/// A typed class whose relationship says `ordered: true` with a `Set` type.
private final class Confused: ManagedObject {
  @Relationship(inverse: .noInverse, ordered: true) var others: Set<Confused>
}

/// One model that must not build: its entities, the error kind and what the message must name.
struct ModelErrorCase: Sendable, CustomTestStringConvertible {
  let name: String
  let kind: ObjectGraphError.Kind
  let entity: String
  let key: String?
  let mentions: [String]
  let entities: [EntityDescription]

  var testDescription: String { name }

  private static func relation(
    _ name: String, _ destination: String, _ inverse: RelationshipDescription.Inverse?,
    toMany: Bool = false
  ) -> RelationshipDescription {
    RelationshipDescription(name: name, destination: destination, inverse: inverse, toMany: toMany)
  }

  static let all: [ModelErrorCase] = [
    ModelErrorCase(
      name: "missing inverse", kind: .missingInverse, entity: "A", key: "b",
      mentions: ["A.b", "B"],
      entities: [
        EntityDescription(name: "A", relationships: [relation("b", "B", nil)]),
        EntityDescription(name: "B"),
      ]),
    ModelErrorCase(
      name: "unknown inverse", kind: .unknownInverse, entity: "A", key: "b",
      mentions: ["A.b", "B.ghost"],
      entities: [
        EntityDescription(name: "A", relationships: [relation("b", "B", "ghost")]),
        EntityDescription(name: "B", relationships: [relation("a", "A", "b")]),
      ]),
    ModelErrorCase(
      name: "inverse is an attribute", kind: .inverseNotRelationship, entity: "A", key: "b",
      mentions: ["A.b", "B.label"],
      entities: [
        EntityDescription(name: "A", relationships: [relation("b", "B", "label")]),
        EntityDescription(
          name: "B", attributes: [AttributeDescription(name: "label", type: .string)]),
      ]),
    ModelErrorCase(
      name: "inverse leads elsewhere", kind: .inverseWrongEntity, entity: "A", key: "b",
      mentions: ["A.b", "B.c", "C"],
      entities: [
        EntityDescription(name: "A", relationships: [relation("b", "B", "c")]),
        EntityDescription(name: "B", relationships: [relation("c", "C", "b")]),
        EntityDescription(name: "C", relationships: [relation("b", "B", "c")]),
      ]),
    ModelErrorCase(
      name: "inverse does not point back", kind: .inverseMismatch, entity: "A", key: "b",
      mentions: ["A.b", "B.a", "other"],
      entities: [
        EntityDescription(
          name: "A", relationships: [relation("b", "B", "a"), relation("other", "B", "a")]),
        EntityDescription(name: "B", relationships: [relation("a", "A", "other")]),
      ]),
    ModelErrorCase(
      name: "unknown destination", kind: .unknownDestination, entity: "A", key: "b",
      mentions: ["A.b", "Ghost"],
      entities: [EntityDescription(name: "A", relationships: [relation("b", "Ghost", .noInverse)])]
    ),
    ModelErrorCase(
      name: "duplicate property", kind: .duplicateProperty, entity: "A", key: "name",
      mentions: ["A.name"],
      entities: [
        EntityDescription(
          name: "A", attributes: [.nameString], relationships: [relation("name", "A", .noInverse)])
      ]),
    ModelErrorCase(
      name: "duplicate of an inherited property", kind: .duplicateProperty, entity: "Child",
      key: "name", mentions: ["Child.name", "Parent.name"],
      entities: [
        EntityDescription(name: "Child", parent: "Parent", attributes: [.nameString]),
        EntityDescription(name: "Parent", attributes: [.nameString]),
      ]),
    ModelErrorCase(
      name: "default of the wrong type", kind: .invalidDefault, entity: "A", key: "count",
      mentions: ["A.count", "\"many\"", "int16"],
      entities: [
        EntityDescription(
          name: "A",
          attributes: [AttributeDescription(name: "count", type: .int16, defaultValue: "many")])
      ]),
    ModelErrorCase(
      name: "default out of range", kind: .invalidDefault, entity: "A", key: "count",
      mentions: ["A.count", "70000"],
      entities: [
        EntityDescription(
          name: "A",
          attributes: [AttributeDescription(name: "count", type: .int16, defaultValue: 70_000)])
      ]),
    ModelErrorCase(
      name: "duplicate entity", kind: .duplicateEntity, entity: "A", key: nil, mentions: ["A"],
      entities: [EntityDescription(name: "A"), EntityDescription(name: "A")]),
    ModelErrorCase(
      name: "unknown parent", kind: .unknownParent, entity: "Child", key: nil,
      mentions: ["Child", "Ghost"],
      entities: [EntityDescription(name: "Child", parent: "Ghost")]),
    ModelErrorCase(
      name: "inheritance cycle", kind: .inheritanceCycle, entity: "X", key: nil,
      mentions: ["X", "Y"],
      entities: [
        EntityDescription(name: "X", parent: "Y"), EntityDescription(name: "Y", parent: "X"),
      ]),
  ]
}

@Suite struct Model {
  @Test(arguments: AttributeCase.all)
  func typedAttributes(_ row: AttributeCase) throws {
    let entity = try #require(Specimens.model.entity(named: "Specimen"))
    let attribute = try #require(entity.allAttributes.first { $0.name == row.key })
    #expect(attribute.type.description == row.typeName)
    #expect(
      ObjectIdentifier(attribute.type.valueType) == ObjectIdentifier(type(of: row.defaultValue)))
    #expect(attribute.isOptional == false)
    #expect(attribute.isTransient == false)
    let stored = try #require(attribute.defaultValue as? any Hashable)
    #expect(AnyHashable(stored) == AnyHashable(row.defaultValue))
  }

  @Test(arguments: AttributeCase.all)
  func dynamicAttributes(_ row: AttributeCase) throws {
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Sample",
        attributes: [
          AttributeDescription(name: row.key, type: row.type, defaultValue: row.defaultValue),
          AttributeDescription(name: "maybe", type: row.type),
        ])
    ])
    let context = ObjectContext(model: model)
    let sample = try context.insertObject(forEntityName: "Sample")
    #expect(ObjectIdentifier(type(of: sample)) == ObjectIdentifier(ManagedObject.self))
    let value = try #require(try sample.value(forKey: row.key) as? any Hashable)
    #expect(AnyHashable(value) == AnyHashable(row.defaultValue))
    #expect(try sample.value(forKey: "maybe") == nil)
    let maybe = try #require(model.entity(named: "Sample")?.allAttributes.last)
    #expect(maybe.isOptional)
    #expect(maybe.defaultValue == nil)
  }

  @Test func optionalAndTransient() throws {
    let entity = try #require(Specimens.model.entity(named: "Specimen"))
    let note = try #require(entity.attributes.first { $0.name == "note" })
    #expect(note.isOptional)
    #expect(note.defaultValue == nil)
    #expect(note.isTransient == false)
    let scratch = try #require(entity.attributes.first { $0.name == "scratch" })
    #expect(scratch.isTransient)
    #expect(scratch.isOptional == false)
    #expect(scratch.defaultValue as? Int == 7)
    let specimen = ObjectContext(model: Specimens.model).insert(Specimen.self)
    #expect(specimen.note == nil)
    #expect(specimen.scratch == 7)
    #expect(specimen.size == Dimensions(width: 1, height: 2))
  }

  @Test func relationships() throws {
    let book = try #require(BookStore.model.entity(named: "Book"))
    let category = try #require(book.allRelationships.first { $0.name == "category" })
    #expect(category.destination == "BookCategory")
    #expect(category.inverse == "books")
    #expect(category.isToMany == false)
    #expect(category.isOptional)
    #expect(category.deleteRule == .nullify)
    let pages = try #require(book.allRelationships.first { $0.name == "pages" })
    #expect(pages.isToMany && pages.isOrdered)
    #expect(pages.deleteRule == .cascade)
    #expect(book.destination(ofRelationship: "pages")?.name == "Page")
    let books = try #require(
      BookStore.model.entity(named: "BookCategory")?.relationships.first { $0.name == "books" })
    #expect(books.isToMany && !books.isOrdered)
    let ship = try #require(Dynamic.ships.entity(named: "Ship"))
    let crew = try #require(ship.relationships.first { $0.name == "crew" })
    #expect((crew.minCount, crew.maxCount) == (2, 3))
    let captain = try #require(ship.relationships.first { $0.name == "captain" })
    #expect(captain.isOptional == false)
    let rules = try #require(Dynamic.rules.entity(named: "Hub")).relationships.map(\.deleteRule)
    #expect(rules == [.nullify, .cascade, .deny, .noAction])
  }

  @Test func typedInheritance() throws {
    let person = try #require(League.model.entity(named: "Person"))
    let player = try #require(League.model.entity(named: "Player"))
    #expect(person.isAbstract)
    #expect(player.isAbstract == false)
    #expect(player.parent === person)
    #expect(person.subentities.map(\.name) == ["Player"])
    #expect(player.isKind(of: person) && !person.isKind(of: player))
    #expect(player.propertyNames == ["firstName", "lastName", "email", "dateOfBirth", "teams"])
    #expect(player.attributes.isEmpty)
    #expect(League.model.entity(for: Player.self) === player)
    let context = ObjectContext(model: League.model)
    let pat = context.insert(Player.self)
    pat.firstName = "Pat"
    #expect(try pat.value(forKey: "firstName") as? String == "Pat")
    try pat.setValue("Lee", forKey: "lastName")
    #expect(pat.lastName == "Lee")
  }

  @Test func dynamicInheritance() throws {
    let model = Dynamic.vehicles
    let car = try #require(model.entity(named: "Car"))
    #expect(car.parent?.name == "Vehicle")
    #expect(car.propertyNames == ["name", "wheels", "garage", "seats", "lot"])
    #expect(
      Set(try #require(model.entity(named: "Vehicle")).subentities.map(\.name)) == ["Car", "Bike"])
    let context = ObjectContext(model: model)
    let sedan = try context.make("Car", "sedan")
    #expect(try sedan.value(forKey: "wheels") as? Int16 == 4)
    #expect(try sedan.value(forKey: "seats") as? Int16 == 5)
    let bike = try context.make("Bike", "bmx")
    try bike.setValue(2, forKey: "wheels")
    #expect(try bike.value(forKey: "wheels") as? Int16 == 2)
    // A relationship to the parent accepts objects of every sub-entity.
    let garage = try context.make("Garage", "home")
    try garage.mutableSet(forKey: "vehicles").insert(sedan)
    try bike.setValue(garage, forKey: "garage")
    #expect(try garage.set("vehicles") == [sedan, bike])
    #expect(try sedan.one("garage") === garage)
    context._checkInvariants()
  }

  @Test func abstractEntityCannotBeInserted() throws {
    for (model, name, sub) in [
      (League.model, "Person", "Player"), (Dynamic.vehicles, "Vehicle", "Car"),
    ] {
      let context = ObjectContext(model: model)
      let error = #expect(throws: ObjectGraphError.self) {
        try context.insertObject(forEntityName: name)
      }
      #expect(error?.kind == .abstractEntity)
      #expect(error?.entity == name)
      #expect(error?.description.contains(name) == true)
      #expect(error?.description.contains(sub) == true)
      #expect(context.registeredObjects.isEmpty)
      #expect(context.hasChanges == false)
    }
  }

  @Test(arguments: ModelErrorCase.all)
  func invalidModel(_ row: ModelErrorCase) throws {
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(entities: row.entities)
    }
    #expect(error?.kind == row.kind)
    #expect(error?.entity == row.entity)
    #expect(error?.key == row.key)
    for mention in row.mentions {
      #expect(
        error?.description.contains(mention) == true, "\(mention) in \(String(describing: error))")
    }
  }

  @Test func invalidTypedModel() throws {
    let missing = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(types: [Loner.self])
    }
    #expect(missing?.kind == .missingInverse)
    #expect(missing?.description.contains("Loner.friend") == true)
    let confused = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(types: [Confused.self])
    }
    #expect(confused?.kind == .invalidClass)
    #expect(confused?.key == "others")
  }

  @Test func noInverseIsAllowed() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Note", attributes: [.nameString],
        relationships: [
          RelationshipDescription(name: "topic", destination: "Topic", inverse: .noInverse),
          RelationshipDescription(
            name: "links", destination: "Topic", inverse: .noInverse, toMany: true),
        ]),
      EntityDescription(name: "Topic", attributes: [.nameString]),
    ])
    let context = ObjectContext(model: model)
    let note = try context.make("Note", "n")
    let topic = try context.make("Topic", "t")
    try note.setValue(topic, forKey: "topic")
    try note.mutableSet(forKey: "links").insert(topic)
    #expect(try note.one("topic") === topic)
    #expect(try note.set("links") == [topic])
    #expect(topic.entity.propertyNames == ["name"])
    try context.delete(topic)
    #expect(try note.one("topic") === topic)
    context._checkInvariants()
  }

  @Test func modelsAreCopies() throws {
    let entity = EntityDescription(name: "Solo", attributes: [.nameString])
    let first = try ObjectModel(entities: [entity])
    let second = try ObjectModel(entities: [entity])
    #expect(first.entity(named: "Solo") !== second.entity(named: "Solo"))
    #expect(first.entity(named: "Solo")?.propertyNames == ["name"])
    #expect(first.entity(named: "Nope") == nil)
    #expect(first.description == "ObjectModel(Solo)")
  }
}
