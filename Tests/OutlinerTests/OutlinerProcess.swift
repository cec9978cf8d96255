import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `outliner` binary, run as a user would pipe a script into it.
///
/// The test target depends on the `outliner` target, so building the tests builds the binary into
/// the same folder as the test bundle (`.build/debug/outliner`, or the sanitizer build's own
/// folder); `OUTLINER_BINARY` names another binary.
struct OutlinerProcess {
  /// What one run printed, and how it ended.
  struct Output: Equatable {
    var standardOutput: String
    var standardError: String
    var status: Int32
  }

  /// The binary's location, or nil when no candidate folder holds it.
  static let binary: URL? = {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["OUTLINER_BINARY"] { return URL(fileURLWithPath: path) }
    let folders = [
      // macOS: the .xctest bundle sits in the build folder.
      Bundle(for: BundleMarker.self).bundleURL.deletingLastPathComponent(),
      // Linux: the test executable itself sits in the build folder.
      Bundle.main.bundleURL,
      Bundle.main.executableURL?.deletingLastPathComponent(),
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
    ]
    for case let folder? in folders {
      let candidate = folder.appendingPathComponent("outliner")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }()

  /// Runs `outliner` with `arguments`, writes `script` to its standard input and closes it, and
  /// returns all it printed once it exits.
  ///
  /// A run still going after five minutes (a hang, never a matter of speed) is terminated, and its
  /// status shows it.
  static func run(_ script: String, arguments: [String]) throws -> Output {
    let binary = try #require(
      binary, "no outliner binary beside the tests: build with --build-tests")
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // The watchdog ends as soon as the run does, so it keeps nothing alive.
    let guardian = Hang(process)
    let finished = DispatchSemaphore(value: 0)
    let watchdog = Thread {
      if finished.wait(timeout: .now() + 300) == .timedOut { guardian.terminate() }
    }
    watchdog.start()
    defer { finished.signal() }
    // Standard error is read on another thread, so that neither pipe can fill up and stall.
    let errorText = Collected()
    let reading = DispatchGroup()
    reading.enter()
    let errorHandle = errors.fileHandleForReading
    DispatchQueue.global().async {
      errorText.set(errorHandle.readDataToEndOfFile())
      reading.leave()
    }
    // A binary that stops early (a file it cannot open) leaves the rest of the script unread:
    // the write then fails with a broken pipe, which is not the test's concern.
    _ = ignoresBrokenPipes
    try? input.fileHandleForWriting.write(contentsOf: Data(script.utf8))
    try input.fileHandleForWriting.close()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    reading.wait()
    process.waitUntilExit()
    return Output(
      standardOutput: String(decoding: printed, as: UTF8.self),
      standardError: String(decoding: errorText.get(), as: UTF8.self),
      status: process.terminationStatus)
  }

  /// A write to a pipe nobody reads fails instead of stopping the test process with SIGPIPE.
  private static let ignoresBrokenPipes: Void = {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      signal(SIGPIPE, SIG_IGN)
    #endif
  }()

  /// Runs `outliner FILE` with `script` on standard input.
  static func run(_ script: String, file: URL) throws -> Output {
    try run(script, arguments: [file.path])
  }
}

private final class BundleMarker {}

/// Bytes handed from the reading thread; the lock orders the write before the read.
private final class Collected: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()

  func set(_ data: Data) { lock.withLock { self.data = data } }
  func get() -> Data { lock.withLock { data } }
}

/// Terminates a process that is still running; `Process` is not `Sendable`, and this is its only
/// use on another thread.
private final class Hang: @unchecked Sendable {
  private let process: Process

  init(_ process: Process) { self.process = process }

  func terminate() { if process.isRunning { process.terminate() } }
}

/// A temporary folder for the outline's file, removed when the test ends.
struct TemporaryFolder: ~Copyable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("outliner-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// A file in the folder.
  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  deinit { try? FileManager.default.removeItem(at: url) }
}
