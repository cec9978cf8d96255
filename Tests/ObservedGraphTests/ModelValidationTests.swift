import Foundation
import ObservedGraph
import Testing

// What `ObjectModel(entities:)` refuses: classes that do not describe their entities, bad names and
// bad counts; and objects of two models built from the same classes kept apart.

private final class Pal: ManagedObject {
  @Attribute var name: String = ""
}

/// No property wrappers: it can serve any entity, and several at once.
private final class Plain: ManagedObject {}

private final class Tallier: ManagedObject {
  @Attribute var count: Int16 = 0
}

private final class Memo: ManagedObject {
  @Attribute var note: String?
}

private final class Linked: ManagedObject {
  @Attribute var pal: String = ""
}

private final class Holder: ManagedObject {
  @Relationship(inverse: .noInverse) var pal: Pal?
}

private final class Crowd: ManagedObject {
  @Relationship(inverse: .noInverse) var pals: Set<Pal>
}

private final class Queue: ManagedObject {
  @Relationship(inverse: .noInverse) var pals: [Pal]
}

/// Its wrapper says `ordered: true` of a `Set`.
private final class Muddled: ManagedObject {
  @Relationship(inverse: .noInverse, ordered: true) var pals: Set<Pal>
}

private class Trunk: ManagedObject {
  @Attribute var name: String = ""
}

private final class Branch: Trunk {
  @Attribute var rank: Int = 0
}

private let palEntity = EntityDescription(
  name: "Pal", attributes: [.nameString], objectClass: Pal.self)

private func toPal(_ name: String, toMany: Bool = false, ordered: Bool = false)
  -> RelationshipDescription
{
  RelationshipDescription(
    name: name, destination: "Pal", inverse: .noInverse, toMany: toMany, ordered: ordered)
}

extension ModelValidation {
  /// A model whose class disagrees with its entity: the entity and key the error must name, and
  /// what its message must mention.
  struct ClassCase: Sendable, CustomTestStringConvertible {
    let name: String
    let entity: String
    let key: String?
    let mentions: [String]
    let entities: @Sendable () -> [EntityDescription]

    var testDescription: String { name }

    static let all: [ClassCase] = [
      ClassCase(
        name: "wrapper the entity lacks", entity: "Tally", key: "count",
        mentions: ["Tally.count", "Tallier", "no such property"],
        entities: { [EntityDescription(name: "Tally", objectClass: Tallier.self)] }),
      ClassCase(
        name: "another attribute type", entity: "Tally", key: "count",
        mentions: ["Tally.count", "as int16", "it is int32"],
        entities: {
          [
            EntityDescription(
              name: "Tally",
              attributes: [
                AttributeDescription(name: "count", type: .int32, defaultValue: Int32(0))
              ],
              objectClass: Tallier.self)
          ]
        }),
      ClassCase(
        name: "optional where required", entity: "Note", key: "note",
        mentions: ["Note.note", "as optional string", "it is string"],
        entities: {
          [
            EntityDescription(
              name: "Note",
              attributes: [AttributeDescription(name: "note", type: .string, defaultValue: "")],
              objectClass: Memo.self)
          ]
        }),
      ClassCase(
        name: "required where optional", entity: "Tally", key: "count",
        mentions: ["Tally.count", "as int16", "it is optional int16"],
        entities: {
          [
            EntityDescription(
              name: "Tally",
              attributes: [
                AttributeDescription(
                  name: "count", type: .int16, defaultValue: Int16(0), isOptional: true)
              ],
              objectClass: Tallier.self)
          ]
        }),
      ClassCase(
        name: "attribute where relationship", entity: "Link", key: "pal",
        mentions: ["Link.pal", "as an attribute", "it is a relationship"],
        entities: {
          [
            palEntity,
            EntityDescription(
              name: "Link", relationships: [toPal("pal")], objectClass: Linked.self),
          ]
        }),
      ClassCase(
        name: "relationship where attribute", entity: "Hold", key: "pal",
        mentions: ["Hold.pal", "as a relationship", "it is an attribute"],
        entities: {
          [
            palEntity,
            EntityDescription(
              name: "Hold",
              attributes: [AttributeDescription(name: "pal", type: .string, defaultValue: "")],
              objectClass: Holder.self),
          ]
        }),
      ClassCase(
        name: "to-many where to-one", entity: "Group", key: "pals",
        mentions: ["Group.pals", "as to-many", "it is to-one"],
        entities: {
          [
            palEntity,
            EntityDescription(
              name: "Group", relationships: [toPal("pals")], objectClass: Crowd.self),
          ]
        }),
      ClassCase(
        name: "to-one where to-many", entity: "Hold", key: "pal",
        mentions: ["Hold.pal", "as to-one", "it is to-many"],
        entities: {
          [
            palEntity,
            EntityDescription(
              name: "Hold", relationships: [toPal("pal", toMany: true)], objectClass: Holder.self),
          ]
        }),
      ClassCase(
        name: "ordered where unordered", entity: "Line", key: "pals",
        mentions: ["Line.pals", "as ordered to-many", "it is to-many"],
        entities: {
          [
            palEntity,
            EntityDescription(
              name: "Line", relationships: [toPal("pals", toMany: true)], objectClass: Queue.self),
          ]
        }),
      ClassCase(
        name: "unordered where ordered", entity: "Group", key: "pals",
        mentions: ["Group.pals", "as to-many", "it is ordered to-many"],
        entities: {
          [
            palEntity,
            EntityDescription(
              name: "Group", relationships: [toPal("pals", toMany: true, ordered: true)],
              objectClass: Crowd.self),
          ]
        }),
      ClassCase(
        name: "destination of another class", entity: "Hold", key: "pal",
        mentions: ["Hold.pal", "Pal", "Plain"],
        entities: {
          [
            EntityDescription(name: "Pal", objectClass: Plain.self),
            EntityDescription(
              name: "Hold", relationships: [toPal("pal")], objectClass: Holder.self),
          ]
        }),
      ClassCase(
        name: "generic destination", entity: "Hold", key: "pal",
        mentions: ["Hold.pal", "Pal", "ManagedObject"],
        entities: {
          [
            EntityDescription(name: "Pal", attributes: [.nameString]),
            EntityDescription(
              name: "Hold", relationships: [toPal("pal")], objectClass: Holder.self),
          ]
        }),
      ClassCase(
        name: "sub-entity of an unrelated class", entity: "Leaf", key: nil,
        mentions: ["Leaf", "Plain", "Trunk", "Root"],
        entities: {
          [
            EntityDescription(name: "Root", attributes: [.nameString], objectClass: Trunk.self),
            EntityDescription(name: "Leaf", parent: "Root", objectClass: Plain.self),
          ]
        }),
      ClassCase(
        name: "generic sub-entity of a typed entity", entity: "Leaf", key: nil,
        mentions: ["Leaf", "ManagedObject", "Trunk", "Root"],
        entities: {
          [
            EntityDescription(name: "Root", attributes: [.nameString], objectClass: Trunk.self),
            EntityDescription(name: "Leaf", parent: "Root"),
          ]
        }),
    ]
  }

  /// A model with a bad name or count, and what the error must say.
  struct NameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let kind: ObjectGraphError.Kind
    let entity: String
    let key: String?
    let value: String
    let mentions: String
    let entities: @Sendable () -> [EntityDescription]

    var testDescription: String { name }

    private static func entityNamed(_ name: String) -> NameCase {
      NameCase(
        name: "entity \"\(name)\"", kind: .invalidName, entity: "", key: nil, value: "\"\(name)\"",
        mentions: name.isEmpty
          ? "an entity name is empty" : "the entity name '\(name)' contains '.' or '/'",
        entities: { [EntityDescription(name: name, attributes: [.nameString])] })
    }

    private static func attributeNamed(_ name: String) -> NameCase {
      NameCase(
        name: "attribute \"\(name)\"", kind: .invalidName, entity: "Shelf", key: name,
        value: "\"\(name)\"",
        mentions: name.isEmpty
          ? "a property name is empty in entity Shelf"
          : "the property name '\(name)' contains '.' or '/'",
        entities: {
          [
            EntityDescription(
              name: "Shelf", attributes: [AttributeDescription(name: name, type: .string)])
          ]
        })
    }

    private static func relationshipNamed(_ name: String) -> NameCase {
      NameCase(
        name: "relationship \"\(name)\"", kind: .invalidName, entity: "Shelf", key: name,
        value: "\"\(name)\"",
        mentions: name.isEmpty
          ? "a property name is empty in entity Shelf"
          : "the property name '\(name)' contains '.' or '/'",
        entities: {
          [
            EntityDescription(
              name: "Shelf",
              relationships: [
                RelationshipDescription(name: name, destination: "Shelf", inverse: .noInverse)
              ])
          ]
        })
    }

    private static func counts(_ minimum: Int, _ maximum: Int, _ problem: String) -> NameCase {
      NameCase(
        name: "counts \(minimum)...\(maximum)", kind: .invalidCount, entity: "Shelf", key: "books",
        value: "\(minimum)...\(maximum)",
        mentions: "Shelf.books: minCount \(minimum) and maxCount \(maximum): \(problem)",
        entities: {
          [
            EntityDescription(
              name: "Shelf",
              relationships: [
                RelationshipDescription(
                  name: "books", destination: "Shelf", inverse: .noInverse, toMany: true,
                  minCount: minimum, maxCount: maximum)
              ])
          ]
        })
    }

    static let all: [NameCase] =
      ["", "a.b", "a/b", ".", "/"].map(entityNamed) + ["", "a.b", "a/b"].map(attributeNamed)
      + ["", "a.b", "a/b"].map(relationshipNamed) + [
        counts(-1, 0, "a count cannot be negative"),
        counts(0, -1, "a count cannot be negative"),
        counts(-3, -1, "a count cannot be negative"),
        counts(3, 2, "the minimum is above the maximum"),
      ]
  }
}

@Suite struct ModelValidation {
  @Test(arguments: ClassCase.all)
  func classDisagrees(_ row: ClassCase) {
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(entities: row.entities())
    }
    #expect(error?.kind == .invalidClass)
    #expect(error?.entity == row.entity)
    #expect(error?.key == row.key)
    for mention in row.mentions {
      #expect(
        error?.description.contains(mention) == true, "\(mention) in \(error?.description ?? "")")
    }
  }

  @Test func wrapperContradictingItsType() {
    let typed = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(types: [Pal.self, Muddled.self])
    }
    let described = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(entities: [
        palEntity,
        EntityDescription(
          name: "Mixed", relationships: [toPal("pals", toMany: true)], objectClass: Muddled.self),
      ])
    }
    for (error, entity) in [(typed, "Muddled"), (described, "Mixed")] {
      #expect(error?.kind == .invalidClass)
      #expect(error?.entity == entity)
      #expect(error?.key == "pals")
      #expect(
        error?.description
          == "\(entity).pals: relationship 'pals' says ordered: true but its type Set<Pal> is not "
          + "ordered")
    }
  }

  @Test func classesThatAgreeBuild() throws {
    let model = try ObjectModel(entities: [
      palEntity,
      EntityDescription(name: "Hold", relationships: [toPal("pal")], objectClass: Holder.self),
      EntityDescription(
        name: "Group", relationships: [toPal("pals", toMany: true)], objectClass: Crowd.self),
      EntityDescription(
        name: "Line", relationships: [toPal("pals", toMany: true, ordered: true)],
        objectClass: Queue.self),
      EntityDescription(
        name: "Tally",
        attributes: [AttributeDescription(name: "count", type: .int16, defaultValue: Int16(3))],
        objectClass: Tallier.self),
      EntityDescription(
        name: "Note", attributes: [AttributeDescription(name: "note", type: .string)],
        objectClass: Memo.self),
      EntityDescription(name: "Root", attributes: [.nameString], objectClass: Trunk.self),
      EntityDescription(
        name: "Leaf", parent: "Root",
        attributes: [AttributeDescription(name: "rank", type: .int, defaultValue: 0)],
        objectClass: Branch.self),
    ])
    let context = ObjectContext(model: model)
    let pal = context.insert(Pal.self)
    let holder = context.insert(Holder.self)
    holder.pal = pal
    let queue = context.insert(Queue.self)
    queue.pals = [pal]
    let crowd = context.insert(Crowd.self)
    crowd.pals = [pal]
    #expect(try holder.one("pal") === pal)
    #expect(try queue.list("pals") == [pal])
    #expect(holder.entity.name == "Hold" && crowd.entity.name == "Group")
    #expect(context.insert(Tallier.self).count == 3)
    let leaf = context.insert(Branch.self)
    leaf.name = "leaf"
    leaf.rank = 2
    #expect(leaf.entity.name == "Leaf" && leaf.entity.parent?.name == "Root")
    #expect(try leaf.value(forKey: "name") as? String == "leaf")
    #expect(model.entity(for: Trunk.self)?.name == "Root")
  }

  @Test func aClassWithoutWrappersServesSeveralEntities() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(name: "Red", attributes: [.nameString], objectClass: Plain.self),
      EntityDescription(name: "Blue", attributes: [.nameString], objectClass: Plain.self),
      EntityDescription(name: "Green", attributes: [.nameString], objectClass: Pal.self),
    ])
    #expect(model.entity(for: Plain.self) == nil)
    #expect(model.entity(for: Pal.self)?.name == "Green")
    let context = ObjectContext(model: model)
    let red = try context.make("Red", "r")
    let blue = try context.make("Blue", "b")
    #expect(red is Plain && blue is Plain)
    #expect(red.entity.name == "Red" && blue.entity.name == "Blue")
    #expect(red.objectID.entityName == "Red")
    for model in [model, Dynamic.cascadeCycle] {
      #expect(model.entity(for: TrackedObject.self) == nil)
    }
    #expect(try ObjectContext(model: Dynamic.cascadeCycle).make("B", "b") is TrackedObject)
  }

  @Test func insertingASharedClassByTypeStops() async {
    await #expect(processExitsWith: .failure) {
      let model = try! ObjectModel(entities: [
        EntityDescription(name: "Red", objectClass: TrackedObject.self),
        EntityDescription(name: "Blue", objectClass: TrackedObject.self),
      ])
      _ = ObjectContext(model: model).insert(TrackedObject.self)
    }
  }

  @Test(arguments: NameCase.all)
  func badNameOrCount(_ row: NameCase) {
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try ObjectModel(entities: row.entities())
    }
    #expect(error?.kind == row.kind)
    #expect(error?.entity == row.entity)
    #expect(error?.key == row.key)
    #expect(error?.value == row.value)
    #expect(error?.description.contains(row.mentions) == true, "\(error?.description ?? "")")
  }

  @Test func countsWithoutAMaximum() throws {
    for (minimum, maximum) in [(2, 0), (2, 2), (0, 0), (0, 1)] {
      let model = try ObjectModel(entities: [
        EntityDescription(
          name: "Shelf",
          relationships: [
            RelationshipDescription(
              name: "books", destination: "Shelf", inverse: .noInverse, toMany: true,
              minCount: minimum, maxCount: maximum)
          ])
      ])
      let books = try #require(model.entity(named: "Shelf")?.relationships.first)
      #expect((books.minCount, books.maxCount) == (minimum, maximum))
    }
  }

  // MARK: Two models of the same classes

  @Test func objectsOfTwoModelsOfTheSameClasses() throws {
    let twin = try ObjectModel(types: [BookCategory.self, Book.self, Page.self])
    #expect(twin.entity(for: Book.self) !== BookStore.model.entity(for: Book.self))
    let s = BookStore.scenario()
    let foreignPage = s.context.insert(Page.self)
    let context = ObjectContext(model: twin)
    let book = context.insert(Book.self)
    let page = context.insert(Page.self)
    let category = context.insert(BookCategory.self)
    let outside: [ManagedObject] = [s.fiction, s.books[0], foreignPage]
    var errors: [ObjectGraphError?] = []
    errors.append(
      expectGraphError(
        .otherContext, entity: "Book", key: "category", value: "BookCategory#1", in: context,
        extra: outside
      ) {
        try book.setValue(s.fiction, forKey: "category")
      })
    errors.append(
      expectGraphError(
        .otherContext, entity: "Book", key: "pages", value: "Page#6", in: context, extra: outside
      ) {
        try book.mutableOrderedSet(forKey: "pages").append(foreignPage)
      })
    errors.append(
      expectGraphError(
        .otherContext, entity: "Page", key: "book", value: "Book#3", in: context, extra: outside
      ) {
        try page.setValue(s.books[0], forKey: "book")
      })
    errors.append(
      expectGraphError(
        .otherContext, entity: "BookCategory", key: "books", value: "Book#3", in: context,
        extra: outside
      ) {
        try category.setValue([s.books[0]], forKey: "books")
      })
    errors.append(
      expectGraphError(
        .otherContext, entity: "BookCategory", key: "books", value: "Book#1", in: s.context,
        extra: [book, page, category]
      ) {
        try s.fiction.mutableSet(forKey: "books").insert(book)
      })
    for error in errors {
      let text = error?.description ?? ""
      #expect(text.contains("belongs to another context"), "\(text)")
      #expect(!text.contains(", not a "), "\(text)")
    }
    #expect(book.category == nil && s.fiction.books == [s.books[0], s.books[1]])
  }
}
