import Foundation
import HailCore
import HailTesting
import Testing

/// Random event sequences from a seeded generator: whatever the network does, no fix is lost except by
/// the counted thinning, order is kept, and seqs only grow.
struct LocationBatcherPropertyTests {
    @Test(arguments: UInt64(1)...40)
    func noFixIsLostAndSeqsOnlyGrow(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var batcher = LocationBatcher(
            configuration: .init(holdInterval: 2, maxPointsPerBatch: 5, bufferCapacity: 12)
        )
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        var now = start
        var fed = 0
        var acknowledged = 0
        var lastSeq: Int64 = 0

        for _ in 0..<400 {
            now = now.addingTimeInterval(Double(1 + random.next() % 1500) / 1000)
            var actions: [LocationBatcher.Action] = []
            switch random.next() % 10 {
            case 0...4:
                let point = LocationPoint(
                    lat: 48.1 + Double(fed) * 0.00005,
                    lng: 11.5 + Double(random.next() % 100) * 0.00001,
                    accuracy: 5,
                    heading: 0,
                    speed: 10,
                    t: now
                )
                fed += 1
                actions = batcher.pointAccepted(point, now: now)
            case 5:
                actions = batcher.tick(now: now)
            case 6:
                if let batch = batcher.inFlight.randomElement(using: &random) {
                    acknowledged += batcher.inFlight.filter { $0.seq <= batch.seq }.map(\.points.count).reduce(0, +)
                    batcher.ack(batch.seq)
                }
            case 7:
                actions = batcher.connectionUp(random.next() % 2 == 0 ? .stream : .http, now: now)
            case 8:
                batcher.connectionDown()
            default:
                actions = batcher.tripStateChanged(now: now)
            }
            for action in actions {
                guard case .send(let batch, let via) = action else { continue }
                #expect(batch.seq > lastSeq)
                #expect(batch.points.count <= 5 && !batch.points.isEmpty)
                #expect(via == batcher.transport)
                lastSeq = batch.seq
            }
            let unacknowledged = batcher.snapshot.points
            #expect(fed == acknowledged + unacknowledged.count + batcher.thinnedCount, "seed \(seed)")
            #expect(zip(unacknowledged, unacknowledged.dropFirst()).allSatisfy { $0.t < $1.t }, "seed \(seed)")
            #expect(batcher.buffer.count <= 12)
        }
        // The run exercised sending and acknowledging, not just an idle batcher.
        #expect(lastSeq > 0 && acknowledged > 0)
    }
}
