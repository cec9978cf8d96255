import Testing

/// Compares the lines an example said with the transcript it should say, exactly, and records
/// the first line that differs (with its number) rather than two whole transcripts.
func expectTranscript(
  _ lines: [String], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  let wanted = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  for (index, (line, want)) in zip(lines, wanted).enumerated() where line != want {
    Issue.record(
      "line \(index + 1) differs:\n  said:     \(line)\n  expected: \(want)",
      sourceLocation: sourceLocation)
    return
  }
  if lines.count != wanted.count {
    let extra = lines.count > wanted.count ? lines[wanted.count] : wanted[lines.count]
    Issue.record(
      "said \(lines.count) lines, expected \(wanted.count); first unmatched: \(extra)",
      sourceLocation: sourceLocation)
  }
}

/// Collects what an example says.
final class Lines {
  private(set) var all: [String] = []
  func say(_ line: String) { all.append(line) }
}
