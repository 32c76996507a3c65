import Foundation
import HailNet
import Synchronization

/// One simulated driver on `/v1/drivers/me/live`: sends location batches and books each ack against the
/// batch it covers.
///
/// Acks are read on the client's loop (`AckReader`, no task per driver or per message); an open-loop driver
/// is sent for by its client loop's `IngestPacer`, a saturating one refills its window from the ack
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
        FrameSeq.read(text, framePrefix: #"{"seq":"#, typeSuffix: #","type":"ack"}"#)
    }
}

/// The seq of a frame the bench reads on its loops, found in the UTF-8 bytes without a decoder and without
/// `Character` processing (which was most of what reading an ack cost): with sorted keys the frame ends
/// `"seq":N,"type":"..."}`.
enum FrameSeq {
    /// The digits between `framePrefix` (which must end the bytes before them) and `typeSuffix` (which must end
    /// the frame), or nil when `text` is not such a frame.
    static func read(_ text: String, framePrefix: StaticString, typeSuffix: StaticString) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            let suffix = UnsafeBufferPointer(start: typeSuffix.utf8Start, count: typeSuffix.utf8CodeUnitCount)
            let prefix = UnsafeBufferPointer(start: framePrefix.utf8Start, count: framePrefix.utf8CodeUnitCount)
            guard bytes.count > suffix.count + prefix.count, bytes.suffix(suffix.count).elementsEqual(suffix)
            else { return nil }
            var end = bytes.count - suffix.count
            var value: Int64 = 0
            var scale: Int64 = 1
            var digits = 0
            while end > 0, bytes[end - 1] >= UInt8(ascii: "0"), bytes[end - 1] <= UInt8(ascii: "9"), digits < 18 {
                value += Int64(bytes[end - 1] - UInt8(ascii: "0")) * scale
                scale *= 10
                digits += 1
                end -= 1
            }
            guard digits > 0, end >= prefix.count, bytes[(end - prefix.count)..<end].elementsEqual(prefix) else {
                return nil
            }
            return value
        }
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

/// Sends one client loop's open-loop drivers on time, from that loop's repeating task: driver `i` of `n` sends
/// at `start + k * interval + i * interval / n`, so first sends are spread evenly over one interval, as real
/// phones are not in step. On the loop, each send is written in the same turn.
final class IngestPacer: Sendable {
    /// This loop's drivers in index order, each with its offset into the interval.
    private let drivers: [(session: DriverSession, offset: Duration)]
    private let interval: Duration
    private let start: ContinuousClock.Instant
    private let end: ContinuousClock.Instant
    /// The next driver to send and the round it is in (only the loop thread takes it; the lock is uncontended).
    private let cursor = Mutex((round: 0, position: 0))

    /// A pacer for `sessions` (with their indexes among all `total` drivers of the run).
    init(
        sessions: [(index: Int, session: DriverSession)], total: Int, interval: Duration,
        start: ContinuousClock.Instant, end: ContinuousClock.Instant
    ) {
        drivers = sessions.map { ($0.session, interval * $0.index / max(1, total)) }
        self.interval = interval
        self.start = start
        self.end = end
    }

    /// Sends every batch due by `now`; false once the window has closed (the loop then stops calling).
    func sendDue(at now: ContinuousClock.Instant) -> Bool {
        guard !drivers.isEmpty else { return false }
        return cursor.withLock { cursor in
            var roundStart = start + interval * cursor.round
            while true {
                let due = roundStart + drivers[cursor.position].offset
                if due >= end { return false }
                if due > now { return true }
                drivers[cursor.position].session.send(at: now)
                cursor.position += 1
                if cursor.position == drivers.count {
                    cursor.position = 0
                    cursor.round += 1
                    roundStart = start + interval * cursor.round
                }
            }
        }
    }
}
