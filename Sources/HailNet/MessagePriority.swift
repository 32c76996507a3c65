/// How a queued outbound message is treated when the peer reads too slowly.
public enum MessagePriority: Sendable {
    /// Never dropped: if the essential queue overflows, the connection is closed with 4009 "slow consumer".
    case essential
    /// Superseded by newer data (positions): when the queue is full the oldest queued one is dropped.
    case disposable
}
