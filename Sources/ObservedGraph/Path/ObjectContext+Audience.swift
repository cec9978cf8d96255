/// Who hears or records a change: the one audience decision of the mutation path.
///
/// Before a planner chooses how to plan a change, it asks ``ObjectContext/audience(of:slot:)``
/// (or, for a change of several objects, ``ObjectContext/changeAudience`` and each object's
/// ``ManagedObject/ownAudience(slot:)``) who hears or records it besides storage:
/// - Swift Observation's registrar of the object, which the one apply tells of every edit;
/// - the object's observers: only typed observers of the slot, or any other observer (per-key,
///   key-path and dependent-key observers, which the full path's announce and deliver serve);
/// - the undo recorder: an undo log whose registration is on;
/// - the context's taps (change recorders);
/// - an open manual bracket.
///
/// Each planner serves part of the audience itself and hands the change to the whole path when
/// anyone else hears it:
///
/// | Planner | Serves |
/// |---|---|
/// | typed set, quiet (`Attribute.exchange`) | the registrar |
/// | typed set, observed (`Attribute.setReporting`) | the registrar, typed observers |
/// | typed set, recorded (`Attribute.setRecorded`) | the registrar, the undo recorder |
/// | key-value set (``ObjectContext/isQuietSet(_:_:)``) | the registrar |
/// | relationship change, insert (ObjectContext+QuickPlans.swift) | the registrar |
/// | cascade delete, its undo and redo (ObjectContext+QuietDelete.swift) | the registrar, the undo recorder |
/// | undo of an undo column's entry (``ObjectContext/quietReplayTarget(key:entity:slot:)``) | the registrar, the undo recorder |
///
/// An open transaction journals every edit (``TransactionJournal``): it is a member of every
/// change's audience, so no change is quiet while one is open. The table of untracked changes
/// (``UntrackedChanges``) is a member while the origin in force is one the undo log does not
/// track, and for every change of an object with entries there. An observer with an origin filter
/// counts for every origin: the filter is applied when it is called.
///
/// **The cache.** A typed set asks the decision once per slot: ``ManagedObject/beginTypedSet(_:)``
/// keeps a quiet answer in the object's quiet bits (`ManagedObject.quietSlots`, with
/// `quietEpoch`), which the setter inlined into the app's code tests before anything else. The
/// bits are set by ``ManagedObject/cacheQuietSet(_:recorded:)`` and voided only here: an
/// object's by ``ManagedObject/voidQuietBits()``, whenever what the answer rests on changes for
/// that object (its lifecycle, flags, tracking, pending news or observers: `ManagedObject`'s
/// property observers call it); every object's at once by ``ContextLink/voidQuietBits()``,
/// whenever the context's part of the audience widens (an undo log attached, a tap added, the
/// first manual bracket opened, a transaction opened, another origin put in force, the tracked
/// origins changed) and at a save or a reset, which change every object's tracking.
struct Audience: OptionSet {
  let rawValue: UInt8

  /// Swift Observation's registrar of the object.
  static var registrar: Audience { Audience(rawValue: 1 << 0) }
  /// Observers of the slot that all take typed sets, and no other observer of the object hears
  /// the slot (``ObserverTable/typedSlots``).
  static var typedObservers: Audience { Audience(rawValue: 1 << 1) }
  /// Any other observer of the object.
  static var observers: Audience { Audience(rawValue: 1 << 2) }
  /// The undo recorder: the context's undo log registers changes.
  static var undoRecorder: Audience { Audience(rawValue: 1 << 3) }
  /// The context's taps: change recorders hear every edit.
  static var taps: Audience { Audience(rawValue: 1 << 4) }
  /// An open manual bracket (`willChangeValue` without its `didChangeValue` yet).
  static var brackets: Audience { Audience(rawValue: 1 << 5) }
  /// An open transaction: it journals every edit (``TransactionJournal``), and holds the change
  /// back from every listener outside the library until its commit.
  static var transaction: Audience { Audience(rawValue: 1 << 6) }
  /// The table of changes by origins the undo log does not track (``UntrackedChanges``): the
  /// origin in force is untracked (its changes are noted there), or the object has entries
  /// there (a tracked change of an entry removes it).
  static var untracked: Audience { Audience(rawValue: 1 << 7) }

  /// What the one apply serves for any change: a planner that serves nothing else may plan a
  /// change whose audience is at most this.
  static var served: Audience { .registrar }
}

extension ObjectContext {
  /// The part of every change's audience that does not depend on the object: the undo recorder,
  /// taps, open manual brackets and an open transaction.
  @inline(__always)
  var changeAudience: Audience {
    var audience: Audience = []
    if recorder.isRecording { audience.insert(.undoRecorder) }
    if center.hasTaps { audience.insert(.taps) }
    if !brackets.isEmpty { audience.insert(.brackets) }
    if journal != nil { audience.insert(.transaction) }
    if recorder.notesUntracked { audience.insert(.untracked) }
    return audience
  }

  /// Who hears or records a change of `object`'s `slot` (nil: a change of the object as a whole,
  /// or of a slot whose typed value nobody has).
  @inline(__always)
  func audience(of object: ManagedObject, slot: Int? = nil) -> Audience {
    changeAudience.union(object.ownAudience(slot: slot))
  }

  /// Whether some object of the context may have observers: without any, no object's own
  /// audience holds observers, and a planner of many objects need not ask each.
  var mayHaveObservedObjects: Bool { center.observerCount > 0 }

  /// The audience widens for every object: no set stays quiet by an answer given before.
  func audienceWidened() {
    link.voidQuietBits()
  }
}

extension ManagedObject {
  /// The object's own part of the audience of a change of `slot` (nil: of the object as a
  /// whole): its registrar, and its observers.
  @inline(__always)
  final func ownAudience(slot: Int? = nil) -> Audience {
    var audience: Audience = registrar == nil ? [] : .registrar
    if hasUntrackedChanges { audience.insert(.untracked) }
    if let observers {
      if let slot, observers.takesTypedSets(slot) {
        audience.insert(.typedObservers)
      } else {
        audience.insert(.observers)
      }
    }
    return audience
  }

  /// Keeps a quiet answer for typed sets of `slot` in the quiet bits (slots below 64): the slot
  /// is tracked and pending, and its audience is at most the registrar and typed observers
  /// (`recorded` false), or the registrar and the undo recorder (`recorded` true). A quiet answer
  /// without an undo recorder is kept only while the context has no undo log at all: a log whose
  /// registration is off may turn it on without telling the context.
  final func cacheQuietSet(_ slot: Int, recorded: Bool) {
    guard slot < 64, let link, recorded || link.context?.recorder.log == nil else { return }
    let epoch = recorded ? link.quietEpoch | Self.recordedQuietFlag : link.quietEpoch
    if quietEpoch != epoch {
      quietSlots = 0
      quietEpoch = epoch
    }
    quietSlots |= 1 << UInt64(slot)
  }

  /// Voids the object's quiet bits: what the audience decision rests on changed for it.
  @inline(__always)
  final func voidQuietBits() {
    quietSlots = 0
  }
}

extension ContextLink {
  /// Voids every object's quiet bits: the context's part of the audience widened, or every
  /// object's tracking changed. The epoch never takes the flag of bits set for recorded sets
  /// (``ManagedObject/recordedQuietFlag``), nor 0, which no object's bits carry.
  func voidQuietBits() {
    quietEpoch = (quietEpoch &+ 1) & ~ManagedObject.recordedQuietFlag
    if quietEpoch == 0 { quietEpoch = 1 }
  }
}
