import Foundation
import ObservedGraph
import Testing

@Suite("Per-object observers")
struct ObservationTests {
  @Test func typedOldAndNew() {
    let s = BookStore.scenario()
    let book = s.books[0]
    var seen: [ObservedChange<String>] = []
    let token = book.observe(\.title, options: [.old, .new]) { object, change in
      #expect(object === book)
      seen.append(change)
    }
    book.title = "The new title"
    #expect(
      seen == [
        ObservedChange(
          kind: .setting, oldValue: "The first book", newValue: "The new title", indexes: nil,
          isPrior: false)
      ])
    token.invalidate()
    book.title = "Again"
    #expect(seen.count == 1)
  }

  @Test func optionsNewOnlyOldOnlyInitialPrior() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let recorder = try ChangeRecorder(observing: [book], keys: ["title"], options: [.new])
    let old = try ChangeRecorder(observing: [book], keys: ["title"], options: [.old])
    let all = try ChangeRecorder(
      observing: [book], keys: ["title"], options: [.old, .new, .initial, .prior])
    #expect(all.take() == [#"Book#3.title setting new="The first book""#])
    book.title = "B"
    #expect(recorder.take() == [#"Book#3.title setting new="B""#])
    #expect(old.take() == [#"Book#3.title setting old="The first book""#])
    #expect(
      all.take() == [
        #"Book#3.title setting old="The first book" prior"#,
        #"Book#3.title setting old="The first book" new="B""#,
      ])
    let initialOnly = try ChangeRecorder(observing: [book], keys: ["title"], options: [.initial])
    #expect(initialOnly.take() == ["Book#3.title setting"])
  }

  @Test func optionalValuesAreSomeNil() {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    var changes: [ObservedChange<String?>] = []
    let token = writer.observe(\.note, options: [.old, .new]) { _, change in changes.append(change)
    }
    writer.note = "x"
    writer.note = nil
    #expect(changes.count == 2)
    #expect(changes[0].oldValue == .some(nil))
    #expect(changes[0].newValue == .some("x"))
    #expect(changes[1].oldValue == .some("x"))
    #expect(changes[1].newValue == .some(nil))
    var newOnly: [ObservedChange<String?>] = []
    let token2 = writer.observe(\.note, options: [.new]) { _, change in newOnly.append(change) }
    writer.note = "y"
    #expect(newOnly.first?.oldValue == nil)  // absent: not asked for
    _ = (token, token2)
  }

  @Test func equalValueNotifiesButDoesNotDirty() throws {
    let s = BookStore.scenario()
    try s.context.save()
    let book = s.books[0]
    let recorder = try ChangeRecorder(observing: [book], keys: ["title"])
    book.title = "The first book"
    #expect(recorder.take() == [#"Book#3.title setting old="The first book" new="The first book""#])
    #expect(!book.hasChanges)
    #expect(book.changedValues().isEmpty)
  }

  @Test func primitiveSettersNeverNotify() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.books[0]], keys: ["title", "category"])
    let whole = ChangeRecorder(context: s.context)
    try s.books[0].setPrimitiveValue("raw", forKey: "title")
    try s.books[0].setPrimitiveValue(s.science, forKey: "category")
    #expect(recorder.isEmpty)
    #expect(whole.isEmpty)
  }

  @Test func keyValueCodingNotifiesLikeTheSetter() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.books[0]], keys: ["price"])
    try s.books[0].setValue(11.5, forKey: "price")
    #expect(recorder.take() == ["Book#3.price setting old=10.0 new=11.5"])
  }

  @Test func registrationOrderForPriorAndAfter() {
    let s = BookStore.scenario()
    var order: [String] = []
    let first = s.books[0].observe(\.price, options: [.prior]) { _, change in
      order.append("first\(change.isPrior ? " prior" : "")")
    }
    let second = s.books[0].observe(\.price, options: [.prior]) { _, change in
      order.append("second\(change.isPrior ? " prior" : "")")
    }
    s.books[0].price = 1
    #expect(order == ["first prior", "second prior", "first", "second"])
    _ = (first, second)
  }
}

@Suite("To-many observation")
struct ToManyObservationTests {
  @Test func unorderedInsertRemoveThroughProxy() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.science], keys: ["books"])
    let extra = s.context.insert(Book.self)
    try s.science.mutableSet(forKey: "books").insert(extra)
    try s.science.mutableSet(forKey: "books").remove(s.books[2])
    #expect(
      recorder.take() == [
        "BookCategory#2.books insertion new={Book#6}",
        "BookCategory#2.books removal old={Book#5}",
      ])
  }

  @Test func inverseUpkeepNotifiesBothSidesAndTheThief() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.fiction, s.science], keys: ["books"])
    let bookRecorder = try ChangeRecorder(observing: [s.books[0]], keys: ["category"])
    s.books[0].category = s.science
    #expect(
      recorder.take() == [
        "BookCategory#1.books removal old={Book#3}",
        "BookCategory#2.books insertion new={Book#3}",
      ])
    #expect(
      bookRecorder.take() == ["Book#3.category setting old=BookCategory#1 new=BookCategory#2"])
  }

  @Test func replacingTheWholeCollectionIsASetting() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.fiction], keys: ["books"])
    try s.fiction.setValue([s.books[2]], forKey: "books")
    #expect(
      recorder.take() == ["BookCategory#1.books setting old={Book#3, Book#4} new={Book#5}"])
  }

  @Test func setAlgebraKinds() throws {
    let s = BookStore.scenario()
    let books = try s.science.mutableSet(forKey: "books")
    try books.removeAll()
    let recorder = try ChangeRecorder(observing: [s.science], keys: ["books"])
    try books.formUnion(s.books)
    try books.subtract([s.books[0]])
    try books.formIntersection([s.books[1]])
    #expect(
      recorder.take() == [
        "BookCategory#2.books insertion new={Book#3, Book#4, Book#5}",
        "BookCategory#2.books removal old={Book#3}",
        "BookCategory#2.books removal old={Book#5}",
      ])
  }

  @Test func orderedIndexes() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let p1 = s.context.insert(Page.self)
    let p2 = s.context.insert(Page.self)
    let recorder = try ChangeRecorder(
      observing: [book], keys: ["pages"], options: [.old, .new, .prior])
    let pages = try book.mutableOrderedSet(forKey: "pages")
    try pages.append(p1)
    try pages.append(p2)
    try pages.remove(at: 0)
    #expect(
      recorder.take() == [
        "Book#3.pages insertion indexes=[0] prior",
        "Book#3.pages insertion new=[Page#6] indexes=[0]",
        "Book#3.pages insertion indexes=[1] prior",
        "Book#3.pages insertion new=[Page#7] indexes=[1]",
        "Book#3.pages removal old=[Page#6] indexes=[0] prior",
        "Book#3.pages removal old=[Page#6] indexes=[0]",
      ])
  }

  @Test func typedToManyValues() {
    let s = BookStore.scenario()
    var inserted: [Set<Book>] = []
    let token = s.science.observe(\.books, options: [.new]) { _, change in
      if change.kind == .insertion, let new = change.newValue { inserted.append(new) }
    }
    s.books[0].category = s.science
    #expect(inserted == [[s.books[0]]])
    _ = token
  }

  @Test func stealingAPageNotifiesBothBooks() throws {
    let s = BookStore.scenario()
    let page = s.context.insert(Page.self)
    page.book = s.books[0]
    let recorder = try ChangeRecorder(observing: [s.books[0], s.books[1]], keys: ["pages"])
    try s.books[1].mutableOrderedSet(forKey: "pages").insert(page, at: 0)
    #expect(
      recorder.take() == [
        "Book#4.pages insertion new=[Page#6] indexes=[0]",
        "Book#3.pages removal old=[Page#6] indexes=[0]",
      ])
  }
}

@Suite("Key paths and dependent keys")
struct KeyPathObservationTests {
  @Test func throughToOneRebinds() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let recorder = try ChangeRecorder(observing: [book], keys: ["category.name"])
    s.fiction.name = "Novels"
    book.category = s.science
    s.fiction.name = "Ignored now"
    s.science.name = "Sciences"
    book.category = nil
    #expect(
      recorder.take() == [
        #"Book#3.category.name setting old="Fiction" new="Novels""#,
        #"Book#3.category.name setting old="Novels" new="Science""#,
        #"Book#3.category.name setting old="Science" new="Sciences""#,
        #"Book#3.category.name setting old="Sciences" new=nil"#,
      ])
  }

  @Test func initialWithNilLink() throws {
    let context = ObjectContext(model: BookStore.model)
    let book = context.insert(Book.self)
    let recorder = try ChangeRecorder(
      observing: [book], keys: ["category.name"], options: [.initial, .new])
    #expect(recorder.take() == ["Book#1.category.name setting new=nil"])
  }

  @Test func throughToMany() throws {
    let s = BookStore.scenario()
    let recorder = try ChangeRecorder(observing: [s.fiction], keys: ["books.price"])
    s.books[0].price = 11
    s.books[2].category = s.fiction
    s.books[2].price = 20
    s.books[1].category = nil
    #expect(
      recorder.take() == [
        "BookCategory#1.books.price setting old={10.0, 15.0} new={11.0, 15.0}",
        "BookCategory#1.books.price setting old={11.0, 15.0} new={11.0, 12.0, 15.0}",
        "BookCategory#1.books.price setting old={11.0, 12.0, 15.0} new={11.0, 15.0, 20.0}",
        "BookCategory#1.books.price setting old={11.0, 15.0, 20.0} new={11.0, 20.0}",
      ])
  }

  @Test func dependentKeys() throws {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    writer.firstName = "Frank"
    let recorder = try ChangeRecorder(observing: [writer], keys: ["fullName", "novelCount"])
    writer.lastName = "Herbert"
    let novel = context.insert(Novel.self)
    novel.writer = writer
    #expect(
      recorder.take() == [
        #"Writer#1.fullName setting old="Frank " new="Frank Herbert""#,
        "Writer#1.novelCount setting old=0 new=1",
      ])
  }

  @Test func dependentOfDependentAndCycles() throws {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    let recorder = try ChangeRecorder(observing: [writer], keys: ["label", "loopA"])
    writer.firstName = "A"
    writer.age = 3
    #expect(
      recorder.take() == [
        #"Writer#1.label setting old="  (0)" new="A  (0)""#,
        "Writer#1.loopA setting old=0 new=3",
      ])
  }

  @Test func typedComputedKeyPath() {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    var names: [String] = []
    let token = writer.observe(\.fullName, options: [.old, .new]) { _, change in
      names.append("\(change.oldValue ?? "?")->\(change.newValue ?? "?")")
    }
    writer.firstName = "Ursula"
    writer.lastName = "Le Guin"
    writer.age = 40
    #expect(names == [" ->Ursula ", "Ursula ->Ursula Le Guin"])
    _ = token
  }

  @Test func unknownKeyPathThrows() {
    let s = BookStore.scenario()
    #expect(throws: ObjectGraphError.self) {
      try s.books[0].observe(keyPath: "category.nope") { _ in }
    }
    #expect(throws: ObjectGraphError.self) {
      try s.books[0].observe(keyPath: "title.length") { _ in }
    }
  }
}

@Suite("Manual brackets and manual keys")
struct ManualNotificationTests {
  @Test func csvImportNotifiesOncePerKeyAfterAllValuesAreSet() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    var seenTitleWhenPriceArrived: String?
    let recorder = try ChangeRecorder(observing: [book], keys: ["title", "price"])
    let token = book.observe(\.price) { book, _ in seenTitleWhenPriceArrived = book.title }
    book.willChangeValue(forKey: "title")
    book.willChangeValue(forKey: "price")
    try book.setPrimitiveValue("Imported", forKey: "title")
    try book.setPrimitiveValue(42.0, forKey: "price")
    #expect(recorder.isEmpty)
    book.didChangeValue(forKey: "price")
    book.didChangeValue(forKey: "title")
    #expect(
      recorder.take() == [
        "Book#3.price setting old=10.0 new=42.0",
        #"Book#3.title setting old="The first book" new="Imported""#,
      ])
    #expect(seenTitleWhenPriceArrived == "Imported")
    #expect(Set(book.changedValues().keys) == ["title", "price", "category"])
    _ = token
  }

  @Test func nestedBracketsNotifyOnceWithOutermostValues() throws {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    let recorder = try ChangeRecorder(observing: [writer], keys: ["firstName", "fullName"])
    writer.willChangeValue(forKey: "firstName")
    try writer.setPrimitiveValue("A", forKey: "firstName")
    writer.willChangeValue(forKey: "firstName")
    try writer.setPrimitiveValue("B", forKey: "firstName")
    writer.didChangeValue(forKey: "firstName")
    #expect(recorder.isEmpty)
    writer.didChangeValue(forKey: "firstName")
    #expect(
      recorder.take() == [
        #"Writer#1.firstName setting old="" new="B""#,
        #"Writer#1.fullName setting old=" " new="B ""#,
      ])
  }

  @Test func dependentKeyOfTwoBracketedKeysNotifiesOnce() throws {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    let recorder = try ChangeRecorder(observing: [writer], keys: ["fullName"])
    writer.willChangeValue(forKey: "firstName")
    writer.willChangeValue(forKey: "lastName")
    try writer.setPrimitiveValue("Iain", forKey: "firstName")
    try writer.setPrimitiveValue("Banks", forKey: "lastName")
    writer.didChangeValue(forKey: "lastName")
    writer.didChangeValue(forKey: "firstName")
    #expect(recorder.take() == [#"Writer#1.fullName setting old=" " new="Iain Banks""#])
  }

  @Test func manualOnlyKey() throws {
    let context = ObjectContext(model: Shelf.model)
    let writer = context.insert(Writer.self)
    let recorder = try ChangeRecorder(
      observing: [writer], keys: ["nickname"], options: [.initial, .old, .new])
    #expect(recorder.take() == [#"Writer#1.nickname setting new="""#])
    writer.nickname = "silent"
    try writer.setValue("still silent", forKey: "nickname")
    #expect(recorder.isEmpty)
    #expect(writer.changedValues()["nickname"] as? String == "still silent")
    writer.willChangeValue(forKey: "nickname")
    try writer.setPrimitiveValue("loud", forKey: "nickname")
    writer.didChangeValue(forKey: "nickname")
    #expect(recorder.take() == [#"Writer#1.nickname setting old="still silent" new="loud""#])
  }

  @Test func unbalancedDidTraps() async {
    await #expect(processExitsWith: .failure) {
      let context = ObjectContext(model: Shelf.model)
      let writer = context.insert(Writer.self)
      writer.didChangeValue(forKey: "firstName")
    }
  }
}

@Suite("Re-entrancy and lifetimes")
struct ObservationLifetimeTests {
  @Test func observerMayChangeTheKeyItObserves() {
    let s = BookStore.scenario()
    let book = s.books[0]
    var calls: [String] = []
    let token = book.observe(\.title, options: [.new]) { book, change in
      calls.append(change.newValue!)
      if change.newValue == "lower" { book.title = "LOWER" }
    }
    book.title = "lower"
    #expect(calls == ["lower", "LOWER"])
    #expect(book.title == "LOWER")
    _ = token
  }

  @Test func observerMayInvalidateOthersAndAddObservers() {
    let s = BookStore.scenario()
    let book = s.books[0]
    var calls: [String] = []
    var second: ObservationToken?
    var added: ObservationToken?
    let first = book.observe(\.price) { book, _ in
      calls.append("first")
      second?.invalidate()
      if added == nil {
        added = book.observe(\.price) { _, _ in calls.append("added") }
      }
    }
    second = book.observe(\.price) { _, _ in calls.append("second") }
    book.price = 1
    #expect(calls == ["first"])
    book.price = 2
    #expect(calls == ["first", "first", "added"])
    _ = first
  }

  @Test func observerMayInvalidateItself() {
    let s = BookStore.scenario()
    var calls = 0
    var token: ObservationToken?
    token = s.books[0].observe(\.price) { _, _ in
      calls += 1
      token?.invalidate()
    }
    s.books[0].price = 1
    s.books[0].price = 2
    #expect(calls == 1)
    #expect(token?.isValid == false)
  }

  @Test func observersSeeAConsistentGraph() {
    let s = BookStore.scenario()
    var consistent: [Bool] = []
    let token = s.fiction.observe(\.books, options: [.old]) { category, change in
      consistent.append(s.books[0].category === s.science && !category.books.contains(s.books[0]))
    }
    s.books[0].category = s.science
    #expect(consistent == [true])
    _ = token
  }

  @Test func releasingTheTokenStopsDelivery() {
    let s = BookStore.scenario()
    var calls = 0
    var token: ObservationToken? = s.books[0].observe(\.price) { _, _ in calls += 1 }
    s.books[0].price = 1
    token = nil
    s.books[0].price = 2
    #expect(calls == 1)
    #expect(token == nil)
  }

  @Test func tokensDoNotKeepObjectsOrContextsAlive() throws {
    let tracker = LifetimeTracker()
    var tokens: [ObservationToken] = []
    do {
      let s = BookStore.scenario()
      tracker.track(s.context, "context")
      tracker.track(s.books[0], "book")
      tracker.track(s.fiction, "fiction")
      tokens.append(s.books[0].observe(\.title) { _, _ in })
      tokens.append(try s.books[0].observe(keyPath: "category.name") { _ in })
      tokens.append(s.context.onObjectsDidChange { _ in })
    }
    #expect(tracker.alive == [])
    for token in tokens { token.invalidate() }
  }

  @Test func resetEndsObservations() throws {
    let s = BookStore.scenario()
    var calls = 0
    let token = s.books[0].observe(\.price) { _, _ in calls += 1 }
    s.context.reset()
    #expect(throws: ObjectGraphError.self) { try s.books[0].setValue(3.0, forKey: "price") }
    #expect(calls == 0)
    _ = token
  }
}

@Suite("Generic objects and change values")
struct GenericObservationTests {
  @Test func byNameOnGenericObjects() throws {
    let context = ObjectContext(model: Inventory.model)
    let asset = try context.insertObject(forEntityName: "Asset")
    let location = try context.insertObject(forEntityName: "Location")
    let item = try context.insertObject(forEntityName: "Inventory")
    try asset.setValue("Mug", forKey: "label")
    let recorder = try ChangeRecorder(
      observing: [item], keys: ["count", "asset.label"], options: [.old, .new])
    let assetRecorder = try ChangeRecorder(observing: [asset], keys: ["inventories"])
    try item.setValue(12, forKey: "count")
    try item.setValue(asset, forKey: "asset")
    try asset.setValue("Coffee mug", forKey: "label")
    try item.setValue(location, forKey: "location")
    #expect(
      recorder.take() == [
        "Inventory#3.count setting old=0 new=12",
        #"Inventory#3.asset.label setting old=nil new="Mug""#,
        #"Inventory#3.asset.label setting old="Mug" new="Coffee mug""#,
      ])
    #expect(assetRecorder.take() == ["Asset#1.inventories insertion new={Inventory#3}"])
  }

  @Test func changeValuesAreSendableWhereTheValueIs() {
    func requireSendable<T: Sendable>(_: T.Type) {}
    requireSendable(ObservedChange<String>.self)
    requireSendable(ObservedChange<Double?>.self)
    requireSendable(ObjectsDidChange.self)
    requireSendable(ChangeRecorder.Record.self)
    let change = ObservedChange<Int>(kind: .insertion, newValue: 1, indexes: [0])
    #expect(
      change.oldValue == nil && change.newValue == 1 && change.indexes == [0] && !change.isPrior)
  }
}

@Suite("To-many manual brackets")
struct ToManyBracketTests {
  @Test func indexedInsertionAndRemoval() throws {
    let s = BookStore.scenario()
    let book = s.books[0]
    let p1 = s.context.insert(Page.self)
    let p2 = s.context.insert(Page.self)
    let recorder = try ChangeRecorder(
      observing: [book], keys: ["pages"], options: [.old, .new, .prior])
    // Primitive sets keep no inverse: the import sets both sides itself.
    book.willChange(.insertion, valuesAt: [0, 1], forKey: "pages")
    try book.setPrimitiveValue([p1, p2], forKey: "pages")
    try p1.setPrimitiveValue(book, forKey: "book")
    try p2.setPrimitiveValue(book, forKey: "book")
    book.didChange(.insertion, valuesAt: [0, 1], forKey: "pages")
    book.willChange(.removal, valuesAt: [0], forKey: "pages")
    try book.setPrimitiveValue([p2], forKey: "pages")
    try p1.setPrimitiveValue(nil, forKey: "book")
    book.didChange(.removal, valuesAt: [0], forKey: "pages")
    #expect(
      recorder.take() == [
        "Book#3.pages insertion indexes=[0, 1] prior",
        "Book#3.pages insertion new=[Page#6, Page#7] indexes=[0, 1]",
        "Book#3.pages removal old=[Page#6] indexes=[0] prior",
        "Book#3.pages removal old=[Page#6] indexes=[0]",
      ])
    #expect(book.changedValues()["pages"] as? [Page] == [p2])
  }

  @Test func unorderedObjects() throws {
    let s = BookStore.scenario()
    let extra = s.context.insert(Book.self)
    let recorder = try ChangeRecorder(observing: [s.science], keys: ["books"])
    s.science.willChange(.insertion, objects: [extra], forKey: "books")
    try s.science.setPrimitiveValue(s.science.books.union([extra]), forKey: "books")
    #expect(extra.category == nil)  // primitive: no inverse upkeep, so the import sets it
    try extra.setPrimitiveValue(s.science, forKey: "category")
    s.science.didChange(.insertion, objects: [extra], forKey: "books")
    #expect(recorder.take() == ["BookCategory#2.books insertion new={Book#6}"])
  }
}
