/// Eight bytes of a ``Relationship`` wrapper that hold one of two things, told apart by the sign,
/// so that the wrapper stays 40 bytes in every object.
///
/// - Positive: the key of a to-one's object that a load named and that is not made yet (the
///   wrapper's `target` is nil then); the relationship's first read makes the object
///   (``RelationshipFields``), and every write drops the key. A fetch so makes no object for a
///   relationship nobody reads.
/// - Negative: the declaration's minimum and maximum counts, as the wrapper's initializer packs
///   them: the sign bit set, the minimum in the next 31 bits (two's complement), the maximum in
///   the low 32. The model reads them from its prototype; an object's own copy is never read.
/// - Zero: neither.
///
/// ``RelationshipFields`` reads and writes it in place through ``RelationshipFieldAccess/keyOffset``.
@usableFromInline
struct LoadedKeyOrCounts {
  @usableFromInline var bits: Int64

  /// The declaration's counts; see ``Relationship/init(inverse:deleteRule:ordered:isOptional:minCount:maxCount:)``
  /// for how values beyond 31 and 32 bits are kept.
  @inlinable
  init(minCount: Int, maxCount: Int) {
    let minimum = UInt64(
      UInt32(bitPattern: Int32(Swift.min(Swift.max(minCount, -1 << 30), 1 << 30 - 1))))
    let maximum = UInt64(UInt32(bitPattern: Int32(clamping: maxCount)))
    bits = Int64(bitPattern: 1 << 63 | (minimum & 0x7FFF_FFFF) << 32 | maximum)
  }

  /// The key a load left, or nil.
  @inline(__always)
  var loadedKey: Int64? { bits > 0 ? bits : nil }

  /// Keeps the key of a to-one's object that a load named.
  @inline(__always)
  mutating func keep(loadedKey key: Int64) {
    assert(key > 0, "a loaded key is positive")
    bits = key
  }

  /// Drops a key a load left; counts stay.
  @inline(__always)
  mutating func dropLoadedKey() {
    if bits > 0 { bits = 0 }
  }

  /// The declaration's counts, or nil when the field holds none.
  var counts: (minimum: Int, maximum: Int)? {
    guard bits < 0 else { return nil }
    let unsigned = UInt64(bitPattern: bits)
    // The minimum's 31 bits, sign-extended.
    let minimum = Int32(bitPattern: UInt32(truncatingIfNeeded: unsigned >> 32) << 1) >> 1
    return (Int(minimum), Int(Int32(bitPattern: UInt32(truncatingIfNeeded: unsigned))))
  }
}
