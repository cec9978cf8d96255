/// One change to one slot of one object, or of an object's membership in its context, as the
/// mutation path applies it, observers hear it and the undo recorder records its inverse.
///
/// A user-level change (set a relationship, insert into a to-many, delete an object) becomes a list
/// of edits: the change itself and the inverse upkeep it causes on other objects. The list is worked
/// out before anything changes; then all will-change notifications go out, the undo step is
/// recorded, all edits are applied, and all did-change notifications follow, so observers always see
/// both sides in agreement.
struct Edit {
  /// The object changed.
  let object: ManagedObject
  /// The property changed; nil for a lifecycle change.
  let property: Property?
  /// What happens to it.
  var change: Change
  /// A set's value before the change (nil for other kinds). The values of a set live here rather
  /// than in ``Change`` so that `Change` has no existential payload: matching it then copies no
  /// `Any?`.
  var old: Any? = nil
  /// A set's value after the change (nil for other kinds).
  var new: Any? = nil

  enum Change {
    /// An attribute or to-one relationship goes from ``Edit/old`` to ``Edit/new`` (held values:
    /// nil, the attribute value, or the object).
    case set
    /// Objects join a to-many relationship; for an ordered one at `indexes` (ascending, positions
    /// after the change).
    case insert(objects: [ManagedObject], indexes: [Int])
    /// Objects leave a to-many relationship; for an ordered one from `indexes` (ascending,
    /// positions before the change).
    case remove(objects: [ManagedObject], indexes: [Int])
    /// A to-many relationship's whole content is replaced: a setting (key-value coding's
    /// whole-value set, delete rules emptying a relationship, manual brackets).
    case replace(old: [ManagedObject], new: [ManagedObject])
    /// The object joins or leaves the context, or its deletion is marked or taken back.
    case lifecycle(LifecycleChange)
  }

  static func set(
    _ object: ManagedObject, _ property: Property, old: consuming Any?, new: consuming Any?
  ) -> Edit {
    Edit(object: object, property: property, change: .set, old: old, new: new)
  }

  static func insert(
    _ object: ManagedObject, _ property: Property, objects: [ManagedObject], indexes: [Int]
  ) -> Edit {
    Edit(object: object, property: property, change: .insert(objects: objects, indexes: indexes))
  }

  static func remove(
    _ object: ManagedObject, _ property: Property, objects: [ManagedObject], indexes: [Int]
  ) -> Edit {
    Edit(object: object, property: property, change: .remove(objects: objects, indexes: indexes))
  }

  static func replace(
    _ object: ManagedObject, _ property: Property, old: [ManagedObject], new: [ManagedObject]
  ) -> Edit {
    Edit(object: object, property: property, change: .replace(old: old, new: new))
  }

  static func lifecycle(_ object: ManagedObject, _ change: LifecycleChange) -> Edit {
    Edit(object: object, property: nil, change: .lifecycle(change))
  }
}

/// Whether two lists hold the same objects in the same order.
func sameMembers(_ lhs: [ManagedObject], _ rhs: [ManagedObject]) -> Bool {
  lhs.count == rhs.count && !zip(lhs, rhs).contains { $0 !== $1 }
}

/// A change of an object's membership in its context.
enum LifecycleChange: String, Codable, Sendable {
  /// The object joins the context as inserted (first insert, or redo of it).
  case insert
  /// The object's insertion is taken back (undo of insert).
  case uninsert
  /// The object is marked deleted.
  case delete
  /// The object's deletion is taken back (undo of delete).
  case undelete

  var inverse: LifecycleChange {
    switch self {
    case .insert: return .uninsert
    case .uninsert: return .insert
    case .delete: return .undelete
    case .undelete: return .delete
    }
  }

  /// Whether the change takes the object out of the live graph.
  var removesObject: Bool { self == .uninsert || self == .delete }
}

/// An edit as the mutation path carries it through its phases.
struct PlannedEdit {
  var edit: Edit
  /// Whether applying it changes anything. An edit that does not (a set of an equal value) is still
  /// announced to observers, but nothing is tracked or recorded for it.
  var changes: Bool
  /// Whether storage already holds the new value (a manual will/did bracket around primitive sets).
  var isApplied = false
  /// Whether observers of a manual-only key hear it (manual brackets always notify).
  var isManual = false
  /// Whether undo or redo makes the edit: the object is restored (see
  /// ``ManagedObject/awake(fromSnapshotEvents:)``).
  var isReplay = false
  /// The parts only brackets and undo use, kept out of line so that the common edit copies cheaply.
  private var extras: Extras?

  private final class Extras {
    var original: Any?? = nil
    var restoring: SlotTracking?
  }

  init(_ edit: consuming Edit, changes: Bool = true) {
    self.edit = edit
    self.changes = changes
  }

  var object: ManagedObject { edit.object }
  var property: Property? { edit.property }

  /// The committed value to keep if this is the slot's first change since the last save, when
  /// storage no longer holds it (a bracket: the value at its outermost open).
  var original: Any?? {
    get { extras?.original ?? nil }
    set {
      if extras == nil { extras = Extras() }
      extras!.original = newValue
    }
  }

  /// For undo and redo: the tracking state the slot had before the change being taken back.
  var restoring: SlotTracking? {
    get { extras?.restoring }
    set {
      if extras == nil { extras = Extras() }
      extras!.restoring = newValue
    }
  }
}

/// Identifies one slot of one object: brackets, plans and replays key their bookkeeping by it.
struct SlotKey: Hashable {
  let object: ObjectIdentifier
  let slot: Int

  init(_ object: ManagedObject, _ slot: Int) {
    self.object = ObjectIdentifier(object)
    self.slot = slot
  }
}

/// The edits of one change, in the order they are applied, as the phases of the mutation path read
/// them. The phases are generic over it so that the plan of a single edit (``SingleEdit``, every
/// attribute set) is a plain struct read in place, while changes with several edits use an
/// ``EditList``: the same phase code, specialized.
protocol EditSequence: StorableEdits {
  var count: Int { get }
  subscript(position: Int) -> PlannedEdit { get }
}

/// The plan of a change of one slot: one edit, stored in place.
struct SingleEdit: EditSequence {
  var edit: PlannedEdit

  init(_ edit: consuming PlannedEdit) { self.edit = edit }

  var count: Int { 1 }

  subscript(position: Int) -> PlannedEdit {
    _read { yield edit }
  }
}

/// The plan of a change of several slots (or of none).
struct EditList: EditSequence {
  private var edits: [PlannedEdit] = []

  init() {}

  init(_ edit: PlannedEdit) { edits = [edit] }

  var count: Int { edits.count }
  var isEmpty: Bool { edits.isEmpty }

  subscript(position: Int) -> PlannedEdit {
    _read { yield edits[position] }
    _modify { yield &edits[position] }
  }

  mutating func append(_ edit: PlannedEdit) {
    edits.append(edit)
  }

  /// Whether any edit satisfies `predicate`.
  func contains(where predicate: (PlannedEdit) -> Bool) -> Bool {
    edits.contains(where: predicate)
  }
}

/// A small list keeping its first element inline: the deliveries of a single edit allocate
/// nothing.
struct InlineList<Element> {
  private var head: Element?
  private var tail: [Element] = []

  init() {}

  var count: Int { head == nil ? 0 : 1 + tail.count }

  subscript(position: Int) -> Element {
    _read {
      if position == 0 { yield head! } else { yield tail[position - 1] }
    }
  }

  mutating func append(_ element: Element) {
    if head == nil { head = element } else { tail.append(element) }
  }
}

/// Values by slot for the few slots one change touches: a list searched in order while short, a
/// table once it is long, so that a change of a few slots (undo bringing back a deleted object,
/// say) makes and hashes no table.
struct SlotTable<Value> {
  private var list: [(key: SlotKey, value: Value)] = []
  private var table: [SlotKey: Value] = [:]

  /// The most entries searched in order.
  private static var listLimit: Int { 16 }

  subscript(key: SlotKey) -> Value? {
    get {
      guard table.isEmpty else { return table[key] }
      return list.last { $0.key == key }?.value
    }
    set {
      guard table.isEmpty else {
        table[key] = newValue
        return
      }
      if let index = list.lastIndex(where: { $0.key == key }) {
        if let newValue { list[index].value = newValue } else { list.remove(at: index) }
      } else if let newValue {
        list.append((key, newValue))
        if list.count > Self.listLimit {
          table = Dictionary(list, uniquingKeysWith: { _, newer in newer })
          list = []
        }
      }
    }
  }
}
