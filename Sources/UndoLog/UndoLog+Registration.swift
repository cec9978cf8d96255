extension UndoLog {
  /// Records a step in the innermost open group.
  ///
  /// With no group open, the registration opens the implicit event group (or, with
  /// ``groupsByEvent`` off, forms a one-step group of its own). Outside undo and redo it clears
  /// the redo stack. While undoing it joins the group bound for the redo stack; while redoing, the
  /// group bound for the undo stack. While registration is disabled it records nothing; with
  /// ``coalescingWindow`` set it may merge into the previous registration.
  ///
  /// Recording is on the hot path of every observed mutation: it stores the step in an
  /// existential box and allocates nothing else, and it does no event work while nobody listens.
  ///
  /// ```swift
  /// counter.value += 2
  /// log.register(Add(counter: counter, delta: -2))
  /// ```
  ///
  /// - Parameter step: The step that undoes the change just made.
  /// - Complexity: Amortized O(1), plus the redo groups cleared.
  public func register(_ step: some UndoStep) {
    guard disableCount == 0 else { return }
    record(step)
  }

  /// Records a closure that undoes a change, as `UndoManager` does.
  ///
  /// The target is held weakly: if it is gone when the group is undone, the handler is skipped.
  /// The handler runs while undoing (or redoing) and registers its own inverse the same way, which
  /// lands on the opposite stack.
  ///
  /// ```swift
  /// func setName(_ name: String) {
  ///   let old = person.name
  ///   log.registerUndo(withTarget: person) { person in
  ///     setName(old)  // registers the redo
  ///   }
  ///   person.name = name
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object the handler acts on, held weakly; ``removeAllActions(withTarget:)``
  ///     finds the registration by it.
  ///   - handler: The closure that undoes the change, given the target.
  public func registerUndo<Target: AnyObject>(
    withTarget target: Target,
    handler: @escaping (Target) -> Void
  ) {
    guard disableCount == 0 else { return }
    record(ClosureStep(object: target, handler: handler))
  }

  /// Stops recording: registrations and action names are ignored until a matching
  /// ``enableRegistration()``.
  ///
  /// Calls are counted: each needs its own ``enableRegistration()``.
  ///
  /// ```swift
  /// log.disableRegistration()
  /// importer.run()  // not undoable
  /// try log.enableRegistration()
  /// ```
  public func disableRegistration() {
    disableCount += 1
    _checkInvariantsAfterMutation()
  }

  /// Balances one ``disableRegistration()``; recording resumes when every one is balanced.
  ///
  /// ```swift
  /// try log.enableRegistration()
  /// ```
  ///
  /// - Throws: ``UndoLogError/registrationNotDisabled`` when called more times than
  ///   ``disableRegistration()``; the log is left unchanged.
  public func enableRegistration() throws {
    guard disableCount > 0 else { throw UndoLogError.registrationNotDisabled }
    disableCount -= 1
    _checkInvariantsAfterMutation()
  }

  /// Whether registrations are recorded: `false` between unbalanced ``disableRegistration()``
  /// and ``enableRegistration()`` calls.
  ///
  /// ```swift
  /// log.disableRegistration()
  /// log.isRegistrationEnabled  // false
  /// ```
  public var isRegistrationEnabled: Bool { disableCount == 0 }

  /// Records a step, registration being enabled.
  func record(_ step: any UndoStep) {
    endGrowth()
    if coalescingWindow != nil, coalesces(step) { return }
    if !isUndoing && !isRedoing && !redoStack.isEmpty {
      // Kept until the outermost group closes, for a `discardGroup()` to put back.
      clearedRedo = (max(groupingLevel, 1), redoStack)
      redoStack.removeAll()
    }
    let standalone = groupingLevel == 0 && !groupsByEvent
    if groupingLevel == 0 {
      openGroup(origin: .event)
    }
    current.byteSize += step.countedByteSize
    current.steps.append(step)
    if standalone {
      closeInnermostGroup()
    }
    _checkRegistrationInvariants()
  }
}

/// The step `registerUndo(withTarget:handler:)` records: a weak target and a closure.
struct ClosureStep<Target: AnyObject>: UndoStep, RegisteredClosure {
  weak var object: Target?
  let handler: (Target) -> Void

  mutating func apply() -> any UndoStep {
    if let object {
      handler(object)
    }
    return EmptyUndoStep()
  }

  var target: AnyObject? { object }
}

/// Marks the closure steps of every target type, which cannot be archived.
protocol RegisteredClosure {}
