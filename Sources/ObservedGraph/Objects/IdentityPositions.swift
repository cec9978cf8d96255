/// Positions by object identity: the membership table of an ordered ``ObjectCollection`` (an
/// unordered one keeps a ``MemberIndex``, a quarter of the size), and of the quiet delete.
///
/// An open-addressing table keyed by the object's address, probed linearly from a multiplicative
/// hash of it, at most three quarters full; removal shifts the entries after it back, so no
/// tombstones build up. A lookup is a multiply and usually one compare, where a `Dictionary` keyed
/// by `ObjectIdentifier` runs the seeded SipHash. The collection's members array holds the objects,
/// so an address stays theirs while it is a key.
struct IdentityPositions {
  private struct Entry {
    /// The object's address; 0 for an empty entry.
    var key: UInt
    var position: Int
  }

  private var entries: ContiguousArray<Entry> = []
  /// The number of keys.
  private(set) var count = 0
  /// `entries.count - 1`, a power of two minus one (or -1 while empty).
  private var mask = -1
  /// `Int.bitWidth - log2(entries.count)`: the hash's top bits index the table.
  private var shift = 0

  /// The key of an object: its address, never 0.
  private static func key(_ object: ManagedObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
  }

  /// Where the search for `key` starts.
  private func home(_ key: UInt) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
  }

  /// The index of `key`'s entry, or of the empty entry where it would go.
  private func find(_ key: UInt) -> Int {
    var index = home(key)
    while entries[index].key != 0 && entries[index].key != key {
      index = (index &+ 1) & mask
    }
    return index
  }

  /// The position of `object`, or nil when it is not a key.
  subscript(object: ManagedObject) -> Int? {
    guard count > 0 else { return nil }
    let entry = entries[find(Self.key(object))]
    return entry.key == 0 ? nil : entry.position
  }

  /// Whether the object at an address (which need not be alive) is a key.
  func contains(address key: UInt) -> Bool {
    count > 0 && entries[find(key)].key != 0
  }

  /// Sets the position of `object`, adding it when it is not a key.
  mutating func set(_ object: ManagedObject, _ position: Int) {
    set(address: Self.key(object), position)
  }

  /// Sets the position of the object at an address (which need not be alive), adding it when it
  /// is not a key.
  mutating func set(address key: UInt, _ position: Int) {
    if (count + 1) * 4 > entries.count * 3 { grow() }
    let index = find(key)
    if entries[index].key == 0 { count += 1 }
    entries[index] = Entry(key: key, position: position)
  }

  /// Removes `object` and returns its position; nil when it is not a key.
  @discardableResult
  mutating func remove(_ object: ManagedObject) -> Int? {
    guard count > 0 else { return nil }
    var hole = find(Self.key(object))
    guard entries[hole].key != 0 else { return nil }
    let position = entries[hole].position
    // Shift back each following entry of the run that may sit in the hole: one whose home is not
    // cyclically after the hole.
    var next = hole
    while true {
      next = (next &+ 1) & mask
      let key = entries[next].key
      if key == 0 { break }
      if (next &- home(key)) & mask >= (next &- hole) & mask {
        entries[hole] = entries[next]
        hole = next
      }
    }
    entries[hole] = Entry(key: 0, position: 0)
    count -= 1
    return position
  }

  mutating func removeAll() {
    entries = []
    count = 0
    mask = -1
    shift = 0
  }

  /// Doubles the table (from 8 entries) and puts every key back.
  private mutating func grow() {
    let old = entries
    let capacity = Swift.max(8, old.count * 2)
    entries = ContiguousArray(repeating: Entry(key: 0, position: 0), count: capacity)
    mask = capacity - 1
    shift = Int.bitWidth - capacity.trailingZeroBitCount
    for entry in old where entry.key != 0 {
      entries[find(entry.key)] = entry
    }
  }

  /// Every key is found from its home without crossing an empty entry, and counted (debug
  /// checks and tests).
  func checkInvariants() {
    var keys = 0
    for (index, entry) in entries.enumerated() where entry.key != 0 {
      keys += 1
      var probe = home(entry.key)
      while probe != index {
        precondition(entries[probe].key != 0, "identity table: key \(entry.key) cut off its home")
        probe = (probe + 1) & mask
      }
    }
    precondition(keys == count, "identity table counts \(count), holds \(keys)")
    precondition(count * 4 <= entries.count * 3, "identity table over three quarters full")
  }
}
