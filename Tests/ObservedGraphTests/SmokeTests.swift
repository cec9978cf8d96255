import Foundation
import ObservedGraph
import Testing

@Suite struct SmokeTests {
  @Test func bookStoreScenario() throws {
    let s = BookStore.scenario()
    #expect(s.fiction.books == Set(s.books[0...1]))
    s.books[0].category = s.science
    #expect(s.fiction.books == [s.books[1]])
    #expect(s.science.books == [s.books[0], s.books[2]])
    let page = s.context.insert(Page.self)
    page.book = s.books[0]
    #expect(s.books[0].pages == [page])
    try s.context.delete(s.books[0])
    #expect(page.isDeleted == false)
    #expect(s.science.books == [s.books[2]])
    #expect(try s.books[1].value(forKeyPath: "category.name") as? String == "Fiction")
    s.context._checkInvariants()
  }

  @Test func inventory() throws {
    let context = ObjectContext(model: Inventory.model)
    let asset = try context.insertObject(forEntityName: "Asset")
    let item = try context.insertObject(forEntityName: "Inventory")
    try item.setValue(asset, forKey: "asset")
    try item.setValue(12, forKey: "count")
    #expect(try item.value(forKey: "count") as? Int16 == 12)
    #expect((try asset.value(forKey: "inventories") as? Set<ManagedObject>) == [item])
    try context.delete(asset)
    #expect(item.isDeletedFlagForTest)
  }
}

extension ManagedObject {
  var isDeletedFlagForTest: Bool { isDeleted || (isInserted == false && hasChanges == false) }
}
