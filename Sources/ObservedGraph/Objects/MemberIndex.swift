/// The positions of an unordered ``ObjectCollection``'s members by identity, in four bytes a
/// member's entry: the members array holds the objects, the table only where each one is in it.
///
/// An open-addressing table probed linearly from a multiplicative hash of the object's address,
/// at most three quarters full, with backward-shift removal (no tombstones), as
/// ``IdentityPositions``; but an entry is one `UInt32` where that one's is 16 bytes. Its low
/// `log2(capacity)` bits hold the member's position plus one (0 for an empty entry); the bits
/// above hold a tag, more bits of the same hash. A probe compares tags, and reads the member in
/// the members array only when the tags agree: a lookup of a non-member reads the table alone
/// (one tag in 2,048 agrees by chance at a capacity of 2²¹), and a member is confirmed by its
/// address in the members array.
///
/// At 1 M members the table is 8 MB, a quarter of a table of 16-byte entries and half of a Swift
/// `Set` of references, so the one random access an insert makes to refuse a member already there
/// usually finds its line in the last-level cache.
///
/// The index holds exactly the members at positions `0..<count` of the members array the
/// caller passes; each mutation names the positions it changes, and growing rebuilds the table
/// from the members in order.
struct MemberIndex {
  /// The members array the entries point into.
  typealias Members = UnsafeBufferPointer<Unmanaged<ManagedObject>>

  /// Each entry: `tag | (position + 1)`, or 0 when empty.
  private var entries: ContiguousArray<UInt32> = []
  /// The number of members indexed.
  private(set) var count = 0
  /// `log2(entries.count)`: the bits of an entry's position field, and of the hash that picks
  /// its home (0 while the table is empty).
  private var bits = 0

  /// The hash of a member's address; its top `bits` bits are the home, the next ones the tag.
  @inline(__always)
  private static func hash(_ address: UInt) -> UInt {
    address &* 0x9E37_79B9_7F4A_7C15
  }

  @inline(__always)
  private static func address(_ object: ManagedObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
  }

  @inline(__always)
  private static func address(_ reference: Unmanaged<ManagedObject>) -> UInt {
    UInt(bitPattern: reference.toOpaque())
  }

  /// `entries.count - 1`.
  @inline(__always)
  private var mask: Int { (1 &<< bits) &- 1 }

  /// The position field of an entry: its low `bits` bits.
  @inline(__always)
  private var positionMask: UInt32 { UInt32(truncatingIfNeeded: mask) }

  /// Where the search for `hash` starts.
  @inline(__always)
  private func home(_ hash: UInt) -> Int {
    Int(truncatingIfNeeded: hash &>> UInt(UInt.bitWidth &- bits))
  }

  /// The tag of `hash`: the 32 − `bits` hash bits below the home's, in an entry's top bits.
  @inline(__always)
  private func tag(_ hash: UInt) -> UInt32 {
    UInt32(truncatingIfNeeded: (hash &<< UInt(bits)) &>> 32) & ~positionMask
  }

  /// The entry of the member at `address` (`found`), or the empty entry where it would go.
  @inline(__always)
  private func find(_ address: UInt, _ members: Members) -> (index: Int, found: Bool) {
    let hash = Self.hash(address)
    let tag = tag(hash)
    let positionMask = positionMask
    let mask = mask
    var index = home(hash)
    while true {
      let entry = entries[index]
      if entry == 0 { return (index, false) }
      if entry & ~positionMask == tag,
        Self.address(members[Int(entry & positionMask) &- 1]) == address
      {
        return (index, true)
      }
      index = (index &+ 1) & mask
    }
  }

  /// The position of `object`, or nil when it is not a member.
  @inline(__always)
  func position(of object: ManagedObject, in members: Members) -> Int? {
    position(ofAddress: Self.address(object), in: members)
  }

  /// The position of the member at an address (which need not be alive), or nil when none is.
  func position(ofAddress address: UInt, in members: Members) -> Int? {
    guard count > 0 else { return nil }
    let (index, found) = find(address, members)
    return found ? Int(entries[index] & positionMask) &- 1 : nil
  }

  /// Indexes the member at `position`, which must be `count` (the members grow at the end) and
  /// must not be indexed yet; `members[position]` is the member.
  mutating func append(at position: Int, in members: Members) {
    precondition(position == count, "member index: appending at \(position) of \(count)")
    if (count &+ 1) &* 4 > entries.count &* 3 { grow(members) }
    let address = Self.address(members[position])
    let (index, found) = find(address, members)
    assert(!found, "member index: \(address) is already a member")
    entries[index] = tag(Self.hash(address)) | UInt32(truncatingIfNeeded: position &+ 1)
    count &+= 1
  }

  /// Removes `object` from the index and returns its position (nil when it is not a member),
  /// noting that the last member (at `count - 1`) moves to that position when they differ: the
  /// caller then swaps the two in the members array and drops the last. `members` is the array
  /// before that swap.
  mutating func removeBySwappingLast(_ object: ManagedObject, in members: Members) -> Int? {
    guard count > 0 else { return nil }
    let (hole, found) = find(Self.address(object), members)
    guard found else { return nil }
    let position = Int(entries[hole] & positionMask) &- 1
    removeEntry(at: hole, members)
    let last = count &- 1
    if position != last {
      // The last member's entry keeps its place and tag; only its position changes.
      let (index, found) = find(Self.address(members[last]), members)
      precondition(found, "member index: the last member is not indexed")
      entries[index] = (entries[index] & ~positionMask) | UInt32(truncatingIfNeeded: position &+ 1)
    }
    count &-= 1
    return position
  }

  /// Empties the entry at `hole`, shifting back each following entry of its run that may sit in
  /// the hole: one whose home is not cyclically after the hole. An entry's home is worked out
  /// from its member's address in `members`.
  private mutating func removeEntry(at hole: Int, _ members: Members) {
    var hole = hole
    let mask = mask
    let positionMask = positionMask
    var next = hole
    while true {
      next = (next &+ 1) & mask
      let entry = entries[next]
      if entry == 0 { break }
      let home = home(Self.hash(Self.address(members[Int(entry & positionMask) &- 1])))
      if (next &- home) & mask >= (next &- hole) & mask {
        entries[hole] = entry
        hole = next
      }
    }
    entries[hole] = 0
  }

  /// Empties the index, keeping nothing.
  mutating func removeAll() {
    entries = []
    count = 0
    bits = 0
  }

  /// Makes the index of `members[0..<count]` at the size for `count` members.
  mutating func rebuild(count: Int, from members: Members) {
    removeAll()
    var bits = 3
    while count * 4 > (1 << bits) * 3 { bits += 1 }
    fill(bits: bits, count: count, members)
  }

  /// Doubles the table (from 8 entries) and indexes the members again, in order: the tags
  /// change with the table's size.
  private mutating func grow(_ members: Members) {
    fill(bits: Swift.max(3, bits + 1), count: count, members)
  }

  private mutating func fill(bits: Int, count: Int, _ members: Members) {
    precondition(bits <= 32, "member index: more than 3 × 2³⁰ members")
    self.bits = bits
    entries = ContiguousArray(repeating: 0, count: 1 << bits)
    self.count = 0
    let mask = mask
    for position in 0..<count {
      let hash = Self.hash(Self.address(members[position]))
      var index = home(hash)
      while entries[index] != 0 { index = (index &+ 1) & mask }
      entries[index] = tag(hash) | UInt32(truncatingIfNeeded: position &+ 1)
    }
    self.count = count
  }

  /// Every entry names a position below `count` that no other entry names, carries its member's
  /// tag, and is found from its member's home without crossing an empty entry; `count` entries
  /// are used, `members` holds at least `count` members, and the table is at most three quarters
  /// full (debug checks and tests).
  func checkInvariants(_ members: Members) {
    precondition(members.count >= count, "member index counts \(count), members \(members.count)")
    var seen = [Bool](repeating: false, count: count)
    var used = 0
    for (index, entry) in entries.enumerated() where entry != 0 {
      used += 1
      let position = Int(entry & positionMask) - 1
      precondition(position < count, "member index: entry \(index) names position \(position)")
      precondition(!seen[position], "member index: position \(position) named twice")
      seen[position] = true
      let hash = Self.hash(Self.address(members[position]))
      precondition(entry & ~positionMask == tag(hash), "member index: entry \(index) mistagged")
      var probe = home(hash)
      while probe != index {
        precondition(entries[probe] != 0, "member index: position \(position) cut off its home")
        probe = (probe + 1) & mask
      }
    }
    precondition(used == count, "member index counts \(count), holds \(used)")
    precondition(count * 4 <= entries.count * 3, "member index over three quarters full")
  }

  /// The table's number of entries (tests).
  var capacity: Int { entries.count }
}
