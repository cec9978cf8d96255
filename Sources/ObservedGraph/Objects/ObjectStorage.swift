/// The values of one object: one slot per property of its entity, inherited properties first.
///
/// An attribute slot holds the attribute's value in its held type (`Int16` for `.int16`), or nil.
/// A to-one slot holds the object or nil. A to-many slot holds an ``ObjectCollection``, made on
/// first use. Only the read hook and the write functions of ManagedObject+Storage.swift use it.
struct ObjectStorage {
  private var slots: ContiguousArray<Any?>

  init(_ initial: ContiguousArray<Any?>) {
    slots = initial
  }

  subscript(slot: Int) -> Any? {
    get { slots[slot] }
    set { slots[slot] = newValue }
  }
}
