/// What a live fetch reads, worked out once from the key paths of its predicate, its sort keys and
/// its section key path: which keys of the result objects matter, and for every object met on
/// the way along a key path (a category of a book, the books of a category), which of its keys
/// matter and how to walk back from it to the result objects that reach it.
///
/// For the path `category.shelf.name` from `Book`, the result objects' key `category` matters; a
/// `BookCategory`'s `shelf` matters, walking back through `books`; a `Shelf`'s `name` matters,
/// walking back through `categories`, then `books`. A change of any link along the path is a
/// change of that link's owner, so walking back from the owner as the graph is now reaches every
/// result object whose value may have changed (the objects before the first changed link still
/// reach it).
struct FetchedResultsDependencies {
  /// One entity met along a key path, at one depth.
  struct Hop {
    /// The entity of the objects at this depth (objects of its sub-entities count too).
    let entity: EntityDescription
    /// The keys read on those objects.
    var keys: Set<String>
    /// Whether a key read on them is not in the model (a sort key answered by
    /// `value(forUndefinedKey:)`): no event names it, so any change of theirs counts.
    var readsUnmodelledKey = false
    /// The relationships from the result entity to this depth, first first; nil when one of them
    /// has no inverse, so there is no way back.
    let path: [Property]?
    /// The relationships' names, to merge hops of the same path.
    let pathNames: [String]
  }

  /// Keys of the result objects that the predicate, a sort key or the section key path reads.
  private(set) var rootKeys: Set<String> = []
  /// Whether a key read on the result objects is not in the model (a sort key answered by
  /// `value(forUndefinedKey:)`, which may derive it from any key): then every change of a result
  /// object counts.
  private(set) var readsUnmodelledRootKey = false
  /// Objects met along the key paths.
  private(set) var hops: [Hop] = []

  /// The dependencies of key paths read from objects of `entity`.
  ///
  /// Collection operators (`@count`, `@sum`, …) are skipped: `books.@sum.price` reads `books`,
  /// then `price` of each book. A key no entity on the way has ends the path.
  init(entity: EntityDescription, keyPaths: [String]) {
    for keyPath in keyPaths {
      let keys = keyPath.split(separator: ".").map(String.init).filter { !$0.hasPrefix("@") }
      var current = entity
      var path: [Property]? = []
      var names: [String] = []
      for (depth, key) in keys.enumerated() {
        let property = Self.property(key, of: current)
        if depth == 0 {
          rootKeys.insert(key)
          if property == nil { readsUnmodelledRootKey = true }
        } else {
          add(key, on: current, path: path, names: names, modelled: property != nil)
        }
        guard let property, property.isRelationship, let destination = property.destination
        else { break }
        path = property.inverse == nil ? nil : path.map { $0 + [property] }
        names.append(key)
        current = destination
      }
    }
  }

  private mutating func add(
    _ key: String, on entity: EntityDescription, path: [Property]?, names: [String],
    modelled: Bool
  ) {
    let index =
      hops.firstIndex { $0.entity === entity && $0.pathNames == names }
      ?? {
        hops.append(Hop(entity: entity, keys: [], path: path, pathNames: names))
        return hops.count - 1
      }()
    hops[index].keys.insert(key)
    if !modelled { hops[index].readsUnmodelledKey = true }
  }

  /// Whether a change of these keys of a result object may change what the results read.
  func affectsRoot(_ keys: Set<String>) -> Bool {
    readsUnmodelledRootKey || !keys.isDisjoint(with: rootKeys)
  }

  /// The property named `key` of the entity or of one of its sub-entities.
  static func property(_ key: String, of entity: EntityDescription) -> Property? {
    if let property = entity.propertiesByName[key] { return property }
    for child in entity.subentities {
      if let property = property(key, of: child) { return property }
    }
    return nil
  }

  /// The key paths a predicate reads.
  static func keyPaths(of predicate: FetchPredicate?) -> [String] {
    var paths: [String] = []
    func visit(_ expression: FetchExpression) {
      switch expression {
      case .keyPath(let path): paths.append(path)
      case .aggregate(let elements): elements.forEach(visit)
      default: break
      }
    }
    func visit(_ predicate: FetchPredicate) {
      switch predicate {
      case .constant: break
      case .comparison(let comparison):
        visit(comparison.left)
        visit(comparison.right)
      case .and(let parts), .or(let parts): parts.forEach(visit)
      case .not(let inner): visit(inner)
      }
    }
    if let predicate { visit(predicate) }
    return paths
  }

  /// The objects that reach `object` along the hop's relationships: walking back through each
  /// relationship's inverse, last relationship first. Nil when the hop has no way back.
  func origins(of object: ManagedObject, through hop: Hop) -> [ManagedObject]? {
    guard let path = hop.path else { return nil }
    var objects = [object]
    for relationship in path.reversed() {
      guard let inverse = relationship.inverse else { return nil }
      var next: [ManagedObject] = []
      var seen = Set<ObjectIdentifier>()
      for object in objects {
        let value = (try? object.value(forKey: inverse.name)) ?? nil
        let members: [ManagedObject]
        switch value {
        case let member as ManagedObject: members = [member]
        case let set as Set<ManagedObject>: members = Array(set)
        case let list as [ManagedObject]: members = list
        default: members = []
        }
        for member in members where seen.insert(ObjectIdentifier(member)).inserted {
          next.append(member)
        }
      }
      objects = next
    }
    return objects
  }
}
