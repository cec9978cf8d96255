/// Values by object key, in pages of 256 consecutive keys.
///
/// A context numbers its objects from 1 (a store hands keys out in blocks), so keys are dense: a
/// page holds 256 entries side by side, and an object costs its entry, a 256th of the page's own
/// keeping and its presence bit — about 8.2 bytes for the registry's 8-byte entries — where a hash
/// table costs two to three entries' worth with its key beside each. Pages that empty are removed.
///
/// The pages of keys below 2²⁶ (67 million keys: a store counts its keys up from 1) sit in an array
/// by page number, so a lookup is two array reads, without hashing; the pages of larger keys sit in
/// a dictionary. A load looks up each row's object and the object its to-one names, which are on
/// different pages.
///
/// A load meets keys that hold nothing yet, in the order a relationship names them, each on another
/// page: the pages (2 KiB per 256 keys) are not in the processor's cache when it does, since the
/// objects the load makes push them out. So a key of the array's pages is looked up by a bit first
/// (32 bytes per 256 keys, 128 KiB for a million keys, which stay in the cache), and an entry that
/// holds nothing is written without being read. A page is raw memory the table owns: writing an
/// entry checks no buffer's uniqueness, which would read the page's header from main memory for
/// every object a load makes. That is also why the table is a class: copies would share the pages.
final class KeyTable<Value> {
  private static var pageShift: Int64 { 8 }
  private static var pageSize: Int { 1 << pageShift }
  /// Pages from this number on are kept by the dictionary.
  private static var directPages: Int64 { 1 << 18 }
  /// Presence words per page.
  private static var wordsPerPage: Int { pageSize / 64 }

  /// A page's entries, owned by the table, and how many of them hold a value.
  private struct Page {
    let entries: UnsafeMutablePointer<Value?>
    var used = 0

    /// A page whose entries all hold nothing.
    static func make() -> Page {
      let entries = UnsafeMutablePointer<Value?>.allocate(capacity: KeyTable.pageSize)
      entries.initialize(repeating: nil, count: KeyTable.pageSize)
      return Page(entries: entries)
    }

    /// Gives the page's memory back, releasing what its entries hold.
    func free() {
      entries.deinitialize(count: KeyTable.pageSize)
      entries.deallocate()
    }

    /// Stores a value at an entry that may hold one.
    mutating func store(_ value: Value, at index: Int, counting count: inout Int) {
      if entries[index] == nil {
        used += 1
        count += 1
      }
      entries[index] = value
    }

    /// Stores a value at an entry that holds none, without reading the entry.
    mutating func storeInEmpty(_ value: Value, at index: Int, counting count: inout Int) {
      used += 1
      count += 1
      // An empty entry holds `nil`, which owns nothing: it is overwritten, not released.
      (entries + index).initialize(to: value)
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
  @exclusivity(unchecked) private var pages: ContiguousArray<Page?> = []
  /// A bit per key of `pages`, by key: set where the key holds a value. Grows with `pages`.
  @exclusivity(unchecked) private var present: ContiguousArray<UInt64> = []
  /// The pages of keys too large for `pages` (or negative), by page number.
  @exclusivity(unchecked) private var farPages: [Int64: Page] = [:]
  /// The number of keys that hold a value.
  @exclusivity(unchecked) private(set) var count = 0

  init() {}

  deinit { removeAll() }

  var isEmpty: Bool { count == 0 }

  private static func place(_ key: Int64) -> (page: Int64, index: Int) {
    (key >> pageShift, Int(key & Int64(pageSize - 1)))
  }

  private static func isDirect(_ page: Int64) -> Bool { page >= 0 && page < directPages }

  /// The word of `present` that holds a small key's bit, and the bit.
  private static func presenceBit(_ key: Int64) -> (word: Int, bit: UInt64) {
    (Int(key >> 6), 1 << UInt64(key & 63))
  }

  /// The value for `key`; setting nil removes it.
  subscript(key: Int64) -> Value? {
    get {
      let (page, index) = Self.place(key)
      if Self.isDirect(page) {
        let (word, bit) = Self.presenceBit(key)
        guard page < pages.count, present[word] & bit != 0 else { return nil }
        return pages[Int(page)].unsafelyUnwrapped.entries[index]
      }
      // Unwrapped first: an optional chain into the page's pointer (`farPages[page]?.entries[
      // index]`) read through a null pointer for a missing page (Swift 6.3, debug builds).
      guard !farPages.isEmpty, let far = farPages[page] else { return nil }
      return far.entries[index]
    }
    set {
      let (page, index) = Self.place(key)
      guard Self.isDirect(page) else {
        if let newValue {
          farPages[page, default: Page.make()].store(newValue, at: index, counting: &count)
        } else if farPages[page] != nil, farPages[page]!.clear(at: index, counting: &count) {
          farPages.removeValue(forKey: page)?.free()
        }
        return
      }
      let slot = Int(page)
      let (word, bit) = Self.presenceBit(key)
      if let newValue {
        if slot >= pages.count {
          pages.append(contentsOf: repeatElement(nil, count: slot + 1 - pages.count))
          present.append(
            contentsOf: repeatElement(0, count: pages.count * Self.wordsPerPage - present.count))
        }
        if pages[slot] == nil { pages[slot] = Page.make() }
        if present[word] & bit == 0 {
          pages[slot]!.storeInEmpty(newValue, at: index, counting: &count)
          present[word] |= bit
        } else {
          pages[slot]!.store(newValue, at: index, counting: &count)
        }
      } else if slot < pages.count, present[word] & bit != 0 {
        present[word] &= ~bit
        if pages[slot]!.clear(at: index, counting: &count) {
          pages[slot]!.free()
          pages[slot] = nil
        }
      }
    }
  }

  /// Removes the value for `key` and returns it.
  @discardableResult
  func removeValue(forKey key: Int64) -> Value? {
    let old = self[key]
    if old != nil { self[key] = nil }
    return old
  }

  func removeAll() {
    // The pages leave the table before their values are released: a value's release may end an
    // object, whose `deinit` asks the table for its key.
    let freed = pages.compactMap { $0 } + farPages.values
    pages.removeAll()
    present.removeAll()
    farPages.removeAll()
    count = 0
    for page in freed { page.free() }
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
    forEachEntry { key, value in result.append((key, value)) }
    return result
  }

  /// Every value, in no particular order; read in one pass (the keys the walk makes go unused
  /// once inlined).
  var values: [Value] {
    var result: [Value] = []
    result.reserveCapacity(count)
    forEachEntry { _, value in result.append(value) }
    return result
  }

  /// Calls `body` with each key and its value, page by page.
  @inline(__always)
  private func forEachEntry(_ body: (Int64, Value) -> Void) {
    for (number, page) in allPages {
      for index in 0..<Self.pageSize {
        if let value = page.entries[index] { body(number << Self.pageShift | Int64(index), value) }
      }
    }
  }

  /// Checks that each page's count of used entries is right, no page is empty, each page is
  /// where its number says, and each small key's presence bit says whether it holds a value.
  func checkInvariants() {
    var total = 0
    for (number, page) in allPages {
      var used = 0
      for index in 0..<Self.pageSize where page.entries[index] != nil { used += 1 }
      precondition(used == page.used, "key table page \(number) counts \(page.used), holds \(used)")
      precondition(used > 0, "key table page \(number) is empty but kept")
      total += used
    }
    for number in farPages.keys {
      precondition(!Self.isDirect(number), "key table page \(number) is kept by the dictionary")
    }
    precondition(total == count, "key table counts \(count), holds \(total)")
    precondition(
      present.count == pages.count * Self.wordsPerPage,
      "key table has \(present.count) presence words for \(pages.count) pages")
    for (number, page) in pages.enumerated() {
      for index in 0..<Self.pageSize {
        let key = Int64(number) << Self.pageShift | Int64(index)
        let (word, bit) = Self.presenceBit(key)
        let holds = page.map { $0.entries[index] != nil } ?? false
        precondition(
          (present[word] & bit != 0) == holds, "key table's presence bit of key \(key) is wrong")
      }
    }
  }
}
