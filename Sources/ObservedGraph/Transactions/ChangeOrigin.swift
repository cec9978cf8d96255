import Foundation

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
  /// The name's number in the process's table of origin names (``OriginNames``): an origin is
  /// carried by every change delivered, so it is a number, copied without reference counting.
  @usableFromInline let number: UInt32

  private init(number: UInt32) {
    self.number = number
  }

  /// An origin named `name`.
  ///
  /// ```swift
  /// let importer = ChangeOrigin("import")
  /// ```
  ///
  /// - Parameter name: The name; origins with equal names are equal.
  /// - Complexity: A lookup in the process's table of names, under a lock. The table keeps each
  ///   name made, for the life of the process: origins are a handful of names, not data.
  public init(_ name: String) {
    self.init(number: OriginNames.shared.number(for: name))
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

  /// The origin's name.
  public var name: String { OriginNames.shared.name(of: number) }

  /// The origin of a change made with no other origin in force: the local user's edit.
  public static var local: ChangeOrigin { ChangeOrigin(number: 0) }
  /// The origin of every change an undo makes.
  public static var undo: ChangeOrigin { ChangeOrigin(number: 1) }
  /// The origin of every change a redo makes.
  public static var redo: ChangeOrigin { ChangeOrigin(number: 2) }
  /// The origin of changes merged from other contexts' saves.
  public static var merge: ChangeOrigin { ChangeOrigin(number: 3) }

  /// Whether the library reserves the origin (``local``, ``undo``, ``redo``, ``merge``).
  ///
  /// ```swift
  /// #expect(ChangeOrigin.undo.isReserved && !ChangeOrigin("import").isReserved)
  /// ```
  public var isReserved: Bool { number < OriginNames.reservedCount }

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

/// The names of the origins made in the process, by number: the reserved ones first. Shared by
/// every context and task, under a lock.
final class OriginNames: @unchecked Sendable {
  static let shared = OriginNames()
  /// The reserved origins, numbered 0 to 3.
  static let reservedCount: UInt32 = 4

  private let lock = NSLock()
  private var names = ["local", "undo", "redo", "merge"]
  private var numbers = ["local": UInt32(0), "undo": 1, "redo": 2, "merge": 3]

  func number(for name: String) -> UInt32 {
    lock.withLock {
      if let number = numbers[name] { return number }
      let number = UInt32(names.count)
      names.append(name)
      numbers[name] = number
      return number
    }
  }

  func name(of number: UInt32) -> String {
    lock.withLock { names[Int(number)] }
  }
}
