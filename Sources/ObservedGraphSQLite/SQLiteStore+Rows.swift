import CSQLite
import Foundation
import ObservedGraph

/// Where the store reads a row's values: a ``StoredObject`` being built, or a context's objects
/// through its ``ObjectLoader``. The row reader is generic over it, so each kind of load reads its
/// columns with the same code and no dynamic dispatch; a class, passed without a reference count.
protocol RowTarget: AnyObject {
  /// An attribute's value, nil for NULL, at its index in the entity's property names.
  func attribute(_ value: StoredValue?, at slot: Int)
  /// A to-one relationship's key (nil for none) and the related object's entity.
  func toOne(_ key: Int64?, _ entity: EntityDescription, at slot: Int)
  // The values of the common types, as `attribute(_:at:)` takes them wrapped in a `StoredValue`: a
  // target that can put them in place without the enum does.
  func string(_ text: String, at slot: Int)
  func integer(_ number: Int64, at slot: Int)
  func double(_ number: Double, at slot: Int)
  func bool(_ flag: Bool, at slot: Int)
  func date(_ date: Date, at slot: Int)
}

extension RowTarget {
  func string(_ text: String, at slot: Int) { attribute(.string(text), at: slot) }
  func integer(_ number: Int64, at slot: Int) { attribute(.integer(number), at: slot) }
  func double(_ number: Double, at slot: Int) { attribute(.double(number), at: slot) }
  func bool(_ flag: Bool, at slot: Int) { attribute(.bool(flag), at: slot) }
  func date(_ date: Date, at slot: Int) { attribute(.date(date), at: slot) }
}

/// A row read into a ``StoredObject``.
final class StoredRow: RowTarget {
  private let id: ObjectID
  private let store: UUID
  private var properties: [StoredProperty]

  init(_ layout: EntityLayout, key: Int64, store: UUID) {
    id = ObjectID(storeIdentifier: store, entityName: layout.entity.name, key: key)
    self.store = store
    properties = Array(repeating: .omitted, count: layout.propertyCount)
  }

  var object: StoredObject { StoredObject(id: id, properties: properties) }

  func attribute(_ value: StoredValue?, at slot: Int) {
    properties[slot] = .attribute(value)
  }

  func toOne(_ key: Int64?, _ entity: EntityDescription, at slot: Int) {
    properties[slot] = .toOne(
      key.map { ObjectID(storeIdentifier: store, entityName: entity.name, key: $0) })
  }
}

/// A row read into a context's object.
extension ObjectLoader: RowTarget {
  func attribute(_ value: StoredValue?, at slot: Int) { setAttribute(value, at: slot) }
  func toOne(_ key: Int64?, _ entity: EntityDescription, at slot: Int) {
    setToOne(key, entity: entity, at: slot)
  }
  func string(_ text: String, at slot: Int) { setString(text, at: slot) }
  func integer(_ number: Int64, at slot: Int) { setInteger(number, at: slot) }
  func double(_ number: Double, at slot: Int) { setDouble(number, at: slot) }
  func bool(_ flag: Bool, at slot: Int) { setBool(flag, at: slot) }
  func date(_ date: Date, at slot: Int) { setDate(date, at: slot) }
}

/// What a query's rows go to, row by row: a struct passed to
/// ``SQLiteStatement/forEachRow(_:reader:)`` without a closure context, so that nothing it holds is
/// reference counted per row.
protocol RowReader {
  func read(_ row: SQLiteStatement.Row) throws
}

/// The rows of a layout's select columns (`og_pk` and `og_entity` first), from the table
/// numbered `table` (see ``EntityLayout/tableNumber``), loaded into a loader.
struct LoadingReader: RowReader {
  let store: SQLiteStore
  let table: Int
  let loader: ObjectLoader

  func read(_ row: SQLiteStatement.Row) throws {
    try store.loadRow(row, inTable: table, into: loader)
  }
}

extension SQLiteStatement.Row {
  /// A column's integer; nil when it holds anything else (NULL included).
  func integer(at column: Int) -> Int64? {
    let index = Int32(column)
    guard sqlite3_column_type(statement.handle, index) == SQLITE_INTEGER else { return nil }
    return sqlite3_column_int64(statement.handle, index)
  }

  /// Gives a column's value to a target as an attribute of a conversion keeps it, the common
  /// types without a ``StoredValue`` on the way; the same values as ``stored(at:as:)``. Clears
  /// `ascii` when `checks` is true and the column holds text beyond ASCII, found from the bytes
  /// the text is read from (see ``SQLiteStore/loadRow(_:into:checkingASCII:)``).
  ///
  /// NULL is nil for an optional attribute. For a `required` (non-optional) one it is NaN when
  /// the attribute is floating-point (what earlier versions of the store wrote for NaN, which
  /// SQLite keeps as NULL), and no value of any other type.
  ///
  /// - Returns: False for a value the attribute cannot take (nothing given then).
  @inline(__always)
  func give<Target: RowTarget>(
    at column: Int, as conversion: ColumnValue.Conversion, slot: Int, to target: Target,
    required: Bool, checkingASCII checks: Bool, _ ascii: inout Bool
  ) -> Bool {
    let handle = statement.handle
    let index = Int32(column)
    switch (conversion, sqlite3_column_type(handle, index)) {
    case (.string, SQLITE_TEXT):
      target.string(text(at: index, checkingASCII: checks, &ascii), at: slot)
    case (.integer, SQLITE_INTEGER): target.integer(sqlite3_column_int64(handle, index), at: slot)
    case (.double, SQLITE_FLOAT): target.double(sqlite3_column_double(handle, index), at: slot)
    case (.double, SQLITE_INTEGER):
      target.double(Double(sqlite3_column_int64(handle, index)), at: slot)
    case (.bool, SQLITE_INTEGER): target.bool(sqlite3_column_int64(handle, index) != 0, at: slot)
    case (.date, SQLITE_FLOAT):
      target.date(
        Date(timeIntervalSinceReferenceDate: sqlite3_column_double(handle, index)), at: slot)
    case (.date, SQLITE_INTEGER):
      target.date(
        Date(timeIntervalSinceReferenceDate: Double(sqlite3_column_int64(handle, index))),
        at: slot)
    default:
      if checks && !isASCIIText(at: column) { ascii = false }
      guard let stored = stored(at: column, as: conversion) else { return false }
      guard stored != nil || !required else {
        guard conversion == .double else { return false }
        target.double(.nan, at: slot)
        return true
      }
      target.attribute(stored, at: slot)
    }
    return true
  }

  /// The integer of a column that holds nothing else: a table's `INTEGER PRIMARY KEY`.
  func rowKey(at column: Int) -> Int64 {
    sqlite3_column_int64(statement.handle, Int32(column))
  }

  /// The row's `og_entity` (its second column), which the store writes as a positive integer
  /// (`NOT NULL`), read without asking SQLite its type first, which would be one call into SQLite
  /// more per row. A value another program wrote reads as SQLite converts it to an integer: text as 0,
  /// which names no entity, so its row is left out as a row of an unknown entity is.
  func entityID() -> Int64 {
    sqlite3_column_int64(statement.handle, 1)
  }

  /// A column's value as an attribute of a conversion keeps it, read in place (no
  /// ``SQLiteValue`` on the way): `.some(nil)` for NULL, nil for a value the attribute's type
  /// cannot take (a file edited by other code). See ``SQLiteSchema`` for the table of types.
  func stored(at column: Int, as conversion: ColumnValue.Conversion) -> StoredValue?? {
    let handle = statement.handle
    let index = Int32(column)
    let type = sqlite3_column_type(handle, index)
    if type == SQLITE_NULL { return .some(nil) }
    let stored: StoredValue?
    switch (conversion, type) {
    case (.string, SQLITE_TEXT): stored = .string(text(at: index))
    case (.integer, SQLITE_INTEGER): stored = .integer(sqlite3_column_int64(handle, index))
    case (.double, SQLITE_FLOAT): stored = .double(sqlite3_column_double(handle, index))
    case (.double, SQLITE_INTEGER): stored = .double(Double(sqlite3_column_int64(handle, index)))
    case (.url, SQLITE_TEXT): stored = URL(string: text(at: index)).map(StoredValue.url)
    case (.decimal, SQLITE_TEXT):
      let text = text(at: index)
      // `NaN`: what earlier versions wrote for `Decimal.nan`, which `Decimal(string:)` refuses.
      stored = (text == "NaN" ? .nan : Decimal(string: text, locale: nil)).map(StoredValue.decimal)
    case (.decimal, SQLITE_INTEGER):
      stored = .decimal(Decimal(sqlite3_column_int64(handle, index)))
    case (.bool, SQLITE_INTEGER): stored = .bool(sqlite3_column_int64(handle, index) != 0)
    case (.date, SQLITE_FLOAT):
      stored = .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(handle, index)))
    case (.date, SQLITE_INTEGER):
      stored = .date(
        Date(timeIntervalSinceReferenceDate: Double(sqlite3_column_int64(handle, index))))
    case (.uuid, SQLITE_BLOB):
      stored = withBlob(at: index) { bytes in
        guard bytes.count == 16 else { return nil }
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
        return .uuid(UUID(uuid: uuid))
      }
    case (.data, SQLITE_BLOB): stored = withBlob(at: index) { .data(Data($0)) }
    default: stored = nil
    }
    guard let stored else { return nil }
    return .some(stored)
  }

  /// Whether a column holds no text beyond ASCII: true for NULL and for values that are not
  /// text.
  func isASCIIText(at column: Int) -> Bool {
    let handle = statement.handle
    let index = Int32(column)
    guard sqlite3_column_type(handle, index) == SQLITE_TEXT,
      let bytes = sqlite3_column_text(handle, index)
    else { return true }
    return Self.isASCII(UnsafeRawPointer(bytes), count: Int(sqlite3_column_bytes(handle, index)))
  }

  /// Whether `count` bytes hold no byte beyond ASCII; eight at a time.
  @inline(__always)
  static func isASCII(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
    var offset = 0
    var high: UInt64 = 0
    while offset + 8 <= count {
      high |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
      offset += 8
    }
    while offset < count {
      high |= UInt64(bytes.load(fromByteOffset: offset, as: UInt8.self))
      offset += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
  }

  /// A text column's string, read with its length (no scan for the end).
  private func text(at index: Int32) -> String {
    var ascii = true
    return text(at: index, checkingASCII: false, &ascii)
  }

  /// A text column's string; clears `ascii` when `checks` is true and the bytes go beyond ASCII.
  @inline(__always)
  private func text(at index: Int32, checkingASCII checks: Bool, _ ascii: inout Bool) -> String {
    let handle = statement.handle
    guard let bytes = sqlite3_column_text(handle, index) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, index))
    if checks && !Self.isASCII(UnsafeRawPointer(bytes), count: count) { ascii = false }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  /// Calls `body` with a blob column's bytes, valid during the call.
  private func withBlob<Result>(
    at index: Int32, _ body: (UnsafeRawBufferPointer) -> Result
  ) -> Result {
    let handle = statement.handle
    let count = Int(sqlite3_column_bytes(handle, index))
    guard count > 0, let bytes = sqlite3_column_blob(handle, index) else {
      return body(UnsafeRawBufferPointer(start: nil, count: 0))
    }
    return body(UnsafeRawBufferPointer(start: bytes, count: count))
  }
}
