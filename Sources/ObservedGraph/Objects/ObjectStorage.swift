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
}
