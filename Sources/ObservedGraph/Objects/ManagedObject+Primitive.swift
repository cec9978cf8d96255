/// Primitive access and manual change brackets.
extension ManagedObject {
  /// The stored value of the property named `key`, read without any checks on the object's state.
  ///
  /// ```swift
  /// let raw = try book.primitiveValue(forKey: "title") as? String
  /// ```
  /// - Parameter key: A property name.
  /// - Returns: The value, in the form ``value(forKey:)`` returns.
  /// - Throws: ``ObjectGraphError/Kind/unknownKey``.
  public func primitiveValue(forKey key: String) throws -> Any? {
    publicValue(try property(forKey: key))
  }

  /// Writes storage only: no observers hear it, no change is tracked, no undo step is recorded and
  /// the inverse of a relationship is not kept.
  ///
  /// Wrap primitive sets in ``willChangeValue(forKey:)`` and ``didChangeValue(forKey:)`` to have them
  /// count as one observed, tracked and undoable change — the import pattern:
  ///
  /// ```swift
  /// book.willChangeValue(forKey: "title")
  /// try book.setPrimitiveValue(row.title, forKey: "title")
  /// book.didChangeValue(forKey: "title")
  /// ```
  /// - Parameters:
  ///   - value: The new value (an object or a sequence of objects for relationships).
  ///   - key: A property name.
  /// - Throws: ``ObjectGraphError`` for an unknown key, a value of the wrong type or entity, or an
  ///   object of another context; storage is unchanged when it throws.
  public func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
    let property = try property(forKey: key)
    let context = try usableContext(key: key)
    if property.isToMany {
      let objects = try context.validatedObjects(value, for: property, of: self)
      let collection = makeCollection(property)
      collection.removeAll()
      var seen = Set<ObjectIdentifier>()
      for object in objects where seen.insert(ObjectIdentifier(object)).inserted {
        collection.insert(object)
      }
    } else if property.isRelationship {
      storage[property.slot] = try context.validatedObject(value, for: property, of: self)
    } else {
      storage[property.slot] = try context.validatedAttribute(value, for: property, of: self)
    }
  }

  /// Opens a manual change bracket for `key`: the value now is the old value of the change.
  ///
  /// Brackets nest per key; only the outermost pair counts. Each call must be balanced by
  /// ``didChangeValue(forKey:)``; a key the entity does not have, or an unbalanced pair, is a
  /// programming error that stops the program with a message naming the key.
  ///
  /// - Parameter key: A property name.
  public func willChangeValue(forKey key: String) {
    guard let context = _context, lifecycle == .registered,
      let property = entity.propertiesByName[key]
    else {
      preconditionFailure(
        "ObservedGraph: willChangeValue(forKey: \"\(key)\") on \(shortDescription)")
    }
    context.openBracket(self, property)
  }

  /// Closes a manual change bracket for `key`. At the outermost close, if the value differs from the
  /// value at the outermost open, the key is marked changed and the change is recorded for undo.
  ///
  /// - Parameter key: A property name.
  public func didChangeValue(forKey key: String) {
    guard let context = _context, lifecycle == .registered,
      let property = entity.propertiesByName[key]
    else {
      preconditionFailure(
        "ObservedGraph: didChangeValue(forKey: \"\(key)\") on \(shortDescription)")
    }
    context.closeBracket(self, property)
  }
}

extension ManagedObject {
  /// Opens a manual bracket for an indexed change of the ordered to-many relationship `key`:
  /// `.insertion` at `indexes` (positions after the change) or `.removal` from `indexes`
  /// (positions before it). Other kinds are reported as a setting of the whole relationship.
  ///
  /// Change the relationship with primitive sets, then close with
  /// ``didChange(_:valuesAt:forKey:)``: observers hear one insertion or removal with the objects
  /// and indexes, the change is tracked and recorded for undo. Inverses are not kept (primitive).
  ///
  /// ```swift
  /// book.willChange(.insertion, valuesAt: [0], forKey: "pages")
  /// try book.setPrimitiveValue([page] + book.pages, forKey: "pages")
  /// book.didChange(.insertion, valuesAt: [0], forKey: "pages")
  /// ```
  /// - Parameters:
  ///   - kind: `.insertion` or `.removal`.
  ///   - indexes: The positions, ascending.
  ///   - key: The name of an ordered to-many relationship; anything else stops the program.
  public func willChange(_ kind: ChangeKind, valuesAt indexes: [Int], forKey key: String) {
    let (context, property) = bracketTarget(key, ordered: true)
    let before = members(property)
    precondition(
      kind != .removal || indexes.allSatisfy { $0 >= 0 && $0 < before.count },
      "ObservedGraph: willChange(.removal, valuesAt: \(indexes)) outside \(key) of \(shortDescription)"
    )
    context.openBracket(self, property, .indexed(kind, indexes, before: before))
  }

  /// Closes the bracket opened by ``willChange(_:valuesAt:forKey:)``.
  ///
  /// - Parameters:
  ///   - kind: The same kind.
  ///   - indexes: The same indexes.
  ///   - key: The same key.
  public func didChange(_ kind: ChangeKind, valuesAt indexes: [Int], forKey key: String) {
    let (context, property) = bracketTarget(key, ordered: true)
    context.closeBracket(self, property)
  }

  /// Opens a manual bracket for objects joining (`.insertion`) or leaving (`.removal`) the
  /// unordered to-many relationship `key`.
  ///
  /// ```swift
  /// category.willChange(.insertion, objects: [book], forKey: "books")
  /// try category.setPrimitiveValue(category.books.union([book]), forKey: "books")
  /// category.didChange(.insertion, objects: [book], forKey: "books")
  /// ```
  /// - Parameters:
  ///   - kind: `.insertion` or `.removal`.
  ///   - objects: The objects joining or leaving.
  ///   - key: The name of an unordered to-many relationship; anything else stops the program.
  public func willChange(_ kind: ChangeKind, objects: Set<ManagedObject>, forKey key: String) {
    let (context, property) = bracketTarget(key, ordered: false)
    context.openBracket(self, property, .objects(kind, Array(objects)))
  }

  /// Closes the bracket opened by ``willChange(_:objects:forKey:)``.
  ///
  /// - Parameters:
  ///   - kind: The same kind.
  ///   - objects: The same objects.
  ///   - key: The same key.
  public func didChange(_ kind: ChangeKind, objects: Set<ManagedObject>, forKey key: String) {
    let (context, property) = bracketTarget(key, ordered: false)
    context.closeBracket(self, property)
  }

  private func bracketTarget(_ key: String, ordered: Bool) -> (ObjectContext, Property) {
    guard let context = _context, lifecycle == .registered,
      let property = entity.propertiesByName[key], property.isToMany,
      property.isOrdered == ordered
    else {
      preconditionFailure(
        "ObservedGraph: '\(key)' of \(shortDescription) is not "
          + (ordered ? "an ordered" : "an unordered") + " to-many relationship")
    }
    return (context, property)
  }
}

extension ObjectContext {
  /// An open manual bracket: its depth and the value at the outermost open.
  struct Bracket {
    var depth: Int
    let old: Any?
    var delivery: Delivery?
    let mutation: BracketMutation?
  }

  /// The to-many change a bracket announces; nil for a plain setting.
  enum BracketMutation {
    case indexed(ChangeKind, [Int], before: [ManagedObject])
    case objects(ChangeKind, [ManagedObject])
  }

  struct BracketKey: Hashable {
    let object: ObjectIdentifier
    let slot: Int
  }

  func openBracket(
    _ object: ManagedObject, _ property: Property, _ mutation: BracketMutation? = nil
  ) {
    let key = BracketKey(object: ObjectIdentifier(object), slot: property.slot)
    if brackets[key] != nil {
      brackets[key]!.depth += 1
      return
    }
    let old: Any? = property.isToMany ? object.members(property) : object.storage[property.slot]
    brackets[key] = Bracket(depth: 1, old: old, delivery: nil, mutation: mutation)
    let delivery = willBracket(object, property, probe: probe(object, property, mutation))
    brackets[key]?.delivery = delivery
  }

  /// The edit observers hear about in the will phase of a bracket.
  private func probe(_ object: ManagedObject, _ property: Property, _ mutation: BracketMutation?)
    -> Edit
  {
    switch mutation {
    case .indexed(.insertion, let indexes, _):
      return .insert(object, property, objects: [], indexes: indexes)
    case .indexed(.removal, let indexes, let before):
      return .remove(object, property, objects: indexes.map { before[$0] }, indexes: indexes)
    case .objects(.insertion, let objects):
      return .insert(object, property, objects: objects, indexes: [])
    case .objects(.removal, let objects):
      return .remove(object, property, objects: objects, indexes: [])
    default:
      let current: Any? =
        property.isToMany
        ? collectionForm(object.members(property), property) : object.storage[property.slot]
      return .set(object, property, old: current, new: current, changes: false)
    }
  }

  func closeBracket(_ object: ManagedObject, _ property: Property) {
    let key = BracketKey(object: ObjectIdentifier(object), slot: property.slot)
    guard var bracket = brackets[key] else {
      preconditionFailure(
        "ObservedGraph: didChangeValue(forKey: \"\(property.name)\") on \(object.shortDescription) "
          + "without a matching willChangeValue(forKey:)")
    }
    bracket.depth -= 1
    guard bracket.depth == 0 else {
      brackets[key] = bracket
      return
    }
    brackets[key] = nil
    // The storage already holds the new value; record the change as an edit that is already applied.
    let edit: Edit
    let members = property.isToMany ? object.members(property) : []
    switch bracket.mutation {
    case .indexed(.insertion, let indexes, _):
      let objects = indexes.filter { $0 < members.count }.map { members[$0] }
      edit = .insert(object, property, objects: objects, indexes: indexes)
    case .indexed(.removal, let indexes, let before):
      edit = .remove(object, property, objects: indexes.map { before[$0] }, indexes: indexes)
    case .objects(.insertion, let objects):
      edit = .insert(object, property, objects: objects, indexes: [])
    case .objects(.removal, let objects):
      edit = .remove(object, property, objects: objects, indexes: [])
    default:
      edit = plainEdit(object, property, bracket.old, members)
    }
    let asSetting = bracket.mutation == nil || edit.isReplace
    performApplied(edit, bracket.delivery, original: bracket.old, asSetting: asSetting)
  }

  private func plainEdit(
    _ object: ManagedObject, _ property: Property, _ old: Any?, _ members: [ManagedObject]
  ) -> Edit {
    if property.isToMany {
      return .replace(object, property, old: old as? [ManagedObject] ?? [], new: members)
    }
    let new = object.storage[property.slot]
    return .set(object, property, old: old, new: new, changes: property.differs(old, new))
  }
}

extension Edit {
  var isReplace: Bool {
    if case .replace = self { return true }
    return false
  }
}
