import Foundation
import Testing

@testable import ObservedGraph

/// A `#Predicate` that a fetch predicate cannot express, and what its error must say.
struct FPUnsupported: Sendable, CustomTestStringConvertible {
  let name: String
  let predicate: Predicate<FPVolume>
  /// Text the error's description must contain, besides the entity.
  let mentions: String

  init(_ name: String, _ mentions: String, _ predicate: Predicate<FPVolume>) {
    self.name = name
    self.mentions = mentions
    self.predicate = predicate
  }

  var testDescription: String { name }
}

@Suite("Foundation #Predicate conversion errors")
struct FoundationPredicateErrorTests {
  static let arithmetic: [FPUnsupported] = [
    FPUnsupported("arithmetic", "Arithmetic", #Predicate { $0.price * 2 > 3 }),
    FPUnsupported("string count", "attribute title", #Predicate { $0.title.count > 3 }),
    FPUnsupported(
      "conditional value", "Conditional", #Predicate { ($0.price > 3 ? $0.stock : 0) == 1 }),
  ]

  static let properties: [FPUnsupported] = [
    FPUnsupported("computed property", "computed property", #Predicate { $0.shout == "DUNE" }),
    FPUnsupported(
      "computed property through a relationship", "computed property (it reads shelf, name)",
      #Predicate { $0.shelfName == "Ground" }),
    FPUnsupported(
      "first of a to-many", "to-many relationship notes", #Predicate { $0.notes.first?.page == 1 }),
  ]

  static let quantifiers: [FPUnsupported] = [
    FPUnsupported(
      "&& in contains(where:)", "SUBQUERY",
      #Predicate { $0.notes.contains { $0.page > 1 && $0.text == "x" } }),
    FPUnsupported(
      "|| in allSatisfy", "SUBQUERY",
      #Predicate { $0.notes.allSatisfy { $0.page > 1 || $0.text == "x" } }),
    FPUnsupported(
      "closure not testing the member", "does not test its member",
      #Predicate { $0.notes.contains { _ in true } }),
    FPUnsupported(
      "count inside contains(where:)", "count",
      #Predicate { $0.shelf?.volumes.contains { $0.notes.count > 1 } == true }),
  ]

  @Test(arguments: arithmetic + properties + quantifiers)
  func throwsNamingTheEntity(_ example: FPUnsupported) {
    let library = FPLibrary()
    let error = expectGraphError(.invalidPredicate, entity: "FPVolume", in: library.context) {
      _ = try FetchPredicate(example.predicate, context: library.context)
    }
    #expect(error?.description.contains(example.mentions) == true, "\(String(describing: error))")
  }

  @Test func classOutsideTheModel() {
    let library = FPLibrary()
    expectGraphError(.unknownEntity, entity: "Book", in: library.context) {
      _ = try FetchPredicate(#Predicate<Book> { $0.price > 1 }, context: library.context)
    }
  }

  @Test func computedPropertyErrorNamesTheClass() throws {
    let library = FPLibrary()
    let error = expectGraphError(.invalidPredicate, entity: "FPVolume", in: library.context) {
      _ = try FetchPredicate(#Predicate<FPVolume> { $0.shout == "X" }, context: library.context)
    }
    #expect(error?.reason.contains("class FPVolume") == true)
    #expect(error?.reason.contains("reads title") == true)
  }
}
