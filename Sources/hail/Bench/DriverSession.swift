import Foundation
import HailNet
import Synchronization

/// One simulated driver on `/v1/drivers/me/live`: sends location batches and books each ack against the
/// batch it covers.
///
/// Acks are read on the client's loop (`AckReader`, no task per driver or per message); an open-loop driver
/// is sent for by the one `IngestPacer` of the run, a saturating one refills its window from the ack
/// callback, so the load generator costs a few microseconds per batch and is not what limits a run.
struct DriverSession: Sendable {
    /// The open driver stream.
    let connection: WebSocketConnection
    /// Makes this driver's batches.
    let frames: LocationFrameFactory
    /// Binary frames (`LocationBatchCodec`) instead of JSON text.
    let binary: Bool
    /// When to send.
    let pacing: IngestPacing
    /// This driver's books.
    let ledger: AckLedger
    /// Send times by seq, kept when a rider watches this driver's trip.
    var log: SendLog? = nil

    /// Books the next batch as sent at `now` and queues it on the socket.
    func send(at now: ContinuousClock.Instant) {
        let seq = ledger.reserveSend(points: frames.pointsPerBatch, at: now)
        log?.record(seq: seq, at: now)
        if binary {
            connection.send(binary: frames.binary(seq: seq))
        } else {
            connection.send(text: frames.json(seq: seq))
        }
    }

    /// The seq of an `ack` frame, read without a JSONDecoder: the server writes sorted keys, so an ack
    /// is exactly `{"seq":N,"type":"ack"}`. Anything else (hello, offers) is not an ack.
    static func ackSeq(_ text: String) -> Int64? {
        let prefix = #"{"seq":"#
        let suffix = #","type":"ack"}"#
        guard text.hasPrefix(prefix), text.hasSuffix(suffix) else { return nil }
        return Int64(text.dropFirst(prefix.count).dropLast(suffix.count))
    }
}

/// Where a connection's ack reader finds its driver once the run is set up (connections open before the
/// window and the books exist).
final class DriverSessionSlot: Sendable {
    private let session = Mutex<DriverSession?>(nil)
    /// Until this instant a saturating driver answers each ack with its next batch.
    private let sendUntil = Mutex<ContinuousClock.Instant?>(nil)

    /// An empty slot.
    init() {}

    /// Fills the slot.
    func fill(_ session: DriverSession, sendUntil end: ContinuousClock.Instant) {
        self.session.withLock { $0 = session }
        sendUntil.withLock { $0 = end }
    }

    /// The driver, and whether a saturating one should send again at `now`.
    func current(at now: ContinuousClock.Instant) -> (DriverSession, refill: Bool)? {
        guard let session = session.withLock({ $0 }) else { return nil }
        let open = sendUntil.withLock { $0.map { now < $0 } ?? false }
        return (session, open)
    }
}

/// Reads one driver stream on the client's loop: books every ack, and when saturating refills the window.
final class AckReader: WebSocketInboundHandler {
    private let slot: DriverSessionSlot
    private let clock = ContinuousClock()

    /// A reader for the driver the slot will hold.
    init(slot: DriverSessionSlot) { self.slot = slot }

    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction {
        guard case .text(let text) = message, let seq = DriverSession.ackSeq(text) else { return .proceed }
        let now = clock.now
        guard let (session, refill) = slot.current(at: now) else { return .proceed }
        session.ledger.acknowledge(seq: seq, at: now)
        if case .saturate(let window) = session.pacing, refill {
            // One ack may cover several batches; refill the window whole.
            while session.ledger.inFlight < window { session.send(at: now) }
        }
        return .proceed
    }

    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection) {}
}

/// Sends every open-loop driver's batches on time from one task: driver `i` of `n` sends at
/// `start + k * interval + i * interval / n`, so first sends are spread evenly over one interval, as real
/// phones are not in step.
struct IngestPacer: Sendable {
    /// The drivers, in index order.
    let sessions: [DriverSession]
    /// One batch per driver every `interval`.
    let interval: Duration

    /// Sends from `start` until `end`.
    func run(start: ContinuousClock.Instant, end: ContinuousClock.Instant) async {
        let clock = ContinuousClock()
        let count = sessions.count
        guard count > 0 else { return }
        var round = 0
        var index = 0
        func due() -> ContinuousClock.Instant { start + interval * round + interval * index / count }
        while !Task.isCancelled {
            let now = clock.now
            while due() <= now {
                if due() >= end { return }
                sessions[index].send(at: now)
                index += 1
                if index == count {
                    index = 0
                    round += 1
                }
            }
            // A millisecond at most between passes: a batch leaves within about 1 ms of its time.
            try? await Task.sleep(until: min(due(), now + .milliseconds(1)), clock: clock)
        }
    }
}
