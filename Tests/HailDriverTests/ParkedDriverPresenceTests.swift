import Foundation
import HailCore
import HailDriver
import HailProtocol
import Testing

/// A parked, online driver whose fix never went out live (the app started before its link was up, and the car has
/// not moved since) stays present for dispatch: the fault suite's canary driver `fc-1` sent one fix as history and
/// then nothing for minutes, and the server drops a driver silent for 60 s.
@Suite("A parked driver is held present though no fix of theirs went out live")
struct ParkedDriverPresenceTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
    static let parked = LocationPoint(lat: 43.78, lng: 7.66, accuracy: 5, heading: 0, speed: 0, t: start)

    /// The batches the pipeline sends from `start` to `until`, clock advanced by hand to each wake it asks for.
    static func run(
        _ pipeline: inout DriverLocationPipeline, from actions: [DriverLocationPipeline.Action], until: Date
    )
        -> [LocationBatch]
    {
        var batches: [LocationBatch] = []
        var pending = actions
        while true {
            var wake: Date?
            for action in pending {
                switch action {
                case .send(let batch, _):
                    batches.append(batch)
                    pipeline.ack(batch.seq)
                case .wake(let date):
                    wake = date
                }
            }
            guard let next = wake, next <= until else { return batches }
            pending = pipeline.tick(now: next)
        }
    }

    @Test func keepAlivesWithoutAFixEveryFourteenSecondsFromTheHistoryFlush() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        // The first fix comes 20 s before the link: it is buffered, and goes as history when the link comes up.
        _ = pipeline.fix(Self.parked, now: Self.start)
        let actions = pipeline.linkUp(.stream, now: Self.start.addingTimeInterval(20))
        let batches = Self.run(&pipeline, from: actions, until: Self.start.addingTimeInterval(79))
        #expect(batches.map(\.backlog) == [true, false, false, false, false])
        #expect(batches.map(\.noFix) == [false, true, true, true, true])
        // From the flush at +20 s: +34, +48, +62, +76, never 60 s silent.
        #expect(batches.dropFirst().map { $0.points[0].t.timeIntervalSince(Self.start) } == [34, 48, 62, 76])
        #expect(batches.dropFirst().allSatisfy { $0.points[0].coordinate == Self.parked.coordinate })
        #expect(pipeline.stats.keepAlives == 4)
        #expect(pipeline.stats.keepAlivesWithoutFix == 4)
    }

    @Test func aBufferedFixFlushedLiveWithTheLinkIsHeldPresentToo() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        // Up 2 s after the fix: young enough that the batcher sends it as live, but it was taken with the link
        // down, so the keep-alives that follow carry no fix.
        _ = pipeline.fix(Self.parked, now: Self.start)
        let actions = pipeline.linkUp(.stream, now: Self.start.addingTimeInterval(2))
        let batches = Self.run(&pipeline, from: actions, until: Self.start.addingTimeInterval(50))
        #expect(batches.map(\.backlog) == [false, false, false, false])
        #expect(batches.map(\.noFix) == [false, true, true, true])
        #expect(batches.map { $0.points[0].t.timeIntervalSince(Self.start) } == [0, 16, 30, 44])
    }

    @Test func aLiveFixTakesOverAndItsKeepAlivesRepeatIt() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        _ = pipeline.fix(Self.parked, now: Self.start)
        var batches = Self.run(
            &pipeline, from: pipeline.linkUp(.stream, now: Self.start.addingTimeInterval(20)),
            until: Self.start.addingTimeInterval(40))
        #expect(batches.map(\.noFix) == [false, true])
        // The car moves 100 m: a live fix, and from then on the ordinary keep-alive repeats it as a position.
        let moved = LocationPoint(
            lat: 43.7809, lng: 7.66, accuracy: 5, heading: 0, speed: 5, t: Self.start.addingTimeInterval(45))
        batches = Self.run(&pipeline, from: pipeline.fix(moved, now: moved.t), until: Self.start.addingTimeInterval(70))
        #expect(batches.map(\.noFix) == [false, false])
        #expect(batches.map(\.backlog) == [false, false])
        #expect(batches.flatMap(\.points).map(\.coordinate) == [moved.coordinate, moved.coordinate])
    }

    @Test func notWhileARiderWatchesNorWithTheLinkDown() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        _ = pipeline.fix(Self.parked, now: Self.start)
        // Link down: nothing to send on, and nothing asked of the clock for it.
        #expect(pipeline.nextWake == nil)
        _ = pipeline.riderWatchingChanged(true, now: Self.start)
        let batches = Self.run(
            &pipeline, from: pipeline.linkUp(.stream, now: Self.start.addingTimeInterval(20)),
            until: Self.start.addingTimeInterval(80))
        // Only the history: a fix stamped now would be shown to the watching rider as where the car is.
        #expect(batches.map(\.backlog) == [true])
    }
}
