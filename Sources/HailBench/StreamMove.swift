/// One move of a stream in `hail bench restarts`: told to go (4012) at `closedAt`, working again `took` later (a
/// driver's first ack, a rider's first position, on the next connection).
struct StreamMove: Sendable {
    /// When the 4012 arrived.
    let closedAt: ContinuousClock.Instant
    /// Until the stream carried what it is for again.
    let took: Duration
}
