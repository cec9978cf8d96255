import Observation

/// Delivering changes to observers from the mutation path.
///
/// Whom to notify is worked out before anything changes (will phase); prior calls go out then; the
/// edits are applied; then every observer gets its call (did phase). Observers are called outside
/// any bookkeeping, so they may change the graph, add observers or invalidate themselves.
extension ObjectContext {
  /// The observers to call for one user-level change, worked out in the will phase.
  struct Delivery {
    struct Entry {
      let observer: Observer
      let edit: Int
    }
    var entries: [Entry] = []
  }

  /// A context-wide listener of every change (see ``ChangeRecorder``).
  struct Tap {
    let id: Int
    let receive: (ManagedObject, String, RawChange) -> Void
    let lifecycle: (ManagedObject, String) -> Void
  }

  /// The single check the mutation path makes when nobody listens.
  @inline(__always)
  var isObserved: Bool { observerCount > 0 || !taps.isEmpty }

  // MARK: Phases

  func willApply(_ edits: [Edit]) -> Delivery? {
    for edit in edits {
      if let registrar = edit.object.swiftObservation?.registrar {
        registrar.willSet(
          edit.object, keyPath: ManagedObject.observationKeyPath(edit.property.slot))
      }
    }
    guard isObserved else { return nil }
    var delivery = Delivery()
    for (index, edit) in edits.enumerated() {
      let object = edit.object
      guard let observers = object.observers?.bySlot[edit.property.slot],
        object.entity.notifiesAutomatically[edit.property.slot]
      else { continue }
      for observer in observers where observer.isValid {
        delivery.entries.append(Delivery.Entry(observer: observer, edit: index))
      }
    }
    for entry in delivery.entries where entry.observer.isValid || entry.observer.isInternal {
      guard let will = entry.observer.will else { continue }
      will(priorChange(edits[entry.edit], entry.observer.options))
    }
    return delivery
  }

  func didApply(_ edits: [Edit], _ delivery: Delivery?) {
    for edit in edits {
      if let registrar = edit.object.swiftObservation?.registrar {
        registrar.didSet(edit.object, keyPath: ManagedObject.observationKeyPath(edit.property.slot))
      }
    }
    guard let delivery else { return }
    for entry in delivery.entries where entry.observer.isValid || entry.observer.isInternal {
      entry.observer.did(change(edits[entry.edit], entry.observer.options))
    }
    if !taps.isEmpty {
      let taps = self.taps
      for edit in edits {
        let change = change(edit, [.old, .new])
        for tap in taps where self.taps.contains(where: { $0.id == tap.id }) {
          tap.receive(edit.object, edit.property.name, change)
        }
      }
    }
  }

  /// The will phase of a manual bracket (at its outermost `willChangeValue`), announcing `probe`.
  func willBracket(_ object: ManagedObject, _ property: Property, probe: Edit) -> Delivery? {
    if let registrar = object.swiftObservation?.registrar {
      registrar.willSet(object, keyPath: ManagedObject.observationKeyPath(property.slot))
    }
    guard isObserved, let observers = object.observers?.bySlot[property.slot] else { return nil }
    var delivery = Delivery()
    for observer in observers where observer.isValid {
      delivery.entries.append(Delivery.Entry(observer: observer, edit: 0))
    }
    for entry in delivery.entries {
      entry.observer.will?(priorChange(probe, entry.observer.options))
    }
    return delivery
  }

  /// The did phase of a manual bracket, with the edit it made.
  func didApplyBracket(_ edit: Edit, _ delivery: Delivery?) {
    // Observers of a bracket always hear a setting, with the old value of the outermost open.
    let setting: Edit
    switch edit {
    case .replace(let object, let property, let old, let new):
      setting = .set(
        object, property, old: collectionForm(old, property), new: collectionForm(new, property),
        changes: true)
    default:
      setting = edit
    }
    didApply([setting], delivery)
  }

  /// Calls one slot's observers about a setting, as `willApply` (prior) and `didApply` would for a
  /// one-edit change: the inline attribute path uses it instead of building a delivery.
  func announceSetting(to observers: [Observer], old: Any?, new: Any?, isPrior: Bool) {
    for observer in observers where observer.isValid || observer.isInternal {
      let change = RawChange(
        kind: .setting, old: observer.options.contains(.old) ? .some(old) : nil,
        new: !isPrior && observer.options.contains(.new) ? .some(new) : nil, indexes: nil,
        isPrior: isPrior)
      if isPrior {
        observer.will?(change)
      } else {
        observer.did(change)
      }
    }
  }

  // MARK: Building changes

  func priorChange(_ edit: Edit, _ options: ObservationOptions) -> RawChange {
    var change = self.change(edit, options)
    change.new = nil
    change.isPrior = true
    return change
  }

  func change(_ edit: Edit, _ options: ObservationOptions) -> RawChange {
    let wantsOld = options.contains(.old)
    let wantsNew = options.contains(.new)
    switch edit {
    case .set(_, _, let old, let new, _):
      return RawChange(
        kind: .setting, old: wantsOld ? .some(old) : nil, new: wantsNew ? .some(new) : nil,
        indexes: nil, isPrior: false)
    case .insert(_, let property, let objects, let indexes):
      return RawChange(
        kind: .insertion, old: nil,
        new: wantsNew ? .some(collectionForm(objects, property)) : nil,
        indexes: property.isOrdered ? indexes : nil, isPrior: false)
    case .remove(_, let property, let objects, let indexes):
      return RawChange(
        kind: .removal, old: wantsOld ? .some(collectionForm(objects, property)) : nil, new: nil,
        indexes: property.isOrdered ? indexes : nil, isPrior: false)
    case .replace(_, let property, let old, let new):
      return RawChange(
        kind: .setting, old: wantsOld ? .some(collectionForm(old, property)) : nil,
        new: wantsNew ? .some(collectionForm(new, property)) : nil, indexes: nil, isPrior: false)
    }
  }

  /// Objects as a to-many value: an array when ordered, a set otherwise.
  func collectionForm(_ objects: [ManagedObject], _ property: Property) -> Any {
    property.isOrdered ? objects : Set(objects)
  }

  // MARK: Registering

  func addObserver(_ observer: Observer, to object: ManagedObject, slot: Int) {
    let table = object.observers ?? ObserverTable(owner: object)
    object.observers = table
    table.add(observer, slot: slot)
    observerCount += 1
  }

  func removeObserver(_ observer: Observer, from object: ManagedObject, slot: Int) {
    guard observer.isValid else { return }
    observer.isValid = false
    guard let table = object.observers else { return }
    table.remove(observer, slot: slot)
    if table.isEmpty { object.observers = nil }
    observerCount -= 1
  }

  /// Ends every observation of an object (on reset).
  func dropObservers(of object: ManagedObject) {
    guard let table = object.observers else { return }
    for observers in table.bySlot.values {
      for observer in observers where observer.isValid {
        observer.isValid = false
        observerCount -= 1
      }
    }
    object.observers = nil
  }
}

extension ManagedObject {
  /// Key paths that stand for one slot of any object, for the Swift Observation registrar.
  // Immutable after initialization; key paths are immutable objects.
  nonisolated(unsafe) static let observationKeyPaths: [KeyPath<ManagedObject, Int>] = (0..<128).map
  {
    \ManagedObject.[_observationSlot: $0]
  }

  static func observationKeyPath(_ slot: Int) -> KeyPath<ManagedObject, Int> {
    slot < observationKeyPaths.count
      ? observationKeyPaths[slot] : \ManagedObject.[_observationSlot: slot]
  }

  /// The slot itself; exists only so that a key path can name a slot.
  subscript(_observationSlot slot: Int) -> Int { slot }

  /// Called by typed getters: records the read for Swift Observation and for key-path resolution.
  @usableFromInline
  final func _noteAccess(_ slot: Int, _ keyPath: AnyKeyPath) {
    if accessLog != nil {
      // Resolving a typed key path for `observe`: not a read Swift Observation should see.
      accessLog!.append(slot)
      lastAccessedKeyPath = keyPath
      return
    }
    let observation = swiftObservation ?? SwiftObservation()
    if swiftObservation == nil { swiftObservation = observation }
    observation.registrar.access(self, keyPath: ManagedObject.observationKeyPath(slot))
  }
}
