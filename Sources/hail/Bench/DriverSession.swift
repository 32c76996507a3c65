import Foundation
import HailNet

/// One simulated driver on `/v1/drivers/me/live`: sends location batches on its pacing and books
/// each ack against the batch it covers.
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

    /// Sends from `start` (plus `offset`, to spread drivers over the interval) until `end`, then waits
    /// up to `grace` for outstanding acks and closes the connection.
    func run(start: ContinuousClock.Instant, offset: Duration, end: ContinuousClock.Instant, grace: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await readAcks(until: end) }
            group.addTask { await pace(start: start + offset, end: end, grace: grace) }
            // Either the sender is done (acks in or grace over) or the connection closed under us.
            await group.next()
            group.cancelAll()
        }
        connection.close(code: 1000, reason: "bench done")
    }

    /// Books the next batch as sent at `now` and queues it on the socket.
    private func send(at now: ContinuousClock.Instant) {
        let seq = ledger.reserveSend(points: frames.pointsPerBatch, at: now)
        log?.record(seq: seq, at: now)
        if binary {
            connection.send(binary: frames.binary(seq: seq))
        } else {
            connection.send(text: frames.json(seq: seq))
        }
    }

    /// The sender: waits for `start`, sends on the pacing until `end`, then waits for the last acks.
    private func pace(start: ContinuousClock.Instant, end: ContinuousClock.Instant, grace: Duration) async {
        let clock = ContinuousClock()
        try? await Task.sleep(until: start, clock: clock)
        switch pacing {
        case .interval(let milliseconds):
            var next = start
            while next < end, !Task.isCancelled {
                try? await Task.sleep(until: next, clock: clock)
                send(at: clock.now)
                next += .milliseconds(milliseconds)
            }
        case .saturate(let window):
            // The reader sends the rest, one per ack.
            for _ in 0..<window { send(at: clock.now) }
            try? await Task.sleep(until: end, clock: clock)
        }
        let giveUp = end + grace
        while ledger.inFlight > 0, clock.now < giveUp, !Task.isCancelled, connection.closeInfo == nil {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The reader: books every ack; when saturating, answers each ack with the next batch.
    private func readAcks(until end: ContinuousClock.Instant) async {
        let clock = ContinuousClock()
        for await message in connection.messages {
            guard case .text(let text) = message, let seq = Self.ackSeq(text) else { continue }
            let now = clock.now
            ledger.acknowledge(seq: seq, at: now)
            if case .saturate(let window) = pacing, now < end {
                // One ack may cover several batches; refill the window whole.
                while ledger.inFlight < window { send(at: now) }
            }
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
