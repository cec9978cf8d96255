import Foundation
import Testing

/// `swift run bookstore`, the project's demo, run as a user runs it: its binary, built beside the
/// tests (the test target depends on the `bookstore` target).
@Suite struct BookStoreDemoTests {
  /// Two runs print the same lines: nothing depends on hashing, timing, addresses or the order in
  /// which the store hands back a batch of rows.
  @Test func twoRunsPrintTheSameLines() throws {
    let first = try BookStoreRun.run()
    let second = try BookStoreRun.run()
    #expect(first.status == 0)
    #expect(second.status == 0)
    #expect(first.standardError == "")
    #expect(first.lines.count > 100)
    expectTranscript(second.lines, first.lines.joined(separator: "\n"))
  }

  /// The lines where an undefined order or a time could show, exactly.
  @Test func keyLines() throws {
    let run = try BookStoreRun.run()
    let lines = run.lines
    #expect(lines.first == "ObservedGraph BookStore demo: ObjectModel(BookCategory, Book, Page)")
    #expect(lines.last == "Done.")
    // Step 10: the save turns two books into faults; step 11: the category's books load at once.
    expectBlock(
      lines, after: "10. Save",
      [
        "   Book will turn into a fault: A draft",
        "   Book will turn into a fault: The first book",
        "   objects in the context: 8 before, 3 after",
      ])
    expectBlock(
      lines, after: "11. Open a second context on the file; reach the books through their category",
      [
        "   the category is a fault: true",
        "   Book fetched: The second book",
        "   Book fetched: The third book",
        "   The second book: 0 pages",
        "   The third book: 0 pages",
      ])
    // Step 13: the statement of one fault, without its time.
    expectBlock(
      lines, after: "13. The SQL of one fault, with the store's trace on",
      [
        "   reading Book#5 runs:",
        "   Book fetched: The third book",
        #"   SQL: SELECT "og_pk", "og_entity", "title", "price", "category" FROM "Book" WHERE "og_pk" = ? [5]"#,
        "",
        "Done.",
      ])
    #expect(!lines.contains { $0.hasSuffix(" ms)") }, "a trace line kept its time")
  }

  /// Expects `block` right after the line `heading`.
  private func expectBlock(
    _ lines: [String], after heading: String, _ block: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard let start = lines.firstIndex(of: heading) else {
      Issue.record("no line \"\(heading)\"", sourceLocation: sourceLocation)
      return
    }
    let said = Array(lines[(start + 1)...].prefix(block.count))
    expectTranscript(said, block.joined(separator: "\n"), sourceLocation: sourceLocation)
  }
}

/// One run of the `bookstore` binary with no input and no SQL debugging.
struct BookStoreRun {
  var standardOutput: String
  var standardError: String
  var status: Int32

  /// The printed lines, without the empty one after the last newline.
  var lines: [String] {
    var lines = standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }

  /// The binary beside the test bundle (macOS) or the test executable (Linux).
  static let binary: URL? = {
    let folders = [
      Bundle(for: BookStoreMarker.self).bundleURL.deletingLastPathComponent(),
      Bundle.main.bundleURL,
      Bundle.main.executableURL?.deletingLastPathComponent(),
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
    ]
    for case let folder? in folders {
      let candidate = folder.appendingPathComponent("bookstore")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }()

  static func run() throws -> BookStoreRun {
    let binary = try #require(binary, "no bookstore binary beside the tests")
    let process = Process()
    process.executableURL = binary
    var environment = ProcessInfo.processInfo.environment
    environment["OBSERVEDGRAPH_SQL_DEBUG"] = nil
    process.environment = environment
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // Standard error is read on another thread, so that neither pipe can fill up and stall.
    let errorText = BookStoreCollected()
    let reading = DispatchGroup()
    reading.enter()
    let errorHandle = errors.fileHandleForReading
    DispatchQueue.global().async {
      errorText.set(errorHandle.readDataToEndOfFile())
      reading.leave()
    }
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    reading.wait()
    process.waitUntilExit()
    return BookStoreRun(
      standardOutput: String(decoding: printed, as: UTF8.self),
      standardError: String(decoding: errorText.get(), as: UTF8.self),
      status: process.terminationStatus)
  }
}

private final class BookStoreMarker {}

/// Bytes handed from the reading thread; the lock orders the write before the read.
private final class BookStoreCollected: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()

  func set(_ data: Data) { lock.withLock { self.data = data } }
  func get() -> Data { lock.withLock { data } }
}
