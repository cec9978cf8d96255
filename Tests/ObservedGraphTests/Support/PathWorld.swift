import ObservedGraph

/// One world of a test that runs the same seeded steps on a context where changes may be quiet and
/// on one where a change recorder's tap sends every change down the whole mutation path (the
/// reference): the context, the events it posted (as they print: each context has its own store
/// identity), what observers heard, and the observation tokens the steps hold.
class PathWorld {
  let context: ObjectContext
  var events: [String] = []
  var subscription: ObservationToken?
  var recorder: ChangeRecorder?
  var tokens: [ObservationToken] = []
  var heard: [String] = []

  init(context: ObjectContext, reference: Bool) {
    self.context = context
    subscription = context.onObjectsDidChange { [unowned self] in events.append($0.description) }
    if reference { recorder = ChangeRecorder(context: context) }
  }
}

/// A ``PathWorld`` of the book store scenario.
class BookStoreWorld: PathWorld {
  let scenario: BookStore.Scenario

  init(participates: Bool, reference: Bool) {
    scenario = BookStore.scenario(participatesInSwiftObservation: participates)
    super.init(context: scenario.context, reference: reference)
  }
}
