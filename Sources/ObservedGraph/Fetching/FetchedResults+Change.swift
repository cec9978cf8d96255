import Foundation

extension FetchedResults {
  /// What one objects-did-change event did to live results: the difference from the previous
  /// objects to the new ones, and the objects that changed where they stand.
  ///
  /// Applying ``difference`` to the objects before the event gives the objects after it, exactly:
  /// removals are at offsets of the old array, insertions at offsets of the new one, and an
  /// object that moved is a removal and an insertion associated with each other (moves are
  /// inferred with `inferringMoves()`). An object that still matches, stays where it was (among
  /// the objects that did not move) and changed — one of its own keys, or a value its
  /// predicate, sort keys or section key path reads through a relationship — is in ``updated``
  /// instead, with its offset in ``updatedOffsets``.
  ///
  /// ```swift
  /// let token = results.onChange { change in
  ///   var rows = previous
  ///   rows = rows.applying(change.difference)!          // == results.objects
  ///   for offset in change.updatedOffsets { reloadRow(offset) }
  /// }
  /// ```
  public struct Change {
    /// The removals (old offsets) and insertions (new offsets) from the previous objects to the
    /// new ones, with moves associated.
    public let difference: CollectionDifference<Result>
    /// Objects changed in place, in the order of the new objects.
    public let updated: [Result]
    /// The offsets of ``updated`` in the new objects, ascending.
    public let updatedOffsets: [Int]

    /// Whether nothing changed (never true for a change that is delivered).
    public var isEmpty: Bool { difference.isEmpty && updated.isEmpty }

    /// The objects inserted, in the order of their new offsets (moved objects included).
    ///
    /// ```swift
    /// print(change.inserted.map(\.title))
    /// ```
    /// - Complexity: O(c) for the c changes of ``difference``.
    public var inserted: [Result] {
      difference.insertions.map {
        guard case .insert(_, let element, _) = $0 else { preconditionFailure("not an insertion") }
        return element
      }
    }

    /// The objects removed, in the order of their old offsets (moved objects included).
    ///
    /// ```swift
    /// print(change.removed.map(\.title))
    /// ```
    /// - Complexity: O(c) for the c changes of ``difference``.
    public var removed: [Result] {
      difference.removals.map {
        guard case .remove(_, let element, _) = $0 else { preconditionFailure("not a removal") }
        return element
      }
    }
  }

  /// A ``Change`` with objects named by their identifiers: what ``FetchedResults/changes``
  /// yields, since objects are not `Sendable` and a stream's elements go to whatever task reads
  /// them.
  ///
  /// Applying ``difference`` to the identifiers of the objects before the change gives the
  /// identifiers of the objects after it.
  ///
  /// ```swift
  /// for await change in results.changes {
  ///   ids = ids.applying(change.difference)!
  /// }
  /// ```
  public struct IdentifiedChange: Sendable, Equatable {
    /// The removals and insertions, with moves associated, by identifier.
    public let difference: CollectionDifference<ObjectID>
    /// The objects changed in place, in the order of the new objects.
    public let updated: [ObjectID]
    /// The offsets of ``updated`` in the new objects, ascending.
    public let updatedOffsets: [Int]

    /// The change with its objects named by their identifiers.
    ///
    /// ```swift
    /// let sendable = FetchedResults<Book>.IdentifiedChange(change)
    /// ```
    /// - Parameter change: A change of live results.
    /// - Complexity: O(c) for the c changes and updates.
    public init(_ change: Change) {
      let changes = change.difference.map { step -> CollectionDifference<ObjectID>.Change in
        switch step {
        case .insert(let offset, let element, let associated):
          .insert(offset: offset, element: element.objectID, associatedWith: associated)
        case .remove(let offset, let element, let associated):
          .remove(offset: offset, element: element.objectID, associatedWith: associated)
        }
      }
      guard let difference = CollectionDifference(changes) else {
        preconditionFailure("FetchedResults: a difference does not carry over to identifiers")
      }
      self.difference = difference
      updated = change.updated.map(\.objectID)
      updatedOffsets = change.updatedOffsets
    }
  }

  /// A run of consecutive objects with equal values of the section key path.
  ///
  /// ```swift
  /// for section in results.sections {
  ///   print(section.name, section.objects.count)
  /// }
  /// ```
  public struct Section {
    /// The section's value as text: a string as it is, a number or date as Swift prints it, an
    /// object by its identifier, and `""` for nil.
    public let name: String
    /// Where the section's objects are in ``FetchedResults/objects``.
    public let range: Range<Int>
    /// The section's objects, in order.
    public let objects: ArraySlice<Result>
  }
}

extension FetchedResults.Section {
  /// The text of a section value.
  static func name(of value: FetchValue?) -> String {
    switch value {
    case nil: return ""
    case .object(let id)?: return id.description
    case .stored(let stored)?:
      switch stored {
      case .integer(let value): return String(value)
      case .double(let value): return String(value)
      case .decimal(let value): return "\(value)"
      case .string(let value): return value
      case .bool(let value): return String(value)
      case .date(let value): return value.formatted(.iso8601)
      case .data(let value): return value.base64EncodedString()
      case .uuid(let value): return value.uuidString
      case .url(let value): return value.absoluteString
      }
    }
  }
}
