import Foundation
import ObservedGraph

/// The model and the objects both fuzz targets work on: books in categories, with tags, and an
/// attribute of every stored type.
public enum FuzzLibrary {
  /// Category (name, rank, books), Book (an attribute of each type, category, tags) and Tag
  /// (name, books: an ordered many-to-many).
  public static let model: ObjectModel = {
    do {
      return try ObjectModel(entities: [
        EntityDescription(
          name: "Category",
          attributes: [
            AttributeDescription(name: "name", type: .string, defaultValue: ""),
            AttributeDescription(name: "rank", type: .int, defaultValue: 0),
          ],
          relationships: [
            RelationshipDescription(
              name: "books", destination: "Book", inverse: "category", toMany: true)
          ]),
        EntityDescription(
          name: "Book",
          attributes: [
            AttributeDescription(name: "serial", type: .int, defaultValue: 0),
            AttributeDescription(name: "title", type: .string, defaultValue: ""),
            AttributeDescription(name: "subtitle", type: .string, isOptional: true),
            AttributeDescription(name: "price", type: .double, defaultValue: 0.0),
            AttributeDescription(name: "pages", type: .int32, defaultValue: Int32(0)),
            AttributeDescription(name: "published", type: .date, isOptional: true),
            AttributeDescription(name: "signed", type: .bool, defaultValue: false),
            AttributeDescription(name: "cost", type: .decimal, defaultValue: Decimal(0)),
            AttributeDescription(name: "id", type: .uuid, isOptional: true),
            AttributeDescription(name: "cover", type: .data, isOptional: true),
            AttributeDescription(name: "site", type: .url, isOptional: true),
          ],
          relationships: [
            RelationshipDescription(name: "category", destination: "Category", inverse: "books"),
            RelationshipDescription(
              name: "tags", destination: "Tag", inverse: "books", toMany: true),
          ]),
        EntityDescription(
          name: "Tag",
          attributes: [AttributeDescription(name: "name", type: .string, defaultValue: "")],
          relationships: [
            RelationshipDescription(
              name: "books", destination: "Book", inverse: "tags", toMany: true, ordered: true)
          ]),
      ])
    } catch {
      fatalError("the fuzz model is invalid: \(error)")
    }
  }()

  /// Titles that test what string comparisons do: case, diacritics, composed and decomposed
  /// forms, "ß", wildcards, an empty string, text beyond ASCII.
  static let titles = [
    "Dune", "dune", "Café", "Cafe\u{301}", "Straße", "STRASSE", "", "a%b_c", "100% *real*",
    "Ünïcödé 📚", "the end", "Zebra",
  ]

  /// Fills a context with three categories, twelve books and three tags, then saves.
  public static func fill(_ context: ObjectContext) throws {
    let categories = try ["Fiction", "fiction", "Poetry"].enumerated().map { index, name in
      let category = try context.insertObject(forEntityName: "Category")
      try category.setValue(name, forKey: "name")
      try category.setValue(index - 1, forKey: "rank")
      return category
    }
    let tags = try ["new", "old", "red"].map { name in
      let tag = try context.insertObject(forEntityName: "Tag")
      try tag.setValue(name, forKey: "name")
      return tag
    }
    for (index, title) in titles.enumerated() {
      let book = try context.insertObject(forEntityName: "Book")
      try book.setValue(index, forKey: "serial")
      try book.setValue(title, forKey: "title")
      try book.setValue(
        index % 3 == 0 ? nil : titles[(index + 5) % titles.count], forKey: "subtitle")
      try book.setValue([0, -1.5, 12, 12.5, 1e300, -0.0][index % 6], forKey: "price")
      try book.setValue(Int32(index * 100 - 300), forKey: "pages")
      try book.setValue(
        index % 4 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(index) * 86_400),
        forKey: "published")
      try book.setValue(index % 2 == 0, forKey: "signed")
      try book.setValue(Decimal(string: ["0", "1.10", "-3", "12.5"][index % 4])!, forKey: "cost")
      try book.setValue(
        index % 5 == 0 ? nil : UUID(uuidString: "00000000-0000-0000-0000-00000000000\(index % 10)"),
        forKey: "id")
      try book.setValue(index % 3 == 1 ? Data([UInt8(index), 0, 255]) : nil, forKey: "cover")
      try book.setValue(
        index % 3 == 2 ? URL(string: "https://example.com/\(index)") : nil, forKey: "site")
      if index % 4 != 3 {
        try book.setValue(categories[index % categories.count], forKey: "category")
      }
      for (tagIndex, tag) in tags.enumerated() where (index >> tagIndex) & 1 == 1 {
        try tag.mutableOrderedSet(forKey: "books").append(book)
      }
    }
    try context.save()
  }
}
