import Foundation

/// A value's text for messages and recorded changes: `String(describing:)`, except for a date
/// whose interval is NaN, which Foundation cannot print (its `description` stops the program):
/// `Date(timeIntervalSinceReferenceDate: nan)`.
enum ValueText {
  static func of(_ value: Any) -> String {
    if let date = value as? Date, date.timeIntervalSinceReferenceDate.isNaN {
      return "Date(timeIntervalSinceReferenceDate: nan)"
    }
    return String(describing: value)
  }
}
