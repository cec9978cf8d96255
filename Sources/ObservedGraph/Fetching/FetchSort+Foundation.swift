import Foundation

extension FetchSort {
  /// Converts a Foundation `SortDescriptor` on a model class into a sort key.
  ///
  /// The key path becomes the names of the properties it reads (`\Book.title` is `title`,
  /// `\Book.category?.name` is `category.name`), the order becomes ``ascending``, and the string
  /// comparator becomes ``comparison``:
  ///
  /// | `SortDescriptor` | ``Comparison-swift.enum`` |
  /// |---|---|
  /// | no string comparator (Linux's default, and any key that is not a string) | ``Comparison-swift.enum/swift`` |
  /// | `.lexical` | ``Comparison-swift.enum/swift`` |
  /// | `.localized` (Apple platforms) | ``Comparison-swift.enum/localized`` |
  /// | `.localizedStandard` (Apple platforms' default for strings) | ``Comparison-swift.enum/localizedStandard`` |
  ///
  /// A key path of several steps is resolved by reading it on scratch objects whose to-one
  /// relationships lead on a few steps; each step must be an ``Attribute`` or ``Relationship``
  /// property (a computed property of several reads is taken for the path it reads).
  ///
  /// ```swift
  /// let byTitle = try FetchSort(SortDescriptor(\Book.title, order: .reverse), model: model)
  /// print(byTitle)  // title descending
  /// let byCategory = try FetchSort(SortDescriptor(\Book.category?.name), model: model)
  /// print(byCategory)  // category.name ascending
  /// ```
  /// - Parameters:
  ///   - descriptor: The sort descriptor, on a class of the model.
  ///   - model: The model holding the class's entity.
  /// - Throws: ``ObjectGraphError/Kind/unknownEntity`` when the model has no entity for the
  ///   class; ``ObjectGraphError/Kind/invalidPredicate`` naming the entity when the descriptor
  ///   has no key path (it compares with a closure), the key path does not read modelled
  ///   properties, or the string comparator has options a sort key cannot express.
  public init<Compared: ManagedObject>(_ descriptor: SortDescriptor<Compared>, model: ObjectModel)
    throws
  {
    guard let entity = model.entity(for: Compared.self) else {
      throw ObjectGraphError(
        .unknownEntity, entity: Compared.entityName,
        reason: "the model has no entity for the class \(Compared.self) of the sort descriptor")
    }
    guard let keyPath = descriptor.keyPath else {
      throw ObjectGraphError(
        .invalidPredicate, entity: entity.name, value: String(describing: descriptor),
        reason: "a sort descriptor on \(entity.name) without a key path cannot be converted "
          + "into a sort key")
    }
    let names = try KeyPathNames.names(of: keyPath, in: entity, singleStep: false)
    let comparison = try Self.comparison(of: descriptor.stringComparator, entity: entity)
    self.init(
      names.joined(separator: "."), ascending: descriptor.order == .forward,
      comparison: comparison)
  }

  /// Converts a Foundation `SortDescriptor` with the model of `context`; see ``init(_:model:)``.
  init<Compared: ManagedObject>(_ descriptor: SortDescriptor<Compared>, context: ObjectContext)
    throws
  {
    try self.init(descriptor, model: context.model)
  }

  private static func comparison(
    of comparator: String.StandardComparator?, entity: EntityDescription
  ) throws -> Comparison {
    guard var comparator else { return .swift }
    // The comparator's own order does not matter: the descriptor's order wins.
    comparator.order = .forward
    if comparator == .lexical { return .swift }
    #if canImport(Darwin)
      if comparator == .localized { return .localized }
      if comparator == .localizedStandard { return .localizedStandard }
    #endif
    throw ObjectGraphError(
      .invalidPredicate, entity: entity.name, value: String(describing: comparator),
      reason: "a sort descriptor on \(entity.name) compares strings with \(comparator); a sort "
        + "key compares them with Swift's <, localizedCompare or localizedStandardCompare only")
  }
}
