import Foundation
import ObservedGraph

/// A change between two model versions that a migration cannot infer: the entity and property,
/// what changed, and what the change needs (a default value, a custom stage…).
///
/// ```swift
/// print(refusal)   // 1.0.0 → 2.0.0: Book.isbn: added, not optional: needs a default value, …
/// ```
public struct MigrationRefusal: Equatable, Sendable, CustomStringConvertible {
  /// The version the change is from.
  public let from: ModelVersion?
  /// The version the change is to.
  public let to: ModelVersion?
  /// The entity's name.
  public let entity: String
  /// The property's name; nil for a change of the entity itself.
  public let property: String?
  /// What changed, such as `type int → string`.
  public let change: String
  /// What the change needs to be migrated.
  public let needs: String

  /// A refusal, as a migration reports it.
  ///
  /// - Parameters:
  ///   - from: The version the change is from.
  ///   - to: The version the change is to.
  ///   - entity: The entity's name.
  ///   - property: The property's name, or nil.
  ///   - change: What changed.
  ///   - needs: What the change needs.
  public init(
    from: ModelVersion?, to: ModelVersion?, entity: String, property: String?, change: String,
    needs: String
  ) {
    self.from = from
    self.to = to
    self.entity = entity
    self.property = property
    self.change = change
    self.needs = needs
  }

  /// `1.0.0 → 2.0.0: Book.price: type double → string: needs …`.
  public var description: String {
    let versions =
      "\(from.map(String.init(describing:)) ?? "?") → "
      + "\(to.map(String.init(describing:)) ?? "?")"
    return "\(versions): \(entity)\(property.map { ".\($0)" } ?? ""): \(change): needs \(needs)"
  }
}
