/// A named fetch request kept in the model, as Core Data's fetch request templates (the seed's
/// "GreenTeams"): an entity, a predicate that may hold variables (`$color`), an order and a limit.
///
/// Give templates to the model when it is built; ask it for a request made from one with
/// ``ObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)``, which replaces the
/// variables by the values given and checks them against the entity.
///
/// ```swift
/// let model = try ObjectModel(
///   types: [Person.self, Player.self, Team.self],
///   fetchRequestTemplates: [
///     FetchRequestTemplate(
///       name: "GreenTeams", entityName: "Team",
///       predicate: try FetchPredicate(format: "uniformColor == 'Green'")),
///     FetchRequestTemplate(
///       name: "TeamsInColor", entityName: "Team",
///       predicate: try FetchPredicate(format: "uniformColor == $color"),
///       sortDescriptors: [FetchSort("name")]),
///   ])
/// let red = try model.fetchRequestFromTemplate(
///   withName: "TeamsInColor", substitutionVariables: ["color": "Red"], as: Team.self)
/// let teams = try context.fetch(red)  // [Team]
/// ```
///
/// The model checks each template when it is built: the entity must exist, and the predicate
/// (apart from its variables) and the sort keys must fit it.
public struct FetchRequestTemplate: Hashable, Sendable, CustomStringConvertible {
  /// The template's name, unique in its model.
  public var name: String
  /// The name of the entity whose objects the requests fetch.
  public var entityName: String
  /// The condition, which may name variables (`$name`); nil for every object.
  public var predicate: FetchPredicate?
  /// The order of the results, first key first.
  public var sortDescriptors: [FetchSort]
  /// The most objects a request returns; 0 for no limit.
  public var fetchLimit: Int

  /// Creates a template.
  ///
  /// ```swift
  /// FetchRequestTemplate(
  ///   name: "CheapBooks", entityName: "Book",
  ///   predicate: try FetchPredicate(format: "price < $limit"), sortDescriptors: [FetchSort("title")])
  /// ```
  /// - Parameters:
  ///   - name: The name the model knows the template by.
  ///   - entityName: The entity whose objects the requests fetch.
  ///   - predicate: The condition; its variables (`$name`) are filled in when a request is made.
  ///   - sortDescriptors: The order of the results.
  ///   - fetchLimit: The most objects a request returns; 0 for no limit.
  public init(
    name: String, entityName: String, predicate: FetchPredicate? = nil,
    sortDescriptors: [FetchSort] = [], fetchLimit: Int = 0
  ) {
    self.name = name
    self.entityName = entityName
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
    self.fetchLimit = fetchLimit
  }

  /// The names of the variables the predicate holds (without the `$`), sorted: the values
  /// ``ObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)`` needs.
  ///
  /// ```swift
  /// print(template.variableNames)  // ["color"]
  /// ```
  /// - Complexity: O(n) in the size of the predicate.
  public var variableNames: [String] {
    var names: Set<String> = []
    predicate?.collectVariables(into: &names)
    return names.sorted()
  }

  /// The name, the entity and the predicate, such as
  /// `TeamsInColor: Team where uniformColor == $color`.
  public var description: String {
    "\(name): \(entityName)" + (predicate.map { " where \($0)" } ?? "")
  }
}

extension FetchRequestTemplate: Codable {
  private enum CodingKeys: String, CodingKey {
    case name, entityName, predicate, sortDescriptors, fetchLimit
  }

  /// Writes the template, its predicate as text (its ``FetchPredicate/description``, which parses
  /// back to the same predicate, variables included).
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(template)
  /// // {"name":"TeamsInColor","entityName":"Team","predicate":"uniformColor == $color"}
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(entityName, forKey: .entityName)
    try container.encodeIfPresent(predicate?.description, forKey: .predicate)
    if !sortDescriptors.isEmpty { try container.encode(sortDescriptors, forKey: .sortDescriptors) }
    if fetchLimit != 0 { try container.encode(fetchLimit, forKey: .fetchLimit) }
  }

  /// Reads a template written by ``encode(to:)``; absent fields take the initializer's defaults.
  ///
  /// ```swift
  /// let template = try JSONDecoder().decode(FetchRequestTemplate.self, from: json)
  /// ```
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for a missing name or entity name, or a predicate that does not
  ///   parse (the error's description gives the ``PredicateSyntaxError``).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let absent = try !container.contains(.predicate) || container.decodeNil(forKey: .predicate)
    let predicate = absent ? nil : try container.decodePredicate(forKey: .predicate)
    self.init(
      name: try container.decode(String.self, forKey: .name),
      entityName: try container.decode(String.self, forKey: .entityName),
      predicate: predicate,
      sortDescriptors: try container.decodeIfPresent([FetchSort].self, forKey: .sortDescriptors)
        ?? [],
      fetchLimit: try container.decodeIfPresent(Int.self, forKey: .fetchLimit) ?? 0)
  }
}

extension FetchPredicate {
  /// Adds the names of the variables the predicate holds to `names`.
  func collectVariables(into names: inout Set<String>) {
    switch self {
    case .constant: return
    case .comparison(let comparison):
      comparison.left.collectVariables(into: &names)
      comparison.right.collectVariables(into: &names)
    case .and(let parts), .or(let parts):
      for part in parts { part.collectVariables(into: &names) }
    case .not(let inner): inner.collectVariables(into: &names)
    }
  }

  /// The comparisons of the predicate, in order.
  var comparisons: [FetchComparison] {
    switch self {
    case .constant: return []
    case .comparison(let comparison): return [comparison]
    case .and(let parts), .or(let parts): return parts.flatMap(\.comparisons)
    case .not(let inner): return inner.comparisons
    }
  }
}

extension FetchExpression {
  /// Adds the names of the variables the expression holds to `names`.
  func collectVariables(into names: inout Set<String>) {
    switch self {
    case .variable(let name): names.insert(name)
    case .aggregate(let elements):
      for element in elements { element.collectVariables(into: &names) }
    default: return
    }
  }
}
