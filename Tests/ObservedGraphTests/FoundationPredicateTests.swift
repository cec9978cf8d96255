import Foundation
import Testing

@testable import ObservedGraph

// A small typed model for converting Foundation's `#Predicate` and `SortDescriptor`: optional
// attributes of several types, a to-one and a to-many relationship, and a computed property.

final class FPShelf: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var floor: Int = 0
  @Relationship(inverse: "shelf") var volumes: Set<FPVolume>
}

final class FPVolume: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var subtitle: String?
  @Attribute var price: Double = 0
  @Attribute var stock: Int = 0
  @Attribute var rating: Int?
  @Attribute var isSigned: Bool = false
  @Attribute var isLent: Bool?
  @Relationship(inverse: "volumes") var shelf: FPShelf?
  @Relationship(inverse: "volume") var notes: [FPNote]

  /// Not a modelled property: converting a predicate or sort that reads it throws.
  var shout: String { title.uppercased() }
  /// Not modelled either: a predicate cannot use it, a sort takes it for `shelf.name`.
  var shelfName: String? { shelf?.name }
}

final class FPNote: ManagedObject {
  @Attribute var text: String = ""
  @Attribute var page: Int = 0
  @Relationship(inverse: "notes") var volume: FPVolume?
}

/// Volumes with nil and present optionals, non-ASCII and canonically equivalent titles, shelves
/// and notes of several sizes.
struct FPLibrary {
  static let model = try! ObjectModel(types: [FPShelf.self, FPVolume.self, FPNote.self])

  static let precomposed = "Caf\u{E9}"  // é
  static let decomposed = "Cafe\u{301}"  // e + combining acute

  let context: ObjectContext
  let shelves: [FPShelf]
  let volumes: [FPVolume]

  init() {
    context = ObjectContext(model: Self.model)
    let context = context
    func shelf(_ name: String, floor: Int) -> FPShelf {
      let shelf = context.insert(FPShelf.self)
      shelf.name = name
      shelf.floor = floor
      return shelf
    }
    let ground = shelf("Ground", floor: 0)
    let upper = shelf("\u{C9}tage", floor: 2)
    let empty = shelf("Empty", floor: 1)
    shelves = [ground, upper, empty]
    typealias Row = (
      title: String, subtitle: String?, price: Double, stock: Int, rating: Int?, signed: Bool,
      lent: Bool?, shelf: FPShelf?, notes: [(String, Int)]
    )
    let rows: [Row] = [
      ("Dune", "Book one", 9.5, 3, 5, true, false, ground, [("spice", 1), ("worm", 12)]),
      (Self.precomposed, nil, 12, 0, nil, false, nil, upper, []),
      (Self.decomposed, "", 12.5, 7, 3, false, true, upper, [("Caf\u{E9} au lait", 3)]),
      ("Stra\u{DF}e", "Weg", 20, 1, 4, true, nil, nil, [("x", 40), ("y", 2), ("z", 5)]),
      ("", "empty title", 0, 0, 1, false, false, ground, [("", 0)]),
      ("\u{C9}mile", nil, 15, 12, nil, true, true, nil, []),
      ("dune", "Book two", 11, 2, 2, false, nil, upper, [("worm", 7)]),
    ]
    volumes = rows.map { row in
      let volume = context.insert(FPVolume.self)
      volume.title = row.title
      volume.subtitle = row.subtitle
      volume.price = row.price
      volume.stock = row.stock
      volume.rating = row.rating
      volume.isSigned = row.signed
      volume.isLent = row.lent
      volume.shelf = row.shelf
      volume.notes = row.notes.map { text, page in
        let note = context.insert(FPNote.self)
        note.text = text
        note.page = page
        return note
      }
      return volume
    }
  }
}

/// A `#Predicate` and the fetch predicate it must convert to.
struct FPCase: Sendable, CustomTestStringConvertible {
  let expected: String
  let predicate: Predicate<FPVolume>
  /// Whether the library's volumes give both answers (false for a predicate true or false of
  /// all of them, kept for an edge case such as the empty string).
  let discriminates: Bool
  let sourceLocation: SourceLocation

  init(
    _ expected: String, _ predicate: Predicate<FPVolume>, discriminates: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    self.expected = expected
    self.predicate = predicate
    self.discriminates = discriminates
    self.sourceLocation = sourceLocation
  }

  var testDescription: String { expected }
}

// Captured values.
private let limit = 12.0
private let name: String? = "Dune"
private let subtitle: String? = "Weg"
private let noName: String? = nil
private let titles = ["Dune", FPLibrary.decomposed]
private let ratings: Set<Int> = [3, 4]
private let priceRange = 10.0...15.0

@Suite("Foundation #Predicate conversion")
struct FoundationPredicateTests {
  // Comparisons, constants and captured values.
  static let group0: [FPCase] = [
    FPCase("title == \"Dune\"", #Predicate { $0.title == "Dune" }),
    FPCase("title != \"Dune\"", #Predicate { $0.title != "Dune" }),
    FPCase("price < 12.0", #Predicate { $0.price < limit }),
    FPCase("price <= 12.0", #Predicate { $0.price <= 12 }),
  ]

  // Comparisons, constants and captured values.
  static let group1: [FPCase] = [
    FPCase("price > 12.0", #Predicate { $0.price > 12 }),
    FPCase("stock >= 3", #Predicate { $0.stock >= 3 }),
    FPCase("12.0 > price", #Predicate { 12 > $0.price }),
    FPCase("title == \"Caf\u{E9}\"", #Predicate { $0.title == "Caf\u{E9}" }),
  ]

  // Comparisons, constants and captured values.
  static let group2: [FPCase] = [
    FPCase("title < \"Caf\u{E9}\"", #Predicate { $0.title < "Caf\u{E9}" }),
    FPCase("title == \"Dune\"", #Predicate { $0.title == name! }),
    FPCase("subtitle == \"Weg\"", #Predicate { $0.subtitle == subtitle }),
    FPCase("subtitle == nil", #Predicate { $0.subtitle == noName }),
  ]

  // Comparisons, constants and captured values.
  static let group3: [FPCase] = [
    FPCase("isSigned == TRUE", #Predicate { $0.isSigned }),
    FPCase("isSigned == FALSE", #Predicate { $0.isSigned == false }),
  ]

  // nil.
  static let group4: [FPCase] = [
    FPCase("subtitle == nil", #Predicate { $0.subtitle == nil }),
    FPCase("subtitle != nil", #Predicate { $0.subtitle != nil }),
    FPCase("rating == 3", #Predicate { $0.rating == 3 }),
    FPCase("rating != 3", #Predicate { $0.rating != 3 }),
  ]

  // nil.
  static let group5: [FPCase] = [
    FPCase("isLent == TRUE", #Predicate { $0.isLent == true }),
    FPCase("shelf == nil", #Predicate { $0.shelf == nil }),
    FPCase(
      "subtitle != nil AND subtitle BEGINSWITH \"Book\"",
      #Predicate { $0.subtitle != nil && $0.subtitle!.starts(with: "Book") }),
  ]

  // Logic.
  static let group6: [FPCase] = [
    FPCase(
      "(price < 12.0 AND NOT title == \"Dune\") OR subtitle == nil",
      #Predicate { $0.price < limit && !($0.title == "Dune") || $0.subtitle == nil }),
    FPCase(
      "price < 12.0 AND (title == \"Dune\" OR stock > 2)",
      #Predicate { $0.price < limit && ($0.title == "Dune" || $0.stock > 2) }),
    FPCase(
      "NOT (isSigned == TRUE AND stock > 2)", #Predicate { !($0.isSigned && $0.stock > 2) }),
    FPCase(
      "(price > 12.0 AND stock > 2) OR (NOT price > 12.0 AND isSigned == TRUE)",
      #Predicate { $0.price > 12 ? $0.stock > 2 : $0.isSigned }),
  ]

  // Key paths through to-one relationships.
  static let group7: [FPCase] = [
    FPCase("shelf.name == \"Ground\"", #Predicate { $0.shelf?.name == "Ground" }),
    FPCase("shelf.name != \"Ground\"", #Predicate { $0.shelf?.name != "Ground" }),
    FPCase("shelf.name == nil", #Predicate { $0.shelf?.name == nil }),
    FPCase(
      "shelf != nil AND shelf.floor > 1", #Predicate { $0.shelf.flatMap { $0.floor > 1 } ?? false }),
  ]

  // Key paths through to-one relationships.
  static let group8: [FPCase] = [
    FPCase(
      "(shelf != nil AND shelf.floor > 1) OR shelf == nil",
      #Predicate { $0.shelf.flatMap { $0.floor > 1 } ?? true }),
    FPCase(
      "shelf != nil AND shelf.name != \"Ground\"",
      #Predicate { $0.shelf.flatMap { $0.name != "Ground" } == true }),
  ]

  // ??.
  static let group9: [FPCase] = [
    FPCase(
      "(subtitle != nil AND subtitle == \"Weg\") OR subtitle == nil",
      #Predicate { ($0.subtitle ?? "Weg") == "Weg" }),
    FPCase(
      "rating != nil AND rating > 2",
      #Predicate { ($0.rating ?? 0) > 2 }),
    FPCase(
      "subtitle != nil AND subtitle == \"Weg\"", #Predicate { ($0.subtitle ?? "x") == "Weg" }),
    FPCase("isLent == TRUE", #Predicate { $0.isLent ?? false }),
    FPCase("isLent == TRUE OR isLent == nil", #Predicate { $0.isLent ?? true }),
  ]

  // Strings.
  static let group10: [FPCase] = [
    FPCase("title CONTAINS \"un\"", #Predicate { $0.title.contains("un") }),
    FPCase("title CONTAINS \"e\"", #Predicate { $0.title.contains("e") }),
    FPCase("title CONTAINS \"\"", #Predicate { $0.title.contains("") }, discriminates: false),
    FPCase("title BEGINSWITH \"Caf\u{E9}\"", #Predicate { $0.title.starts(with: "Caf\u{E9}") }),
  ]

  // Strings.
  static let group11: [FPCase] = [
    FPCase(
      "title BEGINSWITH \"Cafe\"", #Predicate { $0.title.starts(with: "Cafe") },
      discriminates: false),
    FPCase("title == \"\"", #Predicate { $0.title.isEmpty }),
    FPCase(
      "subtitle != nil AND subtitle == \"\"", #Predicate { $0.subtitle?.isEmpty == true }),
    FPCase(
      "shelf != nil AND shelf.name CONTAINS \"tage\"",
      #Predicate { $0.shelf?.name.contains("tage") == true }),
  ]

  // To-many relationships.
  static let group12: [FPCase] = [
    FPCase("ANY notes.page > 10", #Predicate { $0.notes.contains { $0.page > 10 } }),
    FPCase("ANY notes.page > 10", #Predicate { $0.notes.contains { 10 < $0.page } }),
    FPCase("ALL notes.page > 2", #Predicate { $0.notes.allSatisfy { $0.page > 2 } }),
    FPCase(
      "ANY notes.page > 10 OR ANY notes.text == \"worm\"",
      #Predicate { $0.notes.contains { $0.page > 10 || $0.text == "worm" } }),
  ]

  // To-many relationships.
  static let group13: [FPCase] = [
    FPCase(
      "ALL notes.page > 2 AND ALL notes.text != \"x\"",
      #Predicate { $0.notes.allSatisfy { $0.page > 2 && $0.text != "x" } }),
    FPCase("NOT ALL notes.page > 2", #Predicate { $0.notes.contains { !($0.page > 2) } }),
    FPCase(
      "ALL notes.text != \"worm\"", #Predicate { $0.notes.allSatisfy { $0.text != "worm" } }),
    FPCase(
      "NOT ANY notes.text == \"worm\"", #Predicate { !$0.notes.contains { $0.text == "worm" } }),
  ]

  // To-many relationships.
  static let group14: [FPCase] = [
    FPCase(
      "ANY notes.text CONTAINS \"a\"", #Predicate { $0.notes.contains { $0.text.contains("a") } }),
    FPCase(
      "ANY notes.page > stock",
      #Predicate { volume in volume.notes.contains { note in note.page > volume.stock } }),
    FPCase("notes.@count > 1", #Predicate { $0.notes.count > 1 }),
    FPCase("notes.@count == 0", #Predicate { $0.notes.isEmpty }),
  ]

  // To-many relationships.
  static let group15: [FPCase] = [
    FPCase("NOT notes.@count == 0", #Predicate { !$0.notes.isEmpty }),
    FPCase(
      "shelf.volumes.@count != nil AND shelf.volumes.@count > 2",
      #Predicate { ($0.shelf?.volumes.count ?? 0) > 2 }),
  ]

  // IN and ranges.
  static let group16: [FPCase] = [
    FPCase(
      "title IN {\"Dune\", \"Cafe\u{301}\"}", #Predicate { titles.contains($0.title) }),
    FPCase("stock IN {1, 2, 3}", #Predicate { [1, 2, 3].contains($0.stock) }),
    FPCase("price BETWEEN {10.0, 15.0}", #Predicate { (10.0...15.0).contains($0.price) }),
    FPCase("price BETWEEN {10.0, 15.0}", #Predicate { priceRange.contains($0.price) }),
  ]

  // IN and ranges.
  static let group17: [FPCase] = [
    FPCase(
      "price >= 10.0 AND price < 15.0", #Predicate { (10.0..<15.0).contains($0.price) }),
    FPCase("TRUEPREDICATE", #Predicate { _ in true }, discriminates: false),
  ]

  static let supported: [FPCase] =
    group0 + group1 + group2 + group3 + group4 + group5 + group6 + group7 + group8 + group9
    + group10 + group11 + group12 + group13 + group14 + group15 + group16 + group17

  @Test(arguments: supported)
  func converts(_ example: FPCase) throws {
    let library = FPLibrary()
    let converted = try FetchPredicate(example.predicate, context: library.context)
    #expect(converted.description == example.expected, sourceLocation: example.sourceLocation)
    try converted.validate(for: FPLibrary.model.entity(for: FPVolume.self)!)
    var answers: Set<Bool> = []
    for volume in library.volumes {
      let swift = try example.predicate.evaluate(volume)
      let fetch = try converted.evaluate(with: volume)
      #expect(
        fetch == swift, "\(volume.title.unicodeScalars.map(\.value)): \(converted)",
        sourceLocation: example.sourceLocation)
      answers.insert(swift)
    }
    if example.discriminates {
      // The library tells the objects apart, so that agreeing means something.
      #expect(answers.count == 2, "\(answers)", sourceLocation: example.sourceLocation)
    }
  }
}

@Suite("Foundation #Predicate conversion with entity inheritance")
struct FoundationPredicateObjectTests {
  @Test func inheritedProperties() throws {
    let context = ObjectContext(model: League.model)
    let ada = context.insert(Player.self)
    ada.firstName = "Ada"
    ada.email = "ada@example.com"
    let bob = context.insert(Player.self)
    bob.firstName = "Bob"
    let onPlayer = try FetchPredicate(
      #Predicate<Player> { $0.firstName == "Ada" && $0.teams.isEmpty }, context: context)
    #expect(onPlayer.description == "firstName == \"Ada\" AND teams.@count == 0")
    let onPerson = try FetchPredicate(#Predicate<Person> { $0.email != nil }, model: League.model)
    #expect(onPerson.description == "email != nil")
    #expect(try onPerson.evaluate(with: ada))
    #expect(try !onPerson.evaluate(with: bob))
    let sort = try FetchSort(SortDescriptor(\Player.lastName, order: .reverse), context: context)
    #expect(sort.keyPath == "lastName" && !sort.ascending)
  }
}
