import Foundation
import Testing

@testable import ObservedGraph

// An attribute of every type with probe values, one of a type without (its getter reports its key
// path), and computed properties that read one attribute: most change some value on its way out,
// two are plain aliases.

final class ProbeItem: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var subtitle: String?
  @Attribute var pages: Int = 0
  @Attribute var edition: Int16 = 0
  @Attribute var printing: Int32 = 0
  @Attribute var copies: Int64 = 0
  @Attribute var price: Double = 0
  @Attribute var weight: Float = 0
  @Attribute var cost: Decimal = 0
  @Attribute var published = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var cover = Data()
  @Attribute var isbn = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
  @Attribute var homepage: URL?
  @Attribute var isSigned: Bool = false
  @Attribute var rating: Int?
  @Attribute var tags: [String] = []

  // Each changes at least one probe value, or reads its attribute twice.
  var shortTitle: String { String(title.prefix(40)) }
  var trimmedTitle: String { title.trimmingCharacters(in: .whitespaces) }
  var lowerTitle: String { title.lowercased() }
  var titleOrNone: String { title.isEmpty ? "none" : title }
  var shownSubtitle: String? { subtitle.map { $0.isEmpty ? "-" : $0 } }
  var pagesFromZero: Int { max(0, pages) }
  var pagesBelowAThousand: Int { min(pages, 999) }
  var positiveEdition: Int16 { abs(edition) }
  var evenPrinting: Int32 { printing / 2 * 2 }
  var copiesPlusOne: Int64 { copies &+ 1 }
  var roundedPrice: Double { price.rounded() }
  var wholeWeight: Float { weight.rounded(.down) }
  var costTwice: Decimal { cost * 2 }
  var publishedDay: Date {
    Date(
      timeIntervalSinceReferenceDate: (published.timeIntervalSinceReferenceDate / 86_400)
        .rounded(.down) * 86_400)
  }
  var coverHead: Data { cover.prefix(2) }
  var isbnOrZero: UUID {
    let isbn = isbn
    return isbn.uuidString.hasPrefix("0000")
      ? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) : isbn
  }
  var httpLink: URL? { homepage?.scheme == "https" ? homepage : nil }
  var notSigned: Bool { !isSigned }
  var ratingOrNil: Int? { rating.flatMap { $0 > 0 ? $0 : nil } }
  var firstTags: [String] { Array(tags.prefix(1)) }

  // Aliases: they give every value of their attribute back unchanged.
  var titleAlias: String { title }
  var pagesAlias: Int { pages }
}

@Suite("A typed getter told from a computed property by its values")
struct GetterProbeTests {
  static let model = try! ObjectModel(types: [ProbeItem.self])
  static var entity: EntityDescription { model.entity(for: ProbeItem.self)! }

  struct Case: @unchecked Sendable, CustomTestStringConvertible {
    let keyPath: PartialKeyPath<ProbeItem>
    let name: String
    var testDescription: String { name }
  }

  static let getters: [Case] = [
    Case(keyPath: \.title, name: "title"), Case(keyPath: \.subtitle, name: "subtitle"),
    Case(keyPath: \.pages, name: "pages"), Case(keyPath: \.edition, name: "edition"),
    Case(keyPath: \.printing, name: "printing"), Case(keyPath: \.copies, name: "copies"),
    Case(keyPath: \.price, name: "price"), Case(keyPath: \.weight, name: "weight"),
    Case(keyPath: \.cost, name: "cost"), Case(keyPath: \.published, name: "published"),
    Case(keyPath: \.cover, name: "cover"), Case(keyPath: \.isbn, name: "isbn"),
    Case(keyPath: \.homepage, name: "homepage"), Case(keyPath: \.isSigned, name: "isSigned"),
    Case(keyPath: \.rating, name: "rating"), Case(keyPath: \.tags, name: "tags"),
  ]

  /// Each computed property, with the attribute it reads.
  static let computed: [Case] = [
    Case(keyPath: \.shortTitle, name: "title"), Case(keyPath: \.trimmedTitle, name: "title"),
    Case(keyPath: \.lowerTitle, name: "title"), Case(keyPath: \.titleOrNone, name: "title"),
    Case(keyPath: \.shownSubtitle, name: "subtitle"),
    Case(keyPath: \.pagesFromZero, name: "pages"),
    Case(keyPath: \.pagesBelowAThousand, name: "pages"),
    Case(keyPath: \.positiveEdition, name: "edition"),
    Case(keyPath: \.evenPrinting, name: "printing"),
    Case(keyPath: \.copiesPlusOne, name: "copies"), Case(keyPath: \.roundedPrice, name: "price"),
    Case(keyPath: \.wholeWeight, name: "weight"), Case(keyPath: \.costTwice, name: "cost"),
    Case(keyPath: \.publishedDay, name: "published"), Case(keyPath: \.coverHead, name: "cover"),
    Case(keyPath: \.isbnOrZero, name: "isbn"), Case(keyPath: \.httpLink, name: "homepage"),
    Case(keyPath: \.notSigned, name: "isSigned"), Case(keyPath: \.ratingOrNil, name: "rating"),
    Case(keyPath: \.firstTags, name: "tags"),
  ]

  /// Every attribute's own getter resolves to its name, as one step of a predicate or sort.
  @Test(arguments: getters)
  func aGetterNamesItsAttribute(_ example: Case) throws {
    #expect(
      try KeyPathNames.names(of: example.keyPath, in: Self.entity, singleStep: true) == [
        example.name
      ])
    #expect(
      try KeyPathNames.names(of: example.keyPath, in: Self.entity, singleStep: false) == [
        example.name
      ])
  }

  /// A computed property that reads one attribute but gives some value of it back changed is
  /// refused, naming what it reads; so is one that reads its attribute twice.
  @Test(arguments: computed)
  func aComputedPropertyIsRefused(_ example: Case) {
    for singleStep in [true, false] {
      let error = #expect(throws: ObjectGraphError.self) {
        _ = try KeyPathNames.names(of: example.keyPath, in: Self.entity, singleStep: singleStep)
      }
      #expect(error?.kind == .invalidPredicate)
      #expect(error?.entity == "ProbeItem")
      #expect(
        error?.reason.contains("is a computed property (it reads \(example.name))") == true,
        "\(String(describing: error))")
    }
  }

  /// A computed property that gives its attribute back unchanged cannot be told from the
  /// attribute's getter by its values: a predicate or sort on it means the attribute (and selects
  /// and orders exactly as the alias would). Documented in Fetching.md.
  @Test func anAliasMeansItsAttribute() throws {
    #expect(
      try FetchSort(SortDescriptor(\ProbeItem.titleAlias), model: Self.model).keyPath == "title")
    let context = ObjectContext(model: Self.model)
    for (title, pages) in [("B", 3), ("a", 1), ("C", 2)] {
      let item = context.insert(ProbeItem.self)
      item.title = title
      item.pages = pages
    }
    let aliased = try context.fetch(
      FetchRequest<ProbeItem>(
        predicate: #Predicate { $0.pagesAlias > 1 }, sortBy: [SortDescriptor(\.titleAlias)]))
    #expect(aliased.map(\.title) == ["B", "C"])
    let direct = try context.fetch(
      FetchRequest<ProbeItem>(
        predicate: #Predicate { $0.pages > 1 }, sortBy: [SortDescriptor(\.title)]))
    #expect(aliased.map(\.objectID) == direct.map(\.objectID))
  }

  /// Resolving a key path leaves the objects of a context alone: its probes go into a scratch
  /// object's fields.
  @Test func resolvingChangesNoObject() throws {
    let context = ObjectContext(model: Self.model)
    let item = context.insert(ProbeItem.self)
    item.title = "Kept"
    item.pages = 5
    try context.save()
    var heard: [String] = []
    let token = item.observe(\.title, options: [.new]) { _, change in
      heard.append(change.newValue!)
    }
    _ = try context.fetch(FetchRequest<ProbeItem>(predicate: #Predicate { $0.title == "Kept" }))
    #expect(item.title == "Kept" && item.pages == 5 && !item.hasChanges && heard.isEmpty)
    token.invalidate()
  }
}

/// Typed observation asks the same question: an attribute's own getter is observed as that
/// attribute (typed sets reach its observers directly), a computed property through what it
/// reads, delivering its own values.
@Suite("Typed observation of a getter and of a computed property")
struct GetterProbeObservationTests {
  /// The changes an observer heard, as "old→new".
  final class Heard {
    var changes: [String] = []
  }

  /// A saved item in a context without Swift Observation.
  private static func savedItem() throws -> (ObjectContext, ProbeItem) {
    let context = ObjectContext(
      model: GetterProbeTests.model, participatesInSwiftObservation: false)
    let item = context.insert(ProbeItem.self)
    try context.save()
    return (context, item)
  }

  /// Observes `keyPath` of `item` with old and new values, noting each change in `heard`.
  private static func note<Value>(
    _ item: ProbeItem, _ keyPath: KeyPath<ProbeItem, Value>, in heard: Heard
  ) -> ObservationToken {
    item.observe(keyPath, options: [.old, .new]) { _, change in
      heard.changes.append("\(change.oldValue!)→\(change.newValue!)")
    }
  }

  /// The getter's observer takes typed sets: after the first change the slot's sets go the
  /// direct way (as only typed observers of the attribute itself allow).
  @Test func theGetterHearsTheValuesSet() throws {
    let (context, item) = try Self.savedItem()
    let heard = Heard()
    let token = Self.note(item, \.pages, in: heard)
    item.pages = -5
    item.pages = 1500
    #expect(item.isQuietInline(item.entity.propertiesByName["pages"]!.slot))
    item.pages = 1500
    #expect(heard.changes == ["0→-5", "-5→1500", "1500→1500"])
    token.invalidate()
    withExtendedLifetime(context) {}
  }

  /// Each computed property hears its own values, not its attribute's: a set that leaves the
  /// computed value as it was is still heard, as for any computed key path, with equal values.
  @Test func aComputedPropertyHearsItsOwnValues() throws {
    let (context, item) = try Self.savedItem()
    let (fromZero, belowAThousand) = (Heard(), Heard())
    let tokens = [
      Self.note(item, \.pagesFromZero, in: fromZero),
      Self.note(item, \.pagesBelowAThousand, in: belowAThousand),
    ]
    item.pages = -5
    item.pages = 1500
    #expect(fromZero.changes == ["0→0", "0→1500"])
    #expect(belowAThousand.changes == ["0→-5", "-5→999"])
    for token in tokens { token.invalidate() }
    withExtendedLifetime(context) {}
  }

  /// A computed property whose value differs from its attribute's on this object is told apart
  /// before any probe runs; an alias is observed as its attribute and hears the same values.
  @Test func anAliasHearsWhatItsAttributeHears() throws {
    let (context, item) = try Self.savedItem()
    let (alias, none) = (Heard(), Heard())
    let tokens = [
      Self.note(item, \.titleAlias, in: alias), Self.note(item, \.titleOrNone, in: none),
    ]
    item.title = "Dune"
    item.title = ""
    #expect(alias.changes == ["→Dune", "Dune→"])
    #expect(none.changes == ["none→Dune", "Dune→none"])
    for token in tokens { token.invalidate() }
    withExtendedLifetime(context) {}
  }
}
