/// Where a change came from: the user's own edit, an import, a collaborator, an undo.
///
/// Each change carries its own origin, which observers see (``ObservedChange/origin``): the
/// origin in force when it was made — the innermost ``ObjectContext/withOrigin(_:_:)`` or
/// transaction's, otherwise ``local``. While the undo log undoes or redoes, every change carries
/// ``undo`` or ``redo``, including what observers change meanwhile. An origin is a name; two
/// origins with the same name are the same origin.
///
/// ```swift
/// extension ChangeOrigin {
///   static let sync: ChangeOrigin = "sync"
/// }
/// try context.withOrigin(.sync) { book.title = remoteTitle }
/// ```
///
/// ``local``, ``undo``, ``redo`` and ``merge`` are reserved: the library gives them, and
/// `withOrigin` refuses the last three.
public struct ChangeOrigin: Hashable, Sendable, Codable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The origin's name.
  public let name: String

  /// An origin named `name`.
  ///
  /// ```swift
  /// let importer = ChangeOrigin("import")
  /// ```
  ///
  /// - Parameter name: The name; origins with equal names are equal.
  public init(_ name: String) {
    self.name = name
  }

  /// An origin written as a string literal.
  ///
  /// ```swift
  /// let importer: ChangeOrigin = "import"
  /// ```
  ///
  /// - Parameter value: The name.
  public init(stringLiteral value: String) {
    self.init(value)
  }

  /// The origin of a change made with no other origin in force: the local user's edit.
  public static let local = ChangeOrigin("local")
  /// The origin of every change an undo makes.
  public static let undo = ChangeOrigin("undo")
  /// The origin of every change a redo makes.
  public static let redo = ChangeOrigin("redo")
  /// The origin of changes merged from other contexts' saves.
  public static let merge = ChangeOrigin("merge")

  /// Whether the library reserves the origin (``local``, ``undo``, ``redo``, ``merge``).
  ///
  /// ```swift
  /// #expect(ChangeOrigin.undo.isReserved && !ChangeOrigin("import").isReserved)
  /// ```
  public var isReserved: Bool {
    self == .local || self == .undo || self == .redo || self == .merge
  }

  /// The name.
  public var description: String { name }

  /// Decodes an origin from its name, a single string.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: The decoder's error when the value is not a string.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(String.self))
  }

  /// Encodes the origin as its name, a single string.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: The encoder's error.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(name)
  }
}
