/// Which change origins a listener hears: every origin (``all``, the default), only some
/// (``only(_:)``), or every origin but some (``excluding(_:)``).
///
/// Observers, key-path observers, objects-did-change subscribers, change recorders and the
/// handlers of live results take a filter when they are registered. A filter decides who is told,
/// never the state: the graph, tracking, undo and live results' objects change whoever hears.
///
/// ```swift
/// let token = book.observe(\.title, origins: .excluding([.undo, .redo])) { book, change in
///   analytics.log("edited", change.newValue!)
/// }
/// ```
public struct OriginFilter: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline enum Kind: UInt8, Sendable {
    case all, only, excluding
  }

  @usableFromInline let kind: Kind
  /// The origins ``only(_:)`` takes or ``excluding(_:)`` leaves out; empty for ``all``.
  public let origins: Set<ChangeOrigin>

  private init(_ kind: Kind, _ origins: Set<ChangeOrigin>) {
    self.kind = kind
    self.origins = origins
  }

  /// Every origin: the filter of a listener registered without one.
  public static var all: OriginFilter { OriginFilter(.all, []) }

  /// Only the changes whose origin is one of `origins`.
  ///
  /// ```swift
  /// let imports = OriginFilter.only(["import"])
  /// #expect(imports.admits("import") && !imports.admits(.local))
  /// ```
  /// - Parameter origins: The origins heard.
  /// - Returns: The filter.
  public static func only(_ origins: Set<ChangeOrigin>) -> OriginFilter {
    OriginFilter(.only, origins)
  }

  /// Every change but those whose origin is one of `origins`.
  ///
  /// ```swift
  /// let notMerged = OriginFilter.excluding([.merge])
  /// #expect(notMerged.admits(.local) && !notMerged.admits(.merge))
  /// ```
  /// - Parameter origins: The origins not heard.
  /// - Returns: The filter.
  public static func excluding(_ origins: Set<ChangeOrigin>) -> OriginFilter {
    OriginFilter(.excluding, origins)
  }

  /// Whether a change of `origin` is heard.
  ///
  /// - Parameter origin: The change's origin.
  /// - Returns: True when the filter lets it through.
  @inlinable
  public func admits(_ origin: ChangeOrigin) -> Bool {
    switch kind {
    case .all: true
    case .only: origins.contains(origin)
    case .excluding: !origins.contains(origin)
    }
  }

  /// Whether a change made of changes of `origins` is heard: one of them is.
  ///
  /// - Parameter origins: The origins of the changes.
  /// - Returns: True when the filter lets one of them through.
  public func admitsAny(of origins: Set<ChangeOrigin>) -> Bool {
    kind == .all || origins.contains { admits($0) }
  }

  /// Whether the filter lets every origin through.
  var isAll: Bool { kind == .all }

  /// `all`, `only [a, b]` or `excluding [a, b]`, names sorted.
  public var description: String {
    let names = origins.map(\.name).sorted().joined(separator: ", ")
    switch kind {
    case .all: return "all"
    case .only: return "only [\(names)]"
    case .excluding: return "excluding [\(names)]"
    }
  }
}
