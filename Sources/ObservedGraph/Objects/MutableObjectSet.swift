/// A live, editable view of an unordered to-many relationship: every edit goes through the observed
/// mutation path and keeps the inverse of each object it touches.
///
/// ```swift
/// let books = try fiction.mutableSet(forKey: "books")
/// try books.insert(dune)          // dune.category == fiction, and dune left its old category
/// try books.remove(dune)          // dune.category == nil
/// ```
public struct MutableObjectSet: Sequence {
  let owner: ManagedObject
  let property: Property

  /// The number of objects in the relationship now.
  public var count: Int { owner.members(property).count }

  /// Whether the relationship holds `object` now.
  ///
  /// - Parameter object: Any object.
  /// - Returns: true when it is a member.
  public func contains(_ object: ManagedObject) -> Bool {
    owner.members(property).contains { $0 === object }
  }

  /// Iterates over a snapshot of the members.
  public func makeIterator() -> IndexingIterator<[ManagedObject]> {
    owner.members(property).makeIterator()
  }

  /// Adds an object; adding a member does nothing.
  ///
  /// - Parameter object: An object of the destination entity, of the same context, not deleted.
  /// - Throws: `wrongEntity`, `otherContext`, `deletedObject` (also when the owner is deleted).
  public func insert(_ object: ManagedObject) throws {
    let context = try checkedContext()
    // A member already there changes nothing (and passes the checks, as in `checkedMembers`: a
    // no-action rule may have left a deleted one).
    if owner.collection(property)?.contains(object) == true { return }
    try context.checkRelatable(object, for: property, of: owner)
    let held =
      context.store == nil
      ? []
      : try context.preloadRelationshipChange(
        of: owner, property, others: [object], keepsOtherMembers: true)
    defer { withExtendedLifetime(held) {} }
    // One member, checked: the quiet insertion when nothing hears it.
    if context.insertQuietly(object, into: owner, property) { return }
    context.performPlanned(.insertMembers(owner, property, [object], at: nil))
  }

  /// Removes an object; removing a non-member does nothing.
  ///
  /// - Parameter object: Any object.
  /// - Throws: `deletedObject` when the owner is deleted.
  public func remove(_ object: ManagedObject) throws { try subtract([object]) }

  /// Adds every object of a sequence (one insertion change for all of them).
  ///
  /// - Parameter objects: Objects of the destination entity.
  /// - Throws: As ``insert(_:)``; nothing is added when any object is refused.
  /// - Complexity: O(*k* + *m*) in the objects given and the members, plus the inverse upkeep
  ///   of each object added.
  public func formUnion(_ objects: some Sequence<ManagedObject>) throws {
    let context = try checkedContext()
    let objects = try context.checkedMembers(Array(objects), for: property, of: owner)
    try context.performPreloaded(.insertMembers(owner, property, objects, at: nil))
  }

  /// Removes every object of a sequence that is a member (one removal change).
  ///
  /// - Parameter objects: Any objects.
  /// - Throws: `deletedObject` when the owner is deleted.
  /// - Complexity: O(*k* + *m*) in the objects given and the members, plus the inverse upkeep
  ///   of each object removed.
  public func subtract(_ objects: some Sequence<ManagedObject>) throws {
    let context = try checkedContext()
    try context.performPreloaded(.removeMembers(owner, property, Array(objects)))
  }

  /// Keeps only the members that are also in `objects` (one removal change for the others).
  ///
  /// - Parameter objects: The objects to keep.
  /// - Throws: `deletedObject` when the owner is deleted.
  /// - Complexity: O(*k* + *m*) in the objects given and the members, plus the inverse upkeep
  ///   of each object removed.
  public func formIntersection(_ objects: some Sequence<ManagedObject>) throws {
    let keep = Set(objects.map(ObjectIdentifier.init))
    try subtract(owner.members(property).filter { !keep.contains(ObjectIdentifier($0)) })
  }

  /// Removes every member.
  ///
  /// - Throws: `deletedObject` when the owner is deleted.
  /// - Complexity: O(*m*) in the members, plus the inverse upkeep of each.
  public func removeAll() throws { try subtract(owner.members(property)) }

  /// The owner's context, with the relationship loaded where a store's failure can be thrown
  /// (the edits read it through reads that cannot throw).
  func checkedContext() throws -> ObjectContext {
    let context = try owner.usableContext(key: property.name)
    if context.store != nil {
      try owner.fulfilFault()
      try owner.loadToMany(property)
    }
    return context
  }
}

/// A live, editable view of an ordered to-many relationship: inserts at an index, moves and removals
/// go through the observed mutation path and keep each object's inverse.
///
/// ```swift
/// let pages = try book.mutableOrderedSet(forKey: "pages")
/// try pages.append(page1)
/// try pages.insert(page0, at: 0)
/// try pages.move(from: 1, to: 0)
/// ```
public struct MutableOrderedObjectSet: RandomAccessCollection {
  let owner: ManagedObject
  let property: Property

  /// 0.
  public var startIndex: Int { 0 }
  /// The number of members now.
  public var endIndex: Int { owner.members(property).count }
  /// The member at `position` now.
  ///
  /// - Parameter position: An index in `0..<count`.
  /// - Returns: The member at that index.
  public subscript(position: Int) -> ManagedObject { owner.members(property)[position] }

  /// The position of `object`, or nil when it is not a member.
  ///
  /// - Parameter object: Any object.
  /// - Returns: Its index.
  /// - Complexity: O(n).
  public func index(of object: ManagedObject) -> Int? {
    owner.members(property).firstIndex { $0 === object }
  }

  /// Adds an object at the end; a member is moved to the end.
  ///
  /// - Parameter object: An object of the destination entity.
  /// - Throws: `wrongEntity`, `otherContext`, `deletedObject`.
  public func append(_ object: ManagedObject) throws { try insert(object, at: endIndex) }

  /// Inserts an object at `index`; a member is moved there instead.
  ///
  /// - Parameters:
  ///   - object: An object of the destination entity.
  ///   - index: A position from 0 to `count`.
  /// - Throws: ``ObjectGraphError/Kind/indexOutOfRange``, `wrongEntity`, `otherContext`,
  ///   `deletedObject`.
  /// - Complexity: O(*m*) in the members: the later members move up.
  public func insert(_ object: ManagedObject, at index: Int) throws {
    let context = try checkedContext()
    try checkIndex(index, limit: endIndex)
    let objects = try context.checkedMembers([object], for: property, of: owner)
    try context.performPreloaded(.insertMembers(owner, property, objects, at: index))
  }

  /// Removes the member at `index`.
  ///
  /// - Parameter index: A position from 0 to `count - 1`.
  /// - Throws: ``ObjectGraphError/Kind/indexOutOfRange``, `deletedObject`.
  /// - Complexity: O(*m*) in the members: the later members move down.
  public func remove(at index: Int) throws {
    let context = try checkedContext()
    try checkIndex(index, limit: endIndex - 1)
    try context.performPreloaded(.removeMembers(owner, property, [self[index]]))
  }

  /// Removes `object` if it is a member.
  ///
  /// - Parameter object: Any object.
  /// - Throws: `deletedObject` when the owner is deleted.
  public func remove(_ object: ManagedObject) throws {
    let context = try checkedContext()
    try context.performPreloaded(.removeMembers(owner, property, [object]))
  }

  /// Moves the member at `source` to `destination`: observers hear a removal at `source` followed
  /// by an insertion at `destination` (the same object), and undo puts it back.
  ///
  /// - Parameters:
  ///   - source: The member's position.
  ///   - destination: Its position after the move.
  /// - Throws: ``ObjectGraphError/Kind/indexOutOfRange``, `deletedObject`.
  /// - Complexity: O(*m*) in the members.
  public func move(from source: Int, to destination: Int) throws {
    let context = try checkedContext()
    try checkIndex(source, limit: endIndex - 1)
    try checkIndex(destination, limit: endIndex - 1)
    guard source != destination else { return }
    try context.performPreloaded(.insertMembers(owner, property, [self[source]], at: destination))
  }

  private func checkedContext() throws -> ObjectContext {
    try MutableObjectSet(owner: owner, property: property).checkedContext()
  }

  private func checkIndex(_ index: Int, limit: Int) throws {
    guard index < 0 || index > limit else { return }
    throw ObjectGraphError(
      .indexOutOfRange, entity: owner.entity.name, key: property.name, value: "\(index)",
      reason: "index \(index) is outside 0...\(limit) of '\(property.name)'")
  }
}

extension ManagedObject {
  /// An editable view of the unordered to-many relationship named `key`.
  ///
  /// ```swift
  /// try category.mutableSet(forKey: "books").insert(book)
  /// ```
  /// - Parameter key: The name of an unordered to-many relationship.
  /// - Returns: A proxy whose edits keep inverses and are observed and undoable.
  /// - Throws: `unknownKey`; ``ObjectGraphError/Kind/notToMany`` for an attribute, a to-one or an
  ///   ordered relationship; `deletedObject` on a deleted object.
  public func mutableSet(forKey key: String) throws -> MutableObjectSet {
    let property = try toManyProperty(key, ordered: false)
    return MutableObjectSet(owner: self, property: property)
  }

  /// An editable view of the ordered to-many relationship named `key`.
  ///
  /// ```swift
  /// try book.mutableOrderedSet(forKey: "pages").insert(page, at: 0)
  /// ```
  /// - Parameter key: The name of an ordered to-many relationship.
  /// - Returns: A proxy whose edits keep inverses and are observed and undoable.
  /// - Throws: `unknownKey`; ``ObjectGraphError/Kind/notToMany`` for an attribute, a to-one or an
  ///   unordered relationship; `deletedObject` on a deleted object.
  public func mutableOrderedSet(forKey key: String) throws -> MutableOrderedObjectSet {
    let property = try toManyProperty(key, ordered: true)
    return MutableOrderedObjectSet(owner: self, property: property)
  }

  private func toManyProperty(_ key: String, ordered: Bool) throws -> Property {
    let property = try property(forKey: key)
    guard property.isToMany, property.isOrdered == ordered else {
      let wanted = ordered ? "an ordered to-many relationship" : "an unordered to-many relationship"
      throw ObjectGraphError(
        .notToMany, entity: entity.name, key: key, value: key,
        reason: "'\(key)' is not \(wanted)")
    }
    _ = try usableContext(key: key)
    return property
  }
}
