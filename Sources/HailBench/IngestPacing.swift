/// How a simulated driver decides when to send its next batch.
public enum IngestPacing: Sendable {
    /// Open loop, like a phone: one batch every `milliseconds`, whether or not acks came back.
    case interval(milliseconds: Int)
    /// Closed loop, to find the ceiling: keep `window` batches unacknowledged, send on every ack.
    case saturate(window: Int)
}
