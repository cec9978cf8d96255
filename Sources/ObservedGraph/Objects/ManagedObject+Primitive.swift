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
    let property = try property(forKey: key)
    try fulfilFault(key: key)
    return publicValue(property, tracking: false)
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
  /// - Throws: ``ObjectGraphError`` for an unknown key, a value of the wrong type or entity, an
  ///   object of another context, or a deleted object (as the owner or the value); storage is
  ///   unchanged when it throws.
  public func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
    let property = try property(forKey: key)
    let context = try usableContext(key: key)
    // A fault loads first: loading later would overwrite the value set now.
    try fulfilFault(key: key)
    if property.isToMany {
      let objects = context.uniqued(try context.validatedObjects(value, for: property, of: self))
      let collection = makeCollection(property)
      collection.removeAll()
      for object in objects { collection.insert(object) }
    } else if property.isRelationship {
      write(try context.validatedObject(value, for: property, of: self), at: property.slot)
    } else {
      write(try context.validatedAttribute(value, for: property, of: self), at: property.slot)
    }
    context.generation &+= 1
  }

  /// Opens a manual change bracket for `key`: the value now is the old value of the change.
  ///
  /// Brackets nest per key; only the outermost pair counts. Each call must be balanced by
  /// ``didChangeValue(forKey:)``; a key the entity does not have, an unbalanced pair, or an object
  /// that cannot change (deleted, out of its context) is a programming error that stops the
  /// program with a message naming the object and key.
  ///
  /// - Parameter key: A property name.
  public func willChangeValue(forKey key: String) {
    let (context, property) = bracketTarget(key, toMany: nil)
    context.openBracket(self, property)
  }

  /// Closes a manual change bracket for `key`. At the outermost close, if the value differs from the
  /// value at the outermost open, the key is marked changed and the change is recorded for undo.
  ///
  /// - Parameter key: A property name.
  public func didChangeValue(forKey key: String) {
    let (context, property) = bracketTarget(key, toMany: nil)
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
    let (context, property) = bracketTarget(key, toMany: .ordered)
    let before = members(property)
    precondition(
      kind != .removal || indexes.allSatisfy { $0 >= 0 && $0 < before.count },
      "ObservedGraph: willChange(.removal, valuesAt: \(indexes)) outside \(key) of \(objectID)")
    context.openBracket(self, property, .indexed(kind, indexes, before: before))
  }

  /// Closes the bracket opened by ``willChange(_:valuesAt:forKey:)``.
  ///
  /// - Parameters:
  ///   - kind: The same kind.
  ///   - indexes: The same indexes.
  ///   - key: The same key.
  public func didChange(_ kind: ChangeKind, valuesAt indexes: [Int], forKey key: String) {
    let (context, property) = bracketTarget(key, toMany: .ordered)
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
    let (context, property) = bracketTarget(key, toMany: .unordered)
    context.openBracket(self, property, .objects(kind, Array(objects)))
  }

  /// Closes the bracket opened by ``willChange(_:objects:forKey:)``.
  ///
  /// - Parameters:
  ///   - kind: The same kind.
  ///   - objects: The same objects.
  ///   - key: The same key.
  public func didChange(_ kind: ChangeKind, objects: Set<ManagedObject>, forKey key: String) {
    let (context, property) = bracketTarget(key, toMany: .unordered)
    context.closeBracket(self, property)
  }

  private enum BracketShape { case ordered, unordered }

  /// The context and property of a bracket, or a stop naming the mistake.
  private func bracketTarget(_ key: String, toMany shape: BracketShape?) -> (
    ObjectContext, Property
  ) {
    let call = shape == nil ? "willChangeValue/didChangeValue" : "willChange/didChange"
    guard let property = entity.propertiesByName[key] else {
      preconditionFailure(
        "ObservedGraph: \(call)(forKey: \"\(ObjectGraphError.shorten(key))\") on \(objectID): "
          + "\(entity.name) has no such property")
    }
    if let shape {
      guard property.isToMany, property.isOrdered == (shape == .ordered) else {
        preconditionFailure(
          "ObservedGraph: '\(key)' of \(objectID) is not "
            + (shape == .ordered ? "an ordered" : "an unordered") + " to-many relationship")
      }
    }
    do {
      return (try usableContext(key: key), property)
    } catch {
      preconditionFailure(
        "ObservedGraph: \(call)(forKey: \"\(key)\") on \(objectID): "
          + ((error as? ObjectGraphError)?.reason ?? "\(error)"))
    }
  }
}
