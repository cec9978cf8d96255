// A managed object made with an initializer instead of by a context.
// expect: error: 'init()' is unavailable: objects are made by a context: 'context.insert(<the class>.self)', or 'try context.insertObject(forEntityName:)'
import ObservedGraph

final class Book: ManagedObject {
  @Attribute var title: String = ""
}

let book = Book()
