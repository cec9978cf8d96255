/// Values by object key, in pages of 256 consecutive keys.
///
/// A context numbers its objects from 1 (a store hands keys out in blocks), so keys are dense: a
/// page holds 256 entries side by side, and an object costs its entry and a 256th of the page's
/// own keeping — about 17 bytes for the registry's 16-byte entries — where a hash table costs two
/// to three entries' worth with its key beside each (benchmark row "heap bytes per object": the
/// registry's dictionary was 63 bytes per object at 100,000 objects). Pages that empty are
/// removed.
///
/// The pages of keys below 2²⁶ (67 million keys: a store counts its keys up from 1) sit in an
/// array by page number, so a lookup is two array reads, without hashing; the pages of larger
/// keys sit in a dictionary (benchmark rows "reach … as faults" and "fetch … by a predicate": a
/// load looks up each row's object and the object its to-one names, which are on different
/// pages).
struct KeyTable<Value> {
  private static var pageShift: Int64 { 8 }
  private static var pageSize: Int { 1 << pageShift }
  /// Pages from this number on are kept by the dictionary.
  private static var directPages: Int64 { 1 << 18 }

  private struct Page {
    var entries: ContiguousArray<Value?>
    var used = 0

    init() { entries = ContiguousArray(repeating: nil, count: KeyTable.pageSize) }

    mutating func store(_ value: Value, at index: Int, counting count: inout Int) {
      if entries[index] == nil {
        used += 1
        count += 1
      }
      entries[index] = value
    }

    /// Clears an entry; returns whether the page is now empty.
    mutating func clear(at index: Int, counting count: inout Int) -> Bool {
      if entries[index] != nil {
        used -= 1
        count -= 1
        entries[index] = nil
      }
      return used == 0
    }
  }

  /// The pages of small keys, by page number; nil where no key of the page has a value. Grows to
  /// the largest page stored and never shrinks (16 bytes per 256 keys, 4 MB at most).
  private var pages: ContiguousArray<Page?> = []
  /// The pages of keys too large for `pages` (or negative), by page number.
  private var farPages: [Int64: Page] = [:]
  /// The number of keys that hold a value.
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  private static func place(_ key: Int64) -> (page: Int64, index: Int) {
    (key >> pageShift, Int(key & Int64(pageSize - 1)))
  }

  private static func isDirect(_ page: Int64) -> Bool { page >= 0 && page < directPages }

  /// The value for `key`; setting nil removes it.
  subscript(key: Int64) -> Value? {
    get {
      let (page, index) = Self.place(key)
      if Self.isDirect(page) {
        guard page < pages.count else { return nil }
        return pages[Int(page)]?.entries[index]
      }
      return farPages.isEmpty ? nil : farPages[page]?.entries[index]
    }
    set {
      let (page, index) = Self.place(key)
      guard Self.isDirect(page) else {
        if let newValue {
          farPages[page, default: Page()].store(newValue, at: index, counting: &count)
        } else if farPages[page] != nil {
          if farPages[page]!.clear(at: index, counting: &count) { farPages[page] = nil }
        }
        return
      }
      let slot = Int(page)
      if let newValue {
        if slot >= pages.count {
          pages.append(contentsOf: repeatElement(nil, count: slot + 1 - pages.count))
        }
        if pages[slot] == nil { pages[slot] = Page() }
        pages[slot]!.store(newValue, at: index, counting: &count)
      } else if slot < pages.count, pages[slot] != nil {
        if pages[slot]!.clear(at: index, counting: &count) { pages[slot] = nil }
      }
    }
  }

  /// Removes the value for `key` and returns it.
  @discardableResult
  mutating func removeValue(forKey key: Int64) -> Value? {
    let old = self[key]
    if old != nil { self[key] = nil }
    return old
  }

  mutating func removeAll() {
    pages.removeAll()
    farPages.removeAll()
    count = 0
  }

  /// Every page with its number, small keys' pages first.
  private var allPages: [(number: Int64, page: Page)] {
    var result: [(number: Int64, page: Page)] = []
    for (number, page) in pages.enumerated() {
      if let page { result.append((Int64(number), page)) }
    }
    for (number, page) in farPages { result.append((number, page)) }
    return result
  }

  /// Every key with its value, in no particular order.
  var entries: [(key: Int64, value: Value)] {
    var result: [(key: Int64, value: Value)] = []
    result.reserveCapacity(count)
    for (number, page) in allPages {
      for index in 0..<Self.pageSize {
        if let value = page.entries[index] {
          result.append((number << Self.pageShift | Int64(index), value))
        }
      }
    }
    return result
  }

  /// Every value, in no particular order.
  var values: [Value] { entries.map(\.value) }

  /// Checks that each page's count of used entries is right, no page is empty, and each page is
  /// where its number says.
  func checkInvariants() {
    var total = 0
    for (number, page) in allPages {
      let used = page.entries.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
      precondition(used == page.used, "key table page \(number) counts \(page.used), holds \(used)")
      precondition(used > 0, "key table page \(number) is empty but kept")
      total += used
    }
    for number in farPages.keys {
      precondition(!Self.isDirect(number), "key table page \(number) is kept by the dictionary")
    }
    precondition(total == count, "key table counts \(count), holds \(total)")
  }
}
