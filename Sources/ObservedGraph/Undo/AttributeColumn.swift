import Foundation
import UndoLog

/// Undo steps of typed attribute sets, stored side by side: one column per run of sets of the
/// same value type, held by one ``GraphUndoStep``: a recorded set appends an entry and a value,
/// with no step of its own.
///
/// A set is recorded here when nothing else needs to hear it — no observer of the object, no tap —
/// and its slot is already tracked as changed and pending in this event: the common case of an
/// editor setting a value again and again. Each such set adds one entry (the object's key, the
/// slot, the entity) and its old value, typed, to the column the context's recorder has open in
/// the newest step of the undo log's open group (``UndoLog/registerGrowable(_:)``): 16 bytes plus
/// the value, no allocation of its own. Anything else recorded in between closes the column, so
/// the log's order of changes is the order of recording.
///
/// Undo and redo replay a column as a batch, last entry first: each entry whose object is in
/// memory, unobserved and still tracked as changed is one store, with its pending state, its
/// Swift Observation calls and its inverse added to the column of the opposite stack. Any other
/// entry takes the one mutation path as a ``RecordedChange``, in its place in the order.
///
/// The slot of every entry was tracked as changed before the set, so an entry takes the slot back
/// to "changed", keeping the committed value it has (``SlotTracking/changed``): that is the
/// tracking state archives and inspection see for it.
///
/// The arrays skip the dynamic exclusivity checks: only the recorder appends to them, between
/// two calls that read nothing else of the column.
@usableFromInline
class AttributeColumn {
  /// The store of every entry's object.
  var storeIdentifier = UUID()
  /// The objects and slots, in the order the sets were made.
  @exclusivity(unchecked) @usableFromInline final var entries = ColumnBuffer<Entry>()
  /// The entities the entries name.
  @exclusivity(unchecked) @usableFromInline final var entities: [EntityDescription] = []
  /// The entity of the newest entry, held by `entities`, and its index there.
  @exclusivity(unchecked) private final var lastEntity: Unmanaged<EntityDescription>?
  @exclusivity(unchecked) private final var lastEntityIndex = 0

  /// One recorded set, but for its value, in 8 bytes: the object's key (40 bits), the slot (12
  /// bits) and the entity's index in `entities` (12 bits). A set whose key or slot does not fit
  /// is recorded as a step of its own (``fits(_:_:)``); a column naming 4,096 entities takes no
  /// other.
  @usableFromInline
  struct Entry {
    @usableFromInline var bits: UInt64

    @usableFromInline static var keyBits: UInt64 { 40 }
    @usableFromInline static var fieldBits: UInt64 { 12 }
    @usableFromInline static var fieldMask: UInt64 { (1 << fieldBits) - 1 }

    init(key: Int64, slot: Int, entity: Int) {
      bits = UInt64(key) << (2 * Self.fieldBits) | UInt64(slot) << Self.fieldBits | UInt64(entity)
    }

    @inlinable var key: Int64 { Int64(bits >> (2 * Self.fieldBits)) }
    @inlinable var slot: Int { Int((bits >> Self.fieldBits) & Self.fieldMask) }
    @inlinable var entity: Int { Int(bits & Self.fieldMask) }
  }

  /// Whether a set of `object`'s `slot` can be an entry.
  static func fits(_ object: ManagedObject, _ slot: Int) -> Bool {
    object.objectKey >= 0 && object.objectKey >> Entry.keyBits == 0
      && slot >= 0 && slot <= Int(Entry.fieldMask)
  }

  /// The bytes one entry retains: the entry and its value.
  let entryByteSize: Int
  /// Identifies the value type of the column (``TypedAttributeColumn``'s `Value`).
  let valueType: ObjectIdentifier

  @usableFromInline
  init(entryByteSize: Int, valueType: ObjectIdentifier) {
    self.entryByteSize = entryByteSize
    self.valueType = valueType
  }

  /// The bytes the column counts besides its entries: the object and its buffers' headers.
  static var fixedByteSize: Int { 96 }

  /// The bytes the column retains, as its step reports them; grows by ``entryByteSize`` with each
  /// entry, as the log is told.
  var byteSize: Int { Self.fixedByteSize + entries.count * entryByteSize }

  /// The index of `entity` in `entities`, added if needed; nil when the column names as many
  /// entities as it can.
  @inline(__always)
  final func index(of entity: EntityDescription) -> Int? {
    if let lastEntity, lastEntity.toOpaque() == Unmanaged.passUnretained(entity).toOpaque() {
      return lastEntityIndex
    }
    return slowIndex(of: entity)
  }

  private final func slowIndex(of entity: EntityDescription) -> Int? {
    let index: Int
    if let known = entities.firstIndex(where: { $0 === entity }) {
      index = known
    } else {
      guard entities.count <= Int(Entry.fieldMask) else { return nil }
      index = entities.count
      entities.append(entity)
    }
    lastEntity = Unmanaged.passUnretained(entity)
    lastEntityIndex = index
    return index
  }

  /// Adds the entry of a set of `object`'s `slot`, `entity` being the index of its entity.
  @inline(__always)
  final func appendEntry(_ object: ManagedObject, _ slot: Int, entity: Int) {
    assert(Self.fits(object, slot) && entity <= Int(Entry.fieldMask))
    entries.append(Entry(key: object.objectKey, slot: slot, entity: entity))
  }

  /// The object an entry names.
  final func objectID(at index: Int) -> ObjectID {
    let entry = entries[index]
    return ObjectID(
      storeIdentifier: storeIdentifier, entityName: entities[entry.entity].name,
      key: entry.key)
  }

  /// Every entry as a recorded change, in order.
  final var changes: [RecordedChange] { (0..<entries.count).map(change(at:)) }

  // MARK: Per value type

  /// An entry as a recorded change: put the value back, tracked as changed.
  final func change(at index: Int) -> RecordedChange {
    let entry = entries[index]
    return change(of: objectID(at: index), entities[entry.entity], entry.slot, valueAt: index)
  }

  /// A set of `entity`'s `slot` of the object `id` as a recorded change: put back the value at
  /// `index` of the column's values, tracked as changed.
  func change(of id: ObjectID, _ entity: EntityDescription, _ slot: Int, valueAt index: Int)
    -> RecordedChange
  {
    preconditionFailure("ObservedGraph: AttributeColumn is abstract")
  }

  /// Takes every entry back, last first, through `context`.
  func replay(in context: ObjectContext) {
    preconditionFailure("ObservedGraph: AttributeColumn is abstract")
  }

  /// A copy without the entries of the object with `key` and entity `entity`.
  func removing(key: Int64, entity: EntityDescription) -> AttributeColumn {
    preconditionFailure("ObservedGraph: AttributeColumn is abstract")
  }

  /// Takes the entry at `index` back through the one mutation path, as a recorded change: for an
  /// entry that cannot be replayed quietly.
  @usableFromInline
  final func replayThroughPath(_ index: Int, in context: ObjectContext) {
    context.perform(.replay([change(at: index)]))
  }

  /// Entries and values agree (debug builds).
  func checkInvariants() {
    entries.checkInvariants()
  }
}

/// An ``AttributeColumn`` of attributes whose values are `Value`s, kept unboxed.
@usableFromInline
final class TypedAttributeColumn<Value: AttributeValue>: AttributeColumn {
  /// The value each entry's slot had before its set (the value undo puts back).
  @exclusivity(unchecked) @usableFromInline var values = ColumnBuffer<Value>()
  /// ``replayAll(in:)`` as the column's maker specialized it: the column is made by the typed
  /// setter in the app's module, where `Value` is known, so the replay loop runs without generic
  /// metadata lookups or value witness calls.
  @usableFromInline let replayer: (TypedAttributeColumn<Value>, ObjectContext) -> Void

  @inlinable
  init() {
    replayer = { column, context in column.replayAll(in: context) }
    super.init(
      entryByteSize: MemoryLayout<Entry>.stride + MemoryLayout<Value>.stride,
      valueType: ObjectIdentifier(Value.self))
  }

  override func change(
    of id: ObjectID, _ entity: EntityDescription, _ slot: Int, valueAt index: Int
  ) -> RecordedChange {
    let property = entity.properties[slot]
    return .attribute(
      id, slot: slot,
      value: property.storedValue(of: Attribute<Value>.held(values[index])), before: .changed)
  }

  override func replay(in context: ObjectContext) {
    replayer(self, context)
  }

  /// Takes every entry back, last first: quietly where it can
  /// (``ObjectContext/quietReplayTarget(key:entity:slot:)``), through the mutation path where it
  /// cannot.
  @inlinable
  final func replayAll(in context: ObjectContext) {
    guard var place = entries.last else { return }
    repeat {
      let entry = entries[place]
      let slot = entry.slot
      guard
        let object = context.quietReplayTarget(
          key: entry.key, entity: entities[entry.entity], slot: slot)
      else {
        replayThroughPath(place.index, in: context)
        continue
      }
      // The entity's field at an entry's slot is an `Attribute<Value>`'s: the entry was recorded
      // by its typed setter.
      let offset = object.entity.fields[slot].unsafelyUnwrapped.offset
      let address = FieldAddress.of(Value.self, in: Unmanaged.passUnretained(object), at: offset)
      let old = address.pointee
      let new = values[place]
      guard old != new else { continue }
      context.applyColumnEntry(object, slot) { address.pointee = new }
      Attribute<Value>.recordQuietSet(object, slot: slot, old: old)
    } while place.retreat()
  }

  override func removing(key: Int64, entity: EntityDescription) -> AttributeColumn {
    let copy = TypedAttributeColumn<Value>()
    copy.storeIdentifier = storeIdentifier
    copy.entities = entities
    for index in 0..<entries.count {
      let entry = entries[index]
      guard entry.key != key || entities[entry.entity] !== entity else { continue }
      copy.entries.append(entry)
      copy.values.append(values[index])
    }
    return copy
  }

  override func checkInvariants() {
    super.checkInvariants()
    values.checkInvariants()
    precondition(entries.count == values.count, "undo column: entries and values disagree")
  }
}

extension Attribute {
  /// Records a quiet set of `object`'s `slot`, whose value was `old`, in the undo column the
  /// context's recorder has open, or in a new one. Specialized for `Value` in the caller's module.
  @inlinable @inline(__always)
  static func recordQuietSet(_ object: ManagedObject, slot: Int, old: Value) {
    if let column = object.growUndoColumn(slot: slot, valueType: ObjectIdentifier(Value.self)) {
      column._withUnsafeGuaranteedRef {
        unsafeDowncast($0, to: TypedAttributeColumn<Value>.self).values.append(old)
      }
    } else {
      let column = TypedAttributeColumn<Value>()
      column.values.append(old)
      object.startUndoColumn(column, slot: slot)
    }
  }
}
