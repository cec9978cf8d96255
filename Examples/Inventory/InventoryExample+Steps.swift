import Foundation
import ObservedGraph

// One function per step. Each changes or reads the graph by key, through the public API, and
// prints what it looks like afterwards.

extension InventoryExample {
  /// Prints each entity of the model file with its attributes and relationships.
  func describeModel() {
    beginStep("The model, read from Inventory.json (no class declares these entities)")
    for entity in model.entities.sorted(by: { $0.name < $1.name }) {
      let attributes = entity.attributes.map { attribute in
        "\(attribute.name) (\(attribute.type)\(attribute.isOptional ? ", optional" : ""))"
      }
      let relationships = entity.relationships.map { relationship in
        let shape = relationship.isToMany ? "to-many" : "to-one"
        let inverse =
          switch relationship.inverse {
          case .named(let name): "inverse \(name)"
          case .noInverse, nil: "no inverse"
          }
        return "\(relationship.name) -> \(relationship.destination) "
          + "(\(shape), \(relationship.deleteRule.rawValue), \(inverse))"
      }
      say("   \(entity.name): \((attributes + relationships).joined(separator: "; "))")
    }
  }

  /// Inserts the seed's locations, assets and counts as generic objects, set by key.
  func insertStock() throws {
    beginStep("Insert two locations, three assets and five counts, by key")
    let basement = try insert("Location", label: "Jaye's Basement")
    let office = try insert("Location", label: "Aaron's Office")
    let mug = try insert("Asset", label: "Coffee Mug")
    let shirt = try insert("Asset", label: "T-Shirt")
    let sticker = try insert("Asset", label: "Sticker")
    let march12 = Date(timeIntervalSince1970: 1_268_352_000)  // 2010-03-12, as in the seed
    let march15 = march12.addingTimeInterval(3 * 86_400)
    for (location, asset, count, date) in [
      (basement, mug, 12, march12), (basement, shirt, 40, march12),
      (office, mug, 3, march15), (office, shirt, 15, march15),
    ] {
      let inventory = try context.insertObject(forEntityName: "Inventory")
      try inventory.setValue(count, forKey: "count")  // an Int that fits is stored as Int16
      try inventory.setValue(date, forKey: "date")
      try inventory.setValue(asset, forKey: "asset")  // asset's inventories gains it
      try inventory.setValue(location, forKey: "location")
    }
    // The same from the to-many side: inserting into the location's set sets the inventory's
    // location.
    let stickers = try context.insertObject(forEntityName: "Inventory")
    try stickers.setValue(250, forKey: "count")
    try stickers.setValue(march15, forKey: "date")
    try stickers.setValue(sticker, forKey: "asset")
    try office.mutableSet(forKey: "inventories").insert(stickers)
    say("   the stickers' location, set by the inverse: \(try label(of: stickers, at: "location"))")
    try printStock()
  }

  /// Saves the context's changes to the file in one transaction.
  func save() throws {
    beginStep("Save to Inventory.sqlite")
    let pending = context.insertedObjects.count + context.updatedObjects.count
    let deleted = context.deletedObjects.count
    try context.save()
    say("   wrote \(pending) inserted or changed and \(deleted) deleted objects in one transaction")
    say("   pending afterwards: \(context.hasChanges ? "some" : "none")")
  }

  /// Tries values of the wrong type, an unknown key, an object of the wrong entity and an unknown
  /// entity: each throws the library's error, and nothing changes.
  func refuseBadInput() throws {
    beginStep("Bad input: each mistake throws an error naming the entity, key and value")
    guard let inventory = try counts().first else { throw MissingObject(description: "no count") }
    let location = try fetch("Location")[0]
    let attempts: [(String, () throws -> Void)] = [
      (#"count = "a dozen""#, { try inventory.setValue("a dozen", forKey: "count") }),
      ("count = 40000", { try inventory.setValue(40_000, forKey: "count") }),
      ("asset = a location", { try inventory.setValue(location, forKey: "asset") }),
      ("colour = 1", { try inventory.setValue(1, forKey: "colour") }),
      ("insert a Shelf", { _ = try self.context.insertObject(forEntityName: "Shelf") }),
    ]
    for (attempt, action) in attempts {
      do {
        try action()
        say("   \(attempt): accepted")
      } catch let error as ObjectGraphError {
        say("   \(attempt): \(error.kind) — \(error)")
      }
    }
    say("   still \(try describe(inventory)); unsaved changes: \(context.hasChanges)")
  }

  /// Deletes one count: its asset and location stay, and lose it (the rule of `asset` and
  /// `location` is nullify).
  func deleteOneCount() throws {
    beginStep("Delete the stickers' count (nullify: the Sticker and the office stay)")
    guard let stickers = try counts().first(where: { try label(of: $0, at: "asset") == "Sticker" })
    else { throw MissingObject(description: "no count of stickers") }
    try context.delete(stickers)
    try printStock()
  }

  /// Deletes an asset: its counts go with it (cascade), and leave their locations.
  func deleteAsset() throws {
    beginStep("Delete the Coffee Mug (cascade: its two counts go too)")
    let mug = try object("Asset", labeled: "Coffee Mug")
    let itsCounts = try mug.value(forKey: "inventories") as? Set<ManagedObject> ?? []
    try context.delete(mug)
    say("   its \(itsCounts.count) counts are deleted: \(itsCounts.allSatisfy(\.isDeleted))")
    try printStock()
  }

  /// Deletes a location: its counts go with it (cascade); the assets stay.
  func deleteLocation() throws {
    beginStep("Delete Jaye's Basement (cascade: its count goes too; the T-Shirt stays)")
    try context.delete(try object("Location", labeled: "Jaye's Basement"))
    try printStock()
  }

  // MARK: Reading generic objects

  /// Inserts an object of `entity` with a label.
  private func insert(_ entity: String, label: String) throws -> ManagedObject {
    let object = try context.insertObject(forEntityName: entity)
    try object.setValue(label, forKey: "label")
    return object
  }

  /// The objects of an entity, not deleted, by label (counts: by location, then asset).
  func fetch(_ entity: String, in context: ObjectContext? = nil) throws -> [ManagedObject] {
    let sorts =
      entity == "Inventory"
      ? [FetchSort("location.label"), FetchSort("asset.label")] : [FetchSort("label")]
    return try (context ?? self.context).fetch(
      FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: sorts))
  }

  /// The counts, by location and asset.
  func counts() throws -> [ManagedObject] { try fetch("Inventory") }

  /// The object of `entity`, not deleted, with the label `label`.
  /// - Throws: ``MissingObject`` when there is none.
  func object(_ entity: String, labeled label: String) throws -> ManagedObject {
    guard
      let object = try fetch(entity).first(where: {
        try $0.value(forKey: "label") as? String == label
      })
    else { throw MissingObject(description: "no \(entity) labeled \(label)") }
    return object
  }

  /// The label of the object a to-one relationship leads to, or "none".
  func label(of object: ManagedObject, at key: String) throws -> String {
    try object.value(forKeyPath: "\(key).label") as? String ?? "none"
  }

  /// "12 Coffee Mug at Jaye's Basement on 2010-03-12".
  func describe(_ inventory: ManagedObject) throws -> String {
    let count = try inventory.value(forKey: "count") as? Int16 ?? 0
    let date = (try inventory.value(forKey: "date") as? Date).map(Self.day) ?? "no date"
    let asset = try label(of: inventory, at: "asset")
    return "\(count) \(asset) at \(try label(of: inventory, at: "location")) on \(date)"
  }

  /// Prints each location with its counts, then each asset with the number of its counts.
  func printStock(in context: ObjectContext? = nil) throws {
    for location in try fetch("Location", in: context) {
      let inventories = try location.value(forKey: "inventories") as? Set<ManagedObject> ?? []
      let lines = try inventories.map { try describe($0) }.sorted()
      let name = try location.value(forKey: "label") as? String ?? ""
      say("   [\(name)] \(lines.isEmpty ? "nothing" : lines.joined(separator: "; "))")
    }
    for asset in try fetch("Asset", in: context) {
      let inventories = try asset.value(forKey: "inventories") as? Set<ManagedObject> ?? []
      let name = try asset.value(forKey: "label") as? String ?? ""
      say("   \(name): counted in \(inventories.count) location(s)")
    }
  }

  /// A date as its day in UTC, the same on every machine.
  static func day(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate]
    return formatter.string(from: date)
  }
}

/// A step asked for an object that is not there: the example's own mistake, reported as an
/// error so that a test fails instead of stopping.
struct MissingObject: Error, CustomStringConvertible {
  let description: String
}
