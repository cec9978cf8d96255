import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// The check of the whole file at open (``SQLiteStore/Options/integrityCheck``): a damaged index
/// page that an ordinary open never reads opens without a check, and is refused by a quick or
/// full check with a `corrupt` error quoting SQLite's report, the file's bytes unchanged; an
/// intact file opens with either check.
@Suite struct IntegrityCheckTests {
  static let model = StoreFaultTests.model

  static func options(_ check: SQLiteStore.IntegrityCheck) -> SQLiteStore.Options {
    var options = SQLiteStore.Options()
    options.integrityCheck = check
    return options
  }

  /// A shelf of 300 books whose index on the books' `shelf` column has one page overwritten;
  /// returns the file's bytes and the books' identifiers.
  static func shelfWithADamagedIndex(at url: URL) throws -> (bytes: Data, books: [ObjectID]) {
    let (_, books) = try StoreFaultTests.makeShelf(at: url)
    let layout = try StoreFaultTests.FileLayout(url.path)
    let index = try #require(layout.roots["og_index_Item_shelf"], "\(layout.roots)")
    let damaged = layout.damaging(page: index, of: Array(try Data(contentsOf: url)))
    try Data(damaged).write(to: url)
    return (Data(damaged), books)
  }

  @Test func withoutACheckADamagedIndexPageOpensAndLoads() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let (_, books) = try Self.shelfWithADamagedIndex(at: url)
    // The open reads the header, the schema, the metadata and each table's largest key: not
    // the index.
    let store = try SQLiteStore(url: url, model: Self.model, options: Self.options(.off))
    let context = PersistentContainer(store: store).newContext()
    let book = try #require(context.object(with: books[7]))
    #expect((try book.value(forKey: "title") as? String)?.hasPrefix("7 ") == true)
    try store.close()
  }

  @Test(arguments: [SQLiteStore.IntegrityCheck.quick, .full])
  func aCheckRefusesADamagedIndexPageQuotingSQLiteAndKeepsTheBytes(
    _ check: SQLiteStore.IntegrityCheck
  ) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let (bytes, _) = try Self.shelfWithADamagedIndex(at: url)
    let error = #expect(throws: SQLiteError.self) {
      _ = try SQLiteStore(url: url, model: Self.model, options: Self.options(check))
    }
    #expect(error?.kind == .corrupt, "\(String(describing: error))")
    #expect(error?.path == url.path)
    #expect(error?.sql?.contains(check == .quick ? "quick_check" : "integrity_check") == true)
    let message = error?.message ?? ""
    #expect(message.contains("integrity check found the file damaged: "), "\(message)")
    // SQLite's own report follows: the page it could not read, or the error that stopped it.
    #expect(message.contains("Page ") || message.contains("malformed"), "\(message)")
    #expect(try Data(contentsOf: url) == bytes, "the file's bytes are as they were")
  }

  @Test(arguments: SQLiteStore.IntegrityCheck.allCases)
  func anIntactFileOpensWithEachCheck(_ check: SQLiteStore.IntegrityCheck) throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let ids = try StoreFaultTests.makeLibrary(at: url)
    let store = try SQLiteStore(url: url, model: Self.model, options: Self.options(check))
    let context = PersistentContainer(store: store).newContext()
    let book = try #require(context.object(with: ids["b0"]!))
    #expect(try book.value(forKey: "title") as? String == "Dune")
    try store.close()
    // A new file is not checked: nothing to find.
    let fresh = folder.url.appendingPathComponent("fresh.sqlite")
    try SQLiteStore(url: fresh, model: Self.model, options: Self.options(check)).close()
  }

  @Test func theMetadataIsCheckedBeforeTheWholeFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("library.sqlite")
    let (bytes, _) = try Self.shelfWithADamagedIndex(at: url)
    // Another model's store on the same damaged file: the model is named, not the damage.
    let other = try ObjectModel(entities: [
      EntityDescription(
        name: "Note", attributes: [AttributeDescription(name: "body", type: .string)])
    ])
    let error = #expect(throws: SQLiteStoreOpenError.self) {
      _ = try SQLiteStore(url: url, model: other, options: Self.options(.full))
    }
    guard case .modelMismatch? = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(try Data(contentsOf: url) == bytes)
  }
}
