import UndoLog

/// Undo integration: the mutation path records the inverse of every applied edit here.
extension ObjectContext {
  /// Records the edit that undoes a change.
  func recordUndo(_ inverse: Edit) {}

  /// Records the lifecycle change that undoes one.
  func recordUndo(lifecycle inverse: LifecycleChange, of object: ManagedObject) {}

  /// Called after the context forgot all objects.
  func didReset() {}

  /// Called by `processPendingChanges()`: the end of one user event, so of one undo group.
  func closeUndoEvent() {}
}
