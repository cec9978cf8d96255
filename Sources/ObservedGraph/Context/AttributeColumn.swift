import Foundation
import UndoLog

/// Undo steps of typed attribute sets, stored side by side: one column per run of sets of the
/// same value type, held by one ``GraphUndoStep`` (benchmark rows "set with undo recording on"
/// and "undo, redo of 1M attribute steps").
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
/// two calls that read nothing else of the column (benchmark row "set with undo recording on":
/// the checks were about a third of a recorded set).
@usableFromInline
class AttributeColumn {
  /// The store of every entry's object.
  var storeIdentifier = UUID()
  /// The objects and slots, in the order the sets were made.
  @exclusivity(unchecked) @usableFromInline final var entries: ContiguousArray<Entry> = []
  /// The entities the entries name.
  @exclusivity(unchecked) final var entities: [EntityDescription] = []

  /// One recorded set, but for its value: 16 bytes.
  @usableFromInline
  struct Entry {
    var key: Int64
    var slot: Int32
    /// The entity's index in `entities`.
    var entity: UInt16
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

  /// The bytes the column counts besides its entries: the object and its arrays' headers.
  static var fixedByteSize: Int { 96 }

  /// The bytes the column retains, as its step reports them; grows by ``entryByteSize`` with each
  /// entry, as the log is told.
  var byteSize: Int { Self.fixedByteSize + entries.count * entryByteSize }

  /// Adds the entry of a set of `object`'s `slot`; false (and nothing added) when the column
  /// names as many entities as it can.
  final func appendEntry(_ object: ManagedObject, _ slot: Int) -> Bool {
    let entity: Int
    if let last = entities.last, last === object.entity {
      entity = entities.count - 1
    } else if let index = entities.firstIndex(where: { $0 === object.entity }) {
      entity = index
    } else {
      guard entities.count <= Int(UInt16.max) else { return false }
      entity = entities.count
      entities.append(object.entity)
    }
    entries.append(Entry(key: object.objectKey, slot: Int32(slot), entity: UInt16(entity)))
    return true
  }

  /// The object an entry names.
  final func objectID(at index: Int) -> ObjectID {
    let entry = entries[index]
    return ObjectID(
      storeIdentifier: storeIdentifier, entityName: entities[Int(entry.entity)].name,
      key: entry.key)
  }

  /// Every entry as a recorded change, in order.
  final var changes: [RecordedChange] { entries.indices.map(change(at:)) }

  // MARK: Per value type

  /// An entry as a recorded change: put the value back, tracked as changed.
  func change(at index: Int) -> RecordedChange {
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

  /// Entries and values agree (debug builds).
  func checkInvariants() {}
}

/// An ``AttributeColumn`` of attributes whose values are `Value`s, kept unboxed.
@usableFromInline
final class TypedAttributeColumn<Value: AttributeValue>: AttributeColumn {
  /// The value each entry's slot had before its set (the value undo puts back).
  @exclusivity(unchecked) @usableFromInline var values: ContiguousArray<Value> = []

  @usableFromInline
  init() {
    super.init(
      entryByteSize: MemoryLayout<Entry>.stride + MemoryLayout<Value>.stride,
      valueType: ObjectIdentifier(Value.self))
  }

  override func change(at index: Int) -> RecordedChange {
    let entry = entries[index]
    let slot = Int(entry.slot)
    let property = entities[Int(entry.entity)].properties[slot]
    return .attribute(
      objectID(at: index), slot: slot,
      value: property.storedValue(of: Attribute<Value>.held(values[index])), before: .changed)
  }

  override func replay(in context: ObjectContext) {
    var index = entries.count
    while index > 0 {
      index -= 1
      let entry = entries[index]
      let slot = Int(entry.slot)
      guard
        let object = context.quietReplayTarget(
          key: entry.key, entity: entities[Int(entry.entity)], slot: slot)
      else {
        context.perform(.replay([change(at: index)]))
        continue
      }
      // The entity's field at an entry's slot is an `Attribute<Value>`'s: the entry was recorded
      // by its typed setter.
      let field = unsafeDowncast(
        object.entity.fields[slot].unsafelyUnwrapped, to: TypedFieldAccess<Value>.self)
      let address = field.address(in: object)
      let old = address.pointee
      let new = values[index]
      guard old != new else { continue }
      context.replayQuietly(object, slot) { address.pointee = new }
      Attribute<Value>.recordQuietSet(object, slot: slot, old: old)
    }
  }

  override func removing(key: Int64, entity: EntityDescription) -> AttributeColumn {
    let copy = TypedAttributeColumn<Value>()
    copy.storeIdentifier = storeIdentifier
    copy.entities = entities
    for index in entries.indices {
      let entry = entries[index]
      guard entry.key != key || entities[Int(entry.entity)] !== entity else { continue }
      copy.entries.append(entry)
      copy.values.append(values[index])
    }
    return copy
  }

  override func checkInvariants() {
    precondition(entries.count == values.count, "undo column: entries and values disagree")
  }
}

extension Attribute {
  /// Records a quiet set of `object`'s `slot`, whose value was `old`, in the undo column the
  /// context's recorder has open, or in a new one. Specialized for `Value` in the caller's module.
  @inlinable @inline(__always)
  static func recordQuietSet(_ object: ManagedObject, slot: Int, old: Value) {
    if let column = object.growUndoColumn(slot: slot, valueType: ObjectIdentifier(Value.self)) {
      unsafeDowncast(column, to: TypedAttributeColumn<Value>.self).values.append(old)
    } else {
      let column = TypedAttributeColumn<Value>()
      column.values.append(old)
      object.startUndoColumn(column, slot: slot)
    }
  }
}
