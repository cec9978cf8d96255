import Foundation
import ObservedGraph

// A small model for observation tests: dependent keys, a manual-only key, a to-many hop.

final class Writer: ManagedObject {
  @Attribute var firstName: String = ""
  @Attribute var lastName: String = ""
  @Attribute var nickname: String = ""
  @Attribute var age: Int16 = 0
  @Attribute var note: String?
  @Relationship(inverse: "writer") var novels: Set<Novel>
  @Relationship(inverse: "writers") var publisher: Publisher?

  var fullName: String { "\(firstName) \(lastName)" }
  var novelCount: Int { novels.count }
  var label: String { "\(fullName) (\(novelCount))" }

  override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
    switch key {
    case "fullName": ["firstName", "lastName"]
    case "novelCount": ["novels"]
    case "label": ["fullName", "novelCount"]
    case "loopA": ["loopB"]
    case "loopB": ["loopA", "age"]
    default: super.keyPathsForValuesAffectingValue(forKey: key)
    }
  }

  override func value(forUndefinedKey key: String) throws -> Any? {
    switch key {
    case "fullName": fullName
    case "novelCount": novelCount
    case "label": label
    case "loopA", "loopB": Int(age)
    default: try super.value(forUndefinedKey: key)
    }
  }

  override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
    key == "nickname" ? false : super.automaticallyNotifiesObservers(forKey: key)
  }
}

final class Novel: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var price: Double = 0
  @Relationship(inverse: "novels") var writer: Writer?
  @Relationship(inverse: "novel", ordered: true) var chapters: [Chapter]
}

final class Chapter: ManagedObject {
  @Attribute var heading: String = ""
  @Relationship(inverse: "chapters") var novel: Novel?
}

final class Publisher: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "publisher") var writers: Set<Writer>
}

enum Shelf {
  static let model = try! ObjectModel(types: [
    Writer.self, Novel.self, Chapter.self, Publisher.self,
  ])
}

/// Tracks objects weakly and reports which are still alive.
final class LifetimeTracker {
  private var entries: [(String, () -> AnyObject?)] = []

  func track(_ object: AnyObject, _ name: String) {
    weak let weakObject = object
    entries.append((name, { weakObject }))
  }

  var alive: [String] { entries.filter { $0.1() != nil }.map(\.0) }
}
