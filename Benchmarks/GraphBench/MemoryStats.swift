import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Heap and process memory figures, where the platform offers them.
enum MemoryStats {
  /// Bytes the allocator has handed out and not taken back (glibc `mallinfo2`: `uordblks` plus
  /// mmapped blocks `hblkhd`), or nil where there is no `mallinfo2`.
  static func heapInUse() -> Int? {
    #if canImport(Glibc) && arch(x86_64)
      guard let mallinfo2 else { return nil }
      // struct mallinfo2 is ten size_t fields: arena, ordblks, smblks, hblks, hblkhd, usmblks,
      // fsmblks, uordblks, fordblks, keepcost.
      var fields = [Int](repeating: 0, count: 10)
      fields.withUnsafeMutableBytes { mallinfo2($0.baseAddress!) }
      return fields[7] + fields[4]
    #else
      return nil
    #endif
  }

  #if canImport(Glibc) && arch(x86_64)
    /// glibc's `mallinfo2`, looked up at run time: Swift's Glibc module does not import
    /// `<malloc.h>`. It returns an 80-byte struct, which the x86-64 System V ABI returns through a
    /// hidden pointer in the first argument register, so calling it as `void (*)(void *)` with a
    /// buffer of that size is the same call. Other architectures return it differently: n/a there.
    private static let mallinfo2: (@convention(c) (UnsafeMutableRawPointer) -> Void)? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallinfo2") else {
        return nil
      }
      return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Void).self)
    }()
  #endif

  /// A field of `/proc/self/status` in bytes (`VmHWM` is the peak resident set, `VmRSS` the
  /// current one), or nil where there is no such file.
  static func procStatus(_ field: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      guard parts.count >= 2, let kilobytes = Int(parts[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }

  /// The heap bytes `body` leaves allocated, measured with `mallinfo2` before and after, and
  /// whatever `body` returns (kept alive by the caller).
  static func heapGrowth<T>(_ body: () throws -> T) rethrows -> (bytes: Int?, result: T) {
    let before = heapInUse()
    let result = try body()
    let after = heapInUse()
    guard let before, let after else { return (nil, result) }
    return (after - before, result)
  }
}
