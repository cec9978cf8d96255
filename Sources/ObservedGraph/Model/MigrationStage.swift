/// Code of the app's that runs while a store file moves from one model version to the next (a
/// custom stage; Core Data's `NSCustomMigrationStage`, SwiftData's `MigrationStage.custom`).
///
/// A stage runs inside the migration's one transaction, in three steps around the statements
/// the store infers between the two versions:
///
/// 1. ``willMigrate`` gets a context of the earlier version's model, on the file as it is.
/// 2. The new tables and columns are added, and what is renamed is renamed; then ``migrate``
///    gets a context of the *union* of both versions: each entity has the new version's
///    properties and, under their old names, the properties the new version removes (unless the
///    new version uses the name for another property), and an entity the new version removes is
///    there too. Its objects are generic ``ManagedObject``s, read and written by key
///    (``ManagedObject/value(forKey:)``). This is where a new required attribute is filled from
///    one the version removes, an entity is split, or an attribute whose type the version
///    changes is converted (its previous values under a name of ``previousNames``).
/// 3. What the new version removes is dropped; then ``didMigrate`` gets a context of the new
///    version's model.
///
/// Each context saves with ``ObjectContext/save()`` into a savepoint of the migration's
/// transaction, and can be reset between batches (``ObjectContext/reset()``) so that memory does
/// not grow with the rows. A body that throws ends the open: the transaction rolls back and the
/// file is exactly as it was. After ``migrate`` the store checks what the new version requires
/// (a non-optional attribute or relationship that the previous version did not require, or that
/// it adds without a default) and refuses the migration, naming entity, property and how many
/// objects lack a value, when an object still has none.
///
/// ```swift
/// let fill = MigrationStage(to: "2.0.0", migrate: { context in
///   for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
///     let first = try person.value(forKey: "firstName") as? String ?? ""
///     let last = try person.value(forKey: "lastName") as? String ?? ""
///     try person.setValue("\(first) \(last)", forKey: "fullName")
///   }
///   try context.save()
/// })
/// let plan = try MigrationPlan(versions: [v1, v2], stages: [fill])
/// ```
public struct MigrationStage: Sendable {
  /// The code of one step: it gets the step's context, and throws to end the migration.
  public typealias Body = @Sendable (ObjectContext) throws -> Void

  /// The version the stage migrates to; the stage runs between the version before it in the
  /// plan and this one.
  public let version: ModelVersion
  /// Runs on a context of the earlier version's model, before anything of the stage is written.
  public let willMigrate: Body?
  /// Runs on a context of the union of both versions' models (see above).
  public let migrate: Body?
  /// Runs on a context of the new version's model, after the stage's statements.
  public let didMigrate: Body?
  /// Names under which ``migrate`` reads attributes of the previous version that the new version
  /// replaces under the same name (a type changed, such as `Int` cents becoming a `Double`
  /// price), by `"Entity.attribute"` (the entity's new name, the attribute's previous name).
  ///
  /// ```swift
  /// MigrationStage(to: "2.0.0", previousNames: ["Item.price": "cents"], migrate: { context in
  ///   for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
  ///     let cents = try item.value(forKey: "cents") as? Int ?? 0
  ///     try item.setValue(Double(cents) / 100, forKey: "price")
  ///   }
  ///   try context.save()
  /// })
  /// ```
  public let previousNames: [String: String]

  /// A custom stage.
  ///
  /// - Parameters:
  ///   - version: The version the stage migrates to: a version of the plan, not its first.
  ///   - previousNames: Names under which `migrate` reads replaced attributes (see
  ///     ``previousNames``).
  ///   - willMigrate: Code for a context of the earlier version's model.
  ///   - migrate: Code for a context of both versions' properties.
  ///   - didMigrate: Code for a context of the new version's model.
  public init(
    to version: ModelVersion, previousNames: [String: String] = [:], willMigrate: Body? = nil,
    migrate: Body? = nil, didMigrate: Body? = nil
  ) {
    self.version = version
    self.previousNames = previousNames
    self.willMigrate = willMigrate
    self.migrate = migrate
    self.didMigrate = didMigrate
  }
}

/// How far a migrating open is: reported at the start and the end of each stage, and after each
/// of its statements that reads or writes rows.
///
/// A stage's rows are those of the tables its statements go through, counted when the stage
/// starts (each statement counts the rows of its table: filling a default, moving related
/// objects into a join table, dropping a column, which rewrites the table). A stage that touches
/// no rows reports 0 of 1, then 1 of 1. The rows a custom stage's code goes through are not
/// counted; a report comes after each of its bodies.
///
/// ```swift
/// options.migrationProgress = { progress in
///   print("\(progress.stage)/\(progress.stageCount) → \(progress.version):",
///         "\(progress.rowsDone) of \(progress.rowsTotal) rows")
/// }
/// ```
public struct MigrationProgress: Equatable, Sendable, CustomStringConvertible {
  /// The version the stage migrates to.
  public let version: ModelVersion
  /// The stage's number, from 1.
  public let stage: Int
  /// How many stages the open runs.
  public let stageCount: Int
  /// The rows the stage's statements went through so far.
  public let rowsDone: Int
  /// The rows the stage's statements go through; at least 1.
  public let rowsTotal: Int

  /// A progress report.
  ///
  /// - Parameters:
  ///   - version: The version the stage migrates to.
  ///   - stage: The stage's number, from 1.
  ///   - stageCount: How many stages the open runs.
  ///   - rowsDone: The rows done so far.
  ///   - rowsTotal: The stage's rows.
  public init(version: ModelVersion, stage: Int, stageCount: Int, rowsDone: Int, rowsTotal: Int) {
    self.version = version
    self.stage = stage
    self.stageCount = stageCount
    self.rowsDone = rowsDone
    self.rowsTotal = rowsTotal
  }

  /// `2/3 → 3.0.0: 500 of 1000 rows`.
  public var description: String {
    "\(stage)/\(stageCount) → \(version): \(rowsDone) of \(rowsTotal) rows"
  }
}
