import ObservedGraph

/// One world of a test that runs the same seeded steps on a context where changes may be quiet and
/// on one where a change recorder's tap sends every change down the whole mutation path (the
/// reference): a book store scenario, the events it posted (as they print: each context has its
/// own store identity), what observers heard, and the observation tokens the steps hold.
class PathWorld {
  let scenario: BookStore.Scenario
  var events: [String] = []
  var subscription: ObservationToken?
  var recorder: ChangeRecorder?
  var tokens: [ObservationToken] = []
  var heard: [String] = []

  init(participates: Bool, reference: Bool) {
    scenario = BookStore.scenario(participatesInSwiftObservation: participates)
    subscription = scenario.context.onObjectsDidChange { [unowned self] in
      events.append($0.description)
    }
    if reference { recorder = ChangeRecorder(context: scenario.context) }
  }
}
