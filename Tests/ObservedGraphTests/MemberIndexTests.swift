import Foundation
import Testing

@testable import ObservedGraph

/// The index of an unordered to-many's members (`MemberIndex`, four bytes a member beside the
/// members array) and the collection that keeps it: every member found at its position, no
/// non-member found, through growth, removals that swap the last member in, and collections
/// loaded from a store that index themselves on first use.
@Suite struct MemberIndexTests {
  /// A context and `count` books to put in collections.
  private static func books(_ count: Int) -> (ObjectContext, [Book]) {
    let context = ObjectContext(model: BookStore.model)
    return (context, (0..<count).map { _ in context.insert(Book.self) })
  }

  /// Whether `collection` holds exactly `members`, in that order.
  private static func holds(_ collection: ObjectCollection, _ members: [Book]) -> Bool {
    collection.items.elementsEqual(members) { $0 === $1 }
  }

  /// A seeded sequence of inserts, removals (each swapping the last member into the hole),
  /// membership tests and the odd `removeAll`, on a collection that grows to about a thousand
  /// members: after every step the collection holds the reference model's members in the same
  /// order, each at its position, and its invariants hold.
  @Test func randomEditsKeepEveryPositionExact() {
    let seed = SplitMix64.seed(fallback: 0x4D45_4D42)
    print("MemberIndexTests.randomEditsKeepEveryPositionExact seed: \(seed)")
    var random = SplitMix64(seed: seed)
    let (context, pool) = Self.books(1_500)
    let collection = ObjectCollection(ordered: false)
    var model: [Book] = []
    for step in 0..<12_000 {
      let book = pool[random.below(pool.count)]
      let position = model.firstIndex { $0 === book }
      switch random.below(100) {
      case 0..<55:
        #expect(collection.contains(book) == (position != nil), "step \(step)")
        guard position == nil else { break }
        if random.chance(50) { collection.insertNew(book) } else { collection.insert(book) }
        model.append(book)
      case 55..<90:
        guard let member = random.pick(model) else { break }
        let index = model.firstIndex { $0 === member }!
        #expect(collection.remove(member) == index, "step \(step)")
        model.swapAt(index, model.count - 1)
        model.removeLast()
      case 90..<99:
        #expect(collection.index(of: book) == position, "step \(step)")
      default:
        if random.chance(10) {
          collection.removeAll()
          model.removeAll()
        }
      }
      #expect(collection.count == model.count, "step \(step)")
      if step % 50 == 0 || model.count < 20 {
        collection.checkInvariants()
        #expect(Self.holds(collection, model), "step \(step)")
      }
    }
    collection.checkInvariants()
    for (position, member) in model.enumerated() {
      #expect(collection.index(of: member) == position)
    }
    withExtendedLifetime(context) {}
  }

  /// The table doubles from 8 entries whenever one more member would fill more than three
  /// quarters of it, and keeps its size as members leave.
  @Test func growsAtThreeQuarters() {
    let (context, pool) = Self.books(5_000)
    let collection = ObjectCollection(ordered: false)
    for (count, book) in zip(1..., pool) {
      collection.insertNew(book)
      // (A lookup of the oldest book, a member, makes the index take the new one.)
      #expect(collection.contains(pool[0]))
      var capacity = 8
      while count * 4 > capacity * 3 { capacity *= 2 }
      #expect(collection.indexCapacity == capacity, "at \(count) members")
    }
    collection.checkInvariants()
    #expect(collection.indexCapacity == 8_192)
    for book in pool.prefix(4_000) { collection.remove(book) }
    collection.checkInvariants()
    #expect(collection.indexCapacity == 8_192)
    #expect(pool.allSatisfy { collection.contains($0) == (collection.index(of: $0) != nil) })
    #expect(pool.prefix(4_000).allSatisfy { !collection.contains($0) })
    #expect(pool.suffix(1_000).allSatisfy { collection.contains($0) })
    withExtendedLifetime(context) {}
  }

  /// Objects made after every member are told apart by their keys: a collection only added
  /// such objects makes no index until a lookup of an older object, which indexes every member;
  /// the members added after are indexed at the next such lookup, and removing the last member
  /// before then leaves the index as it is.
  @Test func indexIsMadeByTheFirstLookupThatNeedsIt() {
    let (context, books) = Self.books(1_200)
    let collection = ObjectCollection(ordered: false)
    for (index, book) in books.prefix(1_000).enumerated() {
      #expect(!collection.contains(book))
      #expect(collection.index(of: books[index + 1]) == nil)
      collection.insert(book)
    }
    #expect(collection.indexCapacity == 0)
    #expect(collection.contains(books[500]))
    #expect(collection.indexCapacity == 2_048)
    #expect(collection.index(of: books[999]) == 999)
    #expect(collection.indexedCount == 1_000)
    collection.checkInvariants()
    for book in books[1_000..<1_100] { collection.insertNew(book) }
    #expect(collection.indexedCount == 1_000)
    #expect(collection.remove(books[1_099]) == 1_099)
    #expect(collection.indexedCount == 1_000)
    collection.checkInvariants()
    #expect(collection.remove(books[3]) == 3)
    #expect(collection.indexedCount == 1_098)
    #expect(collection.index(of: books[1_098]) == 3)
    #expect(!collection.contains(books[1_099]))
    #expect(!collection.contains(books[1_150]))
    collection.checkInvariants()
    collection.removeAll()
    #expect(!collection.contains(books[0]))
    #expect(collection.indexCapacity == 0)
    withExtendedLifetime(context) {}
  }

  /// Removing a member moves the last one into its place; removing the last moves nothing.
  @Test func removalSwapsTheLastMemberIn() {
    let (context, books) = Self.books(5)
    let collection = ObjectCollection(ordered: false)
    for book in books { collection.insert(book) }
    #expect(collection.remove(books[1]) == 1)
    #expect(Self.holds(collection, [books[0], books[4], books[2], books[3]]))
    #expect(collection.index(of: books[4]) == 1)
    #expect(collection.index(of: books[1]) == nil)
    #expect(collection.remove(books[3]) == 3)
    #expect(Self.holds(collection, [books[0], books[4], books[2]]))
    #expect(collection.remove(books[0]) == 0)
    #expect(Self.holds(collection, [books[2], books[4]]))
    #expect(collection.index(of: books[2]) == 0)
    #expect(collection.index(of: books[4]) == 1)
    collection.checkInvariants()
    withExtendedLifetime(context) {}
  }

  /// A collection a store gave indexes its members on first use, in their order, and then
  /// edits as any other.
  @Test(arguments: [false, true])
  func loadedCollectionIndexesOnFirstUse(ordered: Bool) {
    let (context, books) = Self.books(300)
    let collection = ObjectCollection(
      loaded: Array(books.prefix(200)), ordered: ordered, registry: context.registry)
    #expect(collection.indexCapacity == 0)
    collection.checkInvariants()
    #expect(collection.contains(books[150]))
    #expect(collection.indexCapacity == (ordered ? 0 : 512))
    collection.checkInvariants()
    #expect(books.prefix(200).enumerated().allSatisfy { collection.index(of: $1) == $0 })
    #expect(books.suffix(100).allSatisfy { !collection.contains($0) })
    collection.startRetaining()
    collection.insertNew(books[250])
    #expect(collection.remove(books[10]) == 10)
    #expect(collection.index(of: books[250]) == (ordered ? 199 : 10))
    collection.checkInvariants()
    withExtendedLifetime(context) {}
  }

  /// An ordered collection keeps its order through inserts in the middle and removals, and
  /// knows its members.
  @Test func orderedCollectionKeepsOrderAndMembership() {
    let (context, books) = Self.books(40)
    let collection = ObjectCollection(ordered: true)
    var model: [Book] = []
    for (index, book) in books.enumerated() {
      let at = index % 3 == 0 ? 0 : model.count / 2
      collection.insert(book, at: at)
      model.insert(book, at: at)
    }
    for book in books where books.firstIndex(of: book)! % 4 == 1 {
      let index = model.firstIndex { $0 === book }!
      #expect(collection.remove(book) == index)
      model.remove(at: index)
    }
    collection.checkInvariants()
    #expect(Self.holds(collection, model))
    #expect(model.enumerated().allSatisfy { collection.index(of: $1) == $0 })
    #expect(books.allSatisfy { collection.contains($0) == model.contains($0) })
    withExtendedLifetime(context) {}
  }

  /// Through the public API on a category of hundreds of books: books join by the to-many
  /// proxy and by their to-one, are stolen by another category, leave, and undo puts every
  /// membership back.
  @Test func largeToManyEditsAndUndo() throws {
    let context = ObjectContext(model: BookStore.model)
    let fiction = context.insert(BookCategory.self)
    let science = context.insert(BookCategory.self)
    let books = (0..<600).map { _ in context.insert(Book.self) }
    let fictionBooks = try fiction.mutableSet(forKey: "books")
    for (index, book) in books.enumerated() {
      if index.isMultiple(of: 2) { try fictionBooks.insert(book) } else { book.category = fiction }
    }
    #expect(fiction.books.count == 600)
    let undo = UndoLog()
    context.undoLog = undo
    let scienceBooks = try science.mutableSet(forKey: "books")
    for (index, book) in books.enumerated() where index.isMultiple(of: 3) {
      try scienceBooks.insert(book)
    }
    for book in books.suffix(100) { try fictionBooks.remove(book) }
    let (fictionSet, scienceSet) = (fiction.books, science.books)
    #expect(scienceSet.count == 200)
    #expect(fictionSet.count == books.indices.filter { !$0.isMultiple(of: 3) && $0 < 500 }.count)
    #expect(
      books.allSatisfy { book in
        switch book.category {
        case fiction: fictionSet.contains(book) && !scienceSet.contains(book)
        case science: scienceSet.contains(book) && !fictionSet.contains(book)
        default: !fictionSet.contains(book) && !scienceSet.contains(book)
        }
      })
    undo.markEventBoundary()
    while undo.canUndo { try undo.undo() }
    #expect(fiction.books == Set(books))
    #expect(science.books.isEmpty)
    #expect(books.allSatisfy { $0.category === fiction })
  }
}
