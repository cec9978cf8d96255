import Foundation
import ObservedGraph
import Testing

/// Replays what a `ChangeRecorder` hears on a copy of the graph, kept as text: each live object's
/// properties rendered as the recorder renders values (`ChangeRecorder.render`).
///
/// The copy starts as the state at the segment's start; each record then changes it: a setting
/// puts its new value in place (after its old value was checked against the copy), an insertion
/// or removal adds or takes members (at their indexes in an ordered relationship), and lifecycle
/// records put objects in or take them out (an object that comes back, by undo or redo, comes back
/// with the values it left with). The copy must then read as the graph does.
final class RecordReplay {
  typealias Rendered = [String: String]

  let recorder: ChangeRecorder
  private(set) var copy: [String: Rendered] = [:]
  /// Objects out of the graph (deleted, or their insert undone), with their last values.
  private var gone: [String: Rendered] = [:]
  /// Records applied so far.
  private(set) var applied = 0
  /// The first thing a record said that the copy did not agree with.
  private var problem: String?

  /// Starts recording `context`, whose graph is `graph` now.
  init(context: ObjectContext, graph: ReferenceGraph) {
    recorder = ChangeRecorder(context: context)
    for id in graph.liveObjects {
      copy[id.description] = Self.render(graph, id)
    }
  }

  // MARK: Rendering

  static func render(_ graph: ReferenceGraph, _ id: ObjectID) -> Rendered {
    let entity = graph.entity[id]!
    var rendered: Rendered = [:]
    for key in RandomModel.attributes(entity) {
      rendered[key] = ChangeRecorder.render(graph.value(id, key)?.base)
    }
    for key in RandomModel.relationships(entity) {
      rendered[key] = members(graph.link(id, key), graph.members(id, key).map(\.description))
    }
    return rendered
  }

  static func members(_ link: RandomModel.Link, _ labels: [String]) -> String {
    if !link.toMany { return labels.first ?? "nil" }
    if link.ordered { return "[" + labels.joined(separator: ", ") + "]" }
    return "{" + labels.sorted().joined(separator: ", ") + "}"
  }

  static func labels(_ text: String) -> [String] {
    guard text.count > 2 else { return [] }
    return text.dropFirst().dropLast().components(separatedBy: ", ")
  }

  static func defaults(_ entity: String) -> Rendered {
    var rendered: Rendered = [:]
    for key in RandomModel.attributes(entity) {
      rendered[key] = ChangeRecorder.render(RandomModel.values[entity]![key]![0]?.base)
    }
    for key in RandomModel.relationships(entity) {
      rendered[key] = members(RandomModel.links[entity]![key]!, [])
    }
    return rendered
  }

  /// The graph as the context reads it, for the objects the reference has.
  static func render(_ run: RandomOperations) -> [String: Rendered] {
    var graph: [String: Rendered] = [:]
    for id in run.reference.liveObjects {
      guard let object = run.context.object(with: id) else { continue }
      let entity = run.reference.entity[id]!
      var rendered: Rendered = [:]
      for key in RandomModel.attributes(entity) {
        rendered[key] = ChangeRecorder.render(Shown.unwrapped(try? object.value(forKey: key)))
      }
      for key in RandomModel.relationships(entity) {
        rendered[key] = members(
          RandomModel.links[entity]![key]!, run.members(object, key).map(\.description))
      }
      graph[id.description] = rendered
    }
    return graph
  }

  // MARK: Replaying

  private func note(_ text: String) {
    if problem == nil { problem = text }
  }

  /// Applies the records heard since the last call.
  func apply() {
    for record in recorder.records.dropFirst(applied) {
      apply(record)
    }
    applied = recorder.records.count
  }

  private func apply(_ record: ChangeRecorder.Record) {
    let label = record.object
    if record.key == "@lifecycle" {
      switch record.new {
      case "insert", "undelete":
        copy[label] = gone.removeValue(forKey: label) ?? Self.defaults(entity(of: label))
      default:
        guard let values = copy.removeValue(forKey: label) else {
          return note("\(record): \(label) is not in the copy")
        }
        gone[label] = values
      }
      return
    }
    let live = copy[label] != nil
    guard var values = copy[label] ?? gone[label] else {
      return note("\(record): \(label) is unknown to the copy")
    }
    guard let current = values[record.key] else {
      return note("\(record): \(label) has no \(record.key)")
    }
    let link = RandomModel.links[entity(of: label)]![record.key]
    switch record.kind {
    case .setting:
      if live, let old = record.old, !sameMembers(old, current, link) {
        note("\(record): the copy's old value is \(current)")
      }
      values[record.key] = record.new ?? current
    case .insertion:
      guard let link, let new = record.new else { return note("\(record): no new members") }
      var list = Self.labels(current)
      if link.ordered, let indexes = record.indexes {
        for (index, member) in zip(indexes, Self.labels(new)) {
          guard index <= list.count else { return note("\(record): index past \(current)") }
          list.insert(member, at: index)
        }
      } else {
        list += Self.labels(new).filter { !list.contains($0) }
      }
      values[record.key] = Self.members(link, list)
    case .removal:
      guard let link, let old = record.old else { return note("\(record): no old members") }
      var list = Self.labels(current)
      if link.ordered, let indexes = record.indexes {
        for index in indexes.sorted(by: >) {
          guard index < list.count else { return note("\(record): index past \(current)") }
          list.remove(at: index)
        }
      } else {
        let removed = Self.labels(old)
        list.removeAll { removed.contains($0) }
      }
      values[record.key] = Self.members(link, list)
    default:
      return note("\(record): a kind the library does not deliver")
    }
    if live { copy[label] = values } else { gone[label] = values }
  }

  /// Whether two renderings of a value agree (unordered members in any order).
  private func sameMembers(_ lhs: String, _ rhs: String, _ link: RandomModel.Link?) -> Bool {
    guard let link, link.toMany, !link.ordered else { return lhs == rhs }
    return Set(Self.labels(lhs)) == Set(Self.labels(rhs))
  }

  private func entity(of label: String) -> String {
    String(label.prefix { $0 != "#" })
  }

  // MARK: Checking

  /// Applies the records heard so far and checks the copy against the graph.
  func check(against run: RandomOperations, replayable: Bool, _ when: String) {
    guard replayable else {
      run.count("replay skipped (primitive set outside brackets)")
      return
    }
    apply()
    run.count("replay check")
    if let problem {
      run.fail("replay \(when): \(problem)")
      return
    }
    let graph = Self.render(run)
    for label in Set(graph.keys).union(copy.keys).sorted() {
      guard let actual = graph[label], let replayed = copy[label] else {
        run.fail(
          "replay \(when): \(label) is \(graph[label] == nil ? "not " : "")in the graph and "
            + "\(copy[label] == nil ? "not " : "")in the replayed copy")
        return
      }
      for key in actual.keys.sorted() where actual[key] != replayed[key] {
        run.fail(
          "replay \(when): \(label).\(key): replayed \(replayed[key] ?? "absent"), graph "
            + "\(actual[key]!)")
        return
      }
    }
  }
}
