import Foundation
import ObservedGraph

// The seeds' three models: BookStore (typed subclasses, ordered pages), League Manager (entity
// inheritance, many-to-many) and Inventory (generic objects only).

// MARK: BookStore

final class BookCategory: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "category") var books: Set<Book>
}

final class Book: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var price: Double = 0
  @Attribute var isbn: String?
  @Relationship(inverse: "books") var category: BookCategory?
  @Relationship(inverse: "book", deleteRule: .cascade, ordered: true) var pages: [Page]
}

final class Page: ManagedObject {
  @Attribute var text: String = ""
  @Attribute var number: Int32 = 0
  @Relationship(inverse: "pages") var book: Book?
}

enum BookStore {
  static let model = try! ObjectModel(types: [BookCategory.self, Book.self, Page.self])

  /// The seeds' scenario: three books in two categories.
  struct Scenario {
    let context: ObjectContext
    let fiction: BookCategory
    let science: BookCategory
    let books: [Book]
  }

  static func scenario(participatesInSwiftObservation: Bool = true) -> Scenario {
    let context = ObjectContext(
      model: model, participatesInSwiftObservation: participatesInSwiftObservation)
    let fiction = context.insert(BookCategory.self)
    fiction.name = "Fiction"
    let science = context.insert(BookCategory.self)
    science.name = "Science"
    let titles = [("The first book", 10.0), ("The second book", 15.0), ("The third book", 12.0)]
    let books = titles.enumerated().map { index, entry in
      let book = context.insert(Book.self)
      book.title = entry.0
      book.price = entry.1
      book.category = index < 2 ? fiction : science
      return book
    }
    return Scenario(context: context, fiction: fiction, science: science, books: books)
  }
}

// MARK: League Manager

class Person: ManagedObject {
  override class var isAbstract: Bool { self == Person.self }
  @Attribute var firstName: String = ""
  @Attribute var lastName: String = ""
  @Attribute var email: String?
  @Attribute var dateOfBirth: Date?
}

final class Player: Person {
  @Relationship(inverse: "players") var teams: Set<Team>
}

final class Team: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var uniformColor: String = "Green"
  @Relationship(inverse: "teams") var players: Set<Player>
}

enum League {
  static let model = try! ObjectModel(types: [Team.self, Person.self, Player.self])
}

// MARK: Inventory (generic objects)

enum Inventory {
  static let entities: [EntityDescription] = [
    EntityDescription(
      name: "Asset",
      attributes: [AttributeDescription(name: "label", type: .string, defaultValue: "")],
      relationships: [
        RelationshipDescription(
          name: "inventories", destination: "Inventory", inverse: "asset", toMany: true,
          deleteRule: .cascade)
      ]),
    EntityDescription(
      name: "Location",
      attributes: [AttributeDescription(name: "label", type: .string, defaultValue: "")],
      relationships: [
        RelationshipDescription(
          name: "inventories", destination: "Inventory", inverse: "location", toMany: true,
          deleteRule: .cascade)
      ]),
    EntityDescription(
      name: "Inventory",
      attributes: [
        AttributeDescription(name: "count", type: .int16, defaultValue: Int16(0)),
        AttributeDescription(name: "date", type: .date, isOptional: true),
      ],
      relationships: [
        RelationshipDescription(name: "asset", destination: "Asset", inverse: "inventories"),
        RelationshipDescription(name: "location", destination: "Location", inverse: "inventories"),
      ]),
  ]
  static let model = try! ObjectModel(entities: entities)
}

// MARK: Trees

/// A tree node whose deletion deletes its subtree: the shape of the cascade the benchmark's tree
/// row deletes.
final class TreeNode: ManagedObject {
  @Attribute var label: String = ""
  @Attribute var weight: Int = 0
  @Relationship(inverse: "parent", deleteRule: .cascade) var children: Set<TreeNode>
  @Relationship(inverse: "children") var parent: TreeNode?
}

enum Trees {
  static let model = try! ObjectModel(types: [TreeNode.self])
}
