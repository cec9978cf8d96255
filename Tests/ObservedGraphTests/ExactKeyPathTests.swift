import Foundation
import Testing

@testable import ObservedGraph

// An attribute of every attribute type, and computed properties that read one attribute: most
// change some value on its way out, some only values no test would try, three are plain aliases
// (one settable). A key path names an attribute only when it is the attribute's own property.

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

  // Changes only titles longer than 400 characters (issue 34's example).
  var longPrefix: String { String(title.prefix(400)) }

  // Aliases: they give every value of their attribute back unchanged.
  var titleAlias: String { title }
  var pagesAlias: Int { pages }
  var settableTitle: String {
    get { title }
    set { title = newValue }
  }
}

// A subclass's computed property reading an inherited attribute.
extension Player {
  var firstNameAlias: String { firstName }
  var firstInitial: String { String(firstName.prefix(1)) }
}

@Suite("A typed getter told from a computed property by its key path")
struct ExactKeyPathTests {
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
    Case(keyPath: \.firstTags, name: "tags"), Case(keyPath: \.longPrefix, name: "title"),
    Case(keyPath: \.titleAlias, name: "title"), Case(keyPath: \.pagesAlias, name: "pages"),
    Case(keyPath: \.settableTitle, name: "title"),
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

  /// A computed property that reads one attribute is refused, naming what it reads, whatever
  /// values it gives back: one that changes them, one that changes only values longer than any a
  /// test would try, and aliases that give every value back unchanged (settable or not).
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

  /// Issue 34's example: with a title of 500 characters, a predicate comparing the first 400 of
  /// them with the whole title selected the book (the computed property was taken for `title`).
  /// It is refused, in a predicate and in a sort, and an alias of `title` too; the attribute
  /// itself selects the book.
  @Test func aComputedPropertyIsNeverTakenForItsAttribute() throws {
    let context = ObjectContext(model: Self.model)
    let long = String(repeating: "é", count: 500)
    let item = context.insert(ProbeItem.self)
    item.title = long
    for predicate in [
      #Predicate<ProbeItem> { $0.longPrefix == long },
      #Predicate<ProbeItem> { $0.titleAlias == long },
    ] {
      let error = #expect(throws: ObjectGraphError.self) {
        _ = try context.fetch(FetchRequest<ProbeItem>(predicate: predicate))
      }
      #expect(error?.kind == .invalidPredicate && error?.entity == "ProbeItem")
      #expect(error?.reason.contains("is a computed property (it reads title)") == true)
    }
    for sort in [SortDescriptor(\ProbeItem.longPrefix), SortDescriptor(\ProbeItem.titleAlias)] {
      let error = #expect(throws: ObjectGraphError.self) {
        _ = try FetchSort(sort, model: Self.model)
      }
      #expect(error?.reason.contains("is a computed property (it reads title)") == true)
    }
    let direct = try context.fetch(
      FetchRequest<ProbeItem>(predicate: #Predicate { $0.title == long }))
    #expect(direct.map(\.objectID) == [item.objectID])
  }

  /// An inherited attribute resolves through a subclass's key path; a getter-only computed
  /// property of the subclass reading it, alias or not, is refused.
  @Test func aSubclassKeyPathToAnInheritedAttribute() throws {
    #expect(
      try KeyPathNames.names(
        of: \Player.firstName, in: League.model.entitiesByName["Player"]!, singleStep: true)
        == ["firstName"])
    for keyPath in [\Player.firstNameAlias, \Player.firstInitial] {
      let error = #expect(throws: ObjectGraphError.self) {
        _ = try FetchSort(SortDescriptor(keyPath), model: League.model)
      }
      #expect(error?.entity == "Player")
      #expect(error?.reason.contains("is a computed property (it reads firstName)") == true)
    }
  }

  /// Resolving a key path leaves the objects of a context alone: it reads scratch objects.
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
struct ExactKeyPathObservationTests {
  /// The changes an observer heard, as "old→new".
  final class Heard {
    var changes: [String] = []
  }

  /// A saved item in a context without Swift Observation.
  private static func savedItem() throws -> (ObjectContext, ProbeItem) {
    let context = ObjectContext(
      model: ExactKeyPathTests.model, participatesInSwiftObservation: false)
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

  /// An alias is observed as a computed property, through what it reads: it hears the values of
  /// its attribute, as a computed property that changes them hears its own. Neither takes the
  /// attribute's direct typed route.
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
    #expect(!item.isQuietInline(item.entity.propertiesByName["title"]!.slot))
    for token in tokens { token.invalidate() }
    withExtendedLifetime(context) {}
  }

  /// Issue 34's example: an observer of the first 400 characters of the title hears 400
  /// characters when the title becomes 450 long (it heard all 450 when the computed property was
  /// taken for the attribute).
  @Test func aComputedPropertyOfLongValuesHearsItsOwnValues() throws {
    let (context, item) = try Self.savedItem()
    var heard: [Int] = []
    let token = item.observe(\.longPrefix, options: [.new]) { _, change in
      heard.append(change.newValue!.count)
    }
    item.title = String(repeating: "x", count: 450)
    item.title = "short"
    #expect(heard == [400, 5])
    token.invalidate()
    withExtendedLifetime(context) {}
  }
}
