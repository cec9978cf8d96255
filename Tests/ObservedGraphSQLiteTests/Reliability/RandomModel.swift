import Foundation
import ObservedGraph

// The model of the random-operation test: every attribute type, every relationship shape and
// every delete rule.
//
//   RFolder.notes  ↔ RNote.folder      one-to-many (the folder's side denies)
//   RFolder.cover  ↔ RCover.folder     one-to-one (nullify; the cover's side cascades)
//   RFolder.pages  ↔ RPage.folder      ordered one-to-many (cascade)
//   RTag.notes     ↔ RNote.tags        many-to-many (nullify)
//   RTag.pinned    ↔ RNote.pinnedBy    many-to-many, ordered on the tag's side (nullify)
//   RBin.notes     ↔ RNote.bin         one-to-many (the bin's side is noAction: a deleted bin
//                                      stays named by its notes, in memory and in the file)

/// A `Codable` value stored as its JSON: a transformable attribute.
struct RShape: TransformableValue {
  var width = 0.0
  var label = ""
}

final class RNote: ManagedObject {
  @Attribute var text: String = ""
  @Attribute var flag: Bool = false
  @Attribute var small: Int16 = 0
  @Attribute var medium: Int32 = 0
  @Attribute var large: Int64 = 0
  @Attribute var count: Int = 0
  @Attribute var single: Float = 0
  @Attribute var double: Double = 0
  @Attribute var decimal: Decimal = 0
  @Attribute var date: Date = Date(timeIntervalSinceReferenceDate: 0)
  @Attribute var data: Data = Data()
  @Attribute var uuid: UUID = RandomModel.uuids[0]
  @Attribute var url: URL = URL(string: "https://example.com/")!
  @Attribute var shape: RShape = RShape()
  @Attribute var words: [String] = []
  @Attribute var remark: String?
  @Attribute var rating: Double?
  @Relationship(inverse: "notes") var folder: RFolder?
  @Relationship(inverse: "notes") var tags: Set<RTag>
  @Relationship(inverse: "pinned") var pinnedBy: Set<RTag>
  @Relationship(inverse: "notes") var bin: RBin?
}

final class RFolder: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var rank: Int16 = 0
  @Relationship(inverse: "folder", deleteRule: .deny) var notes: Set<RNote>
  @Relationship(inverse: "folder") var cover: RCover?
  @Relationship(inverse: "folder", deleteRule: .cascade, ordered: true) var pages: [RPage]
}

final class RCover: ManagedObject {
  @Attribute var label: String = ""
  @Relationship(inverse: "cover", deleteRule: .cascade) var folder: RFolder?
}

final class RPage: ManagedObject {
  @Attribute var number: Int = 0
  @Relationship(inverse: "pages") var folder: RFolder?
}

final class RTag: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "tags") var notes: Set<RNote>
  @Relationship(inverse: "pinnedBy", ordered: true) var pinned: [RNote]
}

final class RBin: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "bin", deleteRule: .noAction) var notes: Set<RNote>
}

/// The model, written out by hand (the test does not read the library's description of it to
/// know what to expect), and the values the test gives each attribute.
enum RandomModel {
  static let model = try! ObjectModel(types: [
    RNote.self, RFolder.self, RCover.self, RPage.self, RTag.self, RBin.self,
  ])

  static let entities = ["RBin", "RCover", "RFolder", "RNote", "RPage", "RTag"]

  struct Link {
    let inverse: String
    let toMany: Bool
    let ordered: Bool
    let rule: DeleteRule
  }

  static let links: [String: [String: Link]] = [
    "RNote": [
      "folder": Link(inverse: "notes", toMany: false, ordered: false, rule: .nullify),
      "tags": Link(inverse: "notes", toMany: true, ordered: false, rule: .nullify),
      "pinnedBy": Link(inverse: "pinned", toMany: true, ordered: false, rule: .nullify),
      "bin": Link(inverse: "notes", toMany: false, ordered: false, rule: .nullify),
    ],
    "RFolder": [
      "notes": Link(inverse: "folder", toMany: true, ordered: false, rule: .deny),
      "cover": Link(inverse: "folder", toMany: false, ordered: false, rule: .nullify),
      "pages": Link(inverse: "folder", toMany: true, ordered: true, rule: .cascade),
    ],
    "RCover": ["folder": Link(inverse: "cover", toMany: false, ordered: false, rule: .cascade)],
    "RPage": ["folder": Link(inverse: "pages", toMany: false, ordered: false, rule: .nullify)],
    "RTag": [
      "notes": Link(inverse: "tags", toMany: true, ordered: false, rule: .nullify),
      "pinned": Link(inverse: "pinnedBy", toMany: true, ordered: true, rule: .nullify),
    ],
    "RBin": ["notes": Link(inverse: "bin", toMany: true, ordered: false, rule: .noAction)],
  ]

  static let uuids = [
    UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
    UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
    UUID(uuidString: "123E4567-E89B-12D3-A456-426614174000")!,
  ]

  /// Each attribute's values: the default first. Values of one attribute render differently
  /// (`ChangeRecorder.render`), so a recorded change names its value without doubt.
  /// (`AnyHashable` is not `Sendable`; the table is a constant and holds only `Sendable` values.)
  nonisolated(unsafe) static let values: [String: [String: [AnyHashable?]]] = [
    "RNote": [
      "text": ["", "alpha", "Beta", "café", "cafe\u{301}x", "zeta"],
      "flag": [false, true],
      "small": [Int16(0), Int16(-3), Int16.max, Int16(7)],
      "medium": [Int32(0), Int32(-40), Int32(5), Int32.max, Int32(12)],
      "large": [Int64(0), Int64.min, Int64(1) << 40, Int64(-9)],
      "count": [0, 1, 2, -100, Int.max],
      "single": [Float(0), Float(0.5), Float(-2.25), Float(1e10), Float(3.1)],
      "double": [0.0, 0.1, -7.5, 1e300, 2.5],
      "decimal": [
        Decimal(0), Decimal(string: "12.35")!, Decimal(string: "-1.5")!,
        Decimal(string: "100000000000000000000.01")!,
      ],
      "date": [
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 86_400.25),
        Date(timeIntervalSinceReferenceDate: -1_000_000),
        Date(timeIntervalSince1970: 1_700_000_000),
      ],
      "data": [Data(), Data([1]), Data([0xFF, 0, 7]), Data(repeating: 0xAB, count: 40)],
      "uuid": uuids.map { $0 },
      "url": [
        URL(string: "https://example.com/")!, URL(string: "file:///tmp/a%20b")!,
        URL(string: "https://example.com/q?x=1#f")!,
      ],
      "shape": [RShape(), RShape(width: 2.5, label: "wide"), RShape(width: -1, label: "")],
      "words": [[String](), ["a"], ["b", "a"], ["a", "b", "c"]],
      "remark": [nil, "", "note", "Note"],
      "rating": [nil, 0.0, 4.5, -1.0],
    ],
    "RFolder": [
      "title": ["", "Inbox", "archive", "Ärchiv"],
      "rank": [Int16(0), Int16(1), Int16(2), Int16(3), Int16(-1)],
    ],
    "RCover": ["label": ["", "red", "blue"]],
    "RPage": ["number": [0, 1, 2, 3, 40]],
    "RTag": ["name": ["", "x", "y", "X"]],
    "RBin": ["name": ["", "trash", "old"]],
  ]

  /// The attributes of an entity, by name.
  static func attributes(_ entity: String) -> [String] { values[entity]!.keys.sorted() }

  /// The relationships of an entity, by name.
  static func relationships(_ entity: String) -> [String] { links[entity]!.keys.sorted() }
}
