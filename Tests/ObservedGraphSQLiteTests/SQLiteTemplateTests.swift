import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// A request made from a model's fetch request template fetches from a reopened file as any
/// request does: in SQL, with the substituted values bound.
@Suite struct SQLiteTemplateTests {
  static let model = try! ObjectModel(
    types: [Volume.self, Genre.self],
    fetchRequestTemplates: [
      FetchRequestTemplate(
        name: "CheapInGenre", entityName: "Volume",
        predicate: try! FetchPredicate(format: "price < $limit AND genre.name == $genre"),
        sortDescriptors: [FetchSort("title")])
    ])

  @Test func templateFetchesFromAReopenedFile() throws {
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("templates.sqlite")
    do {
      let context = PersistentContainer(store: try SQLiteStore(url: url, model: Self.model))
        .viewContext
      var genres: [String: Genre] = [:]
      for name in ["Fiction", "Science"] {
        let genre = context.insert(Genre.self)
        genre.name = name
        genres[name] = genre
      }
      for (title, price, genre) in [
        ("Dune", 9.5, "Fiction"), ("Emma", 14.0, "Fiction"), ("Atlas", 5.0, "Fiction"),
        ("Cosmos", 8.0, "Science"), ("Brief History", 20.0, "Science"),
      ] {
        let volume = context.insert(Volume.self)
        volume.title = title
        volume.price = price
        volume.genre = genres[genre]
      }
      try context.save()
      try (context.store as? SQLiteStore)?.close()
    }
    let trace = TraceCollector()
    var options = SQLiteStore.Options()
    options.sqlTrace = { trace.append($0.description) }
    let store = try SQLiteStore(url: url, model: Self.model, options: options)
    defer { try? store.close() }
    let context = PersistentContainer(store: store).newContext()
    trace.removeAll()

    let request = try Self.model.fetchRequestFromTemplate(
      withName: "CheapInGenre", substitutionVariables: ["limit": 10, "genre": "Fiction"],
      as: Volume.self)
    let volumes = try context.fetch(request)
    #expect(volumes.map(\.title) == ["Atlas", "Dune"])
    #expect(volumes.map(\.price) == [5.0, 9.5])
    let statements = trace.lines.filter { $0.hasPrefix("SQL: SELECT") }
    #expect(statements.count == 1, "\(trace.lines)")
    // The substituted values are bound to the one query: the store selected in SQL.
    #expect(statements.first?.contains("WHERE") == true, "\(statements)")
    #expect(statements.first?.contains("[10, 'Fiction']") == true, "\(statements)")

    let science = try Self.model.fetchRequestFromTemplate(
      withName: "CheapInGenre", substitutionVariables: ["limit": 100.0, "genre": "Science"],
      as: Volume.self)
    #expect(try context.fetch(science).map(\.title) == ["Brief History", "Cosmos"])
    #expect(try context.count(for: science) == 2)
  }
}

/// Trace lines, collected from whichever thread the store writes them on.
private final class TraceCollector: @unchecked Sendable {
  // @unchecked Sendable: the lock guards `stored`.
  private let lock = NSLock()
  private var stored: [String] = []

  func append(_ line: String) { lock.withLock { stored.append(line) } }
  func removeAll() { lock.withLock { stored.removeAll() } }
  var lines: [String] { lock.withLock { stored } }
}
