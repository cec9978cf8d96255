/// What happened to an object since the context last posted objects-did-change. Owned by the
/// ``ObserverCenter``.
struct PendingState {
  var slots = SlotSet()
  var inserted = false
  var deleted = false
  var listed = false

  var isEmpty: Bool { slots.isEmpty && !inserted && !deleted }
}
