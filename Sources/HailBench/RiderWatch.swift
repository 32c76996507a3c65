import Foundation
import HailNet
import Synchronization

/// A rider on `/v1/trips/{id}/live` of a trip whose driver is one of the benchmark's: times every
/// `driverMoved` from the driver's send (its `SendLog`) to its arrival here.
struct RiderWatch: Sendable {
    /// The rider's open trip stream.
    let connection: WebSocketConnection
    /// The driver's sends.
    let log: SendLog

    /// What all riders saw.
    final class Books: Sendable {
        private let state = Mutex((latencies: [UInt32](), received: 0, unmatched: 0))

        /// Empty books.
        init() {}

        /// Books one `driverMoved`: its latency when in the window, or that no send matched its seq.
        func book(latency: Duration?, inWindow: Bool) {
            state.withLock { state in
                state.received += 1
                guard let latency else {
                    state.unmatched += 1
                    return
                }
                if inWindow { state.latencies.append(LatencySummary.microseconds(latency)) }
            }
        }

        /// Latencies in the window (microseconds), `driverMoved` frames received, and those with no send.
        var totals: (latencies: [UInt32], received: Int, unmatched: Int) { state.withLock { $0 } }
    }

    /// Reads until `end` (plus the drivers' grace), booking into `books`.
    func run(windowStart: ContinuousClock.Instant, windowEnd: ContinuousClock.Instant, books: Books) async {
        let clock = ContinuousClock()
        for await message in connection.messages {
            // Seq 0 is the position the driver reported while its trip was set up, before the window.
            guard case .text(let text) = message, let seq = Self.driverMovedSeq(text), seq > 0 else { continue }
            let now = clock.now
            let sentAt = log.sentAt(seq: seq)
            books.book(
                latency: sentAt.map { now - $0 },
                inWindow: (sentAt.map { $0 >= windowStart } ?? false) && now <= windowEnd)
            if now > windowEnd { break }
        }
    }

    /// The seq of a `driverMoved` frame (sorted keys: `..."seq":N,"type":"driverMoved"}`), else nil.
    static func driverMovedSeq(_ text: String) -> Int64? {
        FrameSeq.read(text, framePrefix: #""seq":"#, typeSuffix: #","type":"driverMoved"}"#)
    }
}
