import Foundation

@testable import ObservedGraph

/// A store whose fetch a test writes (`fetch(_:into:)`, overridden), giving rows to the context's
/// loader itself; everything else is an empty in-memory store's.
class RowStore: PersistentStore {
  let base: InMemoryStore

  init(model: ObjectModel) { base = InMemoryStore(model: model) }

  var identifier: UUID { base.identifier }
  var model: ObjectModel { base.model }
  var metadata: [String: String] { base.metadata }
  var isClosed: Bool { base.isClosed }
  func close() throws { try base.close() }
  func reserveKeys(_ count: Int) -> Range<Int64> { base.reserveKeys(count) }
  func loadObjects(_ ids: [ObjectID]) throws -> [StoredObject] { try base.loadObjects(ids) }
  func loadMembers(of id: ObjectID, relationship: String) throws -> [StoredObject] {
    try base.loadMembers(of: id, relationship: relationship)
  }
  func save(_ changes: StoreChanges) throws { try base.save(changes) }
  /// Gives nothing; subclasses give their rows.
  func fetch(_ request: StoreFetch, into loader: ObjectLoader) throws -> Bool { true }
}
