@_spi(Reflection) import Swift

/// Where each stored property of a class sits in its instances, by the property's name.
///
/// A model reads and writes each property wrapper in place, at its byte offset in the object, and
/// Swift's public API gives offsets only for the stored properties of structs
/// (`MemoryLayout.offset(of:)`). The offsets come from the standard library's reflection entry
/// point `_forEachField(of:options:body:)` with `.classType` (`@_spi(Reflection)`), which lists a
/// class's stored properties, its superclasses' first, with their offsets, on Linux and on Apple
/// platforms. This file is the only user of it. Each offset is checked when the model is built:
/// a marker written at the offset must be what `Mirror` then reads in the wrapper
/// (``PropertyWrapperDeclaring/checkWrapperOffset(_:slotOffset:label:in:)``), and a model whose
/// class cannot be listed or checked stops with a message saying so.
enum FieldLayout {
  /// `_EachFieldOptions.classType`, which Swift 6 will not read from another isolation (the
  /// standard library declares it a `static var`): its value, bit 0. Were it another option,
  /// `_forEachField` would refuse the class (it lists a class's fields only with this one), and
  /// ``offsets(of:)`` stops with its message.
  private static let classType = _EachFieldOptions(rawValue: 1 << 0)

  /// The byte offset of each stored property of `prototype`'s class (its own and its
  /// superclasses'), by name.
  static func offsets(of prototype: ManagedObject) -> [String: Int] {
    let type = Swift.type(of: prototype)
    var offsets: [String: Int] = [:]
    let listed = _forEachField(of: type, options: classType) { name, offset, _, _ in
      offsets[String(cString: name)] = offset
      return true
    }
    guard listed else {
      preconditionFailure(
        "ObservedGraph: the runtime cannot list the stored properties of \(type), so the "
          + "offsets of its property wrappers are unknown and the class cannot be used in a model")
    }
    return offsets
  }
}
