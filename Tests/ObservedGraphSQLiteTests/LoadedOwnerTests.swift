import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

final class BoardColumn: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "column") var cards: Set<BoardCard>
}

final class BoardCard: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "cards") var column: BoardColumn?
}

/// A load never changes a registered object's values, and the graph never disagrees with itself:
/// when another store on the file moved a card and this context loads it, a loaded to-many of
/// its old or new column that has no unsaved changes is told (its observers hear the insertion
/// or removal) and reloads on its next use; one with unsaved changes keeps them, and the card's
/// column agrees with it.
@Suite struct LoadedOwnerTests {
  static let model = try! ObjectModel(types: [BoardColumn.self, BoardCard.self])

  /// A board saved in a file, opened by two stores (two processes): `todo` holds `first`,
  /// `doing` nothing, both columns' cards loaded in the first context.
  struct Board {
    let folder: SQLiteConnectionTests.Folder
    let here: ObjectContext
    let there: ObjectContext
    let todo: BoardColumn
    let doing: BoardColumn
    let first: BoardCard

    init() throws {
      folder = try SQLiteConnectionTests.Folder()
      let url = folder.url.appendingPathComponent("Board.sqlite")
      here = PersistentContainer(store: try SQLiteStore(url: url, model: LoadedOwnerTests.model))
        .newContext()
      todo = here.insert(BoardColumn.self)
      todo.name = "To do"
      doing = here.insert(BoardColumn.self)
      doing.name = "Doing"
      first = here.insert(BoardCard.self)
      first.title = "First"
      first.column = todo
      try here.save()
      there = PersistentContainer(store: try SQLiteStore(url: url, model: LoadedOwnerTests.model))
        .newContext()
    }

    /// Has the other store add a card "Second" to "To do" and save it, then fetches the cards
    /// here; the card "Second" as loaded here.
    func secondCardAddedThere() throws -> BoardCard {
      let card = there.insert(BoardCard.self)
      card.title = "Second"
      card.column = try thereColumn("To do")
      try there.save()
      let cards = try here.fetch(FetchRequest<BoardCard>(matching: nil))
      return try #require(cards.first { $0.title == "Second" })
    }

    /// The column named `name` in the other context.
    func thereColumn(_ name: String) throws -> BoardColumn {
      try #require(
        try there.fetch(
          FetchRequest<BoardColumn>(matching: try FetchPredicate(format: "name == %@", name))
        ).first)
    }
  }

  /// What an observer of a to-many hears: kind, old and new members' titles.
  static func listen(_ column: BoardColumn, _ heard: Box) -> ObservationToken {
    column.observe(\.cards, options: [.old, .new]) { _, change in
      let old = (change.oldValue ?? []).map(\.title).sorted()
      let new = (change.newValue ?? []).map(\.title).sorted()
      heard.lines.append("\(change.kind) old=\(old) new=\(new)")
    }
  }

  final class Box {
    var lines: [String] = []
  }

  @Test func aCardMovedIntoALoadedColumnIsHeardThere() throws {
    let board = try Board()
    #expect(board.todo.cards.map(\.title) == ["First"])
    let heard = Box()
    let token = Self.listen(board.todo, heard)
    let second = try board.secondCardAddedThere()
    #expect(second.column === board.todo)
    #expect(heard.lines == [#"insertion old=[] new=["Second"]"#])
    #expect(Set(board.todo.cards.map(\.title)) == ["First", "Second"])
    #expect(!board.here.hasChanges)
    board.here._checkInvariants()
    try board.here.refresh(board.todo, mergeChanges: false)
    board.here._checkInvariants()
    _ = token
  }

  @Test func aCardMovedOutOfALoadedColumnIsHeardInBoth() throws {
    let board = try Board()
    #expect(board.doing.cards.isEmpty && board.todo.cards.count == 1)
    // The card is a fault here again (its values dropped), still a member of "To do".
    try board.here.refresh(board.first, mergeChanges: false)
    #expect(board.first.isFault)
    let (inTodo, inDoing) = (Box(), Box())
    let tokens = [Self.listen(board.todo, inTodo), Self.listen(board.doing, inDoing)]
    // The other store moves it to "Doing".
    let moved = try #require(
      try board.there.fetch(FetchRequest<BoardCard>(matching: nil)).first)
    moved.column = try board.thereColumn("Doing")
    try board.there.save()
    _ = try board.here.fetch(FetchRequest<BoardCard>(matching: nil))
    #expect(board.first.column === board.doing)
    #expect(inTodo.lines == [#"removal old=["First"] new=[]"#])
    #expect(inDoing.lines == [#"insertion old=[] new=["First"]"#])
    #expect(board.todo.cards.isEmpty && board.doing.cards.map(\.title) == ["First"])
    #expect(!board.here.hasChanges)
    board.here._checkInvariants()
    _ = tokens
  }

  @Test func aColumnWithUnsavedChangesKeepsThemAndTheCardAgrees() throws {
    let board = try Board()
    let third = board.here.insert(BoardCard.self)
    third.title = "Third"
    board.todo.cards.insert(third)  // unsaved
    let heard = Box()
    let token = Self.listen(board.todo, heard)
    let second = try board.secondCardAddedThere()
    #expect(second.column == nil, "agrees with the column, which keeps its unsaved members")
    #expect(Set(board.todo.cards.map(\.title)) == ["First", "Third"])
    #expect(heard.lines.isEmpty)
    board.here._checkInvariants()
    _ = token
  }

  @Test func aLoadedCardStaysWhereItIsWhenAnotherColumnLoadsItsRow() throws {
    let board = try Board()
    // "Doing" not loaded here yet; the card's values are.
    try board.here.refresh(board.doing, mergeChanges: false)
    #expect(board.first.column === board.todo)
    let moved = try #require(
      try board.there.fetch(FetchRequest<BoardCard>(matching: nil)).first)
    moved.column = try board.thereColumn("Doing")
    try board.there.save()
    // The row now says "Doing", but the card here keeps its values: "Doing" leaves it out.
    #expect(board.doing.cards.isEmpty)
    #expect(board.first.column === board.todo && board.todo.cards.contains(board.first))
    board.here._checkInvariants()
    // Loaded again, the card follows its row, and both columns are told.
    let (inTodo, inDoing) = (Box(), Box())
    let tokens = [Self.listen(board.todo, inTodo), Self.listen(board.doing, inDoing)]
    try board.here.refresh(board.first, mergeChanges: false)
    #expect(board.first.title == "First")
    #expect(board.first.column === board.doing)
    #expect(inTodo.lines == [#"removal old=["First"] new=[]"#])
    #expect(inDoing.lines == [#"insertion old=[] new=["First"]"#])
    #expect(board.todo.cards.isEmpty && board.doing.cards.map(\.title) == ["First"])
    #expect(!board.here.hasChanges)
    board.here._checkInvariants()
    _ = tokens
  }
}
