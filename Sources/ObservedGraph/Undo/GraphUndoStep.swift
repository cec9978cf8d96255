import Foundation
import UndoLog

/// The undo step of one change to an object graph, as a value: object identifiers, property
/// indexes and stored values — no closures, no `Any`, and no object references except in the
/// step of a quiet cascade delete, which keeps the objects it deleted so it can bring them back
/// (an archived step holds identifiers only).
///
/// A context records one step per user-level change (an attribute set; a relationship change with
/// its inverse upkeep; the delete of one object with what its delete rules did; an insert) into its
/// ``ObjectContext/undoLog``. The step holds the inverse of the change and the change-tracking state
/// each slot had before it, so applying it restores values, both sides of every relationship, and
/// the `isInserted` / `isUpdated` / `isDeleted` / `changedValues()` state exactly.
///
/// Steps are resolved through the context they are applied to: when the log undoes or redoes, the
/// step finds the context whose store its identifiers name among the log's participants (a context
/// joins the participants of the log it is given). So steps can be archived with the log's history
/// and applied to a context of the same store — in the same process, or, with a persistent store
/// whose identifier outlives the process, after a relaunch (a context without one has a fresh
/// in-memory store each time it is made):
///
/// ```swift
/// let json = try JSONEncoder().encode(try context.undoHistory())
/// let decoder = JSONDecoder()
/// decoder.userInfo[UndoLog.History.stepTypesKey] = [GraphUndoStep.self]
/// let restored = UndoLog()
/// context.undoLog = restored
/// try context.restoreUndoHistory(try decoder.decode(UndoLog.History.self, from: json))
/// try restored.undo()
/// ```
///
/// A step names properties by their place in the model: ``ObjectContext/undoHistory()`` labels
/// the history with the model's version hash, and ``ObjectContext/restoreUndoHistory(_:)``
/// refuses a history of another model (one recorded before a migration, say).
///
/// Inspect a step to see what a group touches: ``objectIDs`` and ``changedKeys(in:)``.
public struct GraphUndoStep: ArchivableUndoStep, CustomStringConvertible {
  /// The step's content in one allocation: the log stores the step as a single reference, so
  /// recording and moving it copies a pointer, not a large value.
  private var body: Body

  private enum Body {
    /// Changes of any kind, immutable.
    case changes(Content)
    /// Quiet typed attribute sets, side by side; the column grows while it is the newest step of
    /// the log's open group, and is never changed after (see ``AttributeColumn``).
    case column(AttributeColumn)
    /// A quiet cascade delete, or its undo or redo (see ``DeletionColumn``); immutable.
    case deletion(DeletionColumn)
  }

  private final class Content: Codable, Sendable {
    let changes: Changes

    init(changes: Changes) {
      self.changes = changes
    }
  }

  /// One recorded change, or several.
  enum Changes: Codable, Sendable {
    case one(RecordedChange)
    case many([RecordedChange])

    var list: [RecordedChange] {
      switch self {
      case .one(let change): [change]
      case .many(let changes): changes
      }
    }
  }

  init(changes: [RecordedChange]) {
    body = .changes(Content(changes: changes.count == 1 ? .one(changes[0]) : .many(changes)))
  }

  init(change: RecordedChange) {
    body = .changes(Content(changes: .one(change)))
  }

  init(column: AttributeColumn) {
    body = .column(column)
  }

  init(deletion: DeletionColumn) {
    body = .deletion(deletion)
  }

  /// The identifier of the store whose objects the step changes (every change of a step names an
  /// object of the same store).
  var store: UUID {
    switch body {
    case .column(let column): column.storeIdentifier
    case .deletion(let column): column.storeIdentifier
    case .changes(let content):
      switch content.changes {
      case .one(let change): change.object.storeIdentifier
      case .many(let changes): changes.first?.object.storeIdentifier ?? UUID()
      }
    }
  }

  /// The inverse changes, in the order they were recorded; applied last-first.
  var changes: Changes {
    switch body {
    case .changes(let content): content.changes
    case .column(let column): .many(column.changes)
    case .deletion(let column): .many(column.changes)
    }
  }

  /// Writes the step: its changes.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    switch body {
    case .changes(let content): try content.encode(to: encoder)
    case .column, .deletion: try Content(changes: changes).encode(to: encoder)
    }
  }

  /// Reads a step written by ``encode(to:)``.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when the archive is not a graph step.
  public init(from decoder: any Decoder) throws {
    body = .changes(try Content(from: decoder))
  }

  /// The name written beside the step in an archived history: `ObservedGraph.GraphUndoStep`.
  public static var archiveName: String { "ObservedGraph.GraphUndoStep" }

  /// Applies the step through the context it belongs to (found among the log's participants);
  /// that context records the opposite step like any change, so this returns an empty step —
  /// or, when it changed nothing because untracked origins changed the graph since (see
  /// ``ObjectContext/onUndoSkip(_:)``), a step of no changes that keeps the undo or redo's place
  /// in the log.
  ///
  /// - Parameter log: The log running the undo or redo.
  /// - Returns: An `EmptyUndoStep`, or a step of no changes.
  public mutating func apply(in log: UndoLog) -> any UndoStep {
    // The place an undo or redo that left changes alone keeps in the group it builds: nothing to
    // do, and the same place in the group after it.
    if case .changes(let content) = body, content.changes.list.isEmpty { return self }
    let participant = log.firstParticipant(of: UndoParticipant.self) {
      $0.storeIdentifier == store
    }
    guard let context = participant?.context else { return EmptyUndoStep() }
    let skipsBefore = context.skipsReported
    let generation = context.generation
    switch body {
    case .changes(let content): context.perform(.replay(content.changes.list))
    case .column(let column): column.replay(in: context)
    case .deletion(let column): context.replay(column)
    }
    // A step that changed nothing because changes by untracked origins came since (see
    // ``ObjectContext/trackedOrigins``) keeps a place in the group the undo or redo builds,
    // which would otherwise be dropped: undo n times then redo n times must give the graph back.
    let keepsPlace =
      context.generation == generation
      && (context.skipsReported != skipsBefore || !context.untracked.isEmpty)
    return keepsPlace ? GraphUndoStep(changes: []) : EmptyUndoStep()
  }

  /// Does nothing: a graph step acts only through its context, which ``apply(in:)`` finds.
  ///
  /// - Returns: An `EmptyUndoStep`.
  public mutating func apply() -> any UndoStep { EmptyUndoStep() }

  /// Whether the step changes `target`, a managed object of the step's store.
  ///
  /// - Parameter target: Any object.
  /// - Returns: true when `target` is a managed object the step changes.
  public func acts(on target: AnyObject) -> Bool {
    guard let object = target as? ManagedObject else { return false }
    return objectIDs.contains(object.objectID)
  }

  /// Takes out what the step does to `target`: a step of quiet attribute sets keeps the sets of
  /// other objects (in a copy of its column); any other step goes whole when it changes
  /// `target`. The log calls it from `removeAllActions(withTarget:)`.
  ///
  /// ```swift
  /// log.removeAllActions(withTarget: book)  // the other books' sets stay undoable
  /// ```
  ///
  /// - Parameter target: Any object.
  /// - Returns: Whether nothing is left of the step.
  public mutating func removeActions(on target: AnyObject) -> Bool {
    guard case .column(let column) = body else { return acts(on: target) }
    guard let object = target as? ManagedObject, object.objectID.storeIdentifier == store,
      acts(on: object)
    else { return false }
    let kept = column.removing(key: object.objectKey, entity: object.entity)
    body = .column(kept)
    return kept.entries.count == 0
  }

  /// For a single attribute set, the object and attribute: typing into one field coalesces.
  public var coalescingKey: UndoCoalescingKey? {
    switch body {
    case .changes(let content):
      guard case .one(.attribute(let object, let slot, _, _)) = content.changes else { return nil }
      return UndoCoalescingKey(identity: object, key: slot)
    case .column(let column):
      guard column.entries.count == 1 else { return nil }
      return UndoCoalescingKey(
        identity: column.objectID(at: 0), key: column.entries[0].slot)
    case .deletion:
      return nil
    }
  }

  /// The bytes the step retains: itself, its content and the content's lists.
  public var byteSize: Int {
    if case .column(let column) = body { return MemoryLayout<Self>.size + column.byteSize }
    if case .deletion(let column) = body { return MemoryLayout<Self>.size + column.byteSize }
    var size = MemoryLayout<Self>.size + 16 + MemoryLayout<Changes>.size
    if case .many(let list) = changes {
      size += list.count * MemoryLayout<RecordedChange>.stride
      size += list.reduce(0) { $0 + $1.payloadSize }
    } else if case .one(let change) = changes {
      size += change.payloadSize
    }
    return size
  }

  /// The objects the step changes.
  ///
  /// ```swift
  /// let touched = history.undoGroups.last!.steps.compactMap { $0 as? GraphUndoStep }
  ///   .reduce(into: Set<ObjectID>()) { $0.formUnion($1.objectIDs) }
  /// ```
  public var objectIDs: Set<ObjectID> { Set(changes.list.map(\.object)) }

  /// The keys the step changes, per object, named through `model`; `@lifecycle` stands for an
  /// insert or a delete.
  ///
  /// ```swift
  /// step.changedKeys(in: model)   // [Book#3: ["title"]]
  /// ```
  /// - Parameter model: The model of the step's objects.
  /// - Returns: The sorted keys of each object.
  public func changedKeys(in model: ObjectModel) -> [ObjectID: [String]] {
    var keys: [ObjectID: Set<String>] = [:]
    for change in changes.list {
      let name: String
      if let slot = change.slot {
        let properties = model.entity(named: change.object.entityName)?.properties ?? []
        name = slot < properties.count ? properties[slot].name : "#\(slot)"
      } else {
        name = "@lifecycle"
      }
      keys[change.object, default: []].insert(name)
    }
    return keys.mapValues { $0.sorted() }
  }

  /// One line per change: `Book#3 #0 attribute`, `Book#3 lifecycle undelete`.
  public var description: String {
    changes.list.map(\.summary).joined(separator: "; ")
  }
}

/// The inverse of one edit, as recorded: applying it takes the edit back. Slots are property
/// indexes of the object's entity; `before` is the slot's tracking state before the edit.
enum RecordedChange: Codable, Sendable {
  /// Put the attribute's value back.
  case attribute(ObjectID, slot: Int, value: StoredValue?, before: SlotTracking)
  /// Point the to-one relationship back at `value`.
  case toOne(ObjectID, slot: Int, value: ObjectID?, before: SlotTracking)
  /// Put objects back into a to-many relationship (at `indexes` when ordered).
  case insert(ObjectID, slot: Int, members: [ObjectID], indexes: [Int], before: SlotTracking)
  /// Take objects out of a to-many relationship.
  case remove(ObjectID, slot: Int, members: [ObjectID], indexes: [Int], before: SlotTracking)
  /// Give a to-many relationship back its whole content.
  case replace(ObjectID, slot: Int, members: [ObjectID], before: SlotTracking)
  /// Take back an insert or a delete; `snapshot` holds the attribute values when the object may
  /// have to be brought back after leaving memory.
  case lifecycle(ObjectID, LifecycleChange, snapshot: ObjectSnapshot?)

  var object: ObjectID {
    switch self {
    case .attribute(let id, _, _, _), .toOne(let id, _, _, _), .insert(let id, _, _, _, _),
      .remove(let id, _, _, _, _), .replace(let id, _, _, _), .lifecycle(let id, _, _):
      return id
    }
  }

  var slot: Int? {
    switch self {
    case .attribute(_, let slot, _, _), .toOne(_, let slot, _, _), .insert(_, let slot, _, _, _),
      .remove(_, let slot, _, _, _), .replace(_, let slot, _, _):
      return slot
    case .lifecycle: return nil
    }
  }

  /// The bytes the change's lists hold.
  var payloadSize: Int {
    let id = MemoryLayout<ObjectID>.stride
    switch self {
    case .attribute, .toOne: return 0
    case .insert(_, _, let members, let indexes, _), .remove(_, _, let members, let indexes, _):
      return members.count * id + indexes.count * MemoryLayout<Int>.stride
    case .replace(_, _, let members, _): return members.count * id
    case .lifecycle(_, _, let snapshot):
      return (snapshot?.values.count ?? 0) * MemoryLayout<ObjectSnapshot.Value>.stride
    }
  }

  var summary: String {
    switch self {
    case .attribute(let id, let slot, _, _): "\(id) #\(slot) attribute"
    case .toOne(let id, let slot, _, _): "\(id) #\(slot) to-one"
    case .insert(let id, let slot, let members, _, _): "\(id) #\(slot) insert \(members)"
    case .remove(let id, let slot, let members, _, _): "\(id) #\(slot) remove \(members)"
    case .replace(let id, let slot, let members, _): "\(id) #\(slot) replace \(members)"
    case .lifecycle(let id, let change, _): "\(id) lifecycle \(change.rawValue)"
    }
  }
}
