import Foundation
import ObservedGraph
import Testing
import UndoLog

@Suite struct Relationships {
  @Test func toOneSetAndClear() throws {
    let context = ObjectContext(model: BookStore.model)
    let fiction = context.insert(BookCategory.self)
    let book = context.insert(Book.self)
    book.category = fiction
    #expect(fiction.books == [book])
    book.category = nil
    #expect(fiction.books.isEmpty)
    try book.setValue(fiction, forKey: "category")
    #expect(fiction.books == [book] && book.category === fiction)
    try book.setValue(nil, forKey: "category")
    #expect(fiction.books.isEmpty && book.category == nil)
    context._checkInvariants()
  }

  @Test func toOneSteals() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    book.category = s.science
    #expect(s.fiction.books == [s.books[1]])
    #expect(s.science.books == [book, s.books[2]])
    try book.setValue(s.fiction, forKey: "category")
    #expect(s.fiction.books == [book, s.books[1]])
    #expect(s.science.books == [s.books[2]])
    s.context._checkInvariants()
  }

  @Test func toManyInsertRemoveReplace() throws {
    let s = BookStore.scenario()
    let (a, b, c) = (s.books[0], s.books[1], s.books[2])
    s.science.books.insert(a)
    #expect(a.category === s.science && s.fiction.books == [b])
    s.science.books.remove(c)
    #expect(c.category == nil && s.science.books == [a])
    s.fiction.books = [a, c]
    #expect(s.fiction.books == [a, c])
    #expect(a.category === s.fiction && c.category === s.fiction && b.category == nil)
    #expect(s.science.books.isEmpty)
    try s.science.setValue([b, c], forKey: "books")
    #expect(s.science.books == [b, c] && s.fiction.books == [a])
    #expect(b.category === s.science && c.category === s.science && a.category === s.fiction)
    try s.science.setValue(nil, forKey: "books")
    #expect(s.science.books.isEmpty && b.category == nil && c.category == nil)
    try s.fiction.setValue([a, b, a], forKey: "books")
    #expect(s.fiction.books == [a, b])
    s.context._checkInvariants()
  }

  @Test func orderedInsertMoveRemove() throws {
    let context = ObjectContext(model: BookStore.model)
    let book = context.insert(Book.self)
    let p = (0..<5).map { _ in context.insert(Page.self) }
    book.pages = [p[0], p[1], p[2]]
    #expect(book.pages == [p[0], p[1], p[2]])
    #expect(p[0...2].allSatisfy { $0.book === book })
    book.pages.insert(p[3], at: 1)
    #expect(book.pages == [p[0], p[3], p[1], p[2]])
    #expect(p[3].book === book)
    book.pages.remove(at: 0)
    #expect(book.pages == [p[3], p[1], p[2]] && p[0].book == nil)
    book.pages.swapAt(0, 2)
    #expect(book.pages == [p[2], p[1], p[3]])
    p[4].book = book
    #expect(book.pages == [p[2], p[1], p[3], p[4]])
    try book.setValue([p[4], p[0]], forKey: "pages")
    #expect(book.pages == [p[4], p[0]])
    #expect(p[1].book == nil && p[2].book == nil && p[3].book == nil && p[0].book === book)
    let proxy = try book.mutableOrderedSet(forKey: "pages")
    try proxy.insert(p[2], at: 1)
    try proxy.move(from: 0, to: 2)
    #expect(book.pages == [p[2], p[0], p[4]])
    try proxy.remove(at: 1)
    #expect(book.pages == [p[2], p[4]] && p[0].book == nil)
    context._checkInvariants()
  }

  /// Many members leaving an ordered to-many in one change (merged removals, a bulk removal
  /// from the collection): the order of those that stay, the removal's indexes (ascending,
  /// positions before), both sides, and undo and redo.
  @Test func orderedRemovalOfManyMembers() throws {
    let context = ObjectContext(model: BookStore.model)
    let log = UndoLog()
    context.undoLog = log
    let book = context.insert(Book.self)
    let p = (0..<30).map { _ in context.insert(Page.self) }
    book.pages = p
    context.processPendingChanges()
    var heard: [(ChangeKind, [Int], Int)] = []
    let token = book.observe(\.pages, options: [.old, .new]) { _, change in
      heard.append((change.kind, change.indexes ?? [], (change.oldValue ?? []).count))
    }
    let kept = p.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
    let leaving = p.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)
    book.pages = kept
    context.processPendingChanges()
    #expect(book.pages == kept)
    #expect(leaving.allSatisfy { $0.book == nil } && kept.allSatisfy { $0.book === book })
    #expect(heard.count == 1)
    #expect(heard.first?.0 == .removal && heard.first?.2 == leaving.count)
    #expect(heard.first?.1 == (0..<30).filter { $0 % 3 != 1 })
    try log.undo()
    #expect(book.pages == p && p.allSatisfy { $0.book === book })
    try log.redo()
    #expect(book.pages == kept && leaving.allSatisfy { $0.book == nil })
    context._checkInvariants()
    _ = token
  }

  @Test func orderedStealing() throws {
    let context = ObjectContext(model: BookStore.model)
    let first = context.insert(Book.self)
    let second = context.insert(Book.self)
    let p = (0..<4).map { _ in context.insert(Page.self) }
    first.pages = [p[0], p[1], p[2]]
    second.pages = [p[3]]
    try second.mutableOrderedSet(forKey: "pages").insert(p[1], at: 0)
    #expect(first.pages == [p[0], p[2]])
    #expect(second.pages == [p[1], p[3]])
    #expect(p[1].book === second)
    second.pages.append(p[0])
    #expect(first.pages == [p[2]] && second.pages == [p[1], p[3], p[0]])
    p[3].book = first
    #expect(first.pages == [p[2], p[3]] && second.pages == [p[1], p[0]])
    first.pages = [p[1], p[2]]
    #expect(second.pages == [p[0]] && p[3].book == nil && p[1].book === first)
    context._checkInvariants()
  }

  @Test func manyToMany() throws {
    let context = ObjectContext(model: League.model)
    let red = context.insert(Team.self)
    let blue = context.insert(Team.self)
    let green = context.insert(Team.self)
    let pat = context.insert(Player.self)
    let lee = context.insert(Player.self)
    pat.teams = [red, blue]
    #expect(red.players == [pat] && blue.players == [pat] && green.players.isEmpty)
    try green.mutableSet(forKey: "players").formUnion([pat, lee])
    #expect(pat.teams == [red, blue, green] && lee.teams == [green])
    red.players.remove(pat)
    #expect(pat.teams == [blue, green])
    #expect(red.players.isEmpty && blue.players == [pat] && green.players == [pat, lee])
    try lee.setValue([red, blue], forKey: "teams")
    #expect(lee.teams == [red, blue] && green.players == [pat])
    #expect(red.players == [lee] && blue.players == [pat, lee])
    try context.delete(blue)
    #expect(pat.teams == [green] && lee.teams == [red])
    #expect(green.players == [pat] && red.players == [lee])
    context._checkInvariants()
  }

  @Test func oneToOneSteals() throws {
    let context = ObjectContext(model: Dynamic.passports)
    let alice = try context.make("Person", "alice")
    let bob = try context.make("Person", "bob")
    let carol = try context.make("Person", "carol")
    let p1 = try context.make("Passport", "p1")
    let p2 = try context.make("Passport", "p2")
    try alice.setValue(p1, forKey: "passport")
    #expect(try p1.one("holder") === alice)
    try bob.setValue(p1, forKey: "passport")
    #expect(try alice.one("passport") == nil)
    #expect(try p1.one("holder") === bob)
    try p2.setValue(carol, forKey: "holder")
    #expect(try carol.one("passport") === p2)
    // A new partner on both sides: bob's old passport and p2's old holder are both cleared.
    try bob.setValue(p2, forKey: "passport")
    #expect(try p1.one("holder") == nil)
    #expect(try carol.one("passport") == nil)
    #expect(try p2.one("holder") === bob && bob.one("passport") === p2)
    try p2.setValue(nil, forKey: "holder")
    #expect(try bob.one("passport") == nil)
    context._checkInvariants()
  }

  @Test func subEntitiesJoinParentRelationships() throws {
    let context = ObjectContext(model: Dynamic.vehicles)
    let garage = try context.make("Garage", "g")
    let other = try context.make("Garage", "h")
    let car = try context.make("Car", "c")
    let bike = try context.make("Bike", "b")
    try garage.setValue([car, bike], forKey: "vehicles")
    #expect(try car.one("garage") === garage && bike.one("garage") === garage)
    try bike.setValue(other, forKey: "garage")
    #expect(try garage.set("vehicles") == [car] && other.set("vehicles") == [bike])
    context._checkInvariants()
  }
}
