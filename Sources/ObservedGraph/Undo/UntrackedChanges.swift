/// The properties and memberships whose latest change came from an origin the undo log does not
/// track (see ``ObjectContext/trackedOrigins``), with that origin: what an undo or redo leaves
/// alone (``ObjectContext/onUndoSkip(_:)``).
///
/// An attribute or a to-one relationship is one entry per (object, key); a to-many relationship one
/// per (object, key, member); an insert or delete one per object (slot -1). A change by an untracked origin adds its entries; a later change by a
/// tracked origin (the user's edit, an undo, a redo) of the same property or membership removes
/// them. The table is empty, and costs nothing, while no untracked origin writes: only then do
/// changes note here (the audience member ``Audience/untracked`` sends them along the whole path,
/// as it sends every change of an object with entries, ``ManagedObject/hasUntrackedChanges``).
struct UntrackedChanges {
  /// One property (`member` nil) or one membership of a to-many relationship.
  struct Entry: Hashable {
    let slot: Int
    let member: ObjectID?
  }

  private var byObject: [ObjectID: [Entry: ChangeOrigin]] = [:]

  var isEmpty: Bool { byObject.isEmpty }

  /// The origin of the untracked change that last wrote the property or membership, if the latest
  /// change of it was untracked.
  func origin(_ object: ObjectID, _ slot: Int, member: ObjectID? = nil) -> ChangeOrigin? {
    byObject[object]?[Entry(slot: slot, member: member)]
  }

  /// The object's entries.
  func entries(of object: ObjectID) -> [Entry: ChangeOrigin] { byObject[object] ?? [:] }

  /// Notes a change of the property or membership: by `origin` when it is untracked, otherwise
  /// (nil) a tracked change that removes the entry.
  mutating func note(
    _ object: ManagedObject, _ slot: Int, member: ManagedObject? = nil,
    untracked origin: ChangeOrigin?
  ) {
    let entry = Entry(slot: slot, member: member?.objectID)
    if let origin {
      byObject[object.objectID, default: [:]][entry] = origin
      object.hasUntrackedChanges = true
    } else if byObject[object.objectID]?.removeValue(forKey: entry) != nil,
      byObject[object.objectID]?.isEmpty == true
    {
      byObject[object.objectID] = nil
    }
  }

  /// Forgets every entry (another undo log, a reset).
  mutating func removeAll() {
    byObject.removeAll()
  }
}

/// A property or membership an undo or redo left alone, or a relationship it removed with its
/// object, because an origin the undo log does not track changed it since the step was recorded
/// (see ``ObjectContext/onUndoSkip(_:)``).
///
/// ```swift
/// let token = context.onUndoSkip { skip in
///   print("kept \(skip.object).\(skip.key): changed by \(skip.origin)")
/// }
/// ```
public struct UndoSkip: Hashable, Sendable, CustomStringConvertible {
  /// What the undo or redo would have put back.
  public enum Value: Hashable, Sendable {
    /// An attribute's value (nil for nil).
    case attribute(StoredValue?)
    /// The object a to-one relationship would point at again (nil for none).
    case toOne(ObjectID?)
    /// A member a to-many relationship would have gained (`joins` true) or lost.
    case member(ObjectID, joins: Bool)
    /// Whether the object would have been put into the graph (an insert or an undelete) or taken
    /// out of it; the key is `@lifecycle`.
    case lifecycle(inserted: Bool)
  }

  /// Whether the property or membership was left alone, or removed with its object.
  public enum Kind: Hashable, Sendable {
    /// Left as the untracked origin made it.
    case leftAlone
    /// The undo of an insert (or the redo of a delete) took the object out of the graph, and with
    /// it this relationship, which the untracked origin made: ``UndoSkip/value`` is the partner.
    case removed
  }

  /// The object whose property or membership it is.
  public let object: ObjectID
  /// The property's name.
  public let key: String
  /// What the undo or redo would have put back; for ``Kind/removed``, the partner removed.
  public let value: Value
  /// The untracked origin that changed it last.
  public let origin: ChangeOrigin
  /// Left alone, or removed.
  public let kind: Kind

  /// Makes a skip, for example to compare with the ones a handler received.
  ///
  /// - Parameters:
  ///   - object: The object.
  ///   - key: The property's name.
  ///   - value: What would have been put back, or the partner removed.
  ///   - origin: The untracked origin.
  ///   - kind: Left alone (the default), or removed.
  public init(
    object: ObjectID, key: String, value: Value, origin: ChangeOrigin, kind: Kind = .leftAlone
  ) {
    self.object = object
    self.key = key
    self.value = value
    self.origin = origin
    self.kind = kind
  }

  /// `Book#3.title kept string("Dune") (import)`: the object and key, what was not put back (a
  /// stored value as ``StoredValue`` describes it), and the origin.
  public var description: String {
    let what: String
    switch value {
    case .attribute(let stored): what = stored.map { "\($0)" } ?? "nil"
    case .toOne(let id): what = id.map { "\($0)" } ?? "nil"
    case .member(let id, let joins): what = "\(joins ? "+" : "-")\(id)"
    case .lifecycle(let inserted): what = inserted ? "inserted" : "removed"
    }
    return "\(object).\(key) \(kind == .removed ? "removed" : "kept") \(what) (\(origin))"
  }
}

extension ObjectContext {
  /// The origins whose changes the undo log records; `[.local]` by default, as Yjs's undo
  /// manager tracks only chosen origins.
  ///
  /// Changes of other origins (an import, a collaborator's change, a merge) are not recorded, so
  /// the user's undo never takes them back; and by default an undo or redo leaves alone every
  /// property and membership such an origin changed after the step was recorded, reporting each
  /// to ``onUndoSkip(_:)`` (``undoOverwritesUntrackedChanges`` restores them anyway). Undo and
  /// redo themselves are always tracked: a replay records its inverse into the group being
  /// built, whatever changes it. The filter applies to changes made from now on.
  ///
  /// ```swift
  /// context.trackedOrigins = [.local, "paste"]
  /// try context.withOrigin("sync") { book.title = remoteTitle }   // not recorded for undo
  /// ```
  ///
  /// A transaction of an untracked origin records into a log of its own, so that a throw still
  /// takes it back; on commit nothing stays in the context's log.
  public var trackedOrigins: Set<ChangeOrigin> {
    get { trackedOriginsStorage }
    set {
      trackedOriginsStorage = newValue
      originTrackingChanged()
      audienceWidened()
    }
  }

  /// Whether undo and redo restore properties and memberships that an untracked origin changed
  /// since the step was recorded; false by default: they are left alone and reported to
  /// ``onUndoSkip(_:)``.
  ///
  /// ```swift
  /// context.undoOverwritesUntrackedChanges = true   // the user's undo wins
  /// ```
  public var undoOverwritesUntrackedChanges: Bool {
    get { overwritesUntracked }
    set { overwritesUntracked = newValue }
  }

  /// Calls `handler` with every property or membership an undo or redo leaves alone, and every
  /// relationship an untracked origin made that it removes with its object, after the step
  /// that did so, until the token is invalidated or released (see ``trackedOrigins``).
  ///
  /// ```swift
  /// let token = context.onUndoSkip { skip in
  ///   banner("Not undone: \(skip.key) was changed by \(skip.origin)")
  /// }
  /// ```
  /// - Parameter handler: Called synchronously from the undo or redo.
  /// - Returns: The registration's token.
  public func onUndoSkip(_ handler: @escaping (UndoSkip) -> Void) -> ObservationToken {
    nextUndoSkipHandlerID += 1
    let id = nextUndoSkipHandlerID
    undoSkipHandlers.append((id, handler))
    return ObservationToken { [link] in
      link.context?.undoSkipHandlers.removeAll { $0.id == id }
    }
  }

  /// Whether the undo log records changes of `origin`: an origin of ``trackedOrigins``, or an
  /// undo or redo.
  func tracks(_ origin: ChangeOrigin) -> Bool {
    origin == .undo || origin == .redo || trackedOriginsStorage.contains(origin)
  }

  /// Brings the recorder's view of the origin in force up to date: whether its changes may be
  /// recorded (a transaction's own log records every origin), and whether they are noted as
  /// untracked (only while the context has an undo log of its own).
  func originTrackingChanged() {
    let tracked = tracks(link.origin)
    let ownLog = logBeneathPrivate ?? recorder.log
    recorder.recordsOriginInForce = tracked || logBeneathPrivate != nil
    recorder.notesUntracked = !tracked && ownLog != nil
  }

  /// Notes the property and membership changes of a plan of the whole path in the table of
  /// untracked changes: entries for an untracked origin's, removals for a tracked one's (see
  /// ``UntrackedChanges``). A tracked change of a link removes the entry of its other side too,
  /// which the plan may not edit (a no-action delete leaves one side of a link behind).
  func noteUntracked<Plan: EditSequence>(_ plan: Plan) {
    let origin: ChangeOrigin? = recorder.notesUntracked ? link.origin : nil
    func note(_ object: ManagedObject, _ property: Property, _ partner: ManagedObject?) {
      if origin != nil || object.hasUntrackedChanges {
        untracked.note(
          object, property.slot, member: property.isToMany ? partner : nil, untracked: origin)
      }
      if origin == nil, let partner, partner.hasUntrackedChanges, let inverse = property.inverse {
        untracked.note(
          partner, inverse.slot, member: inverse.isToMany ? object : nil, untracked: nil)
      }
    }
    for index in 0..<plan.count where plan[index].changes {
      let edit = plan[index].edit
      let object = plan[index].object
      guard let property = edit.property else {
        if origin != nil || object.hasUntrackedChanges {
          untracked.note(object, -1, untracked: origin)
        }
        continue
      }
      switch edit.change {
      case .set:
        note(object, property, edit.old as? ManagedObject)
        if property.isRelationship { note(object, property, edit.new as? ManagedObject) }
      case .insert(let members, _), .remove(let members, _):
        for member in members { note(object, property, member) }
      case .replace(let old, let new):
        let before = Set(old.map(ObjectIdentifier.init))
        let after = Set(new.map(ObjectIdentifier.init))
        for member in old where !after.contains(ObjectIdentifier(member)) {
          note(object, property, member)
        }
        for member in new where !before.contains(ObjectIdentifier(member)) {
          note(object, property, member)
        }
      case .lifecycle:
        break
      }
    }
  }

  /// Tells the handlers of ``onUndoSkip(_:)`` what the replay just applied left alone.
  func reportSkips() {
    guard !plannedSkips.isEmpty else { return }
    let skips = plannedSkips
    plannedSkips.removeAll()
    skipsReported += skips.count
    for skip in skips {
      for (id, handler) in undoSkipHandlers where undoSkipHandlers.contains(where: { $0.id == id })
      {
        handler(skip)
      }
    }
  }
}
