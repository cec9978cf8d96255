/// The typed observation API of managed objects. `ManagedObject` conforms; the protocol exists so
/// that `observe(_:options:changeHandler:)` can speak of `Self`.
public protocol KeyValueObserving: AnyObject {}

extension ManagedObject: KeyValueObserving {}

extension KeyValueObserving where Self: ManagedObject {
  /// Observes a property (or a computed property) through a typed key path.
  ///
  /// For an ``Attribute`` or ``Relationship`` property, changes arrive exactly as key-value
  /// observing reports them: settings with old and new values, to-many insertions and removals
  /// with the affected objects (and indexes when ordered). For a computed property, the handler gets
  /// a setting whenever a property it reads changes, with its old and new value.
  ///
  /// ```swift
  /// let token = book.observe(\.title, options: [.old, .new]) { book, change in
  ///   print("title: \(change.oldValue!) -> \(change.newValue!)")
  /// }
  /// ```
  /// Observers are called synchronously, in registration order, after the change (and before it
  /// too with `.prior`). An object that no longer belongs to a context returns an already-invalid
  /// token.
  ///
  /// - Parameters:
  ///   - keyPath: The property.
  ///   - options: What to deliver; `.new` by default.
  ///   - changeHandler: Called with the object and the change.
  /// - Returns: A token; invalidate or release it to stop delivery.
  @inlinable
  public func observe<Value>(
    _ keyPath: KeyPath<Self, Value>, options: ObservationOptions = [.new],
    changeHandler: @escaping (Self, ObservedChange<Value>) -> Void
  ) -> ObservationToken {
    // Inlinable (benchmark row "same with 1 observer getting old+new"): the closure that types each
    // change is specialized for `Value` in the caller's module instead of running as generic code.
    let convert = Self._converter(to: Value.self)
    return _observe(
      keyPath, options: options,
      // Unowned: only the object's own observer table calls this, while the object is alive.
      direct: { [unowned(unsafe) self] raw in
        changeHandler(
          self,
          ObservedChange(
            kind: raw.kind, oldValue: raw.oldValue.map(convert),
            newValue: raw.newValue.map(convert),
            indexes: raw.indexes, isPrior: raw.isPrior))
      },
      computed: { [weak self] raw in
        guard let self else { return }
        changeHandler(
          self,
          ObservedChange(
            kind: raw.kind, oldValue: raw.oldValue.map { $0 as! Value },
            newValue: raw.newValue.map { $0 as! Value }, indexes: raw.indexes, isPrior: raw.isPrior)
        )
      })
  }

  /// Registers a typed observation: `direct` for a modelled property (raw storage values),
  /// `computed` for a computed key path (values read through the key path).
  @usableFromInline
  func _observe<Value>(
    _ keyPath: KeyPath<Self, Value>, options: ObservationOptions,
    direct: @escaping (ObservedChange<Any?>) -> Void,
    computed: @escaping (ObservedChange<Any?>) -> Void
  ) -> ObservationToken {
    guard let context, lifecycle == .registered else { return ObservationToken {} }
    accessLog = []
    _ = self[keyPath: keyPath]
    let slots = accessLog ?? []
    let isDirect = slots.count == 1 && lastAccessedKeyPath == keyPath as AnyKeyPath
    accessLog = nil
    lastAccessedKeyPath = nil
    if isDirect {
      let property = entity.properties[slots[0]]
      return observeSlot(property, context: context, options: options) { raw in
        direct(raw.typed { $0 })
      }
    }
    var names: [String] = []
    for slot in slots where !names.contains(entity.properties[slot].name) {
      names.append(entity.properties[slot].name)
    }
    let observation = PathObservation(
      context: context, root: self, paths: names.map { [$0] }, options: options,
      current: { ($0 as! Self)[keyPath: keyPath] },
      deliver: { raw in computed(raw.typed { $0 }) })
    observation.start()
    return ObservationToken { observation.invalidate() }
  }

  /// A function converting raw values to the Swift type of a typed key path, chosen once.
  @usableFromInline
  static func _converter<Value>(to type: Value.Type) -> (Any?) -> Value {
    if let attribute = type as? any AttributeValue.Type {
      return attributeConverter(attribute) as! (Any?) -> Value
    }
    if let relationship = type as? any RelationshipValue.Type {
      return relationshipConverter(relationship) as! (Any?) -> Value
    }
    return { $0 as! Value }
  }

  private static func attributeConverter<A: AttributeValue>(_ type: A.Type) -> Any {
    { (raw: Any?) -> A in A._fromStorage(raw) } as (Any?) -> A
  }

  private static func relationshipConverter<R: RelationshipValue>(_ type: R.Type) -> Any {
    { (raw: Any?) -> R in
      switch raw {
      case let set as Set<ManagedObject>: R._fromObjects(Array(set))
      case let array as [ManagedObject]: R._fromObjects(array)
      case let object as ManagedObject: R._fromObjects([object])
      default: R._fromObjects([])
      }
    } as (Any?) -> R
  }
}

extension ManagedObject {
  /// Observes a key or key path by name, for any object (generic ones included).
  ///
  /// A single property key reports changes exactly as key-value observing does (settings, to-many
  /// insertions and removals with indexes when ordered). A key path through relationships
  /// (`"category.name"`, `"books.price"`) or a dependent key (see
  /// ``keyPathsForValuesAffectingValue(forKey:)``) reports a setting with the old and new value of
  /// the whole path whenever any link of it changes; the path follows the graph as it changes.
  ///
  /// ```swift
  /// let token = try book.observe(keyPath: "category.name", options: [.initial, .new]) { change in
  ///   print(change.newValue as Any)
  /// }
  /// ```
  /// - Parameters:
  ///   - keyPath: Keys separated by dots.
  ///   - options: What to deliver; `.new` by default.
  ///   - changeHandler: Called with each change; values are in the form ``value(forKey:)`` returns.
  /// - Returns: A token; invalidate or release it to stop delivery.
  /// - Throws: ``ObjectGraphError/Kind/unknownKey`` naming the first key that is neither a property
  ///   nor a dependent key; `invalidObject` for an object without a context.
  public func observe(
    keyPath: String, options: ObservationOptions = [.new],
    changeHandler: @escaping (ObservedChange<Any?>) -> Void
  ) throws -> ObservationToken {
    let context = try usableContext(key: keyPath)
    let keys = keyPath.split(separator: ".").map(String.init)
    try Self.checkPath(keys[...], entity: entity, objectClass: type(of: self), whole: keyPath)
    if keys.count == 1, let property = entity.propertiesByName[keys[0]] {
      return observeSlot(property, context: context, options: options) { raw in
        changeHandler(raw.typed { $0 })
      }
    }
    let observation = PathObservation(
      context: context, root: self, paths: [keys], options: options,
      current: { try? $0.value(forKeyPath: keyPath) },
      deliver: { raw in changeHandler(raw.typed { $0 }) })
    observation.start()
    return ObservationToken { observation.invalidate() }
  }

  private static func checkPath(
    _ keys: ArraySlice<String>, entity: EntityDescription, objectClass: ManagedObject.Type,
    whole: String
  ) throws {
    guard let key = keys.first else { return }
    if let property = entity.propertiesByName[key] {
      guard keys.count > 1 else { return }
      guard let destination = property.destination else {
        throw ObjectGraphError(
          .unknownKey, entity: entity.name, key: whole, value: key,
          reason: "'\(key)' in key path '\(whole)' is an attribute, so the path cannot go on")
      }
      try checkPath(
        keys.dropFirst(), entity: destination, objectClass: destination.objectClass, whole: whole)
    } else if objectClass.keyPathsForValuesAffectingValue(forKey: key).isEmpty || keys.count > 1 {
      throw ObjectGraphError(
        .unknownKey, entity: entity.name, key: whole, value: key,
        reason: "\(entity.name) has no property '\(key)' (key path '\(whole)')")
    }
  }

  /// Registers a direct observer of one slot.
  func observeSlot(
    _ property: Property, context: ObjectContext, options: ObservationOptions,
    deliver: @escaping (RawChange) -> Void
  ) -> ObservationToken {
    let observer = Observer(
      options: options, will: options.contains(.prior) ? deliver : nil, did: deliver)
    context.addObserver(observer, to: self, slot: property.slot)
    if options.contains(.initial) {
      deliver(
        RawChange(
          kind: .setting, old: nil,
          new: options.contains(.new) ? .some(publicValue(property)) : nil,
          indexes: nil, isPrior: false))
    }
    // The token holds the object's observer table weakly, not the object: a weak reference to the
    // object would move all of its reference counting to the slow path (benchmark row "same with 1
    // observer getting old+new").
    let table = observers
    return ObservationToken { [weak table, weak context] in
      if let table, let context {
        context.removeObserver(observer, from: table.owner, slot: property.slot)
      } else {
        observer.isValid = false
      }
    }
  }
}
