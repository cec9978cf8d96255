import Foundation
import ObservedGraph

// The model of the random-edit test: every relationship shape and every delete rule.
//
//   LabOwner.pet   ↔ LabPet.owner     one-to-one (nullify; the pet's side cascades to the owner)
//   LabOwner.items ↔ LabItem.owner    one-to-many (the owner's side denies)
//   LabItem.tags   ↔ LabTag.items     many-to-many (nullify)
//   LabItem.parts  ↔ LabPart.item     ordered one-to-many (cascade; the part's side is noAction)

final class LabOwner: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "owner") var pet: LabPet?
  @Relationship(inverse: "owner", deleteRule: .deny) var items: Set<LabItem>
}

final class LabPet: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "pet", deleteRule: .cascade) var owner: LabOwner?
}

final class LabItem: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "items") var owner: LabOwner?
  @Relationship(inverse: "items") var tags: Set<LabTag>
  @Relationship(inverse: "item", deleteRule: .cascade) var parts: [LabPart]
}

final class LabTag: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "tags") var items: Set<LabItem>
}

final class LabPart: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "parts", deleteRule: .noAction) var item: LabItem?
}

enum Lab {
  static let model = try! ObjectModel(types: [
    LabOwner.self, LabPet.self, LabItem.self, LabTag.self, LabPart.self,
  ])
}
