import Foundation

/// The one reference from objects to their context, shared by every object of the context.
///
/// Objects hold the link strongly and the link holds the context without retaining it; the context
/// clears it when it goes away. An object that outlives its context therefore finds `nil` here —
/// never a dangling reference — and refuses use with an error or a message instead of crashing.
@usableFromInline
final class ContextLink {
  /// The context, until it goes away.
  unowned(unsafe) var context: ObjectContext?
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
  /// are void (see `ManagedObject.quietSlots`).
  @exclusivity(unchecked) @usableFromInline var quietEpoch: UInt32 = 1

  /// Voids every object's quiet bits: something now hears or records sets that were quiet. The
  /// epoch never takes the flag of bits set for recorded sets
  /// (``ManagedObject/recordedQuietFlag``), nor 0, which no object's bits carry.
  func voidQuietBits() {
    quietEpoch = (quietEpoch &+ 1) & ~ManagedObject.recordedQuietFlag
    if quietEpoch == 0 { quietEpoch = 1 }
  }

  /// The identifier of the context's store: the first part of each object's ``ObjectID``, kept
  /// here once for all the context's objects (see `ManagedObject.objectKey`).
  let storeIdentifier: UUID

  init(
    _ context: ObjectContext?, storeIdentifier: UUID, participatesInSwiftObservation: Bool = true
  ) {
    self.context = context
    self.storeIdentifier = storeIdentifier
    self.participatesInSwiftObservation = participatesInSwiftObservation
  }
}

/// The reads made while a typed key path is read once to find out what it depends on.
@usableFromInline
final class AccessRecording {
  /// Each read, in order: the object, the slot, and the typed getter's key path if it was one.
  var reads: [(object: ManagedObject, slot: Int, keyPath: AnyKeyPath?)] = []
}
