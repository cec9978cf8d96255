import Foundation
import ObservedGraph

/// Typed property setters for some attributes, so that sets go through the property wrappers as
/// well as through key-value coding.
enum TypedSetters {
  typealias Setter = @Sendable (ManagedObject, AnyHashable?) -> Void

  static func setter(_ entity: String, _ key: String) -> Setter? {
    table["\(entity).\(key)"]
  }

  private static func note(_ object: ManagedObject) -> RNote { object as! RNote }

  private static let table: [String: Setter] = [
    "RNote.text": { note($0).text = $1!.base as! String },
    "RNote.flag": { note($0).flag = $1!.base as! Bool },
    "RNote.small": { note($0).small = $1!.base as! Int16 },
    "RNote.medium": { note($0).medium = $1!.base as! Int32 },
    "RNote.large": { note($0).large = $1!.base as! Int64 },
    "RNote.count": { note($0).count = $1!.base as! Int },
    "RNote.single": { note($0).single = $1!.base as! Float },
    "RNote.double": { note($0).double = $1!.base as! Double },
    "RNote.decimal": { note($0).decimal = $1!.base as! Decimal },
    "RNote.date": { note($0).date = $1!.base as! Date },
    "RNote.data": { note($0).data = $1!.base as! Data },
    "RNote.uuid": { note($0).uuid = $1!.base as! UUID },
    "RNote.url": { note($0).url = $1!.base as! URL },
    "RNote.shape": { note($0).shape = $1!.base as! RShape },
    "RNote.words": { note($0).words = $1!.base as! [String] },
    "RNote.remark": { note($0).remark = $1.map { $0.base as! String } },
    "RNote.rating": { note($0).rating = $1.map { $0.base as! Double } },
    "RFolder.title": { ($0 as! RFolder).title = $1!.base as! String },
    "RFolder.rank": { ($0 as! RFolder).rank = $1!.base as! Int16 },
    "RPage.number": { ($0 as! RPage).number = $1!.base as! Int },
  ]
}
