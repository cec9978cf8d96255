/// Tells `objectID` from every other key path a `#Predicate` reads, by key path equality.
///
/// A key path holds its root type: `\Book.objectID`, what `#Predicate<Book> { $0.objectID … }`
/// reads, is not equal to `\ManagedObject.objectID`. Each class's own key path is made with the
/// class as its root (``ObjectIDKeyPathRoot``) and compared with the one read; an alias
/// (`var id: ObjectID { objectID }`) or a property of the identifier is a different key path.
enum ObjectIDKeyPath {
  /// Whether `keyPath` is ``ManagedObject/objectID`` read on its root class: `ManagedObject` or
  /// any subclass.
  static func isObjectID(_ keyPath: AnyKeyPath) -> Bool {
    let kind = type(of: keyPath)
    guard kind.valueType == ObjectID.self,
      let root = kind.rootType as? any ObjectIDKeyPathRoot.Type
    else { return false }
    return keyPath == root.objectIDKeyPath
  }
}

/// A class whose `objectID` key path can be made with the class itself as its root.
protocol ObjectIDKeyPathRoot: AnyObject {
  /// `\Self.objectID`, with the class asked as its root (a subclass inherits the conformance, and
  /// `Self` is the subclass).
  static var objectIDKeyPath: AnyKeyPath { get }
}

extension ObjectIDKeyPathRoot where Self: ManagedObject {
  static var objectIDKeyPath: AnyKeyPath { \Self.objectID }
}

extension ManagedObject: ObjectIDKeyPathRoot {}
