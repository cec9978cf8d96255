import Foundation
import Testing

@testable import ObservedGraph

/// The context's faulting and loading part (`FaultingState`) follows the context's objects: a
/// reset, which forgets every object, leaves it holding nothing of them.
@Suite("The faulting state")
struct FaultingStateTests {
  @Test func aResetLeavesTheFaultingStateHoldingNothing() throws {
    let container = PersistentContainer(model: Life.model)
    let writer = container.newContext()
    let fiction = writer.insert(LifeShelf.self)
    fiction.name = "Fiction"
    for (title, price) in [("Dune", 8.0), ("Emma", 12.0)] {
      let book = writer.insert(LifeBook.self)
      book.title = title
      book.price = price
      book.shelf = fiction
      book.pages = (1...3).map { number in
        let page = writer.insert(LifePage.self)
        page.text = "\(title) \(number)"
        return page
      }
    }
    try writer.save()

    let context = container.newContext()
    let shelf = try #require(context.object(with: fiction.objectID) as? LifeShelf)
    // A to-many loaded: its members are kept alive.
    let dune = try #require(shelf.books.first { $0.title == "Dune" })
    // A fetched property's results are kept.
    let cheap = try #require(try shelf.value(forKey: "cheapBooks") as? [ManagedObject])
    #expect(cheap.map(\.objectID) == [dune.objectID])
    // A loaded book made a fault again keeps its shelf's key.
    try context.refresh(dune, mergeChanges: false)
    // Faults without values wait to be loaded, with the batch size of the fetch that made them.
    var request = FetchRequest<LifePage>(matching: nil)
    request.fetchBatchSize = 2
    #expect(try context.fetch(request).count == 6)
    let before = context.faulting
    #expect(before.pendingFaults.count == 6)
    #expect(before.recentlyLoaded.count == 1)
    #expect(before.fetchBatchSizes.count == 6)
    #expect(before.fetchedResults.count == 1)
    #expect(before.faultsKeepOwnerKeys)
    before.checkInvariants()

    context.reset()
    let after = context.faulting
    #expect(after.pendingFaults.isEmpty && after.pendingFaultsStart == 0)
    #expect(after.recentlyLoaded.isEmpty && after.recentlyLoadedNext == 0)
    #expect(after.fetchBatchSizes.isEmpty)
    #expect(after.fetchedResults.isEmpty)
    #expect(!after.faultsKeepOwnerKeys)
    context._checkInvariants()
  }
}
