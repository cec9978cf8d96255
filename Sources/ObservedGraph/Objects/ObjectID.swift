import Foundation

/// A stable, unique identifier of a managed object.
///
/// An object keeps its identifier for its whole life, through undo of its insertion and redo, and
/// no other object of any context in the process has the same one. Identifiers are values: compare,
/// hash and pass them across isolation domains freely.
///
/// ```swift
/// let id = book.objectID
/// #expect(context.object(with: id) === book)
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
  /// The name of the object's entity.
  public let entityName: String
  let contextNumber: UInt64
  let number: UInt64

  /// Identifiers are equal when they name the same object.
  public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
    lhs.number == rhs.number && lhs.contextNumber == rhs.contextNumber
  }

  /// Hashes the identifying numbers.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(number)
    hasher.combine(contextNumber)
  }

  /// `Book/c1/7`: entity, context and object number.
  public var description: String { "\(entityName)/c\(contextNumber)/\(number)" }
}

/// Hands out process-wide unique context numbers.
enum ContextNumbers {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var last: UInt64 = 0  // guarded by `lock`

  static func next() -> UInt64 {
    lock.lock()
    defer { lock.unlock() }
    last += 1
    return last
  }
}
