/// The identity of a changing property, used to merge consecutive steps that change it.
///
/// Two steps coalesce when they return equal keys from ``UndoStep/coalescingKey`` and are
/// registered one right after the other within ``UndoLog/coalescingWindow``. A key names what
/// changes, either a live object (``init(object:key:)``) or a value that identifies it
/// (``init(identity:key:)``), and a property of it, coded as an integer the caller chooses (a
/// property index, a hash of its name).
///
/// ```swift
/// let key = UndoCoalescingKey(object: ObjectIdentifier(textField), key: 0)
/// let byID = UndoCoalescingKey(identity: document.id, key: 0)
/// ```
public struct UndoCoalescingKey: Hashable, Sendable {
  /// What changes: an object's identity, or a value naming it.
  let identity: Identity

  /// The property that changes, as an integer the caller chooses.
  public var key: Int

  /// Creates a key for a property of an object.
  ///
  /// ```swift
  /// let titleKey = UndoCoalescingKey(object: ObjectIdentifier(book), key: 1)
  /// ```
  ///
  /// - Parameters:
  ///   - object: The identity of the object whose property changes.
  ///   - key: The property, as an integer the caller chooses.
  public init(object: ObjectIdentifier, key: Int) {
    self.identity = .object(object)
    self.key = key
  }

  /// Creates a key for a property of something named by a value, such as an identifier.
  ///
  /// A value step that holds no object names what it changes by value; its key does too. Keys
  /// made from equal values of the same type and equal `key`s are equal; values of different
  /// types never are. An `ObjectIdentifier` makes the same key as ``init(object:key:)``.
  ///
  /// ```swift
  /// struct DocumentID: Hashable, Sendable { let rawValue: UInt64 }
  ///
  /// let titleKey = UndoCoalescingKey(identity: DocumentID(rawValue: 7), key: 1)
  /// titleKey == UndoCoalescingKey(identity: DocumentID(rawValue: 7), key: 1)  // true
  /// ```
  ///
  /// - Parameters:
  ///   - identity: A value that names what changes.
  ///   - key: The property, as an integer the caller chooses.
  public init(identity: some Hashable & Sendable, key: Int) {
    if let object = identity as? ObjectIdentifier {
      self.identity = .object(object)
    } else {
      self.identity = .value(ValueIdentity(identity))
    }
    self.key = key
  }

  /// The identity of the object whose property changes, or `nil` for a key made with
  /// ``init(identity:key:)`` from another value.
  ///
  /// ```swift
  /// UndoCoalescingKey(object: ObjectIdentifier(book), key: 1).object  // ObjectIdentifier(book)
  /// ```
  public var object: ObjectIdentifier? {
    if case .object(let object) = identity { object } else { nil }
  }
}

extension UndoCoalescingKey {
  /// What a key names.
  enum Identity: Hashable, Sendable {
    case object(ObjectIdentifier)
    case value(ValueIdentity)
  }

  /// A hashable, sendable value of any type, equal to another only when of the same type.
  ///
  /// `AnyHashable` would do, but it is not `Sendable`.
  struct ValueIdentity: Hashable, Sendable {
    let base: any Hashable & Sendable

    init(_ base: some Hashable & Sendable) {
      self.base = base
    }

    static func == (lhs: ValueIdentity, rhs: ValueIdentity) -> Bool {
      lhs.base.isEqual(to: rhs.base)
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(ObjectIdentifier(type(of: base)))
      hasher.combine(base)
    }
  }
}

extension Hashable {
  /// Whether `other` is a value of exactly this type, equal to this one.
  fileprivate func isEqual(to other: any Hashable) -> Bool {
    guard type(of: other) == Self.self, let other = other as? Self else { return false }
    return self == other
  }
}
