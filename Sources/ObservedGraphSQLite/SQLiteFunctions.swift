import CSQLite
import Foundation
import ObservedGraph

/// The collations and the function a store registers on its connection, so that SQL compares
/// strings as the library does in memory: each calls the library's own comparison.
///
/// - Collations `og_swift`, `og_localized`, `og_localized_standard`: the orders of
///   ``FetchSort/Comparison-swift.enum``.
/// - `og_test(operator, options, left, right)`: 1 when ``FetchComparison/test(_:_:)`` of the
///   operator (its NSPredicate spelling, such as `'BEGINSWITH'`) and options holds for the two
///   values, 0 when not, NULL when it throws (a `MATCHES` pattern that is no regular expression).
enum SQLiteFunctions {
  /// The collation of a string comparison.
  static func collation(_ comparison: FetchSort.Comparison) -> String {
    switch comparison {
    case .swift: "og_swift"
    case .localized: "og_localized"
    case .localizedStandard: "og_localized_standard"
    }
  }

  /// Registers the collations and the function on an open connection.
  static func register(on handle: OpaquePointer) {
    let comparisons: [FetchSort.Comparison] = [.swift, .localized, .localizedStandard]
    for (index, comparison) in comparisons.enumerated() {
      sqlite3_create_collation_v2(
        handle, collation(comparison), SQLITE_UTF8,
        UnsafeMutableRawPointer(bitPattern: index + 1), compare, nil)
    }
    sqlite3_create_function_v2(
      handle, "og_test", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, test, nil, nil, nil)
  }
}

/// The collations' comparison: the strings decoded from UTF-8 and ordered by the comparison
/// whose index (from 1) is the collation's user data.
private func compare(
  _ comparisonIndex: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?,
  _ rightCount: Int32, _ right: UnsafeRawPointer?
) -> Int32 {
  let comparisons: [FetchSort.Comparison] = [.swift, .localized, .localizedStandard]
  let index = Int(bitPattern: comparisonIndex) - 1
  let comparison = comparisons.indices.contains(index) ? comparisons[index] : .swift
  if comparison == .swift, let order = asciiOrder(left, leftCount, right, rightCount) {
    return order
  }
  let a = string(left, leftCount)
  let b = string(right, rightCount)
  switch comparison.compare(a, b) {
  case .orderedAscending: return -1
  case .orderedSame: return 0
  case .orderedDescending: return 1
  }
}

/// The order of two strings by their bytes when that is Swift's order: up to the first byte that
/// differs, both are ASCII, and the byte after it (or the end) is ASCII in both — a non-ASCII byte
/// there could start a combining mark that changes the character before it. Nil otherwise, and the
/// strings are compared as Swift strings.
private func asciiOrder(
  _ left: UnsafeRawPointer?, _ leftCount: Int32, _ right: UnsafeRawPointer?, _ rightCount: Int32
) -> Int32? {
  let a = left?.assumingMemoryBound(to: UInt8.self)
  let b = right?.assumingMemoryBound(to: UInt8.self)
  let aCount = a == nil ? 0 : Int(leftCount)
  let bCount = b == nil ? 0 : Int(rightCount)
  let common = min(aCount, bCount)
  var index = 0
  // Eight bytes at a time while they are equal and ASCII.
  if let a, let b {
    let rawA = UnsafeRawPointer(a)
    let rawB = UnsafeRawPointer(b)
    while index + 8 <= common {
      let x = rawA.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      let y = rawB.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      guard x == y, x & 0x8080_8080_8080_8080 == 0 else { break }
      index += 8
    }
  }
  while index < common {
    let x = a.unsafelyUnwrapped[index]
    let y = b.unsafelyUnwrapped[index]
    if (x | y) >= 0x80 { return nil }
    if x != y {
      let nextA: UInt8 = index + 1 < aCount ? a.unsafelyUnwrapped[index + 1] : 0
      let nextB: UInt8 = index + 1 < bCount ? b.unsafelyUnwrapped[index + 1] : 0
      if (nextA | nextB) >= 0x80 { return nil }
      return x < y ? -1 : 1
    }
    index += 1
  }
  if aCount == bCount { return 0 }
  // One is a prefix of the other: what follows must be ASCII to be a character of its own.
  let next = aCount > bCount ? a.unsafelyUnwrapped[common] : b.unsafelyUnwrapped[common]
  if next >= 0x80 { return nil }
  return aCount < bCount ? -1 : 1
}

private func string(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
  guard let bytes, count > 0 else { return "" }
  return String(
    decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
}

/// `og_test(operator, options, left, right)`.
private func test(
  _ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard count == 4, let values,
    let spelling = sqlite3_value_text(values[0]).map({ String(cString: $0) }),
    let op = FetchComparison.Operator(rawValue: spelling)
  else {
    sqlite3_result_null(context)
    return
  }
  let options = FetchComparison.Options(rawValue: Int(sqlite3_value_int64(values[1])))
  let comparison = FetchComparison(.keyPath("value"), op, .constant(nil), options: options)
  do {
    let result = try comparison.test(stored(values[2]), stored(values[3]))
    sqlite3_result_int(context, result ? 1 : 0)
  } catch {
    sqlite3_result_null(context)
  }
}

/// An SQLite value as the library's stored value (text as a string).
private func stored(_ value: OpaquePointer?) -> StoredValue? {
  switch sqlite3_value_type(value) {
  case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
  case SQLITE_FLOAT: return .double(sqlite3_value_double(value))
  case SQLITE_TEXT:
    let count = Int(sqlite3_value_bytes(value))
    guard let text = sqlite3_value_text(value) else { return .string("") }
    return .string(
      String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
  case SQLITE_BLOB:
    let count = Int(sqlite3_value_bytes(value))
    guard count > 0, let bytes = sqlite3_value_blob(value) else { return .data(Data()) }
    return .data(Data(bytes: bytes, count: count))
  default: return nil
  }
}
