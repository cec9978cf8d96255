/// What happened to an object since the context last posted objects-did-change.
struct PendingState {
  var slots = ChangeState()
  var inserted = false
  var deleted = false
  var listed = false

  var isEmpty: Bool { slots.isEmpty && !inserted && !deleted }
}
