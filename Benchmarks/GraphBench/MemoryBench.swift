import ObservedGraph

/// Heap bytes per object of a graph of `memoryObjects` objects, and the process's peak resident
/// set. Runs first, so the peak is the graph's (plus the process's baseline). Our context has
/// participation off, and each object is read through its typed getter after insert.
enum MemoryBench {
  static func run(_ config: BenchConfig) -> Row {
    let count = config.memoryObjects
    let rssBefore = MemoryStats.procStatus("VmRSS")
    let (oursBytes, context) = MemoryStats.heapGrowth { () -> ObjectContext in
      let context = BenchModel.quietContext()
      fill(context, count)
      return context
    }
    let peak = MemoryStats.procStatus("VmHWM")
    let rssAfter = MemoryStats.procStatus("VmRSS")
    precondition(context.registeredObjects.count == count, "graph-bench: objects went missing")
    blackHole(context)

    // The peers need an array to stay alive; its storage (one reference per object) is subtracted.
    let arrayBytes = count * MemoryLayout<AnyObject>.stride
    let (observableBytes, observables) = MemoryStats.heapGrowth { () -> [ObservableItem] in
      var items: [ObservableItem] = []
      items.reserveCapacity(count)
      for index in 0..<count {
        let item = ObservableItem()
        item.value = index
        items.append(item)
      }
      return items
    }
    blackHole(observables)
    let (plainBytes, plains) = MemoryStats.heapGrowth { () -> [PlainItem] in
      var items: [PlainItem] = []
      items.reserveCapacity(count)
      for index in 0..<count {
        let item = PlainItem()
        item.setValue(index)
        items.append(item)
      }
      return items
    }
    blackHole(plains)

    let label = BenchConfig.short(count)
    var row = Row(
      key: "memoryPerObject", title: "heap bytes per object, graph of \(label) objects",
      unit: "bytes/object")
    let perObject = Double(count)
    row.ours = oursBytes.map { Double($0) / perObject }
    if let observableBytes {
      row.peers[.observable] = Double(observableBytes - arrayBytes) / perObject
    }
    if let plainBytes { row.peers[.plain] = Double(plainBytes - arrayBytes) / perObject }
    let rssPerObject: Double? =
      if let rssBefore, let rssAfter { Double(rssAfter - rssBefore) / perObject } else { nil }
    row.figures = [
      Row.Figure(
        key: "peakResident", label: "VmHWM after building our graph (process peak)",
        value: peak.map { Double($0) / 1_048_576 }, unit: "MiB"),
      Row.Figure(
        key: "residentPerObject", label: "VmRSS growth per object while building our graph",
        value: rssPerObject, unit: "bytes/object"),
    ]
    row.check(
      "vsObservable", "≤ 1 × @Observable with the same fields", row.ratios[.observable], limit: 1)
    row.note =
      "objects: Item { value: Int, title: String } made by insert, a read of value, a set of "
      + "value; participation off"
    if oursBytes == nil { row.note = "mallinfo2 n/a on this platform" }
    return row
  }

  @inline(never)
  static func fill(_ context: ObjectContext, _ count: Int) {
    for index in 0..<count {
      let item = context.insert(Item.self)
      _ = item.value
      item.value = index
    }
  }
}
