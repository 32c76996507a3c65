/// What is left of a request's deadline: the deadline counts from the request's arrival, so the time it waited
/// before its handler ran (queued behind a busy loop or the requests ahead of it) is spent already.
struct RequestBudget: Sendable, Hashable {
    /// The longest the request's answer may take from its arrival.
    let deadline: Duration
    /// When the server read the request's head.
    let receivedAt: ContinuousClock.Instant

    /// The time left at `now`, never negative: zero once the deadline has passed.
    func remaining(now: ContinuousClock.Instant) -> Duration {
        let left = deadline - (now - receivedAt)
        return left > .zero ? left : .zero
    }
}
