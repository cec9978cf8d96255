/// Records changes as ordered, comparable values, for tests: yours and ours.
///
/// Record chosen keys of chosen objects (through ordinary observers), or every change of a whole
/// context (every edit, including inverse upkeep and delete rules, and every insert and delete).
/// Each record renders as one stable line of text, so a test can compare against a golden list:
///
/// ```swift
/// let recorder = try ChangeRecorder(observing: [book], keys: ["title"])
/// book.title = "Dune"
/// #expect(recorder.take() == [#"Book#3.title setting old="" new="Dune""#])
/// #expect(recorder.take().isEmpty)   // nothing else fired
/// ```
///
/// Objects render as their identifier's short form, `Entity#n` — the spelling errors and
/// descriptions use too — where `n` is the object's key: in a context without a store, its
/// insertion order, so lines are the same on every run.
public final class ChangeRecorder {
  /// One recorded change.
  public struct Record: Equatable, Sendable, CustomStringConvertible {
    /// The object, as `Entity#n`.
    public let object: String
    /// The key (or key path) observed; `@lifecycle` for inserts and deletes.
    public let key: String
    /// The change's kind; lifecycle records are settings.
    public let kind: ChangeKind
    /// The old value rendered as text, when delivered.
    public let old: String?
    /// The new value rendered as text, when delivered.
    public let new: String?
    /// Indexes of an ordered to-many insertion or removal.
    public let indexes: [Int]?
    /// Whether this was a prior (before-the-change) call.
    public let isPrior: Bool
    /// Where the change came from (see ``ChangeOrigin``).
    public let origin: ChangeOrigin

    /// `Book#3.title setting old="a" new="b"`, with ` indexes=[0]` and ` prior` when present.
    public var description: String {
      var line = "\(object).\(key) \(kind.rawValue)"
      if let old { line += " old=\(old)" }
      if let new { line += " new=\(new)" }
      if let indexes { line += " indexes=\(indexes)" }
      if isPrior { line += " prior" }
      return line
    }

    /// ``description``, followed by ` origin=<name>` when `showingOrigin` is true.
    func line(showingOrigin: Bool) -> String {
      showingOrigin ? description + " origin=\(origin)" : description
    }
  }

  /// Whether ``lines`` (and so ``take()`` and ``mismatch(_:)``) end each line with the change's
  /// origin, ` origin=<name>`. Off by default; ``records`` always hold the origin.
  ///
  /// ```swift
  /// recorder.showsOrigins = true
  /// try context.withOrigin("import") { book.title = "Dune" }
  /// #expect(recorder.take() == [#"Book#1.title setting old="" new="Dune" origin=import"#])
  /// ```
  public var showsOrigins = false

  /// Every record so far, in order.
  public private(set) var records: [Record] = []
  private var tokens: [ObservationToken] = []

  /// Records the given keys (or key paths) of the given objects.
  ///
  /// - Parameters:
  ///   - objects: The objects to watch.
  ///   - keys: Keys or key paths, observed on each object.
  ///   - options: The observation options; `[.old, .new]` by default.
  ///   - origins: The origins of the changes recorded; all by default.
  /// - Throws: The errors of ``ManagedObject/observe(keyPath:options:origins:changeHandler:)``.
  public init(
    observing objects: [ManagedObject], keys: [String],
    options: ObservationOptions = [.old, .new], origins: OriginFilter = .all
  ) throws {
    for object in objects {
      let label = Self.label(object)
      for key in keys {
        tokens.append(
          try object.observe(keyPath: key, options: options, origins: origins) {
            [weak self] change in
            self?.append(
              label, key, change.kind, change.oldValue, change.newValue, change.indexes,
              change.isPrior, change.origin)
          })
      }
    }
  }

  /// Records every change in a context: each edit the mutation path applies (the change itself,
  /// the inverse upkeep it caused, the work of delete rules, undo and redo), with old and new
  /// values, and each insert (`@lifecycle setting new=inserted`) and delete.
  ///
  /// - Parameters:
  ///   - context: The context to watch.
  ///   - origins: The origins of the changes recorded (an insert or delete has the origin in
  ///     force when it was made); all by default.
  public init(context: ObjectContext, origins: OriginFilter = .all) {
    context.audienceWidened()  // every set is heard now: no set is quiet by an older answer
    let id = context.center.addTap(
      edit: { [weak self] object, key, change in
        guard origins.admits(change.origin) else { return }
        self?.append(
          Self.label(object), key, change.kind, change.old, change.new, change.indexes,
          change.isPrior, change.origin)
      },
      lifecycle: { [weak self, link = context.link] object, what in
        guard origins.admits(link.origin) else { return }
        self?.records.append(
          Record(
            object: Self.label(object), key: "@lifecycle", kind: .setting, old: nil, new: what,
            indexes: nil, isPrior: false, origin: link.origin))
      })
    tokens.append(ObservationToken { [link = context.link] in link.context?.center.removeTap(id) })
  }

  /// The records as lines of text.
  public var lines: [String] { records.map { $0.line(showingOrigin: showsOrigins) } }

  /// Returns the lines recorded so far and forgets them.
  ///
  /// - Returns: The lines, in order.
  public func take() -> [String] {
    defer { records.removeAll() }
    return lines
  }

  /// Whether nothing was recorded since the last ``take()``.
  public var isEmpty: Bool { records.isEmpty }

  /// nil when the recorded lines are exactly `expected`; otherwise a readable account of the
  /// difference, naming the first differing line counted from 1. Forgets the records either way.
  ///
  /// ```swift
  /// #expect(recorder.mismatch(["Book#1.title setting new=\"x\""]) == nil)
  /// ```
  /// - Parameter expected: The lines expected, in order.
  /// - Returns: nil, or text naming the first differing line.
  /// - Complexity: O(*n*) in the lines recorded and expected.
  public func mismatch(_ expected: [String]) -> String? {
    let actual = take()
    guard actual != expected else { return nil }
    let first =
      zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      ?? min(actual.count, expected.count)
    func lines(_ count: Int) -> String { count == 1 ? "1 line" : "\(count) lines" }
    return "recorded \(lines(actual.count)), expected \(expected.count); first difference at line "
      + "\(first + 1):\n  recorded: \(first < actual.count ? actual[first] : "<none>")\n  expected: "
      + "\(first < expected.count ? expected[first] : "<none>")\nall recorded:\n  "
      + actual.joined(separator: "\n  ")
  }

  /// Stops recording.
  public func stop() {
    for token in tokens { token.invalidate() }
    tokens.removeAll()
  }

  // MARK: Rendering

  private func append(
    _ object: String, _ key: String, _ kind: ChangeKind, _ old: Any??, _ new: Any??,
    _ indexes: [Int]?, _ isPrior: Bool, _ origin: ChangeOrigin
  ) {
    records.append(
      Record(
        object: object, key: key, kind: kind, old: old.map(Self.render), new: new.map(Self.render),
        indexes: indexes, isPrior: isPrior, origin: origin))
  }

  static func label(_ object: ManagedObject) -> String {
    object.objectID.description
  }

  /// Stable text for a value: strings quoted, objects as `Entity#n`, sets sorted.
  ///
  /// ```swift
  /// ChangeRecorder.render(Set(["b", "a"]))   // {"a", "b"}
  /// ```
  /// - Parameter value: Any value a change can carry.
  /// - Returns: The value's text, the same on every run.
  /// - Complexity: O(*n* log *n*) for a collection of *n* values; O(1) otherwise.
  public static func render(_ value: Any?) -> String {
    guard let value else { return "nil" }
    switch value {
    case let text as String:
      return "\"\(text)\""
    case let object as ManagedObject:
      return label(object)
    case let objects as [ManagedObject]:
      return "[" + objects.map(label).joined(separator: ", ") + "]"
    case let objects as Set<ManagedObject>:
      return "{" + objects.map(label).sorted().joined(separator: ", ") + "}"
    case let values as Set<AnyHashable>:
      return "{" + values.map { render($0.base) }.sorted().joined(separator: ", ") + "}"
    default:
      if let optional = value as? any OptionalBox {
        return render(optional.unboxed)
      }
      return ValueText.of(value)
    }
  }
}
