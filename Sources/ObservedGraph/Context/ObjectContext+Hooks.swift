/// Where observation plugs into the mutation path. Until it lands these are no-ops; the mutation
/// path already calls them at the right moments.
extension ObjectContext {
  /// Called before the edits of one change are applied; returns what the did-phase needs.
  func willApply(_ edits: [Edit]) -> Int { 0 }

  /// Called after the edits of one change were applied.
  func didApply(_ edits: [Edit], _ delivery: Int) {}

  /// Called after a manual bracket closed with its edit already in storage.
  func didApplyBracket(_ edit: Edit) {}

  /// Called after an object's lifecycle changed.
  func lifecycleChanged(_ change: LifecycleChange, _ object: ManagedObject) {}

}
