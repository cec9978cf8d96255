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

  /// The context's link (not the context: see `observeSlot`).
  private let link: ContextLink
  private var context: ObjectContext? { link.context }
  private weak var root: ManagedObject?
  private let paths: [[String]]
  private let options: ObservationOptions
  private let current: (ManagedObject) -> Any?
  private let deliver: (RawChange) -> Void
  /// The origins of the changes the handler hears (an `.initial` call is made whatever the
  /// origin).
  private let origins: OriginFilter
  private var links: [Link] = []
  private var depth = 0
  private var old: Any?
  private var isValid = true
  /// The value before the open transaction first changed it: a delivery held for the commit
  /// (see ``TransactionJournal``); nil when none is held.
  private var heldOld: Any?? = nil
  /// Whether the change under way happens in a transaction's body, and is held.
  private var isHoldingChange = false

  init(
    context: ObjectContext, root: ManagedObject, paths: [[String]], options: ObservationOptions,
    origins: OriginFilter, current: @escaping (ManagedObject) -> Any?,
    deliver: @escaping (RawChange) -> Void
  ) {
    self.origins = origins
    self.link = context.link
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
          indexes: nil, isPrior: false, origin: link.origin))
    }
  }

  func invalidate() {
    isValid = false
    uninstall()
  }

  // MARK: Links

  /// Installs links along every path from the root, without recursion (paths of any length): a
  /// link on each key of each path on each object reached (through to-many relationships, on
  /// every member), and for a key with dependent keys (`keyPathsForValuesAffectingValue(forKey:)`,
  /// whether the key is computed or stored) the key paths it depends on. Each (object, path,
  /// position) is visited once, which also ends dependency cycles.
  private func install() {
    guard let root, isValid, let context else { return }
    var paths = self.paths
    var dependencyIDs: [String: Int] = [:]
    var visited = Set<VisitKey>()
    var work: [(path: Int, position: Int, object: ManagedObject)] = (0..<paths.count).reversed()
      .map { ($0, 0, root) }
    while let (path, position, object) = work.popLast() {
      guard position < paths[path].count,
        visited.insert(VisitKey(object: ObjectIdentifier(object), path: path, position: position))
          .inserted
      else { continue }
      let key = paths[path][position]
      for dependency in type(of: object).keyPathsForValuesAffectingValue(forKey: key) {
        let id =
          dependencyIDs[dependency]
          ?? {
            paths.append(dependency.split(separator: ".").map(String.init))
            dependencyIDs[dependency] = paths.count - 1
            return paths.count - 1
          }()
        work.append((id, 0, object))
      }
      guard let property = object.entity.propertiesByName[key] else { continue }
      let observer = Observer(
        options: [], isInternal: true,
        will: { [weak self] _ in self?.willChange() },
        did: { [weak self] _ in self?.didChange() },
        cancel: { [weak self] in self?.cancelChange() })
      context.center.addObserver(observer, to: object, slot: property.slot)
      links.append(Link(object: object, slot: property.slot, observer: observer))
      guard position + 1 < paths[path].count, property.isRelationship else { continue }
      for member in object.members(property).reversed() {
        work.append((path, position + 1, member))
      }
    }
  }

  private struct VisitKey: Hashable {
    let object: ObjectIdentifier
    let path: Int
    let position: Int
  }

  private func uninstall() {
    if let context {
      context.center.removeObservers(links.map { ($0.object, $0.slot, $0.observer) })
    } else {
      for link in links { link.observer.isValid = false }
    }
    links.removeAll()
  }

  // MARK: Changes

  private func willChange() {
    defer { depth += 1 }
    guard depth == 0, isValid, let root else { return }
    isHoldingChange = false
    if let journal = context?.journal {
      // In a transaction's body: the links re-bind when the change ends, and the handler hears
      // the change once, at the commit, from the value before the first change.
      isHoldingChange = true
      if heldOld == nil {
        heldOld = .some(current(root))
        journal.notePath(self)
      }
      return
    }
    old = current(root)
    if options.contains(.prior) {
      tell(
        RawChange(
          kind: .setting, old: options.contains(.old) ? .some(old) : nil, new: nil, indexes: nil,
          isPrior: true, origin: link.origin))
    }
  }

  /// The change a link was told of is not applied after all (it is planned again).
  private func cancelChange() {
    depth -= 1
    if depth == 0 {
      old = nil
      isHoldingChange = false
    }
  }

  private func didChange() {
    depth -= 1
    guard depth == 0, isValid, let root else { return }
    uninstall()
    install()
    if isHoldingChange {
      isHoldingChange = false
      return
    }
    let new = current(root)
    let old = self.old
    self.old = nil
    tell(
      RawChange(
        kind: .setting, old: options.contains(.old) ? .some(old) : nil,
        new: options.contains(.new) ? .some(new) : nil, indexes: nil, isPrior: false,
        origin: link.origin))
  }

  /// Hands a change to the handler, when the filter admits its origin.
  private func tell(_ change: RawChange) {
    if origins.admits(change.origin) { deliver(change) }
  }

  // MARK: Transactions

  /// The delivery held for a transaction's commit, with the value now as its new value: a call
  /// that gives the handler its prior call (when asked) and one setting change from the value
  /// before the transaction. Nil when nothing is held or the observation ended.
  func takeHeldDelivery() -> (() -> Void)? {
    guard let held = heldOld else { return nil }
    heldOld = nil
    guard isValid, let root else { return nil }
    let old = held
    let new = current(root)
    return { [self] in
      guard isValid else { return }
      if options.contains(.prior) {
        tell(
          RawChange(
            kind: .setting, old: options.contains(.old) ? .some(old) : nil, new: nil,
            indexes: nil, isPrior: true, origin: link.origin))
      }
      tell(
        RawChange(
          kind: .setting, old: options.contains(.old) ? .some(old) : nil,
          new: options.contains(.new) ? .some(new) : nil, indexes: nil, isPrior: false,
          origin: link.origin))
    }
  }

  /// Forgets the delivery held for a transaction that threw.
  func dropHeldDelivery() {
    heldOld = nil
  }
}
