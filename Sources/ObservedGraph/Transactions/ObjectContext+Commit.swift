/// The commit's delivery: what a transaction changed, each (object, key) once, from its value
/// before the transaction to its value at the commit.
extension ObjectContext {
  /// The deliveries of a commit, read from the journal before any of them is made.
  struct CommitDeliveries {
    enum Item {
      /// The edits of the (object, key)s and lifecycles noted one after the other, in order:
      /// announced and delivered as one plan, to everyone but the internal links.
      case edits(EditList)
      /// A key-path observation's held delivery.
      case path(() -> Void)
    }
    enum News {
      case slot(ManagedObject, Int)
      case lifecycle(ManagedObject, LifecycleChange)
    }
    var items: [Item] = []
    /// The slots Swift Observation hears `willSet` and `didSet` of.
    var registrarSlots: [(object: ManagedObject, slot: Int)] = []
    /// What the objects-did-change event names.
    var news: [News] = []
    /// Whether anything ends changed.
    var changes = false
  }

  /// Reads the journal: each noted slot, lifecycle and held key-path delivery, in the order it
  /// was noted, against the graph as it is now.
  func commitDeliveries(of journal: TransactionJournal) -> CommitDeliveries {
    var deliveries = CommitDeliveries()
    // The edits since the last key-path delivery, one plan.
    var edits = EditList()
    for note in journal.notes {
      switch note.subject {
      case .path(let observation):
        guard let call = observation.takeHeldDelivery() else { continue }
        if !edits.isEmpty {
          deliveries.items.append(.edits(edits))
          edits = EditList()
        }
        deliveries.items.append(.path(call))
      case .lifecycle(let wasLive, let wasDeleted):
        let object = note.object.unsafelyUnwrapped
        guard object.isLive != wasLive else { continue }
        let change: LifecycleChange = wasLive ? .delete : wasDeleted ? .undelete : .insert
        edits.append(PlannedEdit(.lifecycle(object, change)))
        deliveries.news.append(.lifecycle(object, change))
        deliveries.changes = true
      case .slot(let property, let before):
        let object = note.object.unsafelyUnwrapped
        // An object inserted and deleted again in the body never existed for anyone outside.
        if let lifecycle = journal.lifecycleBefore(of: object), !lifecycle.wasLive,
          !object.isLive
        {
          continue
        }
        var changes = true
        // The key's edits join the plan, heard where the body's edits of the key were.
        func add(_ edit: Edit) {
          var planned = PlannedEdit(edit, changes: changes)
          planned.isManual = note.announces
          edits.append(planned)
        }
        if property.isToMany {
          let membership = membershipEdits(
            of: object, property, from: before as? [ManagedObject] ?? [],
            to: object.members(property))
          guard !membership.isEmpty else { continue }
          membership.forEach(add)
        } else if property.isRelationship {
          let old = before as? ManagedObject
          let new = object.toOne(property)
          guard old !== new else { continue }
          add(.set(object, property, old: old, new: new))
        } else {
          let new = object.read(property.slot, tracking: false)
          changes = property.differs(before, new)
          add(.set(object, property, old: before, new: new))
        }
        deliveries.registrarSlots.append((object, property.slot))
        if changes {
          deliveries.news.append(.slot(object, property.slot))
          deliveries.changes = true
        }
      }
    }
    if !edits.isEmpty { deliveries.items.append(.edits(edits)) }
    return deliveries
  }

  /// A to-many's change from `old` to `new` members: removals at the old indexes, then
  /// insertions at the new ones (the difference of the two orders) when it is ordered; the
  /// members that left, then those that joined, otherwise. Empty when nothing changed.
  private func membershipEdits(
    of object: ManagedObject, _ property: Property, from old: [ManagedObject],
    to new: [ManagedObject]
  ) -> [Edit] {
    var edits: [Edit] = []
    guard !sameMembers(old, new) else { return edits }
    var left: [ManagedObject] = []
    var leftIndexes: [Int] = []
    var joined: [ManagedObject] = []
    var joinedIndexes: [Int] = []
    if property.isOrdered {
      let difference = new.map(ObjectIdentifier.init).difference(
        from: old.map(ObjectIdentifier.init))
      for case .remove(let offset, _, _) in difference.removals {
        left.append(old[offset])
        leftIndexes.append(offset)
      }
      for case .insert(let offset, _, _) in difference.insertions {
        joined.append(new[offset])
        joinedIndexes.append(offset)
      }
    } else {
      let oldSet = Set(old.map(ObjectIdentifier.init))
      let newSet = Set(new.map(ObjectIdentifier.init))
      left = old.filter { !newSet.contains(ObjectIdentifier($0)) }
      joined = new.filter { !oldSet.contains(ObjectIdentifier($0)) }
      // The same members in another order: an unordered relationship did not change.
      guard !left.isEmpty || !joined.isEmpty else { return edits }
    }
    if !left.isEmpty {
      edits.append(.remove(object, property, objects: left, indexes: leftIndexes))
    }
    if !joined.isEmpty {
      edits.append(.insert(object, property, objects: joined, indexes: joinedIndexes))
    }
    return edits
  }

  /// The news of the transaction's event: what ends changed, in the order it first changed.
  /// The body's own news is replaced: a slot changed and changed back is no news.
  func postPending(_ deliveries: CommitDeliveries) {
    center.discardPending()
    for news in deliveries.news {
      switch news {
      case .slot(let object, let slot):
        noteOrigin(object, slot, tracks: false)
        center.notePending(object, slot)
      case .lifecycle(let object, let change):
        noteOrigin(object, -1, tracks: false)
        center.notePending(change, object)
      }
    }
  }

  /// Tells everyone outside the library of the transaction's changes: Swift Observation's
  /// `willSet` and `didSet` of each key, then, in the order each first changed, the keys' prior
  /// calls, observers and change recorders (as the phases deliver one plan: between two
  /// key-path deliveries, the prior calls, then the observers, then the change recorders), and
  /// the key-path observers.
  func deliver(_ deliveries: CommitDeliveries) {
    if link.participatesInSwiftObservation {
      for (object, slot) in deliveries.registrarSlots { object.registrar?.willSet(object, slot) }
      for (object, slot) in deliveries.registrarSlots { object.registrar?.didSet(object, slot) }
    }
    for item in deliveries.items {
      switch item {
      case .edits(let plan):
        let delivery = announce(plan, atCommit: true)
        deliver(plan, delivery)
      case .path(let call):
        call()
      }
    }
  }
}
