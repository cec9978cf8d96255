import Foundation
import Testing

@testable import ObservedGraph

/// The string comparison `SortDescriptor(\.title)` means on this platform.
#if canImport(Darwin)
  private let defaultComparison = FetchSort.Comparison.localizedStandard
#else
  private let defaultComparison = FetchSort.Comparison.swift
#endif

/// Sort descriptors and the sort keys they must convert to.
struct FPSortCase: Sendable, CustomTestStringConvertible {
  let descriptors: [SortDescriptor<FPVolume>]
  let expected: [FetchSort]

  var testDescription: String { expected.map(\.description).joined(separator: ", ") }
}

@Suite("Foundation SortDescriptor conversion")
struct FoundationPredicateSortTests {
  static let cases: [FPSortCase] = [
    FPSortCase(
      descriptors: [SortDescriptor(\.title)],
      expected: [FetchSort("title", comparison: defaultComparison)]),
    FPSortCase(
      descriptors: [SortDescriptor(\.title, comparator: .lexical, order: .reverse)],
      expected: [FetchSort("title", ascending: false)]),
    FPSortCase(
      descriptors: [SortDescriptor(\.price, order: .reverse)],
      expected: [FetchSort("price", ascending: false)]),
    FPSortCase(
      descriptors: [SortDescriptor(\.subtitle), SortDescriptor(\.stock)],
      expected: [FetchSort("subtitle", comparison: defaultComparison), FetchSort("stock")]),
    FPSortCase(
      descriptors: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.price)],
      expected: [FetchSort("rating", ascending: false), FetchSort("price")]),
    FPSortCase(
      descriptors: [SortDescriptor(\.shelf?.floor), SortDescriptor(\.price)],
      expected: [FetchSort("shelf.floor"), FetchSort("price")]),
    FPSortCase(
      descriptors: [SortDescriptor(\.shelf?.name, order: .reverse)],
      expected: [FetchSort("shelf.name", ascending: false, comparison: defaultComparison)]),
  ]

  @Test(arguments: cases)
  func converts(_ example: FPSortCase) throws {
    let library = FPLibrary()
    let keys = try example.descriptors.map { try FetchSort($0, context: library.context) }
    #expect(keys == example.expected)
    let model = try example.descriptors.map { try FetchSort($0, model: FPLibrary.model) }
    #expect(model == keys)
    // The same order as Foundation's, ties in the order of insertion (the order of identifiers).
    let foundation = library.volumes.sorted(using: example.descriptors)
    let fetch = try library.volumes.sorted { try keys.compare($0, $1) == .orderedAscending }
    #expect(fetch.map(\.title) == foundation.map(\.title))
    #expect(zip(fetch, foundation).allSatisfy { $0 === $1 })
    #expect(foundation.map(\.objectID) != library.volumes.map(\.objectID))
  }

  @Test func keyPathTwoRelationshipsDeep() throws {
    let library = FPLibrary()
    let sort = try FetchSort(SortDescriptor(\FPNote.volume?.shelf?.name), context: library.context)
    #expect(sort == FetchSort("volume.shelf.name", comparison: defaultComparison))
  }

  @Test func computedPropertyOfARelationshipPath() throws {
    let library = FPLibrary()
    let sort = try FetchSort(SortDescriptor(\FPVolume.shelfName), context: library.context)
    #expect(sort == FetchSort("shelf.name", comparison: defaultComparison))
  }

  @Test func computedPropertyThrows() {
    let library = FPLibrary()
    let error = expectGraphError(.invalidPredicate, entity: "FPVolume", in: library.context) {
      _ = try FetchSort(SortDescriptor(\FPVolume.shout), context: library.context)
    }
    #expect(error?.reason.contains("computed property") == true)
  }

  @Test func countOfToManyThrows() {
    let library = FPLibrary()
    expectGraphError(.invalidPredicate, entity: "FPVolume", in: library.context) {
      _ = try FetchSort(SortDescriptor(\FPVolume.notes.count), context: library.context)
    }
  }

  @Test func classOutsideTheModel() {
    let library = FPLibrary()
    expectGraphError(.unknownEntity, entity: "Book", in: library.context) {
      _ = try FetchSort(SortDescriptor(\Book.title), context: library.context)
    }
  }
}

@Suite("FetchRequest resolving")
struct FoundationPredicateRequestTests {
  @Test func typedPredicateAndSort() throws {
    let library = FPLibrary()
    let request = FetchRequest<FPVolume>(
      predicate: #Predicate { $0.price < 12 }, sortBy: [SortDescriptor(\.title)])
    let resolved = try request.resolved(in: library.context)
    #expect(resolved.entity === FPLibrary.model.entity(for: FPVolume.self))
    #expect(resolved.predicate?.description == "price < 12.0")
    #expect(resolved.sort == [FetchSort("title", comparison: defaultComparison)])
  }

  @Test func bothPredicatesAndBothOrders() throws {
    let library = FPLibrary()
    var request = FetchRequest<FPVolume>(
      predicate: #Predicate { $0.price < 12 }, sortBy: [SortDescriptor(\.title)])
    request.predicate = try FetchPredicate(format: "stock > 1")
    request.sortDescriptors = [FetchSort("price", ascending: false)]
    let resolved = try request.resolved(in: library.context)
    #expect(resolved.predicate?.description == "stock > 1 AND price < 12.0")
    #expect(
      resolved.sort == [
        FetchSort("price", ascending: false), FetchSort("title", comparison: defaultComparison),
      ])
  }

  @Test func untypedRequest() throws {
    let library = FPLibrary()
    let request = FetchRequest<ManagedObject>(
      entityName: "FPShelf", sortDescriptors: [FetchSort("name")])
    let resolved = try request.resolved(in: library.context)
    #expect(resolved.entity.name == "FPShelf")
    #expect(resolved.predicate == nil)
    #expect(resolved.sort == [FetchSort("name")])
  }

  @Test func unknownEntities() {
    let library = FPLibrary()
    expectGraphError(.unknownEntity, entity: "Book", in: library.context) {
      _ = try FetchRequest<Book>().resolved(in: library.context)
    }
    expectGraphError(.unknownEntity, entity: "Nope", in: library.context) {
      _ = try FetchRequest<ManagedObject>(entityName: "Nope").resolved(in: library.context)
    }
  }

  @Test func anEntityWhoseObjectsAreNotTheResultTypeIsRefused() {
    let library = FPLibrary()
    var request = FetchRequest<FPVolume>(entityName: "FPShelf")
    request.typedPredicate = #Predicate { $0.price < 12 }
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try request.resolved(in: library.context)
    }
    #expect(error?.kind == .wrongEntity && error?.entity == "FPShelf")
    #expect(error?.description.contains("FPVolume") == true)
  }

  @Test func predicateIsValidatedForTheEntity() {
    let library = FPLibrary()
    let request = FetchRequest<FPVolume>(matching: try? FetchPredicate(format: "weight < 12"))
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try request.resolved(in: library.context)
    }
    #expect(error?.kind == .unknownKey && error?.entity == "FPVolume")
    #expect(error?.description.contains("weight") == true)
  }

  @Test func keyPathResolutionsAreCached() throws {
    let library = FPLibrary()
    let entity = try #require(FPLibrary.model.entity(for: FPVolume.self))
    let key = KeyPathNames.CacheKey(
      objectClass: ObjectIdentifier(FPVolume.self), entity: "FPVolume", keyPath: \FPVolume.stock,
      singleStep: true)
    _ = try FetchPredicate(#Predicate<FPVolume> { $0.stock > 1 }, context: library.context)
    #expect(KeyPathNames.cache.names(for: key) == ["stock"])
    #expect(try KeyPathNames.names(of: \FPVolume.stock, in: entity, singleStep: true) == ["stock"])
  }
}
