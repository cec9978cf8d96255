/// An append-only list of values in chunks that never move: the storage of an
/// ``AttributeColumn``.
///
/// A Swift array would check that its buffer is unique and copy every value each time it grows;
/// an append here is a capacity test and a store, and a growth allocates one more chunk. Chunks
/// double from 16 values up to 4,096 (``ColumnChunks``), so a short column holds little and a long
/// one wastes at most one chunk.
///
/// It owns its chunks: it cannot be copied, and it frees them when it ends (`deinit`). Readers
/// read only places below ``count``; debug builds check the places.
@usableFromInline
struct ColumnBuffer<Element>: ~Copyable {
  /// The chunks, oldest first; each holds ``ColumnChunks/capacity(ofChunk:)`` values, and every
  /// one but the last is full.
  @usableFromInline var chunks: [UnsafeMutablePointer<Element>] = []
  /// The values appended.
  @usableFromInline var count = 0
  /// Where the next value goes, in the last chunk.
  @usableFromInline var next: UnsafeMutablePointer<Element>?
  /// How many more values the last chunk takes.
  @usableFromInline var room = 0

  @usableFromInline init() {}

  /// Adds a value at the end.
  @inlinable @inline(__always)
  mutating func append(_ value: consuming Element) {
    if room == 0 { addChunk() }
    next.unsafelyUnwrapped.initialize(to: value)
    next = next.unsafelyUnwrapped + 1
    room &-= 1
    count &+= 1
  }

  @usableFromInline
  mutating func addChunk() {
    let capacity = ColumnChunks.capacity(ofChunk: chunks.count)
    let chunk = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
    chunks.append(chunk)
    next = chunk
    room = capacity
  }

  /// The value at `index`, below ``count``.
  subscript(index: Int) -> Element {
    precondition(index >= 0 && index < count, "ColumnBuffer index \(index) of \(count)")
    let place = ColumnChunks.place(of: index)
    return chunks[place.chunk][place.offset]
  }

  /// The value at a place of this buffer, or of a buffer with as many values.
  @inlinable
  subscript(place: ColumnChunks.Place) -> Element {
    assert(place.index < count, "ColumnBuffer place \(place.index) of \(count)")
    return chunks[place.chunk][place.offset]
  }

  /// The place of the last value; nil when the buffer is empty.
  @inlinable
  var last: ColumnChunks.Place? {
    count > 0 ? ColumnChunks.place(of: count - 1) : nil
  }

  /// Ends the values and frees the chunks. Inlinable, as every member an inlinable recorder
  /// reaches: the owner's accessors end a buffer too.
  @inlinable
  deinit {
    var left = count
    for (index, chunk) in chunks.enumerated() {
      let held = min(left, ColumnChunks.capacity(ofChunk: index))
      chunk.deinitialize(count: held)
      chunk.deallocate()
      left -= held
    }
  }

  /// Every chunk but the last is full, and the last holds the rest (debug builds).
  func checkInvariants() {
    guard let last else {
      precondition(chunks.isEmpty && room == 0, "ColumnBuffer: chunks without values")
      return
    }
    precondition(last.chunk == chunks.count - 1, "ColumnBuffer: \(chunks.count) chunks")
    precondition(
      room == ColumnChunks.capacity(ofChunk: last.chunk) - last.offset - 1, "ColumnBuffer room")
    precondition(next == chunks[last.chunk] + last.offset + 1, "ColumnBuffer next")
  }
}

/// How a ``ColumnBuffer`` cuts its values into chunks: 16, 32, … 4,096, then 4,096 each.
@usableFromInline
enum ColumnChunks {
  private static var firstShift: Int { 4 }
  private static var largestShift: Int { 12 }
  /// The values held by the chunks that double, before the first of the largest size.
  private static var doublingValues: Int { (1 << largestShift) * 2 - (1 << firstShift) }

  /// How many values the chunk at `index` holds.
  @usableFromInline
  static func capacity(ofChunk index: Int) -> Int {
    1 << min(firstShift + index, largestShift)
  }

  /// Where a value is: its index, its chunk and its offset in the chunk.
  @usableFromInline
  struct Place {
    @usableFromInline var index: Int
    @usableFromInline var chunk: Int
    @usableFromInline var offset: Int

    /// Moves to the value before; false (and unmoved) at the first.
    @inlinable
    mutating func retreat() -> Bool {
      guard index > 0 else { return false }
      index -= 1
      if offset > 0 {
        offset -= 1
      } else {
        chunk -= 1
        offset = ColumnChunks.capacity(ofChunk: chunk) - 1
      }
      return true
    }

    @usableFromInline
    init(index: Int, chunk: Int, offset: Int) {
      self.index = index
      self.chunk = chunk
      self.offset = offset
    }
  }

  /// The place of the value at `index`.
  @usableFromInline
  static func place(of index: Int) -> Place {
    let first = 1 << firstShift
    if index < doublingValues {
      let chunk = Int.bitWidth - 1 - (index / first + 1).leadingZeroBitCount
      return Place(index: index, chunk: chunk, offset: index - first * ((1 << chunk) - 1))
    }
    let rest = index - doublingValues
    return Place(
      index: index, chunk: largestShift - firstShift + 1 + rest >> largestShift,
      offset: rest & ((1 << largestShift) - 1))
  }
}
