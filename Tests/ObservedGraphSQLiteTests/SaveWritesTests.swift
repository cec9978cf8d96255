import Foundation
import ObservedGraph
import Testing

@testable import ObservedGraphSQLite

/// What a save of an object with to-many relationships writes, statement by statement (the
/// store's SQL trace): a relationship the save did not change writes nothing, and a changed one
/// writes only the rows that differ from the file — a join row per member added or removed, a
/// position per member that moved — after checking that the object's own row is still there.
@Suite struct SaveWritesTests {
  static let model = StoreFaultTests.model

  /// An edit on the library and the statements its save runs inside the transaction (values
  /// bound by name: `<A>` is shelf A's key).
  struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    let edit: @Sendable (StoreFaultTests.Objects) throws -> Void
    let statements: [String]
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "an attribute of an object with to-many relationships",
      edit: { try $0["A"].setValue("Novels", forKey: "name") },
      statements: [#"UPDATE "Shelf" SET "name" = ? WHERE "og_pk" = ? ['Novels', <A>]"#]),
    Case(
      name: "an attribute of a member of ordered and many-to-many relationships",
      edit: { try $0["b0"].setValue("Dune Messiah", forKey: "title") },
      statements: [#"UPDATE "Item" SET "title" = ? WHERE "og_pk" = ? ['Dune Messiah', <b0>]"#]),
    Case(
      name: "a member appended to an ordered many-to-many",
      edit: { try $0["t0"].mutableOrderedSet(forKey: "items").append($0["b3"]) },
      statements: [
        // Both sides changed. The tag's (ordered, saved first though its key is larger)
        // inserts the row with its position; the book's (unordered) finds it written. The
        // tag's other members are not written. Neither object's own row changes: the save
        // checks that each is still there.
        #"SELECT 1 FROM "Item" WHERE "og_pk" = ? [<b3>]"#,
        #"SELECT 1 FROM "Tag" WHERE "og_pk" = ? [<t0>]"#,
        #"SELECT "source", "target_order" FROM "og_join_Item_tags" WHERE "target" = ? [<t0>]"#,
        #"INSERT INTO "og_join_Item_tags" ("target", "source", "target_order") VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET "target_order" = excluded."target_order" [<t0>, <b3>, 3]"#,
        #"SELECT "target" FROM "og_join_Item_tags" WHERE "source" = ? [<b3>]"#,
      ]),
    Case(
      name: "a member removed from an unordered many-to-many",
      edit: { try $0["A"].mutableSet(forKey: "keywords").remove($0["t0"]) },
      statements: [
        #"SELECT 1 FROM "Shelf" WHERE "og_pk" = ? [<A>]"#,
        #"SELECT "target" FROM "og_join_Shelf_keywords" WHERE "source" = ? [<A>]"#,
        #"DELETE FROM "og_join_Shelf_keywords" WHERE "source" = ? AND "target" = ? [<A>, <t0>]"#,
      ]),
    Case(
      name: "a member appended to an ordered one-to-many",
      edit: { try $0["A"].mutableOrderedSet(forKey: "items").append($0["b3"]) },
      statements: [
        #"UPDATE "Item" SET "shelf" = ? WHERE "og_pk" = ? [<A>, <b3>]"#,
        #"SELECT 1 FROM "Shelf" WHERE "og_pk" = ? [<A>]"#,
        #"SELECT "og_pk", "shelf_order" FROM "Item" WHERE "shelf" = ? [<A>]"#,
        #"UPDATE "Item" SET "shelf_order" = ? WHERE "og_pk" = ? [3, <b3>]"#,
      ]),
    Case(
      name: "two members of an ordered one-to-many swapped",
      edit: { try $0["A"].mutableOrderedSet(forKey: "items").move(from: 2, to: 1) },
      statements: [
        #"SELECT 1 FROM "Shelf" WHERE "og_pk" = ? [<A>]"#,
        #"SELECT "og_pk", "shelf_order" FROM "Item" WHERE "shelf" = ? [<A>]"#,
        #"UPDATE "Item" SET "shelf_order" = ? WHERE "og_pk" = ? [1, <b1>]"#,
        #"UPDATE "Item" SET "shelf_order" = ? WHERE "og_pk" = ? [2, <d0>]"#,
      ]),
  ]

  @Test(arguments: cases)
  func aSaveWritesOnlyTheRowsThatChanged(_ saved: Case) throws {
    let library = try StoreFaultTests.Library()
    let (url, ids, store, context) = (library.url, library.ids, library.store, library.context)
    let objects = library.objects
    try saved.edit(objects)
    var lines: [String] = []
    store.connection.trace = { sql, arguments, _ in
      lines.append(
        arguments.isEmpty
          ? sql : "\(sql) [" + arguments.map(\.traceDescription).joined(separator: ", ") + "]")
    }
    try context.save()
    store.connection.trace = nil
    let begin = try #require(lines.firstIndex(of: "BEGIN IMMEDIATE"))
    #expect(lines.last == "COMMIT")
    // Each save first reads SQLite's schema cookie: whether another process migrated the file.
    #expect(lines[begin + 1] == "PRAGMA schema_version")
    let written = Array(lines[(begin + 2)..<(lines.count - 1)])
    let expected = saved.statements.map { statement in
      ids.reduce(statement) { $0.replacingOccurrences(of: "<\($1.key)>", with: "\($1.value.key)") }
    }
    #expect(written == expected, "\(saved.name):\n\(written.joined(separator: "\n"))")
    // What was written is what the context holds (read by a second store on the file).
    try StoreFaultTests.expectTheFileHolds(
      url, Array(context.registeredObjects), deleted: [], "\(saved.name)")
    try store.close()
  }

  /// A new pair of an unordered many-to-many is among the members of both sides; the save
  /// writes its join row once, from the side it reaches first.
  @Test func aNewPairOfAManyToManyIsWrittenOnce() throws {
    let model = try ObjectModel(entities: [
      EntityDescription(
        name: "Student",
        relationships: [
          RelationshipDescription(
            name: "courses", destination: "Course", inverse: "students", toMany: true)
        ]),
      EntityDescription(
        name: "Course",
        relationships: [
          RelationshipDescription(
            name: "students", destination: "Student", inverse: "courses", toMany: true)
        ]),
    ])
    let folder = try SQLiteConnectionTests.Folder()
    let url = folder.url.appendingPathComponent("school.sqlite")
    let store = try SQLiteStore(url: url, model: model)
    let context = PersistentContainer(store: store).newContext()
    let students = try (0..<2).map { _ in try context.insertObject(forEntityName: "Student") }
    let courses = try (0..<2).map { _ in try context.insertObject(forEntityName: "Course") }
    for student in students { try student.mutableSet(forKey: "courses").formUnion(courses) }
    var inserts: [String] = []
    store.connection.trace = { sql, arguments, _ in
      guard sql.hasPrefix(#"INSERT INTO "og_join_"#) else { return }
      inserts.append("\(sql) " + arguments.map(\.traceDescription).joined(separator: ", "))
    }
    try context.save()
    #expect(inserts.count == 4, "\(inserts.joined(separator: "\n"))")
    // Then one more pair, between saved objects: one insert again.
    inserts = []
    let third = try context.insertObject(forEntityName: "Course")
    try third.mutableSet(forKey: "students").insert(students[0])
    try context.save()
    #expect(inserts.count == 1, "\(inserts.joined(separator: "\n"))")
    store.connection.trace = nil
    let reader = PersistentContainer(store: try SQLiteStore(url: url, model: model)).newContext()
    let courseCounts = try students.map { student in
      let copy = try reader.existingObject(with: student.objectID)
      return (try copy.value(forKey: "courses") as? Set<ManagedObject>)?.count ?? -1
    }
    #expect(courseCounts == [3, 2])
    try store.close()
  }
}
