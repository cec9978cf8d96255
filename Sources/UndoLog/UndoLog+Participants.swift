extension UndoLog {
  /// Makes an object available to the steps the log applies, without keeping it alive.
  ///
  /// A value step holds no object reference: it names what it acts on by value and, in
  /// ``UndoStep/apply(in:)``, asks the log for the object by type with ``participants(of:)``.
  /// Participants are held weakly; one that is released drops out of the list by itself. Adding an
  /// object already added (compared by identity) changes nothing.
  ///
  /// ```swift
  /// let board = Scoreboard()
  /// log.addParticipant(board)
  /// log.register(SetScore(player: "ada", score: 0))  // finds board when undone
  /// ```
  ///
  /// - Parameter participant: The object steps act through, held weakly.
  /// - Complexity: O(*p*), *p* the number of participants.
  public func addParticipant(_ participant: AnyObject) {
    dropReleasedParticipants()
    guard !participantEntries.contains(where: { $0.object === participant }) else { return }
    participantEntries.append(WeakParticipant(object: participant))
  }

  /// Stops offering an object to the steps the log applies.
  ///
  /// Does nothing when the object is not a participant. Steps that act through it find nothing
  /// from then on; they stay on the stacks (use ``removeAllActions(withTarget:)`` to drop them).
  ///
  /// ```swift
  /// log.removeParticipant(board)
  /// log.participants(of: Scoreboard.self)  // []
  /// ```
  ///
  /// - Parameter participant: The object to remove, compared by identity.
  /// - Complexity: O(*p*), *p* the number of participants.
  public func removeParticipant(_ participant: AnyObject) {
    participantEntries.removeAll { $0.object == nil || $0.object === participant }
  }

  /// The live participants of a type, in the order they were added.
  ///
  /// A step calls it from ``UndoStep/apply(in:)`` to find the object it acts on. Participants
  /// released since they were added are left out (and forgotten). Subclasses count: asking for a
  /// class finds the participants of its subclasses too.
  ///
  /// ```swift
  /// mutating func apply(in log: UndoLog) -> any UndoStep {
  ///   guard let board = log.participants(of: Scoreboard.self).first else {
  ///     return EmptyUndoStep()
  ///   }
  ///   // …change board, return the inverse
  /// }
  /// ```
  ///
  /// - Parameter type: The type of participant wanted.
  /// - Returns: The live participants that are instances of `type`, oldest first.
  /// - Complexity: O(*p*), *p* the number of participants.
  public func participants<T: AnyObject>(of type: T.Type) -> [T] {
    dropReleasedParticipants()
    var found: [T] = []
    for entry in participantEntries {
      if let participant = entry.object as? T {
        found.append(participant)
      }
    }
    return found
  }

  /// The first live participant of a type that satisfies `predicate`, found without
  /// allocating: what a step looks up each time it is applied.
  ///
  /// ```swift
  /// let document = log.firstParticipant(of: Document.self) { $0.id == step.documentID }
  /// ```
  ///
  /// - Parameters:
  ///   - type: The class to look for (subclasses count).
  ///   - predicate: Which participant of that class.
  /// - Returns: The participant, or `nil`.
  /// - Complexity: O(*n*), *n* the participants.
  public func firstParticipant<T: AnyObject>(
    of type: T.Type, where predicate: (T) -> Bool
  ) -> T? {
    for entry in participantEntries {
      if let participant = entry.object as? T, predicate(participant) {
        return participant
      }
    }
    return nil
  }

  // MARK: Internals

  private func dropReleasedParticipants() {
    if participantEntries.contains(where: { $0.object == nil }) {
      participantEntries.removeAll { $0.object == nil }
    }
  }
}

/// A participant of a log, held weakly.
struct WeakParticipant {
  weak var object: AnyObject?
}
