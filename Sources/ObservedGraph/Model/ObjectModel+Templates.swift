// Fetch request templates: named requests the model keeps, looked up by name, and requests made
// from them with their variables filled in — Core Data's `fetchRequestTemplate(forName:)` and
// `fetchRequestFromTemplate(withName:substitutionVariables:)`.

extension ObjectModel {
  /// The model's fetch request templates by name.
  ///
  /// ```swift
  /// print(model.fetchRequestTemplatesByName.keys.sorted())  // ["GreenTeams", "TeamsInColor"]
  /// ```
  public var fetchRequestTemplatesByName: [String: FetchRequestTemplate] { templatesByName }

  /// The template named `name`, or nil; its predicate keeps its variables.
  ///
  /// The answer is a copy: changing it changes neither the model nor the requests made later.
  ///
  /// ```swift
  /// let template = model.fetchRequestTemplate(forName: "TeamsInColor")
  /// print(template?.variableNames ?? [])  // ["color"]
  /// ```
  /// - Parameter name: A template name.
  /// - Returns: The template.
  public func fetchRequestTemplate(forName name: String) -> FetchRequestTemplate? {
    templatesByName[name]
  }

  /// A request for generic objects made from the template named `name`, each of its variables
  /// replaced by the value given for it.
  ///
  /// Every variable of the template's predicate needs a value; values for names the predicate
  /// does not hold are ignored, as Core Data does. The values are checked against the entity: a
  /// string for a numeric attribute throws, as `validate(for:)` would after substitution. The
  /// request is a new value each time: changing it (its limit, its predicate) changes neither the
  /// template nor later requests.
  ///
  /// ```swift
  /// let request = try model.fetchRequestFromTemplate(
  ///   withName: "TeamsInColor", substitutionVariables: ["color": "Green"])
  /// print(request.predicate!)  // uniformColor == "Green"
  /// let teams = try context.fetch(request)  // [ManagedObject]
  /// ```
  /// - Parameters:
  ///   - name: The template's name.
  ///   - variables: Values by variable name (without the `$`): any ``FetchArgument``, nil (an
  ///     `Optional` that is nil) included.
  /// - Returns: A request for the template's entity with the variables replaced.
  /// - Throws: ``ObjectGraphError`` naming the template: ``ObjectGraphError/Kind/unknownTemplate``
  ///   when the model has no template of that name; ``ObjectGraphError/Kind/missingVariable``
  ///   naming the variable when one has no value; `wrongType` (or another kind of
  ///   ``FetchPredicate/validate(for:)``) naming the variable, its value and the key it meets when
  ///   a value does not fit.
  /// - Complexity: O(n) in the size of the predicate.
  public func fetchRequestFromTemplate(
    withName name: String, substitutionVariables variables: [String: any FetchArgument] = [:]
  ) throws -> FetchRequest<ManagedObject> {
    try fetchRequestFromTemplate(
      withName: name, substitutionVariables: variables, as: ManagedObject.self)
  }

  /// A request for objects of class `Result` made from the template named `name`, each of its
  /// variables replaced by the value given for it.
  ///
  /// The same as ``fetchRequestFromTemplate(withName:substitutionVariables:)``, for a template
  /// whose entity's objects are `Result`s.
  ///
  /// ```swift
  /// let red = try model.fetchRequestFromTemplate(
  ///   withName: "TeamsInColor", substitutionVariables: ["color": "Red"], as: Team.self)
  /// let teams = try context.fetch(red)  // [Team]
  /// ```
  /// - Parameters:
  ///   - name: The template's name.
  ///   - variables: Values by variable name (without the `$`).
  ///   - type: The class of the objects the request returns.
  /// - Returns: A request for the template's entity with the variables replaced.
  /// - Throws: The errors of ``fetchRequestFromTemplate(withName:substitutionVariables:)``, and
  ///   `wrongEntity` when the template's objects are not `Result`s.
  /// - Complexity: O(n) in the size of the predicate.
  public func fetchRequestFromTemplate<Result: ManagedObject>(
    withName name: String, substitutionVariables variables: [String: any FetchArgument] = [:],
    as type: Result.Type
  ) throws -> FetchRequest<Result> {
    guard let template = templatesByName[name] else {
      let known = fetchRequestTemplates.map(\.name)
      let quoted = "'\(ObjectGraphError.shorten(name))'"
      throw ObjectGraphError(
        .unknownTemplate, entity: "", value: quoted,
        reason: "the model has no fetch request template named \(quoted) (it has "
          + (known.isEmpty ? "none" : known.joined(separator: ", ")) + ")")
    }
    guard let entity = entitiesByName[template.entityName] else {
      preconditionFailure("template \(name): entity \(template.entityName) checked at build")
    }
    guard entity.objectClass is Result.Type else {
      throw ObjectGraphError(
        .wrongEntity, entity: entity.name, value: name,
        reason: "the fetch request template '\(name)' fetches \(entity.name), whose objects are "
          + "\(entity.objectClass), not \(Result.self)")
    }
    var predicate = template.predicate
    if let original = predicate {
      predicate = try Self.substitute(variables, in: original, template: template, entity: entity)
    }
    var request = FetchRequest<Result>(
      entityName: entity.name, predicate: predicate, sortDescriptors: template.sortDescriptors)
    request.fetchLimit = template.fetchLimit
    return request
  }

  /// The predicate with its variables replaced, each checked against the entity.
  private static func substitute(
    _ variables: [String: any FetchArgument], in predicate: FetchPredicate,
    template: FetchRequestTemplate, entity: EntityDescription
  ) throws -> FetchPredicate {
    let needed = template.variableNames
    if let missing = needed.first(where: { variables[$0] == nil }) {
      let all = needed.filter { variables[$0] == nil }.map { "$" + $0 }
      throw ObjectGraphError(
        .missingVariable, entity: entity.name, key: "$" + missing,
        reason: "the fetch request template '\(template.name)' needs a value for "
          + all.joined(separator: ", ") + " (\(predicate))")
    }
    var expressions: [String: FetchExpression] = [:]
    for name in needed { expressions[name] = variables[name]?.fetchExpression }
    // Each comparison that holds a variable is checked alone, so that an error names the
    // variables it got its values from.
    for comparison in predicate.comparisons {
      var names: Set<String> = []
      FetchPredicate.comparison(comparison).collectVariables(into: &names)
      guard !names.isEmpty else { continue }
      let filled = FetchPredicate.comparison(comparison).substituting(expressions: expressions)
      do {
        try filled.validate(for: entity)
      } catch let error as ObjectGraphError {
        let given = names.sorted().map { name in
          "$\(name) = \(ObjectGraphError.describe(variables[name]))"
        }
        throw ObjectGraphError(
          error.kind.code, entity: entity.name, key: error.key,
          value: given.joined(separator: ", "),
          reason: "the fetch request template '\(template.name)' got "
            + given.joined(separator: ", ") + " for \(comparison): \(error.reason)")
      }
    }
    let filled = predicate.substituting(expressions: expressions)
    try filled.validate(for: entity)
    return filled
  }

  /// Checks the templates against the model's entities and returns them by name.
  static func checkTemplates(
    _ templates: [FetchRequestTemplate], byName entities: [String: EntityDescription]
  ) throws -> [String: FetchRequestTemplate] {
    var byName: [String: FetchRequestTemplate] = [:]
    for template in templates {
      let quoted = "'\(ObjectGraphError.shorten(template.name))'"
      guard !template.name.isEmpty else {
        throw ObjectGraphError(
          .invalidName, entity: template.entityName, value: "\"\"",
          reason: "a fetch request template of \(template.entityName) has an empty name")
      }
      guard byName[template.name] == nil else {
        throw ObjectGraphError(
          .duplicateTemplate, entity: template.entityName, value: quoted,
          reason: "the model has two fetch request templates named \(quoted)")
      }
      guard let entity = entities[template.entityName] else {
        throw ObjectGraphError(
          .unknownEntity, entity: template.entityName, value: quoted,
          reason: "the fetch request template \(quoted) fetches \(template.entityName), which "
            + "the model does not have")
      }
      do {
        try template.predicate?.validate(for: entity)
        for sort in template.sortDescriptors {
          try FetchPredicate.comparison(
            FetchComparison(.keyPath(sort.keyPath), .equal, .constant(nil))
          ).validate(for: entity)
        }
      } catch let error as ObjectGraphError {
        throw ObjectGraphError(
          error.kind.code, entity: error.entity, key: error.key, value: error.value,
          reason: "the fetch request template \(quoted): \(error.reason)")
      }
      byName[template.name] = template
    }
    return byName
  }
}

extension ObjectModel: Codable {
  private enum CodingKeys: String, CodingKey {
    case entities, fetchRequestTemplates
  }

  /// Writes the model as JSON-ready data: its entities (as ``EntityDescription`` writes them) and,
  /// when it has any, its fetch request templates.
  ///
  /// ```swift
  /// let json = try JSONEncoder().encode(model)
  /// // {"entities": [...], "fetchRequestTemplates": [{"name": "GreenTeams", ...}]}
  /// ```
  /// - Parameter encoder: The encoder.
  /// - Throws: What the entities' encoding throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(entities, forKey: .entities)
    if !fetchRequestTemplates.isEmpty {
      try container.encode(fetchRequestTemplates, forKey: .fetchRequestTemplates)
    }
  }

  /// Reads and builds a model written by ``encode(to:)``, or from a bare array of entities (the
  /// form `[EntityDescription]` writes). Its entities describe generic objects.
  ///
  /// ```swift
  /// let model = try JSONDecoder().decode(ObjectModel.self, from: json)
  /// ```
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` for a missing or malformed field; the errors of
  ///   ``init(entities:fetchRequestTemplates:version:)`` for a model that does not hold together.
  public convenience init(from decoder: any Decoder) throws {
    if (try? decoder.unkeyedContainer()) != nil {
      try self.init(entities: try [EntityDescription](from: decoder), fetchRequestTemplates: [])
      return
    }
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      entities: try container.decode([EntityDescription].self, forKey: .entities),
      fetchRequestTemplates: try container.decodeIfPresent(
        [FetchRequestTemplate].self, forKey: .fetchRequestTemplates) ?? [])
  }
}
