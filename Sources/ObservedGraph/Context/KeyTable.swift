/// Values by object key, in pages of 256 consecutive keys.
///
/// A context numbers its objects from 1 (a store hands keys out in blocks), so keys are dense: a
/// page holds 256 entries side by side, and an object costs its entry and a 256th of the page's
/// own keeping — about 17 bytes for the registry's 16-byte entries — where a hash table costs two
/// to three entries' worth with its key beside each (benchmark row "heap bytes per object": the
/// registry's dictionary was 63 bytes per object at 100,000 objects). Pages that empty are
/// removed.
struct KeyTable<Value> {
  private static var pageShift: Int64 { 8 }
  private static var pageSize: Int { 1 << pageShift }

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

  private var pages: [Int64: Page] = [:]
  /// Where the page of the last ``cachedValue(forKey:)`` or store is in `pages`: lookups and
  /// stores in a row are mostly of neighbouring keys, found then without hashing (benchmark rows
  /// "undo, redo of 1M attribute steps" and "cascade delete … time to build it"). A change of the
  /// dictionary's shape clears it: an index of a dictionary is valid only until then.
  private var cache: (page: Int64, index: Dictionary<Int64, Page>.Index)?
  /// The number of keys that hold a value.
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  private static func place(_ key: Int64) -> (page: Int64, index: Int) {
    (key >> pageShift, Int(key & Int64(pageSize - 1)))
  }

  /// The value for `key`; setting nil removes it.
  subscript(key: Int64) -> Value? {
    get {
      let (page, index) = Self.place(key)
      return pages[page]?.entries[index]
    }
    set {
      let (pageKey, index) = Self.place(key)
      // A value stored on the cached page keeps the cache: the dictionary does not change shape.
      if let newValue, let cache, cache.page == pageKey {
        pages.values[cache.index].store(newValue, at: index, counting: &count)
        return
      }
      if newValue == nil && count == 0 { return }  // nothing to remove (and the cache holds)
      cache = nil
      if let newValue {
        pages[pageKey, default: Page()].store(newValue, at: index, counting: &count)
        // The next keys are mostly on this page too (a context numbers its objects in order).
        cache = pages.index(forKey: pageKey).map { (pageKey, $0) }
      } else if pages[pageKey] != nil {
        let emptied = pages[pageKey]!.clear(at: index, counting: &count)
        if emptied { pages[pageKey] = nil }
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

  /// The value for `key`, as the subscript reads it, found through the page of the last call when
  /// `key` is on it.
  mutating func cachedValue(forKey key: Int64) -> Value? {
    let (pageKey, index) = Self.place(key)
    if let cache, cache.page == pageKey {
      return pages.values[cache.index].entries[index]
    }
    guard let found = pages.index(forKey: pageKey) else { return nil }
    cache = (pageKey, found)
    return pages.values[found].entries[index]
  }

  mutating func removeAll() {
    cache = nil
    pages.removeAll()
    count = 0
  }

  /// Every key with its value, in no particular order.
  var entries: [(key: Int64, value: Value)] {
    var result: [(key: Int64, value: Value)] = []
    result.reserveCapacity(count)
    for (pageKey, page) in pages {
      for index in 0..<Self.pageSize {
        if let value = page.entries[index] {
          result.append((pageKey << Self.pageShift | Int64(index), value))
        }
      }
    }
    return result
  }

  /// Every value, in no particular order.
  var values: [Value] { entries.map(\.value) }

  /// Checks that each page's count of used entries is right and no page is empty.
  func checkInvariants() {
    if let cache {
      precondition(pages.index(forKey: cache.page) == cache.index, "key table cache is stale")
    }
    var total = 0
    for (pageKey, page) in pages {
      let used = page.entries.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
      precondition(
        used == page.used, "key table page \(pageKey) counts \(page.used), holds \(used)")
      precondition(used > 0, "key table page \(pageKey) is empty but kept")
      total += used
    }
    precondition(total == count, "key table counts \(count), holds \(total)")
  }
}
