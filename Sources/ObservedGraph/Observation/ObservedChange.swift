/// One change, as delivered to an observer.
///
/// `oldValue` and `newValue` are nil when the option was not asked for; a property whose value is
/// nil reports `.some(nil)`. For to-many insertions and removals the values are the objects that
/// joined or left, and for ordered relationships ``indexes`` says where.
///
/// ```swift
/// let token = book.observe(\.pages, options: [.new]) { _, change in
///   if change.kind == .insertion { print("pages inserted at", change.indexes!) }
/// }
/// ```
public struct ObservedChange<Value> {
  /// What kind of change it is.
  public let kind: ChangeKind
  /// The value before the change (or the removed objects), when `.old` was asked for.
  public let oldValue: Value?
  /// The value after the change (or the inserted objects), when `.new` was asked for.
  public let newValue: Value?
  /// For ordered to-many insertions and removals: the positions of the affected objects.
  public let indexes: [Int]?
  /// Whether this is the extra call made before the change (`.prior`).
  public let isPrior: Bool
  /// Where the change came from (see ``ChangeOrigin``): ``ChangeOrigin/local`` unless another
  /// origin was in force when it was made; ``ChangeOrigin/undo`` and ``ChangeOrigin/redo`` for
  /// the changes of an undo and a redo. An `.initial` call carries the origin in force when the
  /// observer was registered.
  public let origin: ChangeOrigin

  /// Creates a change, for example to compare with the ones a handler received.
  ///
  /// ```swift
  /// let expected = ObservedChange(kind: .setting, oldValue: "", newValue: "Dune", origin: "import")
  /// ```
  ///
  /// - Parameters:
  ///   - kind: The kind.
  ///   - oldValue: The old value, or nil when not delivered.
  ///   - newValue: The new value, or nil when not delivered.
  ///   - indexes: Ordered to-many positions.
  ///   - isPrior: Whether it is a prior call.
  ///   - origin: Where the change came from; ``ChangeOrigin/local`` by default.
  public init(
    kind: ChangeKind, oldValue: Value? = nil, newValue: Value? = nil, indexes: [Int]? = nil,
    isPrior: Bool = false, origin: ChangeOrigin = .local
  ) {
    self.kind = kind
    self.oldValue = oldValue
    self.newValue = newValue
    self.indexes = indexes
    self.isPrior = isPrior
    self.origin = origin
  }
}

extension ObservedChange: Sendable where Value: Sendable {}
extension ObservedChange: Equatable where Value: Equatable {}

/// A change in storage form, before it is typed for a handler.
struct RawChange {
  var kind: ChangeKind
  /// nil: not asked for; .some(nil): the value nil.
  var old: Any??
  var new: Any??
  var indexes: [Int]?
  var isPrior: Bool
  var origin: ChangeOrigin

  func typed<Value>(_ convert: (Any?) -> Value) -> ObservedChange<Value> {
    ObservedChange(
      kind: kind, oldValue: old.map(convert), newValue: new.map(convert), indexes: indexes,
      isPrior: isPrior, origin: origin)
  }
}
