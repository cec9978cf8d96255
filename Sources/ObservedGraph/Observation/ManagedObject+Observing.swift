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
  /// too with `.prior`). An object that no longer belongs to a context (its deletion was saved, its
  /// insertion undone, or its context reset or released) returns a token that is already over.
  ///
  ///
  /// With an origin filter the handler hears only the changes whose origin the filter admits
  /// (see ``ChangeOrigin``); an `.initial` call is made whatever the origin in force.
  ///
  /// - Parameters:
  ///   - keyPath: The property.
  ///   - options: What to deliver; `.new` by default.
  ///   - origins: The origins of the changes heard; all by default.
  ///   - changeHandler: Called with the object and the change.
  /// - Returns: A token; invalidate or release it to stop delivery.
  @inlinable
  public func observe<Value>(
    _ keyPath: KeyPath<Self, Value>, options: ObservationOptions = [.new],
    origins: OriginFilter = .all,
    changeHandler: @escaping (Self, ObservedChange<Value>) -> Void
  ) -> ObservationToken {
    // Inlinable: the closure that types each change is specialized for `Value` in the caller's
    // module instead of running as generic code.
    let convert = Self._converter(to: Value.self)
    // Only the object's own observer table calls `typed` and `direct`, while the object is alive
    // (the change being delivered holds it): the object is borrowed, neither retained by the
    // closures nor around each call.
    let object = Unmanaged.passUnretained(self)
    return _observe(
      keyPath, options: options, origins: origins,
      // For an attribute: typed sets that nothing else hears call this with the values as they
      // are.
      typed: TypedDelivery(options: options) { change in
        object._withUnsafeGuaranteedRef { changeHandler($0, change) }
      },
      // Unowned: only the object's own observer table calls this, while the object is alive.
      direct: { [unowned(unsafe) self] raw in
        changeHandler(
          self,
          ObservedChange(
            kind: raw.kind, oldValue: raw.oldValue.map(convert),
            newValue: raw.newValue.map(convert),
            indexes: raw.indexes, isPrior: raw.isPrior, origin: raw.origin))
      },
      // Given the object rather than capturing it weakly: a weak reference, even one never used,
      // moves all of the object's reference counting to the slow path.
      computed: { object, raw in
        changeHandler(
          unsafeDowncast(object, to: Self.self),
          ObservedChange(
            kind: raw.kind, oldValue: raw.oldValue.map { $0 as! Value },
            newValue: raw.newValue.map { $0 as! Value }, indexes: raw.indexes, isPrior: raw.isPrior,
            origin: raw.origin))
      })
  }

  /// Registers a typed observation: `direct` for a modelled property (raw storage values),
  /// `computed` for anything else — a computed property, or a key path through relationships —
  /// observed through every property it reads, on whichever object it reads it.
  @usableFromInline
  func _observe<Value>(
    _ keyPath: KeyPath<Self, Value>, options: ObservationOptions, origins: OriginFilter,
    typed: TypedDelivery<Value>,
    direct: @escaping (ObservedChange<Any?>) -> Void,
    computed: @escaping (ManagedObject, ObservedChange<Any?>) -> Void
  ) -> ObservationToken {
    guard let context, let link else { return ObservationToken.ended() }
    // Read the key path once, recording every read the read hook sees.
    let recording = AccessRecording()
    link.accessRecording = recording
    _ = self[keyPath: keyPath]
    link.accessRecording = nil
    let reads = recording.reads
    if reads.count == 1, isGetter(reads[0], of: keyPath) {
      let property = entity.properties[reads[0].slot]
      if type(of: self).keyPathsForValuesAffectingValue(forKey: property.name).isEmpty {
        // An attribute whose value lives in a field of this very type also takes typed sets.
        let takesTyped = entity.fields[property.slot]?.valueType == Value.self
        return observeSlot(
          property, context: context, options: options, origins: origins,
          typed: takesTyped ? typed : nil
        ) { raw in
          direct(raw.typed { $0 })
        }
      }
      checkDependencies(of: [property.name])
      return observePaths(
        [[property.name]], context: context, options: options, origins: origins,
        current: { $0.publicValue(property, tracking: false) },
        deliver: { raw in direct(raw.typed { $0 }) })
    }
    return observePaths(
      readPaths(reads), context: context, options: options, origins: origins,
      current: { ($0 as! Self)[keyPath: keyPath] },
      deliver: { [weak self] raw in
        guard let self else { return }
        computed(self, raw.typed { $0 })
      })
  }

  /// Whether `keyPath`, which made the one read `read`, is the getter of the property read: the
  /// getter reported its own key path, and it is `keyPath` (an inherited property's getter
  /// reports its declaring class's key path, so it is observed as a computed property would be,
  /// through what it reads).
  private func isGetter<Value>(_ read: AccessRecording.Read, of keyPath: KeyPath<Self, Value>)
    -> Bool
  {
    read.object === self && read.keyPath == keyPath as AnyKeyPath
  }

  /// The key paths from this object that a recorded read reached: a read of an object reached
  /// through a relationship read earlier extends that relationship's path. Only the longest paths
  /// are kept (observing `category.name` also observes `category`).
  private func readPaths(_ reads: [AccessRecording.Read]) -> [[String]] {
    var reached: [ObjectIdentifier: [String]] = [ObjectIdentifier(self): []]
    var paths: [[String]] = []
    for read in reads {
      guard let base = reached[ObjectIdentifier(read.object)] else { continue }
      let property = read.object.entity.properties[read.slot]
      let path = base + [property.name]
      if !paths.contains(path) { paths.append(path) }
      guard property.isRelationship else { continue }
      for member in read.object.members(property) where reached[ObjectIdentifier(member)] == nil {
        reached[ObjectIdentifier(member)] = path
      }
    }
    return paths.filter { path in
      !paths.contains { $0.count > path.count && Array($0.prefix(path.count)) == path }
    }
  }

  /// A dependent key naming an unknown key is a mistake in the class: stop with a message.
  private func checkDependencies(of path: [String]) {
    do {
      try ManagedObject.checkPath(path, entity: entity, objectClass: type(of: self), whole: path[0])
    } catch {
      preconditionFailure("ObservedGraph: \(error)")
    }
  }

  /// A function converting raw values to the Swift type of a typed key path, chosen once.
  @usableFromInline
  static func _converter<Value>(to type: Value.Type) -> (Any?) -> Value {
    if let relationship = type as? any RelationshipValue.Type {
      return relationshipConverter(relationship) as! (Any?) -> Value
    }
    return { raw in
      if let raw { return raw as! Value }
      return Optional<Any>.none as! Value
    }
  }

  private static func relationshipConverter<R: RelationshipValue>(_ type: R.Type) -> Any {
    { (raw: Any?) -> R in
      let objects: [ManagedObject]
      switch raw {
      case let set as Set<ManagedObject>: objects = Array(set)
      case let array as [ManagedObject]: objects = array
      case let object as ManagedObject: objects = [object]
      default: objects = []
      }
      return R.relationshipShape.make(objects) as! R
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
  ///
  /// With an origin filter the handler hears only the changes whose origin the filter admits
  /// (see ``ChangeOrigin``); an `.initial` call is made whatever the origin in force.
  ///
  /// - Parameters:
  ///   - keyPath: Keys separated by dots.
  ///   - options: What to deliver; `.new` by default.
  ///   - origins: The origins of the changes heard; all by default.
  ///   - changeHandler: Called with each change; values are in the form ``value(forKey:)`` returns.
  /// - Returns: A token; invalidate or release it to stop delivery.
  /// - Throws: ``ObjectGraphError/Kind/unknownKey`` naming the first key that is neither a property
  ///   nor a dependent key (also one a dependent key names); `deletedObject` for an object out of
  ///   its context (its deletion was saved, or its insertion undone); `invalidObject` for an object
  ///   whose context was reset or released. A deleted object still in its context can be observed.
  public func observe(
    keyPath: String, options: ObservationOptions = [.new], origins: OriginFilter = .all,
    changeHandler: @escaping (ObservedChange<Any?>) -> Void
  ) throws -> ObservationToken {
    let context = try observableContext(key: keyPath)
    let keys = try keyPathComponents(keyPath)
    try Self.checkPath(keys, entity: entity, objectClass: type(of: self), whole: keyPath)
    if keys.count == 1, let property = entity.propertiesByName[keys[0]],
      type(of: self).keyPathsForValuesAffectingValue(forKey: keys[0]).isEmpty
    {
      return observeSlot(property, context: context, options: options, origins: origins) { raw in
        changeHandler(raw.typed { $0 })
      }
    }
    return observePaths(
      [keys], context: context, options: options, origins: origins,
      current: { try? $0.value(forKeyPath: keyPath) },
      deliver: { raw in changeHandler(raw.typed { $0 }) })
  }

  /// Checks a key path and every dependent key it reaches, without recursion (paths of any length,
  /// dependency cycles end): each key must be a property, except that the last key may be a
  /// dependent key (`keyPathsForValuesAffectingValue(forKey:)` not empty), and every key path a
  /// dependent key names must check too — an unknown key would never fire.
  static func checkPath(
    _ keys: [String], entity: EntityDescription, objectClass: ManagedObject.Type, whole: String
  ) throws {
    let root = entity
    var paths: [(keys: [String], name: String)] = [(keys, whole)]
    var dependencyIDs: [String: Int] = [:]
    var visited = Set<String>()
    var work: [(path: Int, position: Int, entity: EntityDescription)] = [(0, 0, entity)]
    while let (path, position, entity) = work.popLast() {
      let keys = paths[path].keys
      guard position < keys.count,
        visited.insert("\(entity.name) \(path) \(position)").inserted
      else { continue }
      let key = keys[position]
      let isLast = position + 1 == keys.count
      let owner: ManagedObject.Type = entity === root ? objectClass : entity.objectClass
      let dependencies = owner.keyPathsForValuesAffectingValue(forKey: key)
      for dependency in dependencies.sorted() {
        let steps = dependency.split(separator: ".", omittingEmptySubsequences: false)
          .map(String.init)
        guard !steps.contains(where: \.isEmpty) else {
          throw ObjectGraphError(
            .unknownKey, entity: entity.name, key: key, value: dependency,
            reason: "the dependent key '\(key)' names the key path '\(dependency)', which has an "
              + "empty component")
        }
        let id =
          dependencyIDs[dependency]
          ?? {
            paths.append((steps, "\(dependency) (affecting '\(key)' of \(entity.name))"))
            dependencyIDs[dependency] = paths.count - 1
            return paths.count - 1
          }()
        work.append((id, 0, entity))
      }
      if let property = entity.propertiesByName[key] {
        guard !isLast else { continue }
        guard let destination = property.destination else {
          throw ObjectGraphError(
            .unknownKey, entity: root.name, key: whole, value: key,
            reason: "'\(key)' in key path '\(ObjectGraphError.shorten(paths[path].name))' is an "
              + "attribute of \(entity.name), so the path cannot go on")
        }
        work.append((path, position + 1, destination))
      } else if dependencies.isEmpty || !isLast {
        throw ObjectGraphError(
          .unknownKey, entity: root.name, key: whole, value: key,
          reason: "\(entity.name) has no property '\(ObjectGraphError.shorten(key))' (key path "
            + "'\(ObjectGraphError.shorten(paths[path].name))')")
      }
    }
  }

  /// Registers a direct observer of one slot.
  func observeSlot(
    _ property: Property, context: ObjectContext, options: ObservationOptions,
    origins: OriginFilter = .all, typed: AnyObject? = nil,
    deliver: @escaping (RawChange) -> Void
  ) -> ObservationToken {
    let observer = Observer(
      options: options, origins: origins, will: options.contains(.prior) ? deliver : nil,
      did: deliver, typed: typed)
    context.center.addObserver(observer, to: self, slot: property.slot)
    if options.contains(.initial) {
      deliver(
        RawChange(
          kind: .setting, old: nil,
          new: options.contains(.new) ? .some(publicValue(property, tracking: false)) : nil,
          indexes: nil, isPrior: false, origin: context.link.origin))
    }
    // The token holds the object's observer table weakly and the context's link, neither the object
    // nor the context: a weak reference to either would move all of its reference counting to the
    // slow path.
    let table = observers
    return ObservationToken { [weak table, link = context.link] in
      if let table, let context = link.context {
        context.center.removeObserver(observer, from: table.owner, slot: property.slot)
      } else {
        observer.isValid = false
      }
    }
  }

  /// Registers an observation of key paths (through relationships, dependent keys, or the
  /// properties a computed value reads).
  func observePaths(
    _ paths: [[String]], context: ObjectContext, options: ObservationOptions,
    origins: OriginFilter = .all, current: @escaping (ManagedObject) -> Any?,
    deliver: @escaping (RawChange) -> Void
  ) -> ObservationToken {
    let observation = PathObservation(
      context: context, root: self, paths: paths, options: options, origins: origins,
      current: current, deliver: deliver)
    observation.start()
    return ObservationToken { observation.invalidate() }
  }

  /// The context of an object that can be observed: one registered in its context, deleted or
  /// not (observing is reading); otherwise an error saying why.
  func observableContext(key: String) throws -> ObjectContext {
    if lifecycle == .registered, let context = link?.context { return context }
    try checkChangeable(key: key)
    return link!.context!
  }
}
