import Foundation
import ObservedGraph
import ObservedGraphSQLite
import Testing

@testable import inventory

@Suite struct InventoryExampleTests {
  /// The whole run, line by line: the model file, the stock, the SQL of each fault, the errors,
  /// the delete rules, and what the file holds at the end.
  @Test func transcript() throws {
    let lines = Lines()
    let example = try InventoryExample(say: lines.say)
    try example.run()
    expectTranscript(lines.all, Self.expected)
    #expect(!FileManager.default.fileExists(atPath: example.folder.path))
  }

  /// A file the test makes with the previous model version (1.0.0, `InventoryV1.json`) opens in
  /// the example migrated to version 2.0.0: the asset's `name` is its `label`, the counts have
  /// no date, and the file opens afterwards without a plan.
  @Test func opensAFileMadeByItsPreviousModelVersion() throws {
    let example = try InventoryExample(say: { _ in })
    defer { try? example.finish() }
    let url = example.folder.appendingPathComponent("made-by-the-test.sqlite")
    let old = try SQLiteStore(url: url, model: try InventoryExample.previousModel())
    let writer = PersistentContainer(store: old).viewContext
    let lamp = try writer.insertObject(forEntityName: "Asset")
    try lamp.setValue("Desk Lamp", forKey: "name")
    let attic = try writer.insertObject(forEntityName: "Location")
    try attic.setValue("Attic", forKey: "label")
    for number in [2, 5] {
      let count = try writer.insertObject(forEntityName: "Inventory")
      try count.setValue(number, forKey: "count")
      try count.setValue(lamp, forKey: "asset")
      try count.setValue(attic, forKey: "location")
    }
    try writer.save()
    try old.close()
    #expect(
      try example.openMigrated(url) == [
        "Desk Lamp: 2 Desk Lamp at Attic on no date; 5 Desk Lamp at Attic on no date"
      ])
    let store = try SQLiteStore(url: url, model: example.model)
    #expect(store.metadata["modelVersion"] == "2.0.0")
    let reader = PersistentContainer(store: store).viewContext
    #expect(
      try reader.existingObject(with: lamp.objectID).value(forKey: "label") as? String
        == "Desk Lamp")
    try store.close()
  }

  /// The model file says what the seed's model editor said: the same model as the descriptions
  /// written in code.
  @Test func modelFileIsTheSeedsModel() throws {
    let fromFile = try ObjectModel(entities: try InventoryExample.loadEntities())
    let inCode = try ObjectModel(entities: [
      EntityDescription(
        name: "Asset",
        attributes: [
          AttributeDescription(name: "label", type: .string, defaultValue: "", originalName: "name")
        ],
        relationships: [
          RelationshipDescription(
            name: "inventories", destination: "Inventory", inverse: "asset", toMany: true,
            deleteRule: .cascade)
        ]),
      EntityDescription(
        name: "Location",
        attributes: [AttributeDescription(name: "label", type: .string, defaultValue: "")],
        relationships: [
          RelationshipDescription(
            name: "inventories", destination: "Inventory", inverse: "location", toMany: true,
            deleteRule: .cascade)
        ]),
      EntityDescription(
        name: "Inventory",
        attributes: [
          AttributeDescription(name: "count", type: .int16, defaultValue: Int16(0)),
          AttributeDescription(name: "date", type: .date, isOptional: true),
        ],
        relationships: [
          RelationshipDescription(
            name: "asset", destination: "Asset", inverse: "inventories", deleteRule: .nullify),
          RelationshipDescription(
            name: "location", destination: "Location", inverse: "inventories",
            deleteRule: .nullify),
        ]),
    ])
    // Encoded, every part of each entity counts (the version hash leaves out delete rules).
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let fileJSON = String(decoding: try encoder.encode(fromFile.entities), as: UTF8.self)
    let codeJSON = String(decoding: try encoder.encode(inCode.entities), as: UTF8.self)
    #expect(fileJSON == codeJSON)
    #expect(fromFile.versionHash == inCode.versionHash)
  }

  /// Runs the steps up to the last save, then reads the file in a store of its own: it holds
  /// what the delete rules left, not what the output says.
  @Test func fileHoldsWhatTheDeletesLeft() throws {
    let example = try InventoryExample(say: { _ in })
    defer { try? FileManager.default.removeItem(at: example.folder) }
    try example.insertStock()
    try example.save()
    try example.reopenAndFireFaults()
    try example.refuseBadInput()
    try example.deleteOneCount()
    try example.deleteAsset()
    try example.deleteLocation()
    try example.save()
    try example.container.store.close()

    let store = try SQLiteStore(url: example.storeURL, model: example.model)
    defer { try? store.close() }
    let reader = PersistentContainer(store: store).newContext()
    func labels(_ entity: String) throws -> [String] {
      try reader.fetch(
        FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [FetchSort("label")])
      ).map { try $0.value(forKey: "label") as? String ?? "?" }
    }
    #expect(try labels("Asset") == ["Sticker", "T-Shirt"])
    #expect(try labels("Location") == ["Aaron's Office"])
    let counts = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Inventory"))
    #expect(counts.count == 1)
    let left = try #require(counts.first)
    #expect(try left.value(forKey: "count") as? Int16 == 15)
    #expect(try left.value(forKeyPath: "asset.label") as? String == "T-Shirt")
    #expect(try left.value(forKeyPath: "location.label") as? String == "Aaron's Office")
    let day = try #require(try left.value(forKey: "date") as? Date)
    #expect(InventoryExample.day(day) == "2010-03-15")
  }

  static let expected = #"""
    ObservedGraph Inventory example: ObjectModel(Asset, Location, Inventory)

    1. The model, read from Inventory.json (no class declares these entities)
       Asset: label (string); inventories -> Inventory (to-many, cascade, inverse asset)
       Inventory: count (int16); date (date, optional); asset -> Asset (to-one, nullify, inverse inventories); location -> Location (to-one, nullify, inverse inventories)
       Location: label (string); inventories -> Inventory (to-many, cascade, inverse location)

    2. Insert two locations, three assets and five counts, by key
       the stickers' location, set by the inverse: Aaron's Office
       [Aaron's Office] 15 T-Shirt at Aaron's Office on 2010-03-15; 250 Sticker at Aaron's Office on 2010-03-15; 3 Coffee Mug at Aaron's Office on 2010-03-15
       [Jaye's Basement] 12 Coffee Mug at Jaye's Basement on 2010-03-12; 40 T-Shirt at Jaye's Basement on 2010-03-12
       Coffee Mug: counted in 2 location(s)
       Sticker: counted in 1 location(s)
       T-Shirt: counted in 2 location(s)

    3. Save to Inventory.sqlite
       wrote 10 inserted or changed and 0 deleted objects in one transaction
       pending afterwards: none

    4. Reopen the file with the SQL trace on; fire the faults one read at a time
       fetching the locations by label runs:
          SQL: SELECT t."og_pk", 3 AS "og_entity", t."label" FROM "Location" AS t WHERE t."og_entity" = 3 ORDER BY t."label" ASC, t."og_pk"
       Aaron's Office came back as a fault holding its values: isFault true
       reading its label ran 0 statements
       its inventories are a to-many fault; counting them (3) runs:
          SQL: SELECT "og_pk", "og_entity", "count", "date", "asset", "location" FROM "Inventory" WHERE "location" = ? [2]
       reading the counts ran 0 statements
       the asset of the first count is a fault: isFault true
       reading its label (Coffee Mug) loads the waiting assets in one query:
          SQL: SELECT "og_pk", "og_entity", "label" FROM "Asset" WHERE "og_pk" IN (?, ?, ?) [3, 4, 5]
       the other assets (T-Shirt, Sticker) ran 0 statements
       [Aaron's Office] 15 T-Shirt at Aaron's Office on 2010-03-15; 250 Sticker at Aaron's Office on 2010-03-15; 3 Coffee Mug at Aaron's Office on 2010-03-15
       [Jaye's Basement] 12 Coffee Mug at Jaye's Basement on 2010-03-12; 40 T-Shirt at Jaye's Basement on 2010-03-12
       Coffee Mug: counted in 2 location(s)
       Sticker: counted in 1 location(s)
       T-Shirt: counted in 2 location(s)
       printing the whole stock ran:
          SQL: SELECT t."og_pk", 3 AS "og_entity", t."label" FROM "Location" AS t WHERE t."og_entity" = 3 ORDER BY t."label" ASC, t."og_pk"
          SQL: SELECT "og_pk", "og_entity", "count", "date", "asset", "location" FROM "Inventory" WHERE "location" = ? [1]
          SQL: SELECT t."og_pk", 1 AS "og_entity", t."label" FROM "Asset" AS t WHERE t."og_entity" = 1 ORDER BY t."label" ASC, t."og_pk"
          SQL: SELECT "og_pk", "og_entity", "count", "date", "asset", "location" FROM "Inventory" WHERE "asset" = ? [3]
          SQL: SELECT "og_pk", "og_entity", "count", "date", "asset", "location" FROM "Inventory" WHERE "asset" = ? [5]
          SQL: SELECT "og_pk", "og_entity", "count", "date", "asset", "location" FROM "Inventory" WHERE "asset" = ? [4]

    5. Bad input: each mistake throws an error naming the entity, key and value
       count = "a dozen": wrongType — Inventory.count: "a dozen" (String) is not a value of type int16
       count = 40000: wrongType — Inventory.count: 40000 (Int) is not a value of type int16
       asset = a location: wrongEntity — Inventory.asset: Location#2 is a Location, not an Asset
       colour = 1: unknownKey — Inventory.colour: Inventory has no property 'colour'
       insert a Shelf: unknownEntity — Shelf: the model has no entity named 'Shelf'
       still 3 Coffee Mug at Aaron's Office on 2010-03-15; unsaved changes: false

    6. Delete the stickers' count (nullify: the Sticker and the office stay)
       [Aaron's Office] 15 T-Shirt at Aaron's Office on 2010-03-15; 3 Coffee Mug at Aaron's Office on 2010-03-15
       [Jaye's Basement] 12 Coffee Mug at Jaye's Basement on 2010-03-12; 40 T-Shirt at Jaye's Basement on 2010-03-12
       Coffee Mug: counted in 2 location(s)
       Sticker: counted in 0 location(s)
       T-Shirt: counted in 2 location(s)

    7. Delete the Coffee Mug (cascade: its two counts go too)
       its 2 counts are deleted: true
       [Aaron's Office] 15 T-Shirt at Aaron's Office on 2010-03-15
       [Jaye's Basement] 40 T-Shirt at Jaye's Basement on 2010-03-12
       Sticker: counted in 0 location(s)
       T-Shirt: counted in 2 location(s)

    8. Delete Jaye's Basement (cascade: its count goes too; the T-Shirt stays)
       [Aaron's Office] 15 T-Shirt at Aaron's Office on 2010-03-15
       Sticker: counted in 0 location(s)
       T-Shirt: counted in 1 location(s)

    9. Save to Inventory.sqlite
       wrote 3 inserted or changed and 6 deleted objects in one transaction
       pending afterwards: none

    10. Reopen the file and count what it holds
       Asset: 2
       Inventory: 1
       Location: 1
       [Aaron's Office] 15 T-Shirt at Aaron's Office on 2010-03-15
       Sticker: counted in 0 location(s)
       T-Shirt: counted in 1 location(s)

    11. Open a file the previous model version made (InventoryV1.json, version 1.0.0)
       version 1.0.0 called an asset's label `name`, and its counts had no date
       a dry run of the plan: migrates to 2.0.0
       opened: the file is now version 2.0.0
       Stapler: 7 Stapler at Front Desk on no date

    12. Close the store and remove its folder
       removed: true
    """#
}
