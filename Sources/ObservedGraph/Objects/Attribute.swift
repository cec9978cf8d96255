/// A typed attribute of a ``ManagedObject`` subclass.
///
/// The property's initial value becomes the attribute's default in the model. The value lives in
/// the wrapper itself, inside the object, with its own type (no box). Reading the property goes
/// through the object's one read hook (it fulfils a fault and tells Swift Observation); setting it
/// goes through the one observed mutation path: observers are told, the change is tracked and
/// recorded for undo. A set that nothing hears is a store into the field.
///
/// ```swift
/// final class Book: ManagedObject {
///   @Attribute var title: String = ""
///   @Attribute var price: Double = 0
///   @Attribute var subtitle: String?
///   @Attribute var keywords: [String] = []
///   @Attribute(transient: true) var isSelected = false
/// }
/// ```
@propertyWrapper
public struct Attribute<Value: AttributeValue> {
  /// The value: the default until the object is filled or changed. Written only by the read and
  /// write functions of ManagedObject+Storage.swift and by ``TypedFieldAccess``.
  @usableFromInline var value: Value
  /// The storage slot of this property in its object; resolved on first use, negative until then.
  /// 32 bits and beside the flag, so that the wrapper adds 8 bytes to its value in every object.
  @usableFromInline var slot: Int32 = -1
  @usableFromInline let isTransient: Bool
  /// Whether the declaration names the attribute's name in the previous model version; the name
  /// itself is not kept in every object, only noted while a model reads the class
  /// (``DeclaredOriginalNames``).
  @usableFromInline let hasOriginalName: Bool

  /// Declares an attribute whose default is the property's initial value.
  ///
  /// ```swift
  /// @Attribute var price: Double = 0
  /// ```
  /// - Parameters:
  ///   - wrappedValue: The default value of new objects.
  ///   - transient: Whether stores skip this attribute.
  ///   - originalName: The attribute's name in the previous model version, when it was renamed
  ///     (``AttributeDescription/originalName``): a migration keeps its values.
  // Inlinable, as `Relationship`'s: every new object runs it for each attribute (and a nil
  // original name costs nothing once inlined).
  @inlinable
  public init(wrappedValue: Value, transient: Bool = false, originalName: String? = nil) {
    self.value = wrappedValue
    self.isTransient = transient
    self.hasOriginalName = originalName != nil
    if let originalName { DeclaredOriginalNames.note(originalName) }
  }

  /// Declares an optional attribute with no default value.
  ///
  /// ```swift
  /// @Attribute var subtitle: String?
  /// ```
  /// - Parameters:
  ///   - transient: Whether stores skip this attribute.
  ///   - originalName: The attribute's name in the previous model version, when it was renamed.
  @inlinable
  public init(transient: Bool = false, originalName: String? = nil)
  where Value: ExpressibleByNilLiteral {
    self.value = nil
    self.isTransient = transient
    self.hasOriginalName = originalName != nil
    if let originalName { DeclaredOriginalNames.note(originalName) }
  }

  /// Unavailable: a non-optional attribute needs a default value.
  ///
  /// Chosen by the compiler for `@Attribute var title: String` (no initial value, a type that is
  /// not optional), so that the error says what to write instead of asking for
  /// `ExpressibleByNilLiteral`.
  @available(
    *, unavailable,
    message:
      "give the attribute a default value, as in '@Attribute var title: String = \"\"', or make its type optional, as in '@Attribute var subtitle: String?'"
  )
  public init(transient: Bool = false) {
    fatalError("unavailable")
  }

  /// Unavailable: a non-optional attribute needs a default value, renamed or not.
  @available(
    *, unavailable,
    message:
      "give the attribute a default value, as in '@Attribute(originalName: \"name\") var title: String = \"\"', or make its type optional"
  )
  public init(transient: Bool = false, originalName: String) {
    fatalError("unavailable")
  }

  /// Unavailable: `@Attribute` works only in `ManagedObject` subclasses.
  @available(*, unavailable, message: "@Attribute can only be used in ManagedObject subclasses")
  public var wrappedValue: Value {
    get { fatalError("unavailable") }
    // swift-format-ignore
    set { fatalError("unavailable") }
  }

  /// Reads and writes the attribute through its object.
  ///
  /// Inlinable: in the caller's module the key paths are literals, so the slot and the value compile to field loads and
  /// stores, and a set's equality test is specialized for the property's type.
  @inlinable
  public static subscript<Object: ManagedObject>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    // Both accessors stay small and always inline, so that the key paths are literals where
    // they are applied: the compiler then turns them into field loads and stores.
    @inline(__always) get {
      var slot = Int(object[keyPath: storageKeyPath].slot)
      if slot < 0 { slot = resolveSlot(object, storageKeyPath) }
      if let registrar = object.registrar, object.readsPlainly {
        registrar.access(object, slot)
      } else if object.readHook(slot) {
        // A key path is being resolved: the read names its getter by the getter's own key path,
        // the one exact sign of which property a key path is (``KeyPathNames``). The caller
        // makes that key path at every read, since it is an argument (Performance.md, "Exact
        // key path resolution").
        object.recordTypedRead(slot, keyPath: wrappedKeyPath)
      }
      return object[keyPath: storageKeyPath].value
    }
    @inline(__always) set {
      var slot = Int(object[keyPath: storageKeyPath].slot)
      if slot < 0 { slot = resolveSlot(object, storageKeyPath) }
      if object.isQuietInline(slot) {
        // Nothing is left to track, and only Swift Observation and typed observers may hear it.
        if object.observers == nil && object.registrar == nil {
          // Nobody: what the one apply would do is the count of the change and the store
          // (ObjectContext+Apply.swift), done here in the app's code.
          object.link.unsafelyUnwrapped.generation &+= 1
          object[keyPath: storageKeyPath].value = newValue
        } else {
          setReporting(object, slot: slot, newValue)
        }
        return
      }
      set(object, slot: slot, newValue)
    }
  }

  /// A typed set that the inlined setter did not find quiet: asks the object how it goes on
  /// (``ManagedObject/beginTypedSet(_:)``). Out of line, so the setter stays small enough to
  /// inline into every caller, and specialized for `Value` in the caller's module.
  @inlinable @inline(never)
  static func set(_ object: ManagedObject, slot: Int, _ newValue: Value) {
    if object.isRecordedQuietInline(slot) {
      // As `.recorded` below, found by the bits the last recorded set of the slot left.
      return setRecorded(object, slot: slot, newValue)
    }
    switch object.beginTypedSet(slot) {
    case .quiet:
      _ = exchange(object, slot: slot, newValue)
    case .recorded:
      setRecorded(object, slot: slot, newValue)
    case .observed:
      setReporting(object, slot: slot, newValue)
    case .full:
      // The slot is an @Attribute's, so its field access is of this type.
      let field = unsafeDowncast(
        object.entity.fields[slot].unsafelyUnwrapped, to: TypedFieldAccess<Value>.self)
      commit(object, slot: slot, old: field.address(in: object).pointee, new: newValue)
    }
  }

  /// A quiet typed set that Swift Observation's registrar or the slot's typed observers hear (see
  /// ``ManagedObject/quietSlots``): keeps the old value, stores (``exchange(_:slot:_:)``), and
  /// calls the observers. Out of line, so the setter inlined into the app's code stays small, and
  /// specialized for `Value` in the caller's module.
  @inlinable @inline(never)
  static func setReporting(_ object: ManagedObject, slot: Int, _ newValue: Value) {
    let old = exchange(object, slot: slot, newValue)
    if object.observers != nil {
      ObserverTable.deliverTypedSet(of: object, slot: slot, old: old, new: newValue)
    }
  }

  /// A quiet set recorded in the context's undo column: the store (``exchange(_:slot:_:)``), and
  /// the old value recorded unless it is equal.
  @inlinable @inline(__always)
  static func setRecorded(_ object: ManagedObject, slot: Int, _ newValue: Value) {
    let old = exchange(object, slot: slot, newValue)
    if old != newValue { recordQuietSet(object, slot: slot, old: old) }
  }

  /// The store of a quiet set (nothing left to track), keeping the old value: handed to the
  /// one apply (``ManagedObject/applyQuietStore(_:_:)``), or, when the object has no Swift
  /// Observation registrar, the count of the change and the store, which is all that apply
  /// would do. Returns the value it replaced. The slot is an `@Attribute`'s, so its field holds a
  /// `Value` at the field access's offset (the access itself is only read, not held).
  @inlinable @inline(__always)
  static func exchange(_ object: ManagedObject, slot: Int, _ newValue: Value) -> Value {
    let offset = object.entity.fields[slot].unsafelyUnwrapped.offset
    let address = FieldAddress.of(Value.self, in: Unmanaged.passUnretained(object), at: offset)
    let old = address.pointee
    if object.registrar == nil {
      object.link.unsafelyUnwrapped.generation &+= 1
      address.pointee = newValue
      #if OBSERVEDGRAPH_INVARIANTS
        object.checkQuietSet(slot)
      #endif
    } else {
      object.applyQuietStore(slot) { address.pointee = newValue }
    }
    return old
  }

  /// A typed set that takes the whole mutation path: compares, and hands both values on in held
  /// form. Out of line, so the accessors above stay small.
  @usableFromInline @inline(never)
  static func commit(_ object: ManagedObject, slot: Int, old: Value, new: Value) {
    // The slot is an @Attribute's, so its field access is of this type.
    let field = unsafeDowncast(object.entity.fields[slot]!, to: TypedFieldAccess<Value>.self)
    object.commitAttribute(
      slot: slot, old: field.held(old), new: field.held(new), changes: old != new)
  }

  /// The first use of the wrapper in an object: finds its slot by where the wrapper sits in the
  /// object, and caches it in the wrapper.
  ///
  /// Inlined, so the storage key path stays a literal. The wrapper is only reached by accesses that
  /// make no call while they last (its offset is taken inside one, the slot found outside): the
  /// compiler can then drop the dynamic exclusivity checks of the app's class on every access to
  /// the wrapper, even where the setter is not inlined into the caller.
  @inlinable @inline(__always)
  static func resolveSlot<Object: ManagedObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Int {
    let slot = object.resolveSlot(
      wrapperOffset: ManagedObject.wrapperOffset(object, storageKeyPath))
    object[keyPath: storageKeyPath].slot = Int32(slot)
    return slot
  }
}

extension Attribute: PropertyWrapperDeclaring {
  static var slotOffset: Int { MemoryLayout<Self>.offset(of: \Self.slot)! }

  var declaresOriginalName: Bool { hasOriginalName }

  func declaration(name: String) throws -> Declaration {
    .attribute(
      AttributeDescription(
        name: name, type: Value.attributeType, defaultValue: Self.held(value),
        isOptional: Value.isOptionalValue, isTransient: isTransient))
  }

  var destinationClass: ManagedObject.Type? { nil }

  /// A value as the model holds it: nil for an empty optional, the wrapped value otherwise.
  @usableFromInline
  static func held(_ value: Value) -> (any Sendable)? {
    guard let optional = value as? any OptionalAttributeValue else { return value }
    return optional.wrappedValue
  }

  /// The value a held value stands for (the inverse of ``held(_:)``); the held value was checked
  /// against the attribute's type.
  static func value(held: Any?) -> Value {
    guard let held else { return Optional<Any>.none as! Value }
    return held as! Value
  }
}

/// A property wrapper that declares a property of an entity and caches its slot.
protocol PropertyWrapperDeclaring {
  /// The slot, or a negative number until it is resolved.
  var slot: Int32 { get }
  /// Where ``slot`` is in the wrapper, in bytes.
  static var slotOffset: Int { get }
  /// The property the wrapper declares, named `name`.
  func declaration(name: String) throws -> Declaration
  /// For a relationship, the class its values hold.
  var destinationClass: ManagedObject.Type? { get }
  /// Whether the declaration gave an original name, which ``DeclaredOriginalNames`` noted.
  var declaresOriginalName: Bool { get }
}

extension PropertyWrapperDeclaring {
  var declaresOriginalName: Bool { false }
}

/// The original names that attribute declarations give (`@Attribute(originalName: "notes")`),
/// noted in the order the wrappers are made while a model reads a class: the name is not kept in
/// every object (it would cost each object 16 bytes an attribute), only a flag, and the model
/// gives the flagged wrappers the noted names in order. A class's stored properties are made in
/// declaration order, its own before its superclass's: the order in which the model reads them.
@usableFromInline
enum DeclaredOriginalNames {
  /// The names noted while a model makes its prototype of a class.
  final class Notes: @unchecked Sendable {
    // Written and read by the one thread that makes the prototype, within `reading(_:)`.
    var names: [String] = []
  }

  @TaskLocal static var notes: Notes?

  /// Notes a declared original name, when a model is reading a class on this thread.
  @usableFromInline
  static func note(_ name: String) {
    notes?.names.append(name)
  }

  /// Makes a prototype of `type` and returns it with the original names its declarations gave, in
  /// the order they were made.
  static func reading(_ type: ManagedObject.Type) -> (ManagedObject, [String]) {
    let notes = Notes()
    let prototype = $notes.withValue(notes) { type.init(ObjectBootstrap.prototype) }
    return (prototype, notes.names)
  }
}

/// One property a wrapper declares.
enum Declaration {
  case attribute(AttributeDescription)
  case relationship(RelationshipDescription)
}

extension ManagedObject {
  /// The slot of the property whose wrapper is stored `offset` bytes into this object (see
  /// ``wrapperOffset(_:_:)``): the offset names it (the model found each wrapper's offset
  /// when it was built). Called once per object and property; the wrapper caches the slot.
  @usableFromInline
  final func resolveSlot(wrapperOffset offset: Int) -> Int {
    guard lifecycle != .prototype else {
      preconditionFailure("ObservedGraph: properties of a model prototype cannot be used")
    }
    let slots = entity.slotsByWrapperOffset
    guard offset >= 0, offset < slots.count, slots[offset] >= 0 else {
      preconditionFailure(
        "ObservedGraph: a property wrapper of \(type(of: self)) is not part of entity "
          + "\(entity.name); was the class given to ObjectModel(types:)?")
    }
    return Int(slots[offset])
  }

  /// Where the wrapper at `keyPath` sits in `object`, in bytes from the object's start. The access
  /// to the wrapper makes no call while it lasts, so it does not keep the compiler from checking
  /// the app's accesses to its wrappers statically.
  @inlinable @inline(__always)
  static func wrapperOffset<Object: ManagedObject, Wrapper>(
    _ object: Object, _ keyPath: ReferenceWritableKeyPath<Object, Wrapper>
  ) -> Int {
    withUnsafeMutablePointer(to: &object[keyPath: keyPath]) {
      UnsafeRawPointer($0) - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }
  }
}
