/// Manual change brackets: `willChangeValue` / `didChangeValue` pairs around primitive sets.
///
/// A bracket is the mutation path split in two by the caller's own code: its outermost open tells
/// Swift Observation's `willSet` and runs the announce phase (prior observers) for the change it
/// expects;
/// the caller changes storage with primitive sets; its outermost close plans the edit that storage
/// now shows and runs the rest of the path — record, track, deliver, check — with the storage
/// already written. Brackets nest per object and key; only the outermost pair counts.
struct BracketTable {
  /// One open bracket: its depth, the value at the outermost open, what the open announced.
  struct Bracket {
    var depth: Int
    let old: Any?
    let delivery: ObjectContext.Delivery
    let mutation: Mutation?
  }

  /// The to-many change a bracket announces; nil for a plain setting.
  enum Mutation {
    case indexed(ChangeKind, [Int], before: [ManagedObject])
    case objects(ChangeKind, [ManagedObject])
  }

  private var open: [SlotKey: Bracket] = [:]

  var isEmpty: Bool { open.isEmpty }
  subscript(key: SlotKey) -> Bracket? {
    get { open[key] }
    set { open[key] = newValue }
  }

  /// Forgets every open bracket (reset), releasing the links their opening told.
  mutating func removeAll() {
    for bracket in open.values { bracket.delivery.cancel() }
    open.removeAll()
  }
}

extension ObjectContext {
  /// Opens a bracket (or nests one): at the outermost open, announces the change.
  func openBracket(
    _ object: ManagedObject, _ property: Property, _ mutation: BracketTable.Mutation? = nil
  ) {
    let key = SlotKey(object, property.slot)
    if brackets[key] != nil {
      brackets[key]!.depth += 1
      return
    }
    let old: Any? =
      property.isToMany ? object.members(property) : object.read(property.slot, tracking: false)
    // An open bracket hears every change until it closes: no set stays quiet by an older answer.
    if brackets.isEmpty { audienceWidened() }
    var probe = PlannedEdit(bracketEdit(object, property, mutation), changes: false)
    probe.isManual = true
    willStoreInBracket(object, property)
    let delivery = announce(SingleEdit(probe))
    brackets[key] = BracketTable.Bracket(depth: 1, old: old, delivery: delivery, mutation: mutation)
  }

  /// The edit a bracket stands for. At its outermost open (`old` nil): what observers are told
  /// is coming — an insertion's objects are not known yet, a setting's old and new value are the
  /// current one. At its outermost close: what storage now shows against the value at the open.
  private func bracketEdit(
    _ object: ManagedObject, _ property: Property, _ mutation: BracketTable.Mutation?,
    closingFrom old: Any?? = nil
  ) -> Edit {
    let members = property.isToMany ? object.members(property) : []
    switch mutation {
    case .indexed(.insertion, let indexes, _):
      guard old != nil else { return .insert(object, property, objects: [], indexes: indexes) }
      precondition(
        indexes.allSatisfy { $0 >= 0 && $0 < members.count },
        "ObservedGraph: didChange(.insertion, valuesAt: \(indexes)) of \(property.qualifiedName) "
          + "of \(object.objectID): the relationship holds \(members.count) objects after the change"
      )
      return .insert(object, property, objects: indexes.map { members[$0] }, indexes: indexes)
    case .indexed(.removal, let indexes, let before):
      return .remove(object, property, objects: indexes.map { before[$0] }, indexes: indexes)
    case .objects(.insertion, let objects):
      return .insert(object, property, objects: objects, indexes: [])
    case .objects(.removal, let objects):
      return .remove(object, property, objects: objects, indexes: [])
    default:
      if property.isToMany {
        let before = old.map { $0 as? [ManagedObject] ?? [] } ?? members
        return .replace(object, property, old: before, new: members)
      }
      let current = object.read(property.slot, tracking: false)
      return .set(object, property, old: old ?? current, new: current)
    }
  }

  /// Closes a bracket: at the outermost close, the change storage now shows takes the rest of the
  /// mutation path.
  func closeBracket(_ object: ManagedObject, _ property: Property) {
    let key = SlotKey(object, property.slot)
    guard var bracket = brackets[key] else {
      preconditionFailure(
        "ObservedGraph: didChangeValue(forKey: \"\(property.name)\") on \(object.objectID) "
          + "without a matching willChangeValue(forKey:)")
    }
    bracket.depth -= 1
    guard bracket.depth == 0 else {
      brackets[key] = bracket
      return
    }
    brackets[key] = nil
    var planned = PlannedEdit(
      bracketEdit(object, property, bracket.mutation, closingFrom: .some(bracket.old)))
    switch planned.edit.change {
    case .set: planned.changes = property.differs(planned.edit.old, planned.edit.new)
    case .replace(let old, let new):
      planned.changes = !sameMembers(old, new)
    case .insert(let objects, _), .remove(let objects, _):
      planned.changes = !objects.isEmpty
    case .lifecycle: planned.changes = false
    }
    planned.isApplied = true
    planned.isManual = true
    planned.original = .some(bracket.old)
    complete(SingleEdit(planned), bracket.delivery, waitingForBrackets: true)
  }
}
