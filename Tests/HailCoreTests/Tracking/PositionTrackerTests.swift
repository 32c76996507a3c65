import Foundation
import HailCore
import HailTesting
import Testing

@Suite("Position tracker")
struct PositionTrackerTests {
    static func location(seq: Int64, x: Double = 0) -> DriverLocation {
        DriverLocation(
            coordinate: Coordinate(lat: x, lng: 0), heading: 0, seq: seq,
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(seq)))
    }

    /// The design's worked check: 1, 3, 2, 3, 4 leaves 4 applied and 2 dropped.
    @Test func theDesignDocumentsWorkedCheck() {
        var tracker = PositionTracker()
        let applied = [1, 3, 2, 3, 4].map { tracker.apply(Self.location(seq: Int64($0), x: Double($0))) }
        #expect(applied == [true, true, false, false, true])
        #expect(tracker.latestSeq == 4)
        #expect(tracker.latest?.coordinate.lat == 4)
        #expect(tracker.dropped == 2)
    }

    @Test(arguments: 0..<200)
    func shuffledDuplicatedPositionsNeverMoveTheSeqBackwards(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var seqs: [Int64] = []
        for seq in Int64(1)...40 { seqs += Array(repeating: seq, count: Int.random(in: 1...3, using: &rng)) }
        seqs.shuffle(using: &rng)
        var tracker = PositionTracker()
        var glide = Glide()
        var highest: Int64 = 0
        for seq in seqs {
            tracker.apply(Self.location(seq: seq))
            glide.add(Self.location(seq: seq))
            #expect(tracker.latestSeq! >= highest)
            #expect(glide.latestSeq == tracker.latestSeq)
            highest = tracker.latestSeq!
        }
        #expect(highest == 40)
        // Everything not applied was counted as dropped.
        #expect(tracker.dropped == seqs.count - appliedCount(seqs))
    }

    /// How many positions move the car when delivered in this order: each new maximum.
    func appliedCount(_ seqs: [Int64]) -> Int {
        var highest: Int64 = 0
        var count = 0
        for seq in seqs where seq > highest {
            highest = seq
            count += 1
        }
        return count
    }
}
