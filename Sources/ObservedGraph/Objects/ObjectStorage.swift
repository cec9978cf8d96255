/// The values of one object that do not live in a typed field: one entry per such property of its
/// entity (see `EntityDescription.storageIndex`), inherited properties first. An object whose
/// properties all live in fields has an empty array, which allocates nothing.
///
/// An attribute entry holds the attribute's value in its held type (`Int16` for `.int16`), or nil.
/// A to-one entry holds the object or nil. A to-many entry holds an ``ObjectCollection``, made on
/// first use. Only the read hook and the write functions of ManagedObject+Storage.swift use it.
struct ObjectStorage {
  private var slots: ContiguousArray<Any?>

  init(_ initial: ContiguousArray<Any?>) {
    slots = initial
  }

  subscript(index: Int) -> Any? {
    get { slots[index] }
    set { slots[index] = newValue }
  }

  /// The object a relationship entry holds (a related object or a collection), read in place,
  /// without copying the entry's `Any?` or casting the object out of it.
  ///
  /// Unsafe inside: an `Any?` keeps its type in its fourth word, zero for nil, and an instance of
  /// a class in the first word of its buffer; a relationship entry holds only such instances.
  /// Debug builds check the result against the entry read the safe way.
  func reference(at index: Int) -> AnyObject? {
    precondition(index >= 0 && index < slots.count, "ObjectStorage index \(index)")
    let reference = slots.withUnsafeBufferPointer { buffer -> AnyObject? in
      let entry = UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped + index)
      guard entry.load(fromByteOffset: 3 * MemoryLayout<UInt>.stride, as: UInt.self) != 0 else {
        return nil
      }
      return entry.load(as: Unmanaged<AnyObject>.self).takeUnretainedValue()
    }
    assert(
      reference === slots[index].map { $0 as AnyObject }
        && (slots[index] == nil) == (reference == nil),
      "a relationship entry holds \(String(describing: slots[index]))")
    return reference
  }
}
