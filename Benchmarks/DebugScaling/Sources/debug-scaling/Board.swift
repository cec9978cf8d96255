import ObservedGraph

// A kanban board, the shape of an app's model: a board holds its columns in order, a column its
// cards in order; each side names its inverse, so the context keeps both in agreement.

/// The board: one per run.
final class Board: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "board", deleteRule: .cascade, ordered: true) var columns: [Column]
}

/// A column of the board, holding up to `BoardImport.cardsPerColumn` cards.
final class Column: ManagedObject {
  @Attribute var title: String = ""
  @Relationship(inverse: "columns") var board: Board?
  @Relationship(inverse: "column", deleteRule: .cascade, ordered: true) var cards: [Card]
}

/// One card.
final class Card: ManagedObject {
  @Attribute var title: String = ""
  @Attribute var position: Int = 0
  @Attribute var isDone: Bool = false
  @Relationship(inverse: "cards") var column: Column?
}
