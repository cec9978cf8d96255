import ObservedGraph

// One function per step of the demo. Each makes its change through the public API, says in a line
// or two what the library did, and prints the graph.

extension BookStore {
  /// Inserts the seeds' data: two categories, three books; the first two books are fiction.
  func insertBooks() throws {
    beginStep("Insert two categories and three books")
    let fiction = context.insert(BookCategory.self)
    fiction.name = "Fiction"
    let biography = context.insert(BookCategory.self)
    biography.name = "Biography"
    for (title, price) in [("The first book", 10.0), ("The second book", 15.0)] {
      let book = context.insert(Book.self)
      book.title = title
      book.price = price
      book.category = fiction  // the inverse follows: fiction.books now holds the book
    }
    let third = context.insert(Book.self)
    try third.setValue("The third book", forKey: "title")  // the same, by key
    try third.setValue(12, forKey: "price")  // an Int is stored as the Double 12.0
    try biography.mutableSet(forKey: "books").insert(third)  // sets third.category
    printGraph()
  }

  /// Saves: pending changes are validated and written to the SQLite file in one transaction;
  /// deleted objects leave the context.
  func save() throws {
    beginStep("Save")
    let before = context.registeredObjects.count
    try context.save()
    print("   objects in the context: \(before) before, \(context.registeredObjects.count) after")
    printPendingChanges()
  }

  /// Gives the first book two pages, through the to-one side and through the ordered list.
  func addPages() throws {
    beginStep("Add two pages to The first book")
    let book = book("The first book")
    let chapter = context.insert(Page.self)
    chapter.text = "Chapter 1"
    chapter.book = book  // appended to book.pages by inverse upkeep
    let preface = context.insert(Page.self)
    preface.text = "Preface"
    try book.mutableOrderedSet(forKey: "pages").insert(preface, at: 0)
    let texts = book.pages.map(\.text).joined(separator: ", ")
    print("   book.pages in order: \(texts); preface.book is \(preface.book?.title ?? "nil")")
    printGraph()
  }

  /// Moves the second book to Biography: Fiction loses it in the same change.
  func moveBook() throws {
    beginStep("Move The second book from Fiction to Biography")
    let book = book("The second book")
    let fiction = category("Fiction")
    let before = fiction.books.count
    book.category = category("Biography")
    print("   Fiction held \(before) books, now \(fiction.books.count): the old side was updated")
    let name = try book.value(forKeyPath: "category.name") as? String
    print("   by key path: book.value(forKeyPath: \"category.name\") is \(name ?? "nil")")
    printGraph()
  }

  /// Deletes Fiction: the nullify rule runs inside `delete`, so its book loses its category now.
  func deleteCategory() throws {
    beginStep("Delete the category Fiction (books: nullify)")
    let fiction = category("Fiction")
    try context.delete(fiction)
    print("   fiction.isDeleted: \(fiction.isDeleted); it leaves the context at the next save")
    printGraph()
  }
}
