/// A typed attribute of a ``ManagedObject`` subclass.
///
/// The property's initial value becomes the attribute's default in the model. Reading the property
/// reads the object's storage; setting it goes through the one observed mutation path: observers are
/// told, the change is tracked and recorded for undo.
///
/// ```swift
/// final class Book: ManagedObject {
///   @Attribute var title: String = ""
///   @Attribute var price: Double = 0
///   @Attribute var subtitle: String?
///   @Attribute(transient: true) var isSelected = false
/// }
/// ```
@propertyWrapper
public struct Attribute<Value: AttributeValue>: _PropertyWrapper {
  let defaultValue: Value
  let isTransient: Bool
  /// The cached storage slot of this property in its object; resolved on first use.
  public var _slot = -1

  /// Declares an attribute whose default is the property's initial value.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value of new objects.
  ///   - transient: Whether stores skip this attribute.
  public init(wrappedValue: Value, transient: Bool = false) {
    self.defaultValue = wrappedValue
    self.isTransient = transient
  }

  /// Declares an optional attribute with no default value.
  ///
  /// - Parameter transient: Whether stores skip this attribute.
  public init(transient: Bool = false) where Value: ExpressibleByNilLiteral {
    self.defaultValue = nil
    self.isTransient = transient
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
  /// Inlinable (benchmark row "typed attribute set, no observer"): in the caller's module the
  /// storage key path is a literal, so reading the cached slot compiles to a field load instead of
  /// a generic key-path projection.
  @inlinable
  public static subscript<Object: ManagedObject>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    get {
      let slot = object._slot(of: storageKeyPath)
      object._noteAccess(slot, wrappedKeyPath)
      return object._typedValue(Value.self, slot: slot)
    }
    set {
      object._setTypedAttribute(newValue, slot: object._slot(of: storageKeyPath))
    }
  }

  func _declaration(name: String) throws -> _Declaration {
    .attribute(
      AttributeDescription(
        name: name, type: Value.attributeType, defaultValue: defaultValue._storage,
        isOptional: Value.isOptionalValue, isTransient: isTransient))
  }
}

/// A property wrapper that caches its property's storage slot in the object.
public protocol _SlotCaching {
  /// The slot, or a negative number until it is resolved.
  var _slot: Int { get set }
}

/// A property wrapper that declares a property of an entity.
protocol _PropertyWrapper: _SlotCaching {
  func _declaration(name: String) throws -> _Declaration
}

/// The slot value that marks the wrapper being looked up by ``EntityDescription``.
let _markedSlot = -2

enum _Declaration {
  case attribute(AttributeDescription)
  case relationship(RelationshipDescription)
}

extension ManagedObject {
  /// The slot of the wrapper stored at `storageKeyPath`, cached in the wrapper after the first use.
  @inlinable
  final func _slot<Object: ManagedObject, Wrapper: _SlotCaching>(
    of storageKeyPath: ReferenceWritableKeyPath<Object, Wrapper>
  ) -> Int {
    let cached = unsafeDowncast(self, to: Object.self)[keyPath: storageKeyPath]._slot
    if cached >= 0 { return cached }
    return _resolveSlot(of: storageKeyPath)
  }

  /// The first use of a wrapper in an object: find its slot through the entity and cache it.
  @usableFromInline
  final func _resolveSlot<Object: ManagedObject, Wrapper: _SlotCaching>(
    of storageKeyPath: ReferenceWritableKeyPath<Object, Wrapper>
  ) -> Int {
    let object = unsafeDowncast(self, to: Object.self)
    guard lifecycle != .prototype else {
      preconditionFailure("ObservedGraph: properties of a model prototype cannot be used")
    }
    let slot = entity.slot(forStorage: storageKeyPath, in: object) {
      $0[keyPath: storageKeyPath]._slot = _markedSlot
    }
    object[keyPath: storageKeyPath]._slot = slot
    return slot
  }

  /// The stored value of a slot, typed.
  @usableFromInline
  final func _typedValue<Value: AttributeValue>(_ type: Value.Type, slot: Int) -> Value {
    Value._fromStorage(storage[slot])
  }
}
