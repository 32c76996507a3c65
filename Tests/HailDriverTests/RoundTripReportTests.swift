import Foundation
import HailCore
import HailDriver
import Testing

/// Every batch says how quick the phone's link has lately been (`LocationBatch.roundTrip`), so the server never dates
/// a fix later than it was taken (`FixTimeEstimator`).
@Suite("The phone reports its quickest round trip")
struct RoundTripReportTests {
    static let start = HonestKeepAliveTests.start

    /// A moving car's fix every second for `seconds`, each batch acknowledged `ackAfter(seq)` seconds after it went:
    /// the batches sent.
    static func drive(seconds: Int, ackAfter: (Int64) -> Double?) -> [LocationBatch] {
        var pipeline = DriverLocationPipeline(policy: HonestKeepAliveTests.toPickup)
        var sent: [LocationBatch] = []
        var pendingAcks: [(at: Date, seq: Int64)] = []
        func take(_ actions: [DriverLocationPipeline.Action], now: Date) {
            for case .send(let batch, _) in actions {
                sent.append(batch)
                if let delay = ackAfter(batch.seq) { pendingAcks.append((now.addingTimeInterval(delay), batch.seq)) }
            }
        }
        take(pipeline.linkUp(.stream, now: start), now: start)
        take(pipeline.riderWatchingChanged(true, now: start), now: start)
        for second in 0...seconds {
            let now = start.addingTimeInterval(Double(second))
            for ack in pendingAcks where ack.at <= now { pipeline.ack(ack.seq, at: ack.at) }
            pendingAcks.removeAll { $0.at <= now }
            let fix = HonestKeepAliveTests.fix(at: Double(second), metresNorth: Double(second) * 8, speed: 8)
            take(pipeline.fix(fix, now: now), now: now)
            while let wake = pipeline.nextWake, wake <= now { take(pipeline.tick(now: wake), now: wake) }
        }
        return sent
    }

    @Test func eachBatchCarriesTheQuickestRoundTripSoFar() throws {
        // Acks after 0.7, 0.35 and 0.5 s, then nothing more quick.
        let delays: [Int64: Double] = [1: 0.7, 2: 0.35, 3: 0.5]
        let sent = Self.drive(seconds: 14) { delays[$0] ?? 0.9 }
        #expect(sent.count >= 4)
        // The first batch knows no round trip; each later one the quickest acknowledged before it went.
        #expect(sent[0].roundTrip == nil)
        #expect(sent[1].roundTrip == 0.7)
        #expect(sent[2].roundTrip == 0.35)
        #expect(sent.dropFirst(3).allSatisfy { $0.roundTrip == 0.35 })
        let allStamped = sent.allSatisfy { $0.sentAt != nil }
        #expect(allStamped)
    }

    @Test func aLinkThatNeverAcknowledgesReportsNoRoundTrip() {
        let sent = Self.drive(seconds: 14) { _ in nil }
        #expect(sent.count >= 4)
        let noneReported = sent.allSatisfy { $0.roundTrip == nil }
        #expect(noneReported)
    }
}
