import Foundation
import Observation
import Testing
import UndoLog

@testable import ObservedGraph

/// A relationship that is its own inverse, to-one (`spouse`) and to-many (`friends`).
final class Partner: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "spouse") var spouse: Partner?
  @Relationship(inverse: "friends") var friends: Set<Partner>

  static let model = try! ObjectModel(types: [Partner.self])
}

@Suite("Misuse never crashes or corrupts")
struct MisuseTests {
  // MARK: Objects outliving their context

  /// Every throwing path says the object's context is gone; nothing dangles.
  @Test func objectsOutlivingTheirContextThrow() throws {
    var context: ObjectContext? = ObjectContext(model: BookStore.model)
    let book = context!.insert(Book.self)
    let category = context!.insert(BookCategory.self)
    book.title = "kept"
    book.category = category
    context = nil
    #expect(book.context == nil && category.context == nil)
    #expect(book.title == "kept", "values stay readable")
    #expect(book.category == nil, "relationships were dropped")
    let attempts: [() throws -> Void] = [
      { try book.setValue("x", forKey: "title") },
      { try book.setValue(category, forKey: "category") },
      { try category.mutableSet(forKey: "books").insert(book) },
      { _ = try book.observe(keyPath: "title") { _ in } },
      { try book.setPrimitiveValue("x", forKey: "title") },
    ]
    for attempt in attempts {
      let error = #expect(throws: ObjectGraphError.self) { try attempt() }
      #expect(error?.kind == .invalidObject, "\(String(describing: error))")
      #expect(error?.description.contains("Book") == true || error?.entity == "BookCategory")
    }
    #expect(!book.observe(\.title) { _, _ in }.isValid, "a typed observation is already over")
  }

  @Test func aTypedSetAfterTheContextIsGoneStopsWithAMessage() async {
    await #expect(processExitsWith: .failure) {
      var context: ObjectContext? = ObjectContext(model: BookStore.model)
      let book = context!.insert(Book.self)
      context = nil
      book.title = "x"
    }
  }

  @Test func aBracketAfterTheContextIsGoneStopsWithAMessage() async {
    await #expect(processExitsWith: .failure) {
      var context: ObjectContext? = ObjectContext(model: BookStore.model)
      let book = context!.insert(Book.self)
      context = nil
      book.willChangeValue(forKey: "title")
    }
  }

  // MARK: Relationships that are their own inverse

  @Test func aToOneThatIsItsOwnInverse() throws {
    let context = ObjectContext(model: Partner.model)
    context.undoLog = UndoLog()
    let (a, b, c) = (
      context.insert(Partner.self), context.insert(Partner.self), context.insert(Partner.self)
    )
    context.processPendingChanges()
    a.spouse = a
    #expect(a.spouse === a)
    a.spouse = b
    #expect(a.spouse === b && b.spouse === a)
    c.spouse = b
    #expect(c.spouse === b && b.spouse === c && a.spouse == nil)
    b.spouse = b
    #expect(b.spouse === b && c.spouse == nil)
    context._checkInvariants()
    context.processPendingChanges()
    for _ in 0..<4 { try context.undoLog?.undo() }
    #expect(a.spouse == nil && b.spouse == nil && c.spouse == nil)
    for _ in 0..<4 { try context.undoLog?.redo() }
    #expect(b.spouse === b && a.spouse == nil && c.spouse == nil)
    context._checkInvariants()
  }

  @Test func aToManyThatIsItsOwnInverse() throws {
    let context = ObjectContext(model: Partner.model)
    let (a, b) = (context.insert(Partner.self), context.insert(Partner.self))
    a.friends.insert(a)
    a.friends.insert(b)
    #expect(a.friends == [a, b] && b.friends == [a])
    try a.mutableSet(forKey: "friends").remove(a)
    #expect(a.friends == [b] && b.friends == [a])
    try context.delete(b)
    #expect(a.friends.isEmpty)
    context._checkInvariants()
  }

  // MARK: Undoing an insert

  /// Undo of an insert cuts every relationship the object still has, even ones no step knows of,
  /// so no live object points at an object that left.
  @Test(arguments: ["primitive", "removedActions", "priorUndo"])
  func undoingAnInsertLeavesNoGhost(_ how: String) throws {
    let s = BookStore.scenario()
    let context = s.context
    let log = UndoLog()
    context.undoLog = log
    context.processPendingChanges()
    let page = context.insert(Page.self)
    page.text = "new"
    context.processPendingChanges()
    let book = s.books[0]
    switch how {
    case "primitive":
      // Related with primitive setters (both sides), never recorded.
      try page.setPrimitiveValue(book, forKey: "book")
      try book.setPrimitiveValue([page], forKey: "pages")
      try log.undo()
    case "removedActions":
      // Related through the path, but the step that could take it back is removed.
      book.pages = [page]
      context.processPendingChanges()
      log.removeAllActions(withTarget: book)
      #expect(log.undoCount == 1, "only the insert is left")
      try log.undo()
    default:
      // A prior observer undoes the insert while the page is about to join the book.
      var undone = false
      let token = book.observe(\.pages, options: [.prior]) { _, change in
        guard change.isPrior, !undone else { return }
        undone = true
        try? log.undo()
      }
      book.pages = [page]
      #expect(undone)
      _ = token
    }
    context._checkInvariants()
    #expect(checkUndoInverses(context) == nil)
    #expect(page.context == nil && !page.isInserted, "the insert was undone")
    #expect(!book.pages.contains(page) && page.book == nil, "nothing points at the page")
    if how != "priorUndo" {
      // Redo brings the page back; the relationship cut by the undo comes back with it.
      try log.redo()
      #expect(page.context === context)
      #expect(book.pages.contains(page) == (page.book === book))
      context._checkInvariants()
    }
  }

  // MARK: Key paths

  /// Key paths of any length are walked without recursion; empty components throw.
  @Test func longKeyPathsAndEmptyComponents() throws {
    let context = ObjectContext(model: Partner.model)
    let a = context.insert(Partner.self)
    a.name = "loop"
    a.spouse = a
    let long = Array(repeating: "spouse", count: 100_000).joined(separator: ".") + ".name"
    #expect(try a.value(forKeyPath: long) as? String == "loop")
    try a.setValue("renamed", forKeyPath: long)
    #expect(a.name == "renamed")
    var heard: [String] = []
    let token = try a.observe(keyPath: long, options: [.new]) { change in
      heard.append(change.newValue as? String ?? "?")
    }
    a.name = "again"
    #expect(heard == ["again"])
    let wrong = Array(repeating: "spouse", count: 100_000).joined(separator: ".") + ".nothing"
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try a.observe(keyPath: wrong) { _ in }
    }
    #expect(error?.kind == .unknownKey && error?.value == "nothing")
    #expect((error?.description.count ?? .max) < 3_000, "the message quotes the path shortened")
    let empty = #expect(throws: ObjectGraphError.self) { _ = try a.value(forKeyPath: "") }
    #expect(empty?.kind == .unknownKey && empty?.description == "Partner: the key path is empty")
    for bad in ["spouse..name", ".name", "name.", "spouse.name."] {
      expectGraphError(.unknownKey, entity: "Partner", key: bad, in: context) {
        _ = try a.value(forKeyPath: bad)
      }
      expectGraphError(.unknownKey, entity: "Partner", key: bad, in: context) {
        try a.setValue("x", forKeyPath: bad)
      }
      expectGraphError(.unknownKey, entity: "Partner", key: bad, in: context) {
        _ = try a.observe(keyPath: bad) { _ in }
      }
    }
    _ = token
  }

  // MARK: Leaks

  /// A released context frees every object: related by unsaved changes, deleted, undone inserts,
  /// observed, with an undo log.
  @Test func aReleasedContextFreesAllItsObjects() throws {
    var weakObjects: [WeakObject] = []
    weak var weakContext: ObjectContext?
    weak var weakLog: UndoLog?
    var tokens: [ObservationToken] = []
    do {
      let s = BookStore.scenario()
      let log = UndoLog()
      s.context.undoLog = log
      try s.context.save()
      s.books[0].category = s.science
      let page = s.context.insert(Page.self)
      s.books[1].pages = [page]
      try s.context.delete(s.books[2])
      s.context.processPendingChanges()
      let gone = s.context.insert(Page.self)
      s.context.processPendingChanges()
      try log.undo()
      tokens.append(s.books[0].observe(\.title) { _, _ in })
      tokens.append(try s.books[0].observe(keyPath: "category.name") { _ in })
      for object in s.context.registeredObjects + [gone, s.books[2]] {
        weakObjects.append(WeakObject(object))
      }
      weakContext = s.context
      weakLog = log
    }
    #expect(weakContext == nil)
    #expect(weakLog == nil)
    let alive = weakObjects.compactMap(\.object)
    #expect(alive.isEmpty, "still alive: \(alive.map(\.objectID))")
    #expect(weakObjects.count >= 8)
    _ = tokens
  }

  /// An object's Swift Observation registrar lives exactly as long as its last holder (the
  /// objects that share it, and the context's link while it takes members): each handle, which
  /// reaches it without retains, gives its hold back when its object goes away.
  @Test func aRegistrarLivesAsLongAsItsLastObject() throws {
    weak var weakBox: SwiftObservation?
    weak var weakBook: Book?
    var kept: Book?
    do {
      let s = BookStore.scenario()
      // Two objects that share a registrar: the first of two that do not was its registrar's
      // last member.
      var book = s.context.insert(Book.self)
      var other = s.context.insert(Book.self)
      if try #require(book.registrar).box.toOpaque() != #require(other.registrar).box.toOpaque() {
        book = other
        other = s.context.insert(Book.self)
      }
      let box = try #require(book.registrar).box.takeUnretainedValue()
      #expect(try #require(other.registrar).box.takeUnretainedValue() === box)
      weakBox = box
      weakBook = book
      // Reads, quiet and full sets, and an observation through the registrar leave no retain.
      withObservationTracking({ _ = book.title }, onChange: {})
      book.title = "a"
      book.title = "b"
      try book.setValue("c", forKey: "title")
      #expect(weakBox != nil)
      // The other member of the registrar outlives the context and every other object.
      kept = other
    }
    #expect(weakBook == nil)
    #expect(weakBox != nil && kept != nil)
    kept = nil
    #expect(weakBox == nil)
    let off = BookStore.scenario(participatesInSwiftObservation: false)
    #expect(off.books[0].registrar == nil)
  }

  // MARK: Brackets

  /// Brackets that close while registration is off record nothing, and leave nothing behind for
  /// a later step.
  @Test func bracketsClosedWhileRegistrationIsOffLeaveNothingBehind() throws {
    let s = BookStore.scenario()
    let log = UndoLog()
    s.context.undoLog = log
    s.context.processPendingChanges()
    let book = s.books[0]
    book.willChangeValue(forKey: "title")
    book.willChangeValue(forKey: "price")
    try book.setPrimitiveValue("imported", forKey: "title")
    book.didChangeValue(forKey: "title")  // waits for the price bracket
    log.disableRegistration()
    try book.setPrimitiveValue(99.0, forKey: "price")
    book.didChangeValue(forKey: "price")
    try log.enableRegistration()
    s.context.processPendingChanges()
    #expect(!log.canUndo)
    book.willChangeValue(forKey: "price")
    try book.setPrimitiveValue(1.0, forKey: "price")
    book.didChangeValue(forKey: "price")
    s.context.processPendingChanges()
    try log.undo()
    #expect(book.price == 99 && book.title == "imported", "only the last bracket was undone")
  }

  @Test func bracketIndexesPastTheEndStop() async {
    await #expect(processExitsWith: .failure) {
      let s = BookStore.scenario()
      let book = s.books[0]
      book.willChange(.insertion, valuesAt: [5], forKey: "pages")
      try? book.setPrimitiveValue([s.context.insert(Page.self)], forKey: "pages")
      book.didChange(.insertion, valuesAt: [5], forKey: "pages")
    }
  }
}

/// A weak reference, to check that objects are freed.
struct WeakObject {
  weak var object: ManagedObject?
  init(_ object: ManagedObject) { self.object = object }
}
