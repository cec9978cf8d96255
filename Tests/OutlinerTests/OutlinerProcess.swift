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

  /// Runs `outliner FILE` with a terminal as its standard input (a pseudo-terminal the test
  /// types `script` into), so that it greets, prompts and asks as it does for a user; standard
  /// output and standard error are pipes, as in `run`. End the script with a command that leaves,
  /// or with `\u{4}` (^D, the end of input on a terminal).
  static func runOnTerminal(_ script: String, file: URL) throws -> Output {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
      let binary = try #require(
        binary, "no outliner binary beside the tests: build with --build-tests")
      let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)  // posix_openpt, which Glibc hides
      guard master >= 0 else { throw NoTerminal() }
      defer { close(master) }
      guard let terminalName = PseudoTerminal.open(master) else { throw NoTerminal() }
      let name = terminalName
      let slave = open(name, O_RDWR | O_NOCTTY)
      guard slave >= 0 else { throw NoTerminal() }
      let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
      let process = Process()
      process.executableURL = binary
      process.arguments = [file.path]
      let output = Pipe()
      let errors = Pipe()
      process.standardInput = terminal
      process.standardOutput = output
      process.standardError = errors
      try process.run()
      try terminal.close()
      let guardian = Hang(process)
      let finished = DispatchSemaphore(value: 0)
      let watchdog = Thread {
        if finished.wait(timeout: .now() + 300) == .timedOut { guardian.terminate() }
      }
      watchdog.start()
      defer { finished.signal() }
      let errorText = Collected()
      let reading = DispatchGroup()
      reading.enter()
      let errorHandle = errors.fileHandleForReading
      DispatchQueue.global().async {
        errorText.set(errorHandle.readDataToEndOfFile())
        reading.leave()
      }
      // The terminal's echo of what is typed stays unread on the master side: a short script
      // fits in its buffer.
      let bytes = Array(script.utf8)
      let written = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
      try #require(written == bytes.count)
      let printed = output.fileHandleForReading.readDataToEndOfFile()
      reading.wait()
      process.waitUntilExit()
      return Output(
        standardOutput: String(decoding: printed, as: UTF8.self),
        standardError: String(decoding: errorText.get(), as: UTF8.self),
        status: process.terminationStatus)
    #else
      throw NoTerminal()
    #endif
  }
}

private final class BundleMarker {}

/// No pseudo-terminal could be made (or the platform has none).
struct NoTerminal: Error {}

#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
  /// `grantpt`, `unlockpt` and `ptsname`, which the C library has but Glibc's Swift module does not
  /// declare: looked up by name in the running program.
  enum PseudoTerminal {
    private typealias Control = @convention(c) (Int32) -> Int32
    private typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    /// Unlocks the terminal whose master side is `master` and returns its slave side's path.
    static func open(_ master: Int32) -> String? {
      guard let program = dlopen(nil, RTLD_NOW),
        let grant = dlsym(program, "grantpt"), let unlock = dlsym(program, "unlockpt"),
        let name = dlsym(program, "ptsname")
      else { return nil }
      guard unsafeBitCast(grant, to: Control.self)(master) == 0,
        unsafeBitCast(unlock, to: Control.self)(master) == 0,
        let path = unsafeBitCast(name, to: Name.self)(master)
      else { return nil }
      return String(cString: path)
    }
  }
#endif

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
