import Foundation

/// The undo step of a quiet cascade delete, and of its undo and redo: what the delete did, side
/// by side, in one step for the whole cascade.
///
/// The quiet delete (`ObjectContext.deleteQuietly`) plans into a column, for each object it deletes
/// in order, each slot it empties — a to-one that pointed at an object, a to-many that lost one
/// member, a to-many emptied whole — and hands each object's edits to the undo recorder, which
/// notes each slot's change-tracking state before (``befores``): the column is then the step that
/// takes the delete back. These are the changes the
/// mutation path records for the same delete (``changes`` lists them as it would), kept with the
/// objects themselves rather than identifiers: a deleted object stays in memory while a step can
/// bring it back, as an undo manager keeps its targets, so bringing it back needs no snapshot of
/// its values and no lookup. An emptied to-many moves its collection into the column whole, and
/// back.
///
/// Applying the column undoes the deletes (``Direction/undelete``) or does them again
/// (``Direction/delete``), last object first or first object first, as the path's steps would be
/// applied; when nothing hears them it is one batch (`ObjectContext.replayInOneBatch(_:)`) whose
/// edits the recorder records as the opposite column (``init(opposite:)``), and otherwise each
/// object's changes go through the path.
final class DeletionColumn {
  /// What applying the column does to its objects.
  enum Direction {
    /// Bring the objects back, with every slot the delete emptied (the undo of a delete).
    case undelete
    /// Empty the slots again and delete the objects (the redo).
    case delete

    var opposite: Direction { self == .undelete ? .delete : .undelete }
  }

  /// What a slot held before the delete.
  enum Kind: UInt8 {
    /// A to-one that pointed at `other`.
    case toOne
    /// A to-many holding `other` among its members.
    case member
    /// A to-many whose whole `collection` the delete took out.
    case collection
  }

  /// One slot the delete emptied.
  struct Link {
    /// The object whose slot changed.
    let object: ManagedObject
    /// The object a to-one pointed at, or the member a to-many lost.
    let other: ManagedObject?
    /// The collection a to-many held, while it is out of the object.
    let collection: ObjectCollection?
    /// The slot's property, unretained: `object`'s entity holds it, and the link holds `object`.
    /// Reading it through the link retains nothing.
    private let propertyReference: Unmanaged<Property>
    /// The property's slot, kept beside it: the apply reads it for every step without reaching
    /// the property.
    let slot: Int32
    let kind: Kind

    init(
      object: ManagedObject, other: ManagedObject?, collection: ObjectCollection?,
      property: Property, kind: Kind
    ) {
      assert(object.entity.properties[property.slot] === property)
      self.object = object
      self.other = other
      self.collection = collection
      self.propertyReference = Unmanaged.passUnretained(property)
      self.slot = Int32(property.slot)
      self.kind = kind
    }

    var property: Property { propertyReference.takeUnretainedValue() }

    /// Calls `body` with the slot's property, borrowed.
    @inline(__always)
    func withProperty<R>(_ body: (Property) -> R) -> R {
      propertyReference._withUnsafeGuaranteedRef(body)
    }

    /// Puts the link back (`.undelete`) or empties its slot (`.delete`): the store of its edit
    /// (``ColumnEdits``).
    func store(_ direction: Direction) {
      withProperty { property in
        switch (direction, kind) {
        case (.undelete, .toOne):
          object.setRelationshipReference(other, for: property)
        case (.undelete, .member):
          object.makeCollection(property).insert(other.unsafelyUnwrapped)
        case (.undelete, .collection):
          object.setRelationshipReference(collection, for: property)
        case (.delete, .toOne), (.delete, .collection):
          object.setRelationshipReference(nil, for: property)
        case (.delete, .member):
          object.collection(property).unsafelyUnwrapped.remove(other.unsafelyUnwrapped)
        }
      }
    }
  }

  /// One deleted object; its links are those from the previous object's `linksEnd` to its own.
  struct Victim {
    let object: ManagedObject
    let linksEnd: Int
  }

  let direction: Direction
  let storeIdentifier: UUID
  // Appended to for each object a quiet delete reaches, never while being read: no dynamic
  // exclusivity checks.
  @exclusivity(unchecked) private(set) var victims: ContiguousArray<Victim> = []
  @exclusivity(unchecked) private(set) var links: ContiguousArray<Link> = []
  /// The tracking state each link's slot had before the change this column takes back, by link:
  /// noted by the undo recorder (``noteBefore(_:ofLink:)``) as the edits the column takes back
  /// apply, complete for every link once the column is a step; empty while no step holds it.
  @exclusivity(unchecked) private(set) var befores: ContiguousArray<SlotTracking> = []
  /// Whether the column is (or is becoming) an undo step: the recorder took it
  /// (``markRecorded()``). A column that is not may be emptied and planned into again.
  private(set) var isRecorded = false

  init(_ direction: Direction, storeIdentifier: UUID) {
    self.direction = direction
    self.storeIdentifier = storeIdentifier
  }

  /// The column that takes `column` back once it is applied: the same objects and links (shared,
  /// not copied), the opposite direction; its tracking states are noted as `column` applies.
  init(opposite column: DeletionColumn) {
    direction = column.direction.opposite
    storeIdentifier = column.storeIdentifier
    victims = column.victims
    links = column.links
    befores = ContiguousArray(repeating: .unchanged, count: column.links.count)
  }

  func append(_ link: Link) {
    links.append(link)
  }

  /// Notes the tracking state of the slot of the link at `index` before the change this column
  /// takes back: the undo recorder's, as it records the edits of that change. A delete's links
  /// are noted in the order they were planned, each once; an opposite column's, in any order.
  @inline(__always)
  func noteBefore(_ state: SlotTracking, ofLink index: Int) {
    if index < befores.count {
      befores[index] = state
    } else {
      precondition(
        index == befores.count, "ObservedGraph: a deletion column's links noted out of order")
      befores.append(state)
    }
  }

  /// The column becomes an undo step: it is no longer emptied.
  func markRecorded() {
    isRecorded = true
  }

  /// Empties the column, keeping its storage: a quiet delete that records nothing plans each
  /// object's links into one scratch column (`ObjectContext.deleteQuietly`).
  func removeAll() {
    precondition(!isRecorded, "ObservedGraph: a recorded deletion column is never emptied")
    victims.removeAll(keepingCapacity: true)
    links.removeAll(keepingCapacity: true)
  }

  /// Ends the links of `object`, deleted after those of the objects before it.
  func endVictim(_ object: ManagedObject) {
    victims.append(Victim(object: object, linksEnd: links.count))
  }

  /// The links of the victim at `index`.
  @inline(__always)
  func linkRange(of index: Int) -> Range<Int> {
    (index == 0 ? 0 : victims[index - 1].linksEnd)..<victims[index].linksEnd
  }

  var isEmpty: Bool { victims.isEmpty }

  /// The bytes the column retains: itself and its two lists (the objects and collections are the
  /// graph's).
  var byteSize: Int {
    72 + victims.capacity * MemoryLayout<Victim>.stride + links.capacity
      * MemoryLayout<Link>.stride + befores.capacity * MemoryLayout<SlotTracking>.stride
  }

  // MARK: As recorded changes

  /// The changes of the victim at `index`, as the path records the step of that object: in the
  /// order recorded, applied last-first. The column is a step: each link's state before is known.
  func changes(ofVictim index: Int) -> [RecordedChange] {
    let victim = victims[index].object
    var changes: [RecordedChange] = []
    let range = linkRange(of: index)
    changes.reserveCapacity(range.count + 1)
    switch direction {
    case .undelete:
      for (link, before) in zip(links[range], befores[range]) {
        let id = link.object.objectID
        let slot = Int(link.slot)
        switch link.kind {
        case .toOne:
          changes.append(.toOne(id, slot: slot, value: link.other?.objectID, before: before))
        case .member:
          changes.append(
            .insert(
              id, slot: slot, members: link.other.map { [$0.objectID] } ?? [], indexes: [],
              before: before))
        case .collection:
          changes.append(
            .replace(
              id, slot: slot, members: link.collection?.memberIDs ?? [],
              before: before))
        }
      }
      changes.append(.lifecycle(victim.objectID, .undelete, snapshot: victim.attributeSnapshot()))
    case .delete:
      changes.append(.lifecycle(victim.objectID, .delete, snapshot: nil))
      for (link, before) in zip(links[range], befores[range]).reversed() {
        let id = link.object.objectID
        let slot = Int(link.slot)
        switch link.kind {
        case .toOne:
          changes.append(.toOne(id, slot: slot, value: nil, before: before))
        case .member:
          changes.append(
            .remove(
              id, slot: slot, members: link.other.map { [$0.objectID] } ?? [], indexes: [],
              before: before))
        case .collection:
          changes.append(.replace(id, slot: slot, members: [], before: before))
        }
      }
    }
    return changes
  }

  /// The indexes of the victims in the order their steps are applied: last-first to bring them
  /// back, first-first to delete them again.
  var victimOrder: [Int] {
    direction == .undelete ? Array(victims.indices.reversed()) : Array(victims.indices)
  }

  /// Every change, as one list in the order recorded (applied last-first): what the steps of the
  /// path would hold, one after the other.
  var changes: [RecordedChange] {
    victimOrder.reversed().flatMap(changes(ofVictim:))
  }
}
