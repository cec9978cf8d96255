import ObservedGraph
import Testing

/// Expects `body` to throw an ``ObjectGraphError`` of `kind` that names `entity`, `key` and
/// (when given) a value containing `value`, in its fields and in its description, and expects the
/// whole graph of `context` (plus `extra` objects) to be unchanged afterwards.
@discardableResult
func expectGraphError(
  _ kind: ObjectGraphError.Kind, entity: String, key: String? = nil, value: String? = nil,
  in context: ObjectContext, extra: [ManagedObject] = [],
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> Void
) -> ObjectGraphError? {
  let before = GraphSnapshot(context, extra: extra)
  let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) {
    try body()
  }
  guard let error else { return nil }
  #expect(error.kind == kind, sourceLocation: sourceLocation)
  #expect(error.entity == entity, sourceLocation: sourceLocation)
  #expect(error.key == key, sourceLocation: sourceLocation)
  let text = error.description
  #expect(text.contains(entity), "\(text)", sourceLocation: sourceLocation)
  if let key {
    #expect(text.contains(key), "\(text)", sourceLocation: sourceLocation)
  }
  if let value {
    #expect(
      error.value?.contains(value) == true, "\(error.value ?? "nil")",
      sourceLocation: sourceLocation)
    #expect(text.contains(value), "\(text)", sourceLocation: sourceLocation)
  }
  let after = GraphSnapshot(context, extra: extra)
  #expect(
    after == before, "graph changed:\n\(before)\n---\n\(after)", sourceLocation: sourceLocation)
  context._checkInvariants()
  return error
}

/// Whether two values have the same dynamic type.
func sameType(_ lhs: Any, _ rhs: Any) -> Bool {
  ObjectIdentifier(type(of: lhs)) == ObjectIdentifier(type(of: rhs))
}
