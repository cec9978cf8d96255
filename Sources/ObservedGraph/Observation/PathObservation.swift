/// An observation of a value that depends on several slots, possibly of other objects: a key path
/// through relationships (`category.name`, `books.price`), a dependent key (`fullName` ←
/// `firstName`, `lastName`), or a computed typed key path.
///
/// It installs internal observers ("links") on every slot the value depends on. The first link to
/// hear a change captures the old value; when the last pending link has heard the end of the change,
/// the links are re-installed along the new graph (so a replaced intermediate object no longer
/// triggers anything) and the handler gets one setting change with the old and new value.
final class PathObservation {
  private struct Link {
    weak var object: ManagedObject?
    let slot: Int
    let observer: Observer
  }

  private weak var context: ObjectContext?
  private weak var root: ManagedObject?
  private let paths: [[String]]
  private let options: ObservationOptions
  private let current: (ManagedObject) -> Any?
  private let deliver: (RawChange) -> Void
  private var links: [Link] = []
  private var depth = 0
  private var old: Any?
  private var isValid = true

  init(
    context: ObjectContext, root: ManagedObject, paths: [[String]], options: ObservationOptions,
    current: @escaping (ManagedObject) -> Any?, deliver: @escaping (RawChange) -> Void
  ) {
    self.context = context
    self.root = root
    self.paths = paths
    self.options = options
    self.current = current
    self.deliver = deliver
  }

  func start() {
    install()
    if options.contains(.initial), let root {
      deliver(
        RawChange(
          kind: .setting, old: nil, new: options.contains(.new) ? .some(current(root)) : nil,
          indexes: nil, isPrior: false))
    }
  }

  func invalidate() {
    isValid = false
    uninstall()
  }

  // MARK: Links

  private func install() {
    guard let root, isValid else { return }
    var visited = Set<VisitKey>()
    for path in paths { install(path[...], on: root, visited: &visited) }
  }

  private struct VisitKey: Hashable {
    let object: ObjectIdentifier
    let key: String
    let rest: Int
  }

  private func install(
    _ path: ArraySlice<String>, on object: ManagedObject, visited: inout Set<VisitKey>
  ) {
    guard let key = path.first, let context else { return }
    let rest = path.dropFirst()
    guard
      visited.insert(VisitKey(object: ObjectIdentifier(object), key: key, rest: rest.count))
        .inserted
    else { return }
    guard let property = object.entity.propertiesByName[key] else {
      // A dependent key: observe what it depends on (cycles end at `visited`).
      for dependency in type(of: object).keyPathsForValuesAffectingValue(forKey: key) {
        let steps = dependency.split(separator: ".").map(String.init)
        install(steps[...], on: object, visited: &visited)
      }
      return
    }
    let observer = Observer(
      options: [], isInternal: true,
      will: { [weak self] _ in self?.willChange() },
      did: { [weak self] _ in self?.didChange() })
    context.addObserver(observer, to: object, slot: property.slot)
    links.append(Link(object: object, slot: property.slot, observer: observer))
    guard !rest.isEmpty, property.isRelationship else { return }
    for member in object.members(property) { install(rest, on: member, visited: &visited) }
  }

  private func uninstall() {
    for link in links {
      if let object = link.object, let context {
        context.removeObserver(link.observer, from: object, slot: link.slot)
      } else {
        link.observer.isValid = false
      }
    }
    links.removeAll()
  }

  // MARK: Changes

  private func willChange() {
    defer { depth += 1 }
    guard depth == 0, isValid, let root else { return }
    old = current(root)
    if options.contains(.prior) {
      deliver(
        RawChange(
          kind: .setting, old: options.contains(.old) ? .some(old) : nil, new: nil, indexes: nil,
          isPrior: true))
    }
  }

  private func didChange() {
    depth -= 1
    guard depth == 0, isValid, let root else { return }
    uninstall()
    install()
    let new = current(root)
    let old = self.old
    self.old = nil
    deliver(
      RawChange(
        kind: .setting, old: options.contains(.old) ? .some(old) : nil,
        new: options.contains(.new) ? .some(new) : nil, indexes: nil, isPrior: false))
  }
}
