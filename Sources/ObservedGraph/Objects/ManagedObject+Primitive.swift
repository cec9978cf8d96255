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

extension ObjectContext {
  /// An open manual bracket: its depth and the value at the outermost open.
  struct Bracket {
    var depth: Int
    let old: Any?
    let delivery: Delivery?
  }

  struct BracketKey: Hashable {
    let object: ObjectIdentifier
    let slot: Int
  }

  func openBracket(_ object: ManagedObject, _ property: Property) {
    let key = BracketKey(object: ObjectIdentifier(object), slot: property.slot)
    if brackets[key] != nil {
      brackets[key]!.depth += 1
      return
    }
    let old: Any? = property.isToMany ? object.members(property) : object.storage[property.slot]
    brackets[key] = Bracket(depth: 1, old: old, delivery: nil)
    let delivery = willBracket(object, property)
    brackets[key] = Bracket(depth: brackets[key]?.depth ?? 1, old: old, delivery: delivery)
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
    if property.isToMany {
      let old = bracket.old as? [ManagedObject] ?? []
      edit = .replace(object, property, old: old, new: object.members(property))
    } else {
      let new = object.storage[property.slot]
      let changes: Bool
      if property.isRelationship {
        changes = (bracket.old as AnyObject?) !== (new as AnyObject?)
      } else {
        switch (bracket.old, new) {
        case (nil, nil): changes = false
        case (let old?, let new?): changes = !property.attribute!.type.equal(old, new)
        default: changes = true
        }
      }
      edit = .set(object, property, old: bracket.old, new: new, changes: changes)
    }
    performApplied(edit, bracket.delivery)
  }
}
