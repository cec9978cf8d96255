import Foundation

/// The stable identity of a managed object: the store it belongs to, its entity and a 64-bit key.
///
/// An object gets its identifier when it is inserted and keeps it for its whole life, through
/// saves, undo of its insertion and redo — there are no temporary identifiers that change at
/// save. Keys are unique within their store. Identifiers are values: compare, hash, archive and
/// pass them across isolation domains freely, and look objects up with
/// ``ObjectContext/object(with:)`` or ``ObjectContext/existingObject(with:)``.
///
/// Its ``description`` is the short spelling the library uses everywhere (errors, change records,
/// object descriptions): `Book#3`. Its ``uriRepresentation`` is the persistent form,
/// `og://<store identifier>/<entity>/<key>`, stable across processes and releases:
///
/// ```swift
/// let id = book.objectID
/// print(id)                         // Book#3
/// let url = id.uriRepresentation    // og://6C1F…E2/Book/3
/// #expect(ObjectID(uriRepresentation: url) == id)
/// #expect(context.object(with: id) === book)
/// ```
///
/// A context without a persistent store has an in-memory store of its own, with a fresh
/// identifier: its objects' identifiers never match another context's.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
  /// The identifier of the store the object belongs to.
  public let storeIdentifier: UUID
  /// The name of the object's entity.
  public let entityName: String
  /// The object's key, unique within its store; positive.
  public let key: Int64

  /// An identifier from its parts, for example read back from your own records.
  ///
  /// ```swift
  /// let id = ObjectID(storeIdentifier: store, entityName: "Book", key: 3)
  /// ```
  /// - Parameters:
  ///   - storeIdentifier: The store's identifier.
  ///   - entityName: The entity's name.
  ///   - key: The key within the store.
  public init(storeIdentifier: UUID, entityName: String, key: Int64) {
    self.storeIdentifier = storeIdentifier
    self.entityName = entityName
    self.key = key
  }

  /// Identifiers are equal when they name the same object: same key, store and entity.
  public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
    lhs.key == rhs.key && lhs.storeIdentifier == rhs.storeIdentifier
      && lhs.entityName == rhs.entityName
  }

  /// Hashes the key (unique within a store).
  /// Whether this is `object`'s identifier, compared field by field without making the
  /// object's identifier.
  func names(_ object: ManagedObject) -> Bool {
    key == object.objectKey && entityName == object.entity.name
      && storeIdentifier == (object.link?.storeIdentifier ?? ObjectID.noStore)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(key)
  }

  /// `Book#3`: the entity and key, the spelling of an object in every message.
  public var description: String { "\(entityName)#\(key)" }

  /// The persistent form: `og://<store identifier>/<entity>/<key>`, with the entity name
  /// percent-encoded where a URL needs it. Documented and stable: store it, and read it back
  /// with ``init(uriRepresentation:)``.
  ///
  /// ```swift
  /// UserDefaults.standard.set(book.objectID.uriRepresentation.absoluteString, forKey: "last")
  /// ```
  public var uriRepresentation: URL {
    var components = URLComponents()
    components.scheme = Self.scheme
    components.host = storeIdentifier.uuidString
    components.path = "/\(entityName)/\(key)"
    return components.url!
  }

  /// Reads an identifier from its ``uriRepresentation``; nil when the URL is not one.
  ///
  /// ```swift
  /// let id = ObjectID(uriRepresentation: URL(string: saved)!)
  /// ```
  /// - Parameter url: An `og://` URL.
  public init?(uriRepresentation url: URL) {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      components.scheme == Self.scheme, let host = components.host,
      let store = UUID(uuidString: host), components.user == nil, components.password == nil,
      components.port == nil, components.query == nil, components.fragment == nil
    else { return nil }
    let parts = components.path.split(separator: "/", omittingEmptySubsequences: false)
    // The key is written in its one decimal form: no sign, no leading zeros.
    guard parts.count == 3, parts[0].isEmpty, !parts[1].isEmpty, let key = Int64(parts[2]),
      key > 0, String(key) == parts[2]
    else { return nil }
    self.init(storeIdentifier: store, entityName: String(parts[1]), key: key)
  }

  static let scheme = "og"

  /// The store identifier of the prototypes a model reads its classes' wrappers from, which
  /// belong to no context.
  static let noStore = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

/// An identifier is archived as its ``ObjectID/uriRepresentation`` string.
extension ObjectID: Codable {
  /// Writes the ``uriRepresentation`` as a string.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(book.objectID)   // "og://…/Book/3"
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(uriRepresentation.absoluteString)
  }

  /// Reads an identifier written by ``encode(to:)``.
  ///
  /// ```swift
  /// let id = try JSONDecoder().decode(ObjectID.self, from: json)
  /// ```
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError.dataCorrupted` when the string is not an object identifier URI.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let url = URL(string: text), let id = ObjectID(uriRepresentation: url) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "'\(ObjectGraphError.shorten(text))' is not an object identifier "
          + "(og://<store>/<entity>/<key>)")
    }
    self = id
  }
}
