/// A note's address in the printed outline: its position among its siblings, from 1, at each
/// level, written `1.2.1`. The empty path is the top level itself.
struct NotePath: Equatable, CustomStringConvertible {
  var positions: [Int]

  /// Reads `1.2.1`; nil when a part is not a whole number from 1.
  init?(_ text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    var positions: [Int] = []
    for part in parts {
      guard part.allSatisfy({ $0.isASCII && $0.isNumber }), let position = Int(part), position >= 1
      else { return nil }
      positions.append(position)
    }
    guard !positions.isEmpty else { return nil }
    self.positions = positions
  }

  init(positions: [Int]) { self.positions = positions }

  var description: String { positions.map(String.init).joined(separator: ".") }

  /// The path of the note's parent; the empty path for a note at the top level.
  var parent: NotePath { NotePath(positions: Array(positions.dropLast())) }

  /// The path of the child at `position` (from 1).
  func appending(_ position: Int) -> NotePath { NotePath(positions: positions + [position]) }
}
