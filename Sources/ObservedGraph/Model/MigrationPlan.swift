/// The versions of an app's model, oldest first: what a store needs to open a file made by an
/// earlier version (SwiftData's `SchemaMigrationPlan`, Core Data's staged migration).
///
/// Each model has a ``ObjectModel/version``, and the versions increase along the list; the last
/// is the app's current model. A store given a plan opens a file made by any listed version by
/// migrating it through every later version in order, in one transaction: the stage between two
/// versions is inferred from their differences (the changes the "Changing your model" guide
/// lists), and a change that cannot be inferred is refused before anything is written.
///
/// ```swift
/// let v1 = try ObjectModel(entities: [bookV1], fetchRequestTemplates: [], version: "1.0.0")
/// let v2 = try ObjectModel(entities: [bookV2], fetchRequestTemplates: [], version: "2.0.0")
/// let plan = try MigrationPlan(versions: [v1, v2])
/// var options = SQLiteStore.Options()
/// options.migrationPlan = plan
/// let store = try SQLiteStore(url: url, model: v2, options: options)   // a v1 file is now v2
/// ```
///
/// A file made before model versions existed (its metadata names none) is taken for the earliest
/// listed version with its ``ObjectModel/versionHash``.
public struct MigrationPlan: Sendable {
  /// The model versions, oldest first.
  public let versions: [ObjectModel]
  /// The custom stages, each run between the version it names and the one before it.
  public let stages: [MigrationStage]

  /// A plan of model versions, with custom stages for the changes a migration cannot infer.
  ///
  /// - Parameters:
  ///   - versions: The models, oldest first, each with a version greater than the one before it.
  ///   - stages: Custom stages (``MigrationStage``), at most one per version; a version without
  ///     one is migrated to by inference alone.
  /// - Throws: ``ObjectGraphError/Kind/invalidMigrationPlan`` for an empty list, a model without
  ///   a version, versions that are not increasing (the error names both versions), or a stage
  ///   to the first version, to a version not listed, or a second stage to one version.
  public init(versions: [ObjectModel], stages: [MigrationStage] = []) throws {
    guard !versions.isEmpty else {
      throw ObjectGraphError(
        .invalidMigrationPlan, entity: "", reason: "a migration plan needs at least one model")
    }
    for (position, model) in versions.enumerated() where model.version == nil {
      throw ObjectGraphError(
        .invalidMigrationPlan, entity: "", value: "\(model)",
        reason: "model \(position + 1) of the migration plan has no version identifier")
    }
    for (earlier, later) in zip(versions, versions.dropFirst())
    where !(earlier.version! < later.version!) {
      throw ObjectGraphError(
        .invalidMigrationPlan, entity: "", value: "\(later.version!)",
        reason: "the migration plan lists version \(later.version!) after \(earlier.version!): "
          + "versions must increase along the plan")
    }
    var staged: Set<ModelVersion> = []
    for stage in stages {
      guard let index = versions.firstIndex(where: { $0.version == stage.version }), index > 0
      else {
        throw ObjectGraphError(
          .invalidMigrationPlan, entity: "", value: "\(stage.version)",
          reason: "a custom stage migrates to version \(stage.version), which is "
            + (versions[0].version == stage.version
              ? "the plan's first version: no version comes before it"
              : "not a version of the plan"))
      }
      guard staged.insert(stage.version).inserted else {
        throw ObjectGraphError(
          .invalidMigrationPlan, entity: "", value: "\(stage.version)",
          reason: "the plan has two custom stages to version \(stage.version)")
      }
    }
    self.versions = versions
    self.stages = stages
  }

  /// The custom stage to `version`, or nil.
  ///
  /// - Parameter version: A version of the plan.
  /// - Returns: The stage that migrates to it.
  public func stage(to version: ModelVersion) -> MigrationStage? {
    stages.first { $0.version == version }
  }

  /// The app's model: the last version.
  public var currentModel: ObjectModel { versions[versions.count - 1] }

  /// The listed model of `version`, or nil.
  ///
  /// - Parameter version: A version identifier.
  /// - Returns: The model.
  public func model(of version: ModelVersion) -> ObjectModel? {
    versions.first { $0.version == version }
  }

  /// The earliest listed model whose version hash is `hash`, or nil: the version of a file whose
  /// metadata names no version.
  ///
  /// - Parameter hash: A ``ObjectModel/versionHash``.
  /// - Returns: The model.
  public func earliestModel(withHash hash: String) -> ObjectModel? {
    versions.first { $0.versionHash == hash }
  }

  /// The versions after `version`, in order: the stages a file of that version goes through.
  ///
  /// - Parameter version: A listed version.
  /// - Returns: The later models; empty for the current version or a version not listed.
  public func versions(after version: ModelVersion) -> ArraySlice<ObjectModel> {
    guard let index = versions.firstIndex(where: { $0.version == version }) else { return [] }
    return versions[(index + 1)...]
  }
}

extension MigrationPlan {
  /// The name the current model gives an entity that a listed version named `name`: the
  /// entity's renames (``EntityDescription/originalName``) followed version by version from the
  /// latest version that has the name; nil when the entity was removed on the way, or no version
  /// has it.
  ///
  /// ```swift
  /// plan.currentEntityName(for: "Folder")   // "Notebook" after a rename in version 2
  /// ```
  /// - Parameter name: An entity name of any listed version.
  /// - Returns: The entity's name in ``currentModel``, or nil.
  public func currentEntityName(for name: String) -> String? {
    guard let start = versions.lastIndex(where: { $0.entity(named: name) != nil }) else {
      return nil
    }
    var current = name
    for model in versions[(start + 1)...] {
      guard let next = model.currentEntityName(for: current) else { return nil }
      current = next
    }
    return current
  }
}

extension ObjectModel {
  /// The name this model gives an entity the version before it named `name`: `name` when an
  /// entity that does not declare another original name has it, or else the entity whose
  /// ``EntityDescription/originalName`` it is; nil when there is none.
  ///
  /// ```swift
  /// model.currentEntityName(for: "Folder")   // "Notebook", whose originalName is "Folder"
  /// ```
  /// - Parameter name: An entity name of the previous version.
  /// - Returns: The entity's name in this model, or nil.
  public func currentEntityName(for name: String) -> String? {
    if let renamed = entities.first(where: { $0.originalName == name }) { return renamed.name }
    if let entity = entity(named: name), entity.originalName == nil { return name }
    return nil
  }
}
