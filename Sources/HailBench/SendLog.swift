import Synchronization

/// When a watched driver sent each batch, by seq, so a rider's `driverMoved` (which carries the batch's
/// seq) can be timed from the driver's send to the rider's receive.
final class SendLog: Sendable {
    private let sent = Mutex([Int64: ContinuousClock.Instant]())

    /// An empty log.
    init() {}

    /// Books batch `seq` as sent at `instant`.
    func record(seq: Int64, at instant: ContinuousClock.Instant) {
        sent.withLock { $0[seq] = instant }
    }

    /// When batch `seq` was sent, if it was.
    func sentAt(seq: Int64) -> ContinuousClock.Instant? {
        sent.withLock { $0[seq] }
    }
}
