import Foundation
import ObservedGraph

/// An SQLite file as a store keeps it: the schema of its model, and the metadata that says which
/// store and which model made it. Opening a new (or empty) file creates both in one transaction;
/// opening an existing one reads the metadata and refuses a file that is no store or that a
/// different model made, naming what differs, before anything is written.
///
/// The metadata (`og_metadata`): `format` (1), `storeIdentifier` (a UUID, the store identifier
/// of every object identifier the file's objects have), `versionHash` (the model's
/// ``ObjectModel/versionHash``) and `model` (the model's entity descriptions as JSON, so that a
/// later model can say what differs).
final class SQLiteStoreFile {
  static let format = "1"

  let connection: SQLiteConnection
  let schema: SQLiteSchema
  /// The store identifier the file keeps.
  let storeIdentifier: UUID

  /// Opens (or creates) the store file at `path` for `model`.
  ///
  /// An existing file is then checked as `integrityCheck` asks (``SQLiteStore/IntegrityCheck``).
  ///
  /// - Throws: ``SQLiteError`` for a file SQLite refuses (see ``SQLiteConnection``) or the check
  ///   finds damaged (`corrupt`), or ``SQLiteStoreOpenError``; the file is left as it was.
  init(
    path: String, model: ObjectModel, create: Bool = true, busyTimeout: Duration = .seconds(5),
    integrityCheck: SQLiteStore.IntegrityCheck = .off
  ) throws {
    connection = try SQLiteConnection(path: path, create: create, busyTimeout: busyTimeout)
    schema = SQLiteSchema(model: model)
    do {
      let tables = try connection.statement(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
      ).rows().compactMap { row -> String? in
        if case .text(let name) = row[0] { return name }
        return nil
      }
      if tables.isEmpty {
        storeIdentifier = UUID()
        try Self.create(connection, schema, model, storeIdentifier)
      } else {
        guard tables.contains("og_metadata") else {
          throw SQLiteStoreOpenError.notAStore(path: path, tables: tables)
        }
        storeIdentifier = try Self.check(connection, model, path: path)
        try Self.verify(connection, integrityCheck, path: path)
      }
    } catch {
      connection.close()
      throw error
    }
  }

  /// Writes the schema, the metadata and the entity ids into an empty file, in one transaction.
  private static func create(
    _ connection: SQLiteConnection, _ schema: SQLiteSchema, _ model: ObjectModel,
    _ storeIdentifier: UUID
  ) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let modelJSON = String(decoding: try encoder.encode(model.entities), as: UTF8.self)
    try connection.transaction {
      for statement in schema.statements { try connection.execute(statement) }
      let metadata = try connection.statement(
        #"INSERT INTO "og_metadata" ("key", "value") VALUES (?, ?)"#)
      for (key, value) in [
        ("format", format), ("storeIdentifier", storeIdentifier.uuidString),
        ("versionHash", model.versionHash), ("model", modelJSON),
      ] {
        try metadata.run([.text(key), .text(value)])
      }
      let entities = try connection.statement(
        #"INSERT INTO "og_entities" ("id", "name") VALUES (?, ?)"#)
      for (name, id) in schema.entityIDs.sorted(by: { $0.value < $1.value }) {
        try entities.run([.integer(Int64(id)), .text(name)])
      }
    }
  }

  /// Reads the metadata of an existing store and checks it against `model`; returns the store
  /// identifier.
  private static func check(_ connection: SQLiteConnection, _ model: ObjectModel, path: String)
    throws -> UUID
  {
    var metadata: [String: String] = [:]
    for row in try connection.statement(#"SELECT "key", "value" FROM "og_metadata""#).rows() {
      if case .text(let key) = row[0], case .text(let value) = row[1] { metadata[key] = value }
    }
    guard metadata["format"] == format else {
      throw SQLiteStoreOpenError.unknownFormat(path: path, format: metadata["format"] ?? "none")
    }
    let storedHash = metadata["versionHash"] ?? ""
    if storedHash != model.versionHash {
      throw SQLiteStoreOpenError.modelMismatch(
        path: path,
        differences: storedModel(metadata["model"], like: model)
          .map(model.differences(from:)) ?? [],
        storedHash: storedHash)
    }
    guard let text = metadata["storeIdentifier"], let identifier = UUID(uuidString: text) else {
      throw SQLiteStoreOpenError.unknownFormat(path: path, format: "without a store identifier")
    }
    return identifier
  }

  /// The model a store's metadata describes, read with the transformable types of `model`; nil
  /// when it cannot be read back.
  private static func storedModel(_ json: String?, like model: ObjectModel) -> ObjectModel? {
    guard let json else { return nil }
    let decoder = JSONDecoder()
    decoder.userInfo[AttributeType.transformableTypesKey] = model.entities.flatMap(\.attributes)
      .compactMap { $0.type.valueType as? any (Codable & Hashable & Sendable).Type }
    guard let entities = try? decoder.decode([EntityDescription].self, from: Data(json.utf8))
    else { return nil }
    return try? ObjectModel(entities: entities)
  }
}

/// Why a file cannot be opened as this model's store.
public enum SQLiteStoreOpenError: Error, Equatable, Sendable, CustomStringConvertible {
  /// An SQLite database that holds other tables and no store metadata.
  case notAStore(path: String, tables: [String])
  /// A store made by a different model; `differences` names each entity and property that
  /// differs (empty when the stored model could not be read back, then the hashes differ).
  case modelMismatch(path: String, differences: [ModelDifference], storedHash: String)
  /// A store of a format this version does not read.
  case unknownFormat(path: String, format: String)

  public var description: String {
    switch self {
    case .notAStore(let path, let tables):
      "\(path) is an SQLite database but not a store: it has the tables "
        + tables.joined(separator: ", ") + " and no store metadata"
    case .modelMismatch(let path, let differences, let storedHash):
      "\(path) was made by a different model (version hash \(storedHash)): "
        + (differences.isEmpty
          ? "its model could not be read back"
          : differences.map(\.description).joined(separator: "; "))
    case .unknownFormat(let path, let format):
      "\(path) is a store of format \(format), which this version does not read"
    }
  }
}
