/// Where observation and undo plug into the mutation path. Until those subsystems land these are
/// no-ops; the mutation path already calls them at the right moments.
extension ObjectContext {
  /// Called before the edits of one change are applied; returns what the did-phase needs.
  func willApply(_ edits: [Edit]) -> Int { 0 }

  /// Called after the edits of one change were applied.
  func didApply(_ edits: [Edit], _ delivery: Int) {}

  /// Called after a manual bracket closed with its edit already in storage.
  func didApplyBracket(_ edit: Edit) {}

  /// Called after an object's lifecycle changed.
  func lifecycleChanged(_ change: LifecycleChange, _ object: ManagedObject) {}

  /// Records the edit that undoes a change.
  func recordUndo(_ inverse: Edit) {}

  /// Records the lifecycle change that undoes one.
  func recordUndo(lifecycle inverse: LifecycleChange, of object: ManagedObject) {}

  /// Called after the context forgot all objects.
  func didReset() {}
}
