import Foundation
import Testing

@testable import ObservedGraph

/// Model version hashes: SHA-256 checked against its published test vectors, a hash that does not
/// depend on the process or the order of declaration, changes to what a store holds that change
/// it, changes that do not, and the differences between two models named entity by entity and
/// property by property.
@Suite struct ModelVersionTests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func sha256MatchesItsTestVectors(message: String, digest: String) {
    #expect(SHA256.hex(Array(message.utf8)) == digest)
  }

  /// An original name is not kept in the wrapper: an attribute still adds its value, a 32-bit
  /// slot and two flags to each object, and the name does not change the hash.
  @Test func anOriginalNameCostsAnObjectNothing() throws {
    #expect(MemoryLayout<Attribute<Double>>.size == 14)
    #expect(MemoryLayout<Attribute<Bool>>.size == 10)
    #expect(MemoryLayout<Attribute<String>>.size == 22)
    let plain = try ObjectModel(entities: [
      EntityDescription(
        name: "Note",
        attributes: [AttributeDescription(name: "text", type: .string, isOptional: true)])
    ])
    let renamed = try ObjectModel(entities: [
      EntityDescription(
        name: "Note",
        attributes: [
          AttributeDescription(name: "text", type: .string, isOptional: true, originalName: "body")
        ])
    ])
    #expect(plain.versionHash == renamed.versionHash)
    let json = try JSONEncoder().encode(renamed.entities[0].attributes[0])
    #expect(try JSONDecoder().decode(AttributeDescription.self, from: json).originalName == "body")
  }

  /// A name of the previous version: renamed (the entity that gives it as its original name
  /// wins over a new entity of that name), kept, or gone.
  @Test func theCurrentNameOfAnEntityOfThePreviousVersion() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(name: "Notebook", originalName: "Folder"),
      EntityDescription(name: "Folder"),
      EntityDescription(name: "Tag"),
      EntityDescription(name: "Label", originalName: "Sticker"),
    ])
    #expect(model.currentEntityName(for: "Folder") == "Notebook")
    #expect(model.currentEntityName(for: "Tag") == "Tag")
    #expect(model.currentEntityName(for: "Sticker") == "Label")
    #expect(model.currentEntityName(for: "Label") == nil, "Label was Sticker: no earlier Label")
    #expect(model.currentEntityName(for: "Gone") == nil)
    let store = InMemoryStore(model: model)
    #expect(store.currentEntityName(for: "Label") == "Label", "a name the model has is its own")
    #expect(store.currentEntityName(for: "Sticker") == "Label")
    let context = PersistentContainer(store: store).viewContext
    let archived = ObjectID(storeIdentifier: store.identifier, entityName: "Sticker", key: 4)
    #expect(
      context.objectID(forURIRepresentation: archived.uriRepresentation)
        == ObjectID(storeIdentifier: store.identifier, entityName: "Label", key: 4))
    #expect(context.objectID(forURIRepresentation: URL(string: "https://example.com")!) == nil)
  }

  @Test func sha256OfAMillionBytes() {
    #expect(
      SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  /// A small library model; `change` edits its descriptions before the model is built.
  static func library(_ change: (inout [EntityDescription]) -> Void = { _ in }) throws
    -> ObjectModel
  {
    var entities = [
      EntityDescription(
        name: "Book",
        attributes: [
          AttributeDescription(name: "title", type: .string, defaultValue: ""),
          AttributeDescription(name: "price", type: .double, defaultValue: 0.0),
        ],
        relationships: [
          RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books")
        ]),
      EntityDescription(
        name: "Shelf",
        attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
        relationships: [
          RelationshipDescription(
            name: "books", destination: "Book", inverse: "shelf", toMany: true,
            deleteRule: .cascade)
        ]),
    ]
    change(&entities)
    return try ObjectModel(entities: entities)
  }

  /// Rebuilds `entity` with `attributes` and `relationships` in place of its own.
  static func replacing(
    _ entity: EntityDescription, attributes: [AttributeDescription]? = nil,
    relationships: [RelationshipDescription]? = nil
  ) -> EntityDescription {
    EntityDescription(
      name: entity.name, parent: entity.parentName, isAbstract: entity.isAbstract,
      attributes: attributes ?? entity.attributes,
      relationships: relationships ?? entity.relationships)
  }

  /// Pinned: the hash is SHA-256 of the version lines, not a per-process `Hasher` value, so it is
  /// the same in every process (a changed line format changes this literal on purpose).
  @Test func theHashIsTheSameInEveryProcessAndEveryOrder() throws {
    let model = try Self.library()
    #expect(
      model.versionLines == [
        "Book entity parent:- abstract:false",
        "Book price attribute double optional:false transient:false",
        "Book shelf relationship Shelf inverse:books to-one ordered:false optional:true count:0-0",
        "Book title attribute string optional:false transient:false",
        "Shelf books relationship Book inverse:shelf to-many ordered:false optional:true count:0-0",
        "Shelf entity parent:- abstract:false",
        "Shelf name attribute string optional:false transient:false",
      ])
    #expect(model.versionHash == SHA256.hex(Array(model.versionLines.joined(separator: "\n").utf8)))
    #expect(model.versionHash.count == 64)
    let reordered = try Self.library { entities in
      entities.reverse()
      entities[1] = Self.replacing(entities[1], attributes: entities[1].attributes.reversed())
    }
    #expect(reordered.versionHash == model.versionHash)
    #expect(reordered.differences(from: model).isEmpty)
  }

  @Test func whatAStoreHoldsChangesTheHash() throws {
    let model = try Self.library()
    let changes: [(String, (inout [EntityDescription]) -> Void)] = [
      (
        "a type",
        {
          $0[0] = Self.replacing(
            $0[0],
            attributes: [
              AttributeDescription(name: "title", type: .string, defaultValue: ""),
              AttributeDescription(name: "price", type: .decimal, defaultValue: Decimal(0)),
            ])
        }
      ),
      (
        "an optionality",
        {
          $0[1] = Self.replacing(
            $0[1],
            attributes: [
              AttributeDescription(name: "name", type: .string, isOptional: true)
            ])
        }
      ),
      ("a new entity", { $0.append(EntityDescription(name: "Author")) }),
      (
        "an ordered to-many",
        {
          $0[1] = Self.replacing(
            $0[1],
            relationships: [
              RelationshipDescription(
                name: "books", destination: "Book", inverse: "shelf", toMany: true, ordered: true)
            ])
        }
      ),
    ]
    for (what, change) in changes {
      #expect(try Self.library(change).versionHash != model.versionHash, "\(what)")
    }
  }

  @Test func defaultsAndDeleteRulesLeaveTheHash() throws {
    let model = try Self.library()
    let changed = try Self.library { entities in
      entities[0] = Self.replacing(
        entities[0],
        attributes: [
          AttributeDescription(name: "title", type: .string, defaultValue: "Untitled"),
          AttributeDescription(name: "price", type: .double, defaultValue: 9.5),
        ])
      entities[1] = Self.replacing(
        entities[1],
        relationships: [
          RelationshipDescription(
            name: "books", destination: "Book", inverse: "shelf", toMany: true, deleteRule: .deny)
        ])
    }
    #expect(changed.versionHash == model.versionHash)
  }

  @Test func differencesNameEachEntityAndProperty() throws {
    let model = try Self.library()
    let other = try Self.library { entities in
      entities[0] = Self.replacing(
        entities[0],
        attributes: [
          AttributeDescription(name: "title", type: .string, defaultValue: ""),
          AttributeDescription(name: "price", type: .decimal, defaultValue: Decimal(0)),
          AttributeDescription(name: "isbn", type: .string, isOptional: true),
        ])
      entities.append(EntityDescription(name: "Author"))
    }
    let differences = model.differences(from: other)
    #expect(
      differences.map(\.description) == [
        "Author: only there",
        "Book.isbn: only there",
        "Book.price: attribute double optional:false transient:false here, "
          + "attribute decimal optional:false transient:false there",
      ])
    #expect(differences[2].entity == "Book" && differences[2].property == "price")
    #expect(other.differences(from: model).map(\.description).first == "Author: only here")
    #expect(model.differences(from: model).isEmpty)
  }
}
