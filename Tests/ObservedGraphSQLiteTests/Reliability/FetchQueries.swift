import Foundation
import ObservedGraph

/// Fetches with predicates, each with what the reference says it must return.
struct FetchQuery: CustomStringConvertible {
  let entity: String
  let format: String
  let arguments: [(any FetchArgument)?]
  /// Sort keys (nil: no sort, compared as a set): a key and whether it ascends.
  let sort: (key: String, ascending: Bool)?
  let test: (ReferenceGraph, ObjectID) -> Bool

  var sortDescriptors: [FetchSort] {
    sort.map { [FetchSort($0.key, ascending: $0.ascending)] } ?? []
  }

  var description: String {
    "\(entity) where \(format) \(arguments.map { "\($0.map { "\($0)" } ?? "nil")" })"
      + (sort.map { " sorted by \($0.key)\($0.ascending ? "" : " descending")" } ?? "")
  }

  /// The identifiers the fetch must return: in order when sorted (ties in identifier order).
  func expected(_ reference: ReferenceGraph) -> [ObjectID] {
    let found = reference.liveObjects(entity).filter { test(reference, $0) }
    guard let sort else { return found }
    return found.sorted { lhs, rhs in
      let (left, right) = (reference.value(lhs, sort.key), reference.value(rhs, sort.key))
      if let order = FetchQueries.order(left, right) {
        return sort.ascending ? order : !order
      }
      return lhs.key < rhs.key
    }
  }
}

enum FetchQueries {
  /// Whether `left` sorts before `right` (nil when equal).
  static func order(_ left: AnyHashable?, _ right: AnyHashable?) -> Bool? {
    switch (left?.base, right?.base) {
    case (let l as Int32, let r as Int32): l == r ? nil : l < r
    case (let l as String, let r as String): l == r ? nil : l < r
    case (let l as Date, let r as Date): l == r ? nil : l < r
    case (let l as Double, let r as Double): l == r ? nil : l < r
    case (let l as Int16, let r as Int16): l == r ? nil : l < r
    default: nil
    }
  }

  static func value<T>(_ reference: ReferenceGraph, _ id: ObjectID, _ key: String) -> T? {
    reference.value(id, key)?.base as? T
  }

  static func palette<T>(_ entity: String, _ key: String, _ random: inout RandomGenerator) -> T {
    let values = RandomModel.values[entity]![key]!.compactMap { $0?.base as? T }
    return values[random.below(values.count)]
  }

  static func random(_ random: inout RandomGenerator) -> FetchQuery {
    let sorts: [(String, Bool)?] = [
      nil, nil, ("medium", true), ("text", true), ("date", false), ("double", true),
    ]
    let noteSort = random.pick(sorts)!
    switch random.below(19) {
    case 0:
      let limit: Int32 = palette("RNote", "medium", &random)
      return FetchQuery(entity: "RNote", format: "medium > %@", arguments: [limit], sort: noteSort)
      {
        (value($0, $1, "medium") as Int32?)! > limit
      }
    case 1:
      let prefix = random.pick(["", "a", "caf", "cafe", "B", "z"])!
      return FetchQuery(
        entity: "RNote", format: "text BEGINSWITH %@", arguments: [prefix], sort: noteSort
      ) { (value($0, $1, "text") as String?)!.hasPrefix(prefix) }
    case 2:
      let flag = random.chance(50)
      return FetchQuery(entity: "RNote", format: "flag == %@", arguments: [flag], sort: noteSort) {
        (value($0, $1, "flag") as Bool?)! == flag
      }
    case 3:
      let none = random.chance(50)
      return FetchQuery(
        entity: "RNote", format: none ? "folder == nil" : "folder != nil", arguments: [],
        sort: noteSort
      ) { $0.members($1, "folder").isEmpty == none }
    case 4:
      return FetchQuery(entity: "RNote", format: "remark == nil", arguments: [], sort: noteSort) {
        $0.value($1, "remark") == nil
      }
    case 5:
      return FetchQuery(
        entity: "RNote", format: "remark ==[c] %@", arguments: ["NOTE"], sort: noteSort
      ) { (value($0, $1, "remark") as String?)?.lowercased() == "note" }
    case 6:
      let limit: Double = palette("RNote", "double", &random)
      return FetchQuery(
        entity: "RNote", format: "double < %@ OR flag == YES", arguments: [limit], sort: noteSort
      ) { (value($0, $1, "double") as Double?)! < limit || (value($0, $1, "flag") as Bool?)! }
    case 7:
      let limit: Float = palette("RNote", "single", &random)
      return FetchQuery(
        entity: "RNote", format: "single >= %@", arguments: [limit], sort: noteSort
      ) { (value($0, $1, "single") as Float?)! >= limit }
    case 8:
      let name: String = palette("RTag", "name", &random)
      return FetchQuery(
        entity: "RNote", format: "ANY tags.name == %@", arguments: [name], sort: noteSort
      ) { reference, id in
        reference.members(id, "tags").contains { value(reference, $0, "name") == name }
      }
    case 9:
      let title: String = palette("RFolder", "title", &random)
      return FetchQuery(
        entity: "RNote", format: "folder.title == %@", arguments: [title], sort: noteSort
      ) { reference, id in
        reference.members(id, "folder").first.map { value(reference, $0, "title") == title }
          ?? false
      }
    case 10:
      let least = random.below(4)
      return FetchQuery(
        entity: "RFolder", format: "notes.@count >= %@", arguments: [least],
        sort: random.chance(50) ? ("title", true) : nil
      ) { $0.members($1, "notes").count >= least }
    case 11:
      return FetchQuery(
        entity: "RFolder", format: "rank BETWEEN {1, 2} AND title != %@", arguments: ["Inbox"],
        sort: random.chance(50) ? ("rank", false) : nil
      ) { reference, id in
        let rank = (value(reference, id, "rank") as Int16?)!
        return rank >= 1 && rank <= 2 && (value(reference, id, "title") as String?)! != "Inbox"
      }
    case 12:
      let limit: Date = palette("RNote", "date", &random)
      return FetchQuery(entity: "RNote", format: "date < %@", arguments: [limit], sort: noteSort) {
        (value($0, $1, "date") as Date?)! < limit
      }
    case 13:
      let uuid: UUID = palette("RNote", "uuid", &random)
      return FetchQuery(entity: "RNote", format: "uuid == %@", arguments: [uuid], sort: noteSort) {
        (value($0, $1, "uuid") as UUID?)! == uuid
      }
    case 14:
      let limit: Decimal = palette("RNote", "decimal", &random)
      return FetchQuery(
        entity: "RNote", format: "decimal > %@", arguments: [limit], sort: noteSort
      ) { (value($0, $1, "decimal") as Decimal?)! > limit }
    case 15:
      return FetchQuery(
        entity: "RTag", format: "pinned.@count == 0 AND NOT (ANY notes.flag == YES)",
        arguments: [], sort: random.chance(50) ? ("name", true) : nil
      ) { reference, id in
        reference.members(id, "pinned").isEmpty
          && !reference.members(id, "notes").contains { value(reference, $0, "flag") == true }
      }
    case 16:
      return FetchQuery(entity: "RNote", format: "bin == nil", arguments: [], sort: noteSort) {
        $0.members($1, "bin").isEmpty
      }
    case 17:
      let (large, count): (Int64, Int) = (
        palette("RNote", "large", &random), palette("RNote", "count", &random)
      )
      return FetchQuery(
        entity: "RNote", format: "large < %@ AND count > %@", arguments: [large, count],
        sort: noteSort
      ) { (value($0, $1, "large") as Int64?)! < large && (value($0, $1, "count") as Int?)! > count }
    default:
      let rank: Int16 = palette("RFolder", "rank", &random)
      return FetchQuery(
        entity: "RPage", format: "folder.rank > %@ OR number == 2", arguments: [rank], sort: nil
      ) { reference, id in
        let folder = reference.members(id, "folder").first
        let folderRank = folder.flatMap { value(reference, $0, "rank") as Int16? }
        return (folderRank.map { $0 > rank } ?? false) || value(reference, id, "number") == 2
      }
    }
  }
}
