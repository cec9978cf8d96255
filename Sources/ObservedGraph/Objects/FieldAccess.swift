import Foundation

/// Typed storage: an attribute declared with ``Attribute`` keeps its value in the wrapper's own
/// stored field, inside the object, as `@Observable` keeps its backing fields — no box, no `Any`.
///
/// A typed getter or setter reaches the field through its key path, which the compiler turns into
/// a direct load or store. Everything else (key-value coding, snapshots, undo, faults, stores)
/// reaches it through a ``FieldAccess`` made once when the model is built: the field's byte offset
/// in every instance of the class, and the value's type.
///
/// The offset comes from the Swift runtime's reflection of the class (the functions `Mirror` is
/// built on). It is checked when the model is built, for every field: a marker written at the
/// offset must be what `Mirror` then reads in the wrapper. A class whose layout cannot be checked
/// stops the model build with a message instead of reading the wrong bytes later.
@usableFromInline
class FieldAccess {
  /// The byte offset of the wrapper's `value` field from the start of the object.
  @usableFromInline let offset: Int

  init(offset: Int) {
    self.offset = offset
  }

  /// The field's value in held form (nil for an empty optional).
  func load(_ object: ManagedObject) -> Any? {
    preconditionFailure("ObservedGraph: FieldAccess is abstract")
  }

  /// Stores a held value, already checked against the attribute's type.
  func store(_ held: Any?, in object: ManagedObject) {
    preconditionFailure("ObservedGraph: FieldAccess is abstract")
  }

  /// The type of the field's value.
  var valueType: Any.Type { preconditionFailure("ObservedGraph: FieldAccess is abstract") }

  /// Stores a value whose dynamic type is exactly ``valueType``.
  func storeExactly(_ value: Any, in object: ManagedObject) {
    preconditionFailure("ObservedGraph: FieldAccess is abstract")
  }

  /// Stores a store's value straight into the field, without boxing it, when the field's type is
  /// one of the common ones (`String`, `Int`, `Int64`, `Double`, `Bool`, `Date`, or an optional of
  /// one) and the value is of that type; false otherwise, and the caller takes the general path.
  /// A load so writes each common value with no box and no cast.
  func storeStored(_ value: StoredValue, in object: ManagedObject) -> Bool { false }

  /// The common type the field holds (or holds an optional of); `.none` for any other.
  var directType: DirectType { .none }

  /// Whether the field holds an `Optional` of ``directType``.
  var holdsOptional: Bool { false }

  /// The field types a load writes in place, without a conversion through `Any` or a
  /// ``StoredValue``.
  enum DirectType {
    case none, string, int, int64, double, bool, date
  }
}

extension FieldAccess.DirectType {
  /// The direct type of a field's value type.
  init(_ type: Any.Type) {
    switch ObjectIdentifier(type) {
    case ObjectIdentifier(String.self), ObjectIdentifier(String?.self): self = .string
    case ObjectIdentifier(Int.self), ObjectIdentifier(Int?.self): self = .int
    case ObjectIdentifier(Int64.self), ObjectIdentifier(Int64?.self): self = .int64
    case ObjectIdentifier(Double.self), ObjectIdentifier(Double?.self): self = .double
    case ObjectIdentifier(Bool.self), ObjectIdentifier(Bool?.self): self = .bool
    case ObjectIdentifier(Date.self), ObjectIdentifier(Date?.self): self = .date
    default: self = .none
    }
  }
}

/// The ``FieldAccess`` of an `Attribute<Value>`.
@usableFromInline
final class TypedFieldAccess<Value: AttributeValue>: FieldAccess {
  /// Whether `Value` is an `Optional`, asked once: the held form of anything else is the value
  /// itself, with no dynamic cast on the way in or out.
  private let isOptional = Value.isOptionalValue
  /// The common type the field holds (or holds an optional of), for ``storeStored(_:in:)``.
  private let direct = DirectType(Value.self)

  override var directType: DirectType { direct }

  override var holdsOptional: Bool { isOptional }

  override func storeStored(_ value: StoredValue, in object: ManagedObject) -> Bool {
    switch (direct, value) {
    case (.string, .string(let text)): put(text, in: object)
    case (.int, .integer(let number)): put(Int(truncatingIfNeeded: number), in: object)
    case (.int64, .integer(let number)): put(number, in: object)
    case (.double, .double(let number)): put(number, in: object)
    case (.bool, .bool(let flag)): put(flag, in: object)
    case (.date, .date(let date)): put(date, in: object)
    default: return false
    }
    return true
  }

  /// Writes a value of the type the field holds, or holds an optional of.
  @inline(__always)
  private func put<T>(_ value: T, in object: ManagedObject) {
    let raw = UnsafeMutableRawPointer(address(in: object))
    if isOptional {
      raw.assumingMemoryBound(to: T?.self).pointee = value
    } else {
      raw.assumingMemoryBound(to: T.self).pointee = value
    }
  }

  override func load(_ object: ManagedObject) -> Any? {
    held(address(in: object).pointee)
  }

  override func store(_ held: Any?, in object: ManagedObject) {
    address(in: object).pointee =
      isOptional ? Attribute<Value>.value(held: held) : Self.value(held.unsafelyUnwrapped)
  }

  /// A held value of a non-optional attribute as a `Value`. When its dynamic type is exactly
  /// `Value` (always, for values checked on the way in, except a bridged `NSNumber` and the like)
  /// it is taken out of its box as it is, without the runtime's general cast, which would be a
  /// large part of a set by name.
  private static func value(_ held: Any) -> Value {
    guard type(of: held) == Value.self else { return held as! Value }
    return unboxExactly(held)
  }

  /// A value whose dynamic type is exactly `Value`, out of its box.
  private static func unboxExactly(_ value: Any) -> Value {
    assert(type(of: value) == Value.self)
    func open<Held>(_ value: Held) -> Value { unsafeBitCast(value, to: Value.self) }
    return _openExistential(value, do: open)
  }

  override var valueType: Any.Type { Value.self }

  override func storeExactly(_ value: Any, in object: ManagedObject) {
    address(in: object).pointee = Self.unboxExactly(value)
  }

  /// A value in held form: nil for an empty optional.
  func held(_ value: Value) -> Any? {
    isOptional ? Attribute<Value>.held(value) : value
  }

  /// The field in `object`: valid while the object is alive (the caller holds it).
  @inlinable
  func address(in object: ManagedObject) -> UnsafeMutablePointer<Value> {
    FieldAddress.of(Value.self, in: Unmanaged.passUnretained(object), at: offset)
  }
}

/// The one computation of a wrapper's field address in an object: the object's address plus the
/// byte offset the model found for the field when it was built (``FieldLayout``, checked there
/// against the class's layout). Every typed read and write of a wrapper's field in place goes
/// through it: the field accesses, the typed setter's store (`Attribute.exchange`), the replay
/// of an undo column and the loader's typed values.
///
/// The address is valid while the object is alive, which the caller guarantees for the length
/// of its use (it holds the object, or the object's owner does); `Value` must be the type stored
/// at that offset, which the field access of that offset says.
@usableFromInline
enum FieldAddress {
  @inlinable @inline(__always)
  static func of<Value>(
    _ type: Value.Type, in object: Unmanaged<ManagedObject>, at offset: Int
  ) -> UnsafeMutablePointer<Value> {
    (object.toOpaque() + offset).assumingMemoryBound(to: Value.self)
  }
}

/// A wrapper that keeps its value in its own field (``Attribute``).
protocol FieldDeclaring {
  /// The access to the value of this wrapper, stored at byte `offset` of each instance; checked on
  /// `prototype`, where the wrapper is the stored property `label`.
  func fieldAccess(at offset: Int, label: String, in prototype: ManagedObject) -> FieldAccess
}

/// The slot number written into a prototype's wrapper to check its offset.
private let offsetCheckMarker: Int32 = -3

extension Attribute: FieldDeclaring {
  func fieldAccess(at offset: Int, label: String, in prototype: ManagedObject) -> FieldAccess {
    guard let valueOffset = MemoryLayout<Self>.offset(of: \Self.value),
      let slotOffset = MemoryLayout<Self>.offset(of: \Self.slot)
    else {
      preconditionFailure("ObservedGraph: the layout of Attribute<\(Value.self)> cannot be read")
    }
    checkWrapperOffset(offset, slotOffset: slotOffset, label: label, in: prototype)
    return TypedFieldAccess<Value>(offset: offset + valueOffset)
  }
}

extension Relationship: FieldDeclaring {
  func fieldAccess(at offset: Int, label: String, in prototype: ManagedObject) -> FieldAccess {
    guard let targetOffset = MemoryLayout<Self>.offset(of: \Self.target),
      let keyOffset = MemoryLayout<Self>.offset(of: \Self.loadedKeyOrCounts),
      let slotOffset = MemoryLayout<Self>.offset(of: \Self.slot)
    else {
      preconditionFailure("ObservedGraph: the layout of Relationship<\(Value.self)> cannot be read")
    }
    checkWrapperOffset(offset, slotOffset: slotOffset, label: label, in: prototype)
    return RelationshipFieldAccess(offset: offset + targetOffset, keyOffset: offset + keyOffset)
  }
}

extension PropertyWrapperDeclaring {
  /// Stops the model build unless the wrapper stored as `label` in `prototype` sits at byte
  /// `offset`: a marker written where its slot should be (`slotOffset` into the wrapper) must be
  /// what `Mirror` then reads in the wrapper.
  func checkWrapperOffset(
    _ offset: Int, slotOffset: Int, label: String, in prototype: ManagedObject
  ) {
    let base = Unmanaged.passUnretained(prototype).toOpaque()
    let slot = (base + offset + slotOffset).assumingMemoryBound(to: Int32.self)
    let saved = slot.pointee
    slot.pointee = offsetCheckMarker
    let seen = Self.wrapper(label, in: prototype)?.slot
    slot.pointee = saved
    guard seen == offsetCheckMarker else {
      preconditionFailure(
        "ObservedGraph: the stored property \(label) of \(type(of: prototype)) is not at the "
          + "offset the runtime gives (\(offset)); the class's layout cannot be used")
    }
  }

  /// The wrapper stored as `label` in `object`, as `Mirror` reads it.
  private static func wrapper(_ label: String, in object: ManagedObject) -> Self? {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
      if let child = current.children.first(where: { $0.label == label }) {
        return child.value as? Self
      }
      mirror = current.superclassMirror
    }
    return nil
  }
}

/// The ``FieldAccess`` of a `Relationship`: the wrapper keeps the related object (to-one) or the
/// members' collection (to-many, made on first use), as a plain reference — no `Any`, no slot
/// array, so a new object's first relationship set copies nothing.
///
/// A to-one that a load named may be kept as its object's key until the relationship is first
/// read: the reads and writes go through ``RelationshipFields``, which makes the object then and
/// drops the key on every write.
final class RelationshipFieldAccess: FieldAccess {
  /// The byte offset in the object of the wrapper's ``LoadedKeyOrCounts``.
  let keyOffset: Int

  init(offset: Int, keyOffset: Int) {
    self.keyOffset = keyOffset
    super.init(offset: offset)
  }

  /// What the field holds: the related object (made now if a load named it by its key only),
  /// the members' collection, or nil.
  @inline(__always)
  func reference(in object: ManagedObject) -> AnyObject? {
    RelationshipFields.reference(in: object, at: offset, keyOffset: keyOffset)
  }

  override func load(_ object: ManagedObject) -> Any? {
    reference(in: object)
  }

  override func store(_ held: Any?, in object: ManagedObject) {
    RelationshipFields.setReference(
      held.map { heldReference($0, as: AnyObject.self) }, in: object, at: offset,
      keyOffset: keyOffset)
  }

  override var valueType: Any.Type { AnyObject?.self }

  override func storeExactly(_ value: Any, in object: ManagedObject) {
    store(value, in: object)
  }
}

/// The reads and writes of a `Relationship` wrapper's field, given its offsets in the object
/// (``FieldAccess/offset`` and ``RelationshipFieldAccess/keyOffset``).
///
/// A to-one that a load named is kept as its object's key until the relationship is first read
/// (``storeKey(_:in:at:keyOffset:)``): every read goes through ``reference(in:at:keyOffset:)``,
/// which makes the object then, and every write drops the key. Callers pass the offsets, read
/// from the access before any call, so that nothing keeps the entity's shared access alive
/// across the call (that would be an atomic retain and release of it on every read of a
/// relationship); an enum, so that calling
/// these passes no metatype.
enum RelationshipFields {
  /// The wrapper's ``LoadedKeyOrCounts`` in `object`.
  @inline(__always)
  private static func keyAddress(
    in object: Unmanaged<ManagedObject>, at keyOffset: Int
  ) -> UnsafeMutablePointer<LoadedKeyOrCounts> {
    FieldAddress.of(LoadedKeyOrCounts.self, in: object, at: keyOffset)
  }

  /// The wrapper's related object or collection in `object`.
  @inline(__always)
  private static func targetAddress(
    in object: Unmanaged<ManagedObject>, at offset: Int
  ) -> UnsafeMutablePointer<AnyObject?> {
    FieldAddress.of(AnyObject?.self, in: object, at: offset)
  }

  /// What the field holds: the related object (made now if a load named it by its key only),
  /// the members' collection, or nil.
  @inline(__always)
  static func reference(in object: ManagedObject, at offset: Int, keyOffset: Int) -> AnyObject? {
    let base = Unmanaged.passUnretained(object)
    if keyAddress(in: base, at: keyOffset).pointee.loadedKey != nil {
      makeLoadedObject(in: object, at: offset, keyOffset: keyOffset)
    }
    return targetAddress(in: base, at: offset).pointee
  }

  /// The key of the object a to-one's field names — the key a load left, or the related
  /// object's — without making the object; nil for none. Read in place: nothing is retained.
  @inline(__always)
  static func heldKey(in object: Unmanaged<ManagedObject>, at offset: Int, keyOffset: Int)
    -> Int64?
  {
    if let key = keyAddress(in: object, at: keyOffset).pointee.loadedKey { return key }
    guard
      let target = UnsafeRawPointer(targetAddress(in: object, at: offset)).load(
        as: UnsafeRawPointer?.self)
    else { return nil }
    return Unmanaged<ManagedObject>.fromOpaque(target)._withUnsafeGuaranteedRef { $0.objectKey }
  }

  /// Whether a to-many's field may hold members in memory: a collection other than the to-many
  /// fault's sentinel (at `unloaded`), or none in an object that is not a fault (it keeps an
  /// empty to-many so). Read in place: nothing is retained.
  @inline(__always)
  static func mayHoldLoadedMembers(
    in object: Unmanaged<ManagedObject>, at offset: Int, unloaded: UnsafeRawPointer
  ) -> Bool {
    guard
      let held = UnsafeRawPointer(targetAddress(in: object, at: offset)).load(
        as: UnsafeRawPointer?.self)
    else { return !object._withUnsafeGuaranteedRef { $0.isFaultFlag } }
    return held != unloaded
  }

  /// Whether the field holds a to-one's key that a load left, its object not made yet.
  static func holdsKey(in object: ManagedObject, keyOffset: Int) -> Bool {
    keyAddress(in: Unmanaged.passUnretained(object), at: keyOffset).pointee.loadedKey != nil
  }

  /// Stores a reference, dropping a key a load left.
  @inline(__always)
  static func setReference(
    _ reference: AnyObject?, in object: ManagedObject, at offset: Int, keyOffset: Int
  ) {
    let base = Unmanaged.passUnretained(object)
    dropKey(in: base, at: keyOffset)
    targetAddress(in: base, at: offset).pointee = reference
  }

  /// Makes the object a load named by its key, found or made by the object's context as a load
  /// would have (``ObjectContext/objectForLoadedKey(_:key:)``), and keeps it in the field. Nil
  /// when the object's context is gone or was reset, or when the key no longer names an object
  /// of the relationship's destination that the context can give. The object, its entity, the
  /// destination and the context are reached without a count: nothing is retained and released
  /// around the calls.
  @inline(never)
  private static func makeLoadedObject(in object: ManagedObject, at offset: Int, keyOffset: Int) {
    let base = Unmanaged.passUnretained(object)
    let key = keyAddress(in: base, at: keyOffset)
    let loadedKey = key.pointee.loadedKey.unsafelyUnwrapped
    key.pointee.dropLoadedKey()
    let related: ManagedObject? = base._withUnsafeGuaranteedRef { object in
      guard object.isInLiveContext,
        let destination = Unmanaged.passUnretained(object.entity)._withUnsafeGuaranteedRef({
          $0.loadedKeyDestination(at: keyOffset)
        })
      else { return nil }
      let context = Unmanaged.passUnretained(
        object.link.unsafelyUnwrapped.context.unsafelyUnwrapped)
      return context._withUnsafeGuaranteedRef {
        $0.objectForLoadedKey(destination.takeUnretainedValue(), key: loadedKey)
      }
    }
    targetAddress(in: base, at: offset).pointee = related
  }

  /// Stores a related object, or nil, taking the caller's reference over (no extra retain and
  /// release of the related object per loaded row).
  static func storeObject(
    _ related: consuming ManagedObject?, in object: Unmanaged<ManagedObject>, at offset: Int,
    keyOffset: Int
  ) {
    dropKey(in: object, at: keyOffset)
    targetAddress(in: object, at: offset).pointee = related
  }

  /// Keeps a to-one's object as its key: the field holds nil, and its first read makes the
  /// object (``reference(in:at:keyOffset:)``). For a load into a fault, whose to-one nothing has
  /// read yet.
  static func storeKey(
    _ key: Int64, in object: Unmanaged<ManagedObject>, at offset: Int, keyOffset: Int
  ) {
    targetAddress(in: object, at: offset).pointee = nil
    keyAddress(in: object, at: keyOffset).pointee.keep(loadedKey: key)
  }

  /// Drops a key a load left; the declaration's counts stay.
  @inline(__always)
  private static func dropKey(in object: Unmanaged<ManagedObject>, at keyOffset: Int) {
    keyAddress(in: object, at: keyOffset).pointee.dropLoadedKey()
  }
}
