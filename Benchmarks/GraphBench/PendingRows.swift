/// Rows whose API does not exist yet: printed so the table keeps its shape.
enum PendingRows {
  static func fileStore() -> [Row] {
    [
      Row.notBuilt("fileStoreSave", "FileStore save of 1M objects", unit: "objects/s"),
      Row.notBuilt("fileStoreLoad", "FileStore load of 1M objects", unit: "objects/s"),
    ]
  }
}
