/// Keeps an observation alive; invalidating or releasing it stops delivery at once.
///
/// Tokens hold nothing strongly but the handler: observed objects are not kept alive by them, and an
/// observation ends by itself when its object is deleted from memory or its context is reset.
///
/// ```swift
/// var token: ObservationToken? = book.observe(\.title, options: .new) { _, _ in }
/// token = nil   // no more calls
/// ```
public final class ObservationToken {
  private var cancel: (() -> Void)?

  init(cancel: @escaping () -> Void) {
    self.cancel = cancel
  }

  /// A token that delivers nothing: what observing an object without a context returns.
  static func ended() -> ObservationToken {
    let token = ObservationToken {}
    token.cancel = nil
    return token
  }

  /// Stops delivery; later calls do nothing.
  public func invalidate() {
    let cancel = self.cancel
    self.cancel = nil
    cancel?()
  }

  /// Whether the token still delivers.
  public var isValid: Bool { cancel != nil }

  deinit { invalidate() }
}
