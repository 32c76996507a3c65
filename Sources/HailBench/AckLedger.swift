import Synchronization

/// One driver connection's books: batches sent and not yet acknowledged, and what the acks told.
///
/// Shared by the task that sends on a schedule and the task that reads acks, hence the lock.
final class AckLedger: Sendable {
    /// Totals of one connection, merged over all connections for the report.
    struct Tally: Sendable {
        /// Batches written to the socket.
        var sentBatches = 0
        /// Fixes in those batches.
        var sentPoints = 0
        /// Batches acknowledged (an ack covers every seq up to its own).
        var ackedBatches = 0
        /// Fixes acknowledged within the measured window.
        var ackedPointsInWindow = 0
        /// Batches acknowledged within the measured window.
        var ackedBatchesInWindow = 0
        /// Send-to-ack time of every acknowledged batch, microseconds.
        var latencies: [UInt32] = []
        /// Batches still unacknowledged at the end.
        var unacked = 0

        /// Adds another connection's totals.
        mutating func absorb(_ other: Tally) {
            sentBatches += other.sentBatches
            sentPoints += other.sentPoints
            ackedBatches += other.ackedBatches
            ackedPointsInWindow += other.ackedPointsInWindow
            ackedBatchesInWindow += other.ackedBatchesInWindow
            latencies += other.latencies
            unacked += other.unacked
        }
    }

    /// A batch written and not yet acknowledged.
    private struct Outstanding {
        /// Its sequence number.
        var seq: Int64
        /// Fixes it carries.
        var points: Int
        /// When it was handed to the socket.
        var sentAt: ContinuousClock.Instant
    }

    /// Everything the lock protects.
    private struct State {
        /// The seq the next batch gets (the server wants them growing from 1).
        var nextSeq: Int64 = 1
        /// Oldest first; seqs only grow.
        var outstanding: [Outstanding] = []
        /// Totals so far.
        var tally = Tally()
    }

    /// The books, locked because the sender and the ack reader are different tasks.
    private let state = Mutex(State())
    /// Acks after this instant are not counted in the throughput (they still clear `outstanding`).
    private let windowEnd: ContinuousClock.Instant

    /// Books whose throughput window closes at `windowEnd`.
    init(windowEnd: ContinuousClock.Instant) { self.windowEnd = windowEnd }

    /// Takes the next seq and records a batch of `points` as sent now (before it is written, so an
    /// ack can never arrive for a batch the books do not know).
    func reserveSend(points: Int, at now: ContinuousClock.Instant) -> Int64 {
        state.withLock { state in
            let seq = state.nextSeq
            state.nextSeq += 1
            state.outstanding.append(Outstanding(seq: seq, points: points, sentAt: now))
            state.tally.sentBatches += 1
            state.tally.sentPoints += points
            return seq
        }
    }

    /// Records an ack for every outstanding batch up to `seq`.
    func acknowledge(seq: Int64, at now: ContinuousClock.Instant) {
        state.withLock { state in
            var covered = 0
            for batch in state.outstanding {
                guard batch.seq <= seq else { break }
                covered += 1
                state.tally.ackedBatches += 1
                state.tally.latencies.append(LatencySummary.microseconds(now - batch.sentAt))
                if now <= windowEnd {
                    state.tally.ackedBatchesInWindow += 1
                    state.tally.ackedPointsInWindow += batch.points
                }
            }
            state.outstanding.removeFirst(covered)
        }
    }

    /// Batches sent and not yet acknowledged.
    var inFlight: Int { state.withLock { $0.outstanding.count } }

    /// The totals, with whatever is still outstanding counted as unacknowledged.
    func tally() -> Tally {
        state.withLock { state in
            var tally = state.tally
            tally.unacked = state.outstanding.count
            return tally
        }
    }
}
