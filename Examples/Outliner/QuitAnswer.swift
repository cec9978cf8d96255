import Foundation

/// The answer to "save the changes before quitting?" on a terminal.
enum QuitAnswer: Equatable {
  case save
  case discard
  /// Back to the prompt: the outline stays open with its changes.
  case cancel

  /// Reads an answer: `s` or `save`, `d` or `discard`, `c`, `cancel` or an empty line, in any
  /// case; nil for anything else (the question is asked again).
  init?(_ line: String) {
    switch line.trimmingCharacters(in: .whitespaces).lowercased() {
    case "s", "save": self = .save
    case "d", "discard": self = .discard
    case "", "c", "cancel": self = .cancel
    default: return nil
    }
  }
}
