import Foundation
import ObservedGraph
import Testing

/// A ship with a name, a captain and a port: valid as it is.
private func validShip(_ context: ObjectContext) throws -> ManagedObject {
  let ship = try context.make("Ship", "Endurance")
  try ship.setValue(context.make("Sailor", "captain"), forKey: "captain")
  try ship.mutableSet(forKey: "ports").insert(context.make("Port", "home"))
  return ship
}

private func kinds(_ error: ObjectGraphError?) -> [String] {
  guard let error else { return [] }
  let all = error.kind == .multipleErrors ? error.underlying : [error]
  return all.map { "\($0.kind) \($0.entity).\($0.key ?? "")" }.sorted()
}

@Suite struct Validation {
  @Test func emptyShipMissesEverythingRequired() throws {
    let context = ObjectContext(model: Dynamic.ships)
    let ship = try context.insertObject(forEntityName: "Ship")
    #expect(try ship.value(forKey: "name") == nil)
    let error = #expect(throws: ObjectGraphError.self) { try ship.validateForInsert() }
    #expect(error?.kind == .multipleErrors)
    #expect(
      kinds(error) == [
        "missingValue Ship.captain", "missingValue Ship.name", "missingValue Ship.ports",
      ])
    for part in ["Ship", "name", "captain", "ports"] {
      #expect(error?.description.contains(part) == true)
    }
  }

  @Test func validShipSaves() throws {
    let context = ObjectContext(model: Dynamic.ships)
    let ship = try validShip(context)
    try ship.validateForInsert()
    try context.save()
    #expect(context.hasChanges == false)
  }

  @Test(arguments: [0, 1, 2, 3, 4])
  func crewCount(_ size: Int) throws {
    let context = ObjectContext(model: Dynamic.ships)
    let ship = try validShip(context)
    let crew = try (0..<size).map { try context.make("Sailor", "s\($0)") }
    try ship.setValue(crew, forKey: "crew")
    let expected: [String] =
      switch size {
      case 1: ["tooFewObjects Ship.crew"]
      case 4: ["tooManyObjects Ship.crew"]
      default: []
      }
    if expected.isEmpty {
      try ship.validateForInsert()
      try context.save()
    } else {
      let error = #expect(throws: ObjectGraphError.self) { try ship.validateForInsert() }
      #expect(kinds(error) == expected)
      #expect(error?.value == "\(size)")
      #expect(error?.description.contains("Ship.crew") == true)
      let saveError = #expect(throws: ObjectGraphError.self) { try context.save() }
      #expect(kinds(saveError) == expected)
      #expect(ship.isInserted && context.hasChanges)
    }
  }

  @Test func updateValidation() throws {
    let context = ObjectContext(model: Dynamic.ships)
    let ship = try validShip(context)
    let crew = try (0..<2).map { try context.make("Sailor", "s\($0)") }
    try ship.setValue(crew, forKey: "crew")
    try context.save()
    try ship.validateForUpdate()
    try ship.setValue(nil, forKey: "captain")
    try ship.mutableSet(forKey: "crew").remove(crew[0])
    let error = #expect(throws: ObjectGraphError.self) { try ship.validateForUpdate() }
    #expect(kinds(error) == ["missingValue Ship.captain", "tooFewObjects Ship.crew"])
    #expect(#expect(throws: ObjectGraphError.self) { try context.save() }?.kind == .multipleErrors)
    #expect(ship.isUpdated)
    #expect(Set(ship.changedValues().keys) == ["captain", "crew"])
    try ship.mutableSet(forKey: "crew").insert(crew[0])
    try ship.setValue(crew[1], forKey: "captain")
    try context.save()
    #expect(ship.isUpdated == false)
  }

  @Test func saveCollectsErrorsOfAllObjects() throws {
    let context = ObjectContext(model: Dynamic.ships)
    let first = try context.insertObject(forEntityName: "Ship")
    let second = try validShip(context)
    try second.setValue([context.make("Sailor", "solo")], forKey: "crew")
    try first.setValue("Nameless", forKey: "name")
    let before = GraphSnapshot(context)
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .multipleErrors)
    #expect(
      kinds(error) == [
        "missingValue Ship.captain", "missingValue Ship.ports", "tooFewObjects Ship.crew",
      ])
    #expect(error?.underlying.count == 3)
    #expect(GraphSnapshot(context) == before)
    #expect(first.isInserted && second.isInserted)
  }

  @Test func singleErrorIsThrownAsItself() throws {
    let context = ObjectContext(model: Dynamic.ships)
    let ship = try validShip(context)
    try ship.setValue(nil, forKey: "captain")
    let error = #expect(throws: ObjectGraphError.self) { try context.save() }
    #expect(error?.kind == .missingValue)
    #expect(error?.entity == "Ship" && error?.key == "captain")
    #expect(error?.underlying.isEmpty == true)
  }

  @Test func deletedObjectsAreNotValidated() throws {
    let context = ObjectContext(model: Dynamic.ships)
    let ship = try validShip(context)
    try context.save()
    try ship.setValue(nil, forKey: "captain")
    try context.delete(ship)
    try context.save()
    #expect(context.hasChanges == false)
  }
}
