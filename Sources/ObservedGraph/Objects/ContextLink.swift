import Foundation

/// The one reference from objects to their context, shared by every object of the context.
///
/// Objects hold the link strongly and the link holds the context without retaining it; the context
/// clears it when it goes away. An object that outlives its context therefore finds `nil` here —
/// never a dangling reference — and refuses use with an error or a message instead of crashing.
@usableFromInline
final class ContextLink {
  /// The context, until it goes away.
  unowned(unsafe) var context: ObjectContext? { didSet { hasContext = context != nil } }
  /// While a typed key path is being resolved for `observe`, the reads it makes; nil otherwise.
  /// Read by every typed getter, so its reads skip the dynamic exclusivity check.
  @exclusivity(unchecked) @usableFromInline var accessRecording: AccessRecording?
  /// The context's ``ObjectContext/participatesInSwiftObservation``, kept here so that a read
  /// learns it from the link it already holds.
  let participatesInSwiftObservation: Bool
  /// Counts writes to any object's storage (see `ObjectContext.generation`); kept here so that a
  /// quiet typed set, inlined in the caller, counts itself.
  @exclusivity(unchecked) @usableFromInline var generation: UInt64 = 0
  /// Changes whenever something context-wide starts or stops listening (an undo log attached or
  /// removed, a tap added or removed, a reset): the quiet bits an object kept under another value
  /// are void (see `ManagedObject.quietSlots`, and ``voidQuietBits()`` in
  /// ObjectContext+Audience.swift).
  @exclusivity(unchecked) @usableFromInline var quietEpoch: UInt32 = 1

  /// The registrar the next objects join (its box's address; the link is one of its holders
  /// while it hands out members), and how many objects joined it.
  @exclusivity(unchecked) private var registrarGroup: UnsafeRawPointer?
  @exclusivity(unchecked) private var registrarMembers = 0

  /// A handle on a registrar for a new object: a member of the registrar the last objects
  /// joined, or of a new one when that one has ``RegistrarHandle/groupSize`` members (see
  /// ``RegistrarHandle``). A new box whose address is not aligned to the group size, which the
  /// allocator does not hand out, takes no other member.
  func joinRegistrar() -> RegistrarHandle {
    if let group = registrarGroup, registrarMembers < RegistrarHandle.groupSize {
      SwiftObservation.hold(group)
      registrarMembers += 1
      return RegistrarHandle(box: group, member: registrarMembers - 1)
    }
    if let group = registrarGroup { SwiftObservation.leave(group) }
    let group = SwiftObservation.make()
    SwiftObservation.hold(group)
    registrarGroup = group
    let aligned = Int(bitPattern: group) & (RegistrarHandle.groupSize - 1) == 0
    registrarMembers = aligned ? 1 : RegistrarHandle.groupSize
    return RegistrarHandle(box: group, member: 0)
  }

  deinit {
    if let group = registrarGroup { SwiftObservation.leave(group) }
  }

  /// The identifier of the context's store: the first part of each object's ``ObjectID``, kept
  /// here once for all the context's objects (see `ManagedObject.objectKey`).
  let storeIdentifier: UUID
  /// Whether ``context`` is set, known without a reference to the context (reading `context`
  /// makes one: a retain and a release).
  @exclusivity(unchecked) private(set) var hasContext = false
  /// The object whose ``ManagedObject/awakeFromFetch()`` runs: its attribute sets are stored
  /// without being tracked, observed or recorded. Kept here, where a fulfilment reaches it through
  /// the link its object holds, rather than in the context; its identity only, so that a fulfilment
  /// (every fetched object's first read) does not retain and release the object.
  @exclusivity(unchecked) var awakeningFromFetch: ObjectIdentifier?
  /// The origin in force (see ``ObjectContext/origin``): kept here, where a typed set that
  /// delivers to its observers itself reads it through the link its object holds.
  @exclusivity(unchecked) @usableFromInline var origin = ChangeOrigin.local

  init(
    _ context: ObjectContext?, storeIdentifier: UUID, participatesInSwiftObservation: Bool = true
  ) {
    self.context = context
    self.hasContext = context != nil
    self.storeIdentifier = storeIdentifier
    self.participatesInSwiftObservation = participatesInSwiftObservation
  }
}

/// The reads made while a typed key path is read once to find out what it depends on.
@usableFromInline
final class AccessRecording {
  /// Each read, in order.
  var reads: [Read] = []

  /// One read: the object, the slot, and the key path of the typed getter that made it (every
  /// typed getter reports its own; nil for a read by name, through key-value coding).
  typealias Read = (object: ManagedObject, slot: Int, keyPath: AnyKeyPath?)
}
