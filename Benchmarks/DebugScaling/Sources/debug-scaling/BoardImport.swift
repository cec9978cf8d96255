import ObservedGraph

/// What an app does when it imports a board: inserts cards one at a time, sets their attributes,
/// relates each to its column (the column's ordered to-many follows), ends a user event every
/// `cardsPerColumn` cards (one undo group each, in an attached undo log), and saves every
/// `cardsPerSave` cards and at the end.
struct BoardImport {
  static let cardsPerColumn = 100
  static let cardsPerSave = 1_000

  let model: ObjectModel

  init() throws {
    model = try ObjectModel(types: [Board.self, Column.self, Card.self])
  }

  /// Imports `cards` cards into a new context and returns how long the import took; the context
  /// is made before the clock starts and let go after it stops.
  func run(cards: Int) throws -> Duration {
    let context = ObjectContext(model: model)
    context.undoLog = UndoLog()
    let clock = ContinuousClock()
    let start = clock.now
    let board = context.insert(Board.self)
    board.name = "Import"
    var column: Column?
    for index in 0..<cards {
      if index % Self.cardsPerColumn == 0 {
        let next = context.insert(Column.self)
        next.title = "Column \(index / Self.cardsPerColumn + 1)"
        next.board = board
        column = next
      }
      let card = context.insert(Card.self)
      card.title = "Card \(index + 1)"
      card.position = index % Self.cardsPerColumn
      card.isDone = index % 3 == 0
      card.column = column
      if (index + 1) % Self.cardsPerColumn == 0 { context.processPendingChanges() }
      if (index + 1) % Self.cardsPerSave == 0 { try context.save() }
    }
    context.processPendingChanges()
    try context.save()
    let elapsed = clock.now - start
    let columns = (cards + Self.cardsPerColumn - 1) / Self.cardsPerColumn
    precondition(board.columns.count == columns, "the board holds \(board.columns.count) columns")
    precondition(
      board.columns.reduce(0) { $0 + $1.cards.count } == cards, "the columns lose cards")
    return elapsed
  }
}
