/// A command the outliner cannot carry out, with a message for the user; nothing was changed.
struct OutlinerError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}
