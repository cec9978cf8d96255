import Foundation
import Testing
import UndoLog

@testable import ObservedGraph

/// Observers that change the graph while undo or redo replays a group: what they do is an
/// ordinary change (recorded into the group being built, so on the redo stack while undoing), the
/// steps replayed after it are planned against the graph as the observer left it, and the graph
/// stays consistent through the undo, the redo and a second undo.
///
/// Each row of the table runs one observer action, once, in the middle of an undo (or of a redo)
/// of the same group of a book store, and asserts the exact graph after the undo, after the redo
/// and after a second undo, with the invariant checks after each.
@Suite("Observers that change the graph during undo and redo")
struct ReplayObserverTests {
  /// Three categories, three books, four pages. The setup is not undoable; the one undoable
  /// group (the edit) renames `b1`, moves it from fiction to science, moves its page `c` to the
  /// front, deletes `b3` (nothing observes it then: a quiet delete, recorded as one column) and
  /// renames `b2` last, so the rename of `b2` is undone first and redone last.
  final class World {
    let context = ObjectContext(model: BookStore.model)
    let log = UndoLog()
    let fiction: BookCategory
    let science: BookCategory
    let history: BookCategory
    let b1: Book
    let b2: Book
    let b3: Book
    let pages: [Page]
    /// The page an observer inserts, once it has.
    var inserted: Page?
    private var names: [ObjectIdentifier: String] = [:]

    init() {
      let context = self.context
      context.undoLog = log
      func category(_ name: String) -> BookCategory {
        let category = context.insert(BookCategory.self)
        category.name = name
        return category
      }
      (fiction, science, history) = (category("F"), category("S"), category("H"))
      func book(_ title: String, _ category: BookCategory) -> Book {
        let book = context.insert(Book.self)
        book.title = title
        book.category = category
        return book
      }
      (b1, b2, b3) = (book("one", fiction), book("two", science), book("three", history))
      pages = (0..<4).map { _ in context.insert(Page.self) }
      b1.pages = Array(pages[0..<3])
      b2.pages = [pages[3]]
      for (index, page) in pages.enumerated() { page.text = ["a", "b", "c", "d"][index] }
      context.processPendingChanges()
      log.removeAllActions()
      for (object, name) in [
        (fiction, "F"), (science, "S"), (history, "H"), (b1, "b1"), (b2, "b2"), (b3, "b3"),
      ] as [(ManagedObject, String)] {
        names[ObjectIdentifier(object)] = name
      }
      for page in pages { names[ObjectIdentifier(page)] = page.text }
    }

    /// The one undoable group.
    func edit() throws {
      b1.title = "ONE"
      b1.category = science
      b1.pages = [pages[2], pages[0], pages[1]]
      try context.delete(b3)
      b2.title = "TWO"
      context.processPendingChanges()
    }

    func note(_ page: Page) {
      inserted = page
      names[ObjectIdentifier(page)] = page.text
    }

    /// Every object and both sides of every relationship, in one line: categories with their
    /// books, books with title, category and pages in order, pages with their book.
    var state: String {
      func name(_ object: ManagedObject?) -> String {
        object.map { names[ObjectIdentifier($0)] ?? "?" } ?? "-"
      }
      let categories = [fiction, science, history].map { category in
        category.isDeleted
          ? "\(category.name) deleted"
          : "\(category.name){\(category.books.map(name).sorted().joined(separator: " "))}"
      }
      var parts = [categories.joined(separator: " ")]
      for book in [b1, b2, b3] {
        parts.append(
          book.isDeleted
            ? "\(name(book)) \(book.title) deleted"
            : "\(name(book)) \(book.title) \(name(book.category)) "
              + "[\(book.pages.map(name).joined(separator: " "))]")
      }
      let pageStates = (pages + (inserted.map { [$0] } ?? [])).map { page in
        let place =
          page.context == nil ? "gone" : page.isDeleted ? "deleted" : name(page.book)
        return "\(name(page)):\(place)"
      }
      parts.append(pageStates.joined(separator: " "))
      return parts.joined(separator: " | ")
    }

    func check() {
      context._checkInvariants()
      #expect(checkUndoInverses(context) == nil, "\(checkUndoInverses(context) ?? "")")
    }
  }

  /// The state before the edit, and after it.
  static let setup =
    "F{b1} S{b2} H{b3} | b1 one F [a b c] | b2 two S [d] | b3 three H [] | a:b1 b:b1 c:b1 d:b2"
  static let edited =
    "F{} S{b1 b2} H{} | b1 ONE S [c a b] | b2 TWO S [d] | b3 three deleted | a:b1 b:b1 c:b1 d:b2"

  enum Phase: String, Sendable {
    /// The observer acts while undo replays the edit: on the rename of `b2`, its first step.
    case undo
    /// The observer acts while redo replays it: on the rename of `b1`, its first step.
    case redo
  }

  enum Action: String, Sendable {
    case deleteFiction = "delete fiction"
    case deleteScience = "delete science"
    case deleteHistory = "delete history"
    case deleteB1 = "delete b1 (its pages cascade)"
    case moveB1ToHistory = "move b1 to history (a steal)"
    case takePageD = "take page d from b2 into b1 (a steal)"
    case clearPages = "clear b1's pages"
    case insertPage = "insert page n and add it to b1"
    case setTitle = "set a title the replay restores"
    case movePages = "move b1's pages (ordered)"
    case undo = "call undo"
  }

  struct Row: Sendable, CustomTestStringConvertible {
    let phase: Phase
    let action: Action
    let afterUndo: String
    let afterRedo: String
    let afterSecondUndo: String

    var testDescription: String { "\(action.rawValue) during \(phase.rawValue)" }

    /// A row whose observer acts during the undo: the redo takes back what the undo did,
    /// observer included, and the second undo does it again.
    static func undo(_ action: Action, _ afterUndo: String, redone: String = edited) -> Row {
      Row(
        phase: .undo, action: action, afterUndo: afterUndo, afterRedo: redone,
        afterSecondUndo: afterUndo)
    }

    /// A row whose observer acts during the redo: the undo before it is a plain one, and the
    /// second undo takes back what the redo did, observer included.
    static func redo(_ action: Action, _ afterRedo: String, undone: String = setup) -> Row {
      Row(
        phase: .redo, action: action, afterUndo: setup, afterRedo: afterRedo,
        afterSecondUndo: undone)
    }
  }

  static let rows: [Row] = [
    // Undo: the rename of b2 is taken back, the observer acts, then the delete of b3, the move of
    // page c, the move of b1 and the rename of b1 are taken back.
    .undo(
      .deleteFiction,
      // b1 cannot go back into the deleted category: it leaves science and stays without one.
      "F deleted S{b2} H{b3} | b1 one - [a b c] | b2 two S [d] | b3 three H [] | a:b1 b:b1 c:b1 d:b2"
    ),
    .undo(
      .deleteHistory,
      // b3 comes back, but not into the deleted category (the quiet column takes the path).
      "F{b1} S{b2} H deleted | b1 one F [a b c] | b2 two S [d] | b3 three - [] | a:b1 b:b1 c:b1 d:b2"
    ),
    .undo(
      .deleteB1,
      // Nothing relates the deleted book again; its title is still taken back.
      "F{} S{b2} H{b3} | b1 one deleted | b2 two S [d] | b3 three H [] "
        + "| a:deleted b:deleted c:deleted d:b2"),
    .undo(
      .moveB1ToHistory,
      // Taking the move back puts b1 into fiction and takes it out of history, where it was.
      setup),
    .undo(
      .takePageD,
      // Page c goes back to index 2 among the pages b1 has now.
      "F{b1} S{b2} H{b3} | b1 one F [a b c d] | b2 two S [] | b3 three H [] | a:b1 b:b1 c:b1 d:b1"
    ),
    .undo(
      .clearPages,
      // Only the replayed insertion of c comes back, at the only index there is; c points back.
      "F{b1} S{b2} H{b3} | b1 one F [c] | b2 two S [d] | b3 three H [] | a:- b:- c:b1 d:b2"),
    .undo(
      .insertPage,
      "F{b1} S{b2} H{b3} | b1 one F [a b c n] | b2 two S [d] | b3 three H [] "
        + "| a:b1 b:b1 c:b1 d:b2 n:b1",
      redone: edited + " n:gone"),
    .undo(.setTitle, setup),
    .undo(
      .movePages,
      "F{b1} S{b2} H{b3} | b1 one F [b a c] | b2 two S [d] | b3 three H [] | a:b1 b:b1 c:b1 d:b2"
    ),
    .undo(.undo, setup),
    // Redo: the rename of b1 is redone, the observer acts, then the move of b1, the move of page
    // c, the delete of b3 and the rename of b2 are redone.
    .redo(
      .deleteScience,
      "F{} S deleted H{} | b1 ONE - [c a b] | b2 TWO - [d] | b3 three deleted | a:b1 b:b1 c:b1 d:b2"
    ),
    .redo(
      .deleteB1,
      "F{} S{b2} H{} | b1 ONE deleted | b2 TWO S [d] | b3 three deleted "
        + "| a:deleted b:deleted c:deleted d:b2"),
    .redo(.moveB1ToHistory, edited),
    .redo(
      .takePageD,
      "F{} S{b1 b2} H{} | b1 ONE S [c a b d] | b2 TWO S [] | b3 three deleted | a:b1 b:b1 c:b1 d:b1"
    ),
    .redo(
      .clearPages,
      "F{} S{b1 b2} H{} | b1 ONE S [c] | b2 TWO S [d] | b3 three deleted | a:- b:- c:b1 d:b2"),
    .redo(
      .insertPage,
      "F{} S{b1 b2} H{} | b1 ONE S [c a b n] | b2 TWO S [d] | b3 three deleted "
        + "| a:b1 b:b1 c:b1 d:b2 n:b1",
      undone: setup + " n:gone"),
    .redo(.setTitle, edited),
    .redo(
      .movePages,
      "F{} S{b1 b2} H{} | b1 ONE S [c b a] | b2 TWO S [d] | b3 three deleted | a:b1 b:b1 c:b1 d:b2"
    ),
    .redo(.undo, edited),
  ]

  /// What the observer does.
  static func perform(_ action: Action, _ phase: Phase, in world: World) -> (any Error)? {
    let (pa, pb, pc, pd) = (world.pages[0], world.pages[1], world.pages[2], world.pages[3])
    do {
      switch action {
      case .deleteFiction: try world.context.delete(world.fiction)
      case .deleteScience: try world.context.delete(world.science)
      case .deleteHistory: try world.context.delete(world.history)
      case .deleteB1: try world.context.delete(world.b1)
      case .moveB1ToHistory: world.b1.category = world.history
      case .takePageD: world.b1.pages.append(pd)
      case .clearPages: world.b1.pages = []
      case .insertPage:
        let page = world.context.insert(Page.self)
        page.text = "n"
        world.note(page)
        world.b1.pages.append(page)
      case .setTitle:
        // The rename the rest of the replay takes back (undo) or does again (redo).
        if phase == .undo { world.b1.title = "observer" } else { world.b2.title = "observer" }
      case .movePages: world.b1.pages = [pb, pc, pa]
      case .undo: try world.log.undo()
      }
    } catch {
      return error
    }
    return nil
  }

  @Test(arguments: rows)
  func anObserverChangesTheGraphDuringAReplay(_ row: Row) throws {
    let world = World()
    #expect(world.state == Self.setup)
    try world.edit()
    #expect(world.state == Self.edited)
    var armed = true
    var thrown: (any Error)?
    func react(_ phase: Phase) {
      guard armed, phase == .undo ? world.log.isUndoing : world.log.isRedoing else { return }
      armed = false
      thrown = Self.perform(row.action, phase, in: world)
    }
    var token: ObservationToken?
    if row.phase == .undo {
      token = world.b2.observe(\.title) { _, _ in react(.undo) }
    }
    try world.log.undo()
    #expect(world.state == row.afterUndo)
    world.check()
    if row.phase == .redo {
      token = world.b1.observe(\.title) { _, _ in react(.redo) }
    }
    try world.log.redo()
    #expect(world.state == row.afterRedo)
    world.check()
    #expect(!armed, "the observer acted")
    try world.log.undo()
    #expect(world.state == row.afterSecondUndo)
    world.check()
    if row.action == .undo {
      // Undo from inside an undo or a redo is refused, and changes nothing.
      #expect(thrown as? UndoLogError == .undoInProgress, "\(String(describing: thrown))")
    } else {
      #expect(thrown == nil, "\(String(describing: thrown))")
    }
    _ = token
  }

  /// The indexes observers hear for a replayed insertion into an ordered relationship are within
  /// the relationship as it is: the step recorded page c at index 2, but an observer emptied the
  /// pages meanwhile, so c goes back at index 0 and is heard there.
  @Test func aReplayedInsertionIsHeardWhereItLands() throws {
    let world = World()
    try world.edit()
    var cleared = false
    let clearing = world.b2.observe(\.title) { _, _ in
      guard !cleared, world.log.isUndoing else { return }
      cleared = true
      world.b1.pages = []
    }
    var heard: [String] = []
    let hearing = world.b1.observe(\.pages, options: [.new]) { _, change in
      guard cleared, change.kind == .insertion else { return }
      heard.append("\((change.newValue ?? []).map(\.text)) at \(change.indexes ?? [])")
    }
    try world.log.undo()
    #expect(heard == ["[\"c\"] at [0]"])
    #expect(world.b1.pages.map(\.text) == ["c"])
    world.check()
    _ = (clearing, hearing)
  }

  /// One-to-one: an observer gives a pet to a third owner while undo replays; the replayed set
  /// that gives the pet back to its owner takes it from the third owner, as a user's set does.
  @Test func aOneToOneTakenByAThirdOwnerDuringUndo() throws {
    let context = ObjectContext(model: Lab.model)
    let log = UndoLog()
    context.undoLog = log
    let owners = (0..<3).map { _ in context.insert(LabOwner.self) }
    let pets = (0..<2).map { _ in context.insert(LabPet.self) }
    owners[0].pet = pets[0]
    owners[1].pet = pets[1]
    context.processPendingChanges()
    log.removeAllActions()
    owners[0].pet = pets[1]  // takes pets[1] from owners[1]; pets[0] is left without an owner
    owners[2].name = "renamed"
    context.processPendingChanges()
    func state() -> String {
      let names = Dictionary(
        uniqueKeysWithValues: (owners.enumerated().map { (ObjectIdentifier($1), "o\($0)") })
          + pets.enumerated().map { (ObjectIdentifier($1), "p\($0)") })
      func name(_ object: ManagedObject?) -> String {
        object.map { names[ObjectIdentifier($0)]! } ?? "-"
      }
      return owners.map { "\(name($0)):\(name($0.pet))" }.joined(separator: " ") + " | "
        + pets.map { "\(name($0)):\(name($0.owner))" }.joined(separator: " ") + " | "
        + owners[2].name
    }
    #expect(state() == "o0:p1 o1:- o2:- | p0:- p1:o0 | renamed")
    var armed = true
    let token = owners[2].observe(\.name) { _, _ in
      guard armed, log.isUndoing else { return }
      armed = false
      owners[2].pet = pets[0]  // before the replay gives pets[0] back to owners[0]
    }
    let undone = "o0:p0 o1:p1 o2:- | p0:o0 p1:o1 | "
    try log.undo()
    #expect(state() == undone)
    context._checkInvariants()
    #expect(checkUndoInverses(context) == nil)
    try log.redo()
    #expect(state() == "o0:p1 o1:- o2:- | p0:- p1:o0 | renamed")
    context._checkInvariants()
    try log.undo()
    #expect(state() == undone)
    context._checkInvariants()
    #expect(checkUndoInverses(context) == nil)
    #expect(!armed)
    _ = token
  }

  /// Many-to-many: an observer deletes a tag while undo replays; the replayed step that would
  /// put the tag back on its item changes neither side.
  @Test func aManyToManyPartnerDeletedDuringUndo() throws {
    let context = ObjectContext(model: Lab.model)
    let log = UndoLog()
    context.undoLog = log
    let item = context.insert(LabItem.self)
    let (kept, deleted) = (context.insert(LabTag.self), context.insert(LabTag.self))
    item.tags = [kept, deleted]
    context.processPendingChanges()
    log.removeAllActions()
    item.tags = [kept]
    item.name = "renamed"
    context.processPendingChanges()
    var armed = true
    let token = item.observe(\.name) { _, _ in
      guard armed, log.isUndoing else { return }
      armed = false
      try? context.delete(deleted)
    }
    func check(deletedTag: Bool) {
      #expect(item.tags == [kept] && kept.items == [item])
      #expect(deleted.isDeleted == deletedTag && deleted.items.isEmpty)
      context._checkInvariants()
      #expect(checkUndoInverses(context) == nil)
    }
    try log.undo()
    check(deletedTag: true)
    #expect(item.name == "")
    try log.redo()
    check(deletedTag: false)
    #expect(item.name == "renamed")
    try log.undo()
    check(deletedTag: true)
    #expect(!armed)
    _ = token
  }
}
