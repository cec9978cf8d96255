import Foundation

/// What the figures were measured on.
struct Machine {
  let processors: Int
  let cpuModel: String?
  let loadAverage: String?
  let swiftVersion: String

  static func current() -> Machine {
    let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
    let model = cpuinfo?.split(separator: "\n").first { $0.hasPrefix("model name") }
      .flatMap { $0.split(separator: ":", maxSplits: 1).last }
      .map { $0.trimmingCharacters(in: .whitespaces) }
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
      .map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
    #if swift(>=6.3)
      let swift = "6.3+"
    #else
      let swift = "< 6.3"
    #endif
    return Machine(
      processors: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model,
      loadAverage: load, swiftVersion: swift)
  }
}
