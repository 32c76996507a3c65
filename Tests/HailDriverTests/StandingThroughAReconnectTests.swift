import Foundation
import HailCore
import HailDriver
import HailProtocol
import Testing

/// A car standing on a trip whose phone loses the network and gets it back keeps telling the server where it
/// stands: CoreLocation gives a car at rest no new fix, so without this the server heard nothing from the standing
/// car until it drove on, and the trip watch never saw a long stop that met a dead zone (issue 41).
@Suite("A standing car's keep-alives through a reconnect")
struct StandingThroughAReconnectTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let onTrip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)

    static func fix(at seconds: Double, metresNorth: Double = 0, speed: Double = 0) -> LocationPoint {
        LocationPoint(
            lat: 43.73 + metresNorth / 111_195, lng: 7.42, accuracy: 5, heading: 0, speed: speed,
            t: start.addingTimeInterval(seconds))
    }

    /// Sends acknowledged at once and wakes taken from `from` until `until` (a wake asked for before `from` comes
    /// at `from`, as a runtime's timer would), from `actions`: the points sent, with whether their batch said it had
    /// no fix.
    static func run(
        _ actions: [DriverLocationPipeline.Action], _ pipeline: inout DriverLocationPipeline, from: Date, until: Date
    ) -> [(t: Double, noFix: Bool)] {
        var sent: [(t: Double, noFix: Bool)] = []
        func take(_ actions: [DriverLocationPipeline.Action]) {
            for case .send(let batch, _) in actions {
                sent += batch.points.map { ($0.t.timeIntervalSince(start), batch.noFix) }
                pipeline.ack(batch.seq)
            }
        }
        take(actions)
        var ticks = 0
        while let wake = pipeline.nextWake, wake <= until, ticks < 1000 {
            ticks += 1
            take(pipeline.tick(now: max(wake, from)))
        }
        return sent
    }

    /// The car comes to rest at 0 s (its rest fix), stands; the link is down from 30 s to 50 s.
    static func standingThroughADrop(status: FixStatus) -> [(t: Double, noFix: Bool)] {
        var pipeline = DriverLocationPipeline(policy: Self.onTrip)
        var actions = pipeline.linkUp(.stream, now: start)
        actions += pipeline.riderWatchingChanged(true, now: start)
        actions += pipeline.fixStatusChanged(status, now: start)
        actions += pipeline.fix(fix(at: 0), now: start)
        var sent = run(actions, &pipeline, from: start, until: start.addingTimeInterval(30))
        pipeline.linkDown()
        let back = start.addingTimeInterval(50)
        sent += run([], &pipeline, from: start.addingTimeInterval(30), until: back)
        sent += run(pipeline.linkUp(.stream, now: back), &pipeline, from: back, until: start.addingTimeInterval(200))
        return sent
    }

    @Test func aCarStandingAtItsFixKeepsSendingItAfterTheLinkComesBack() {
        let sent = Self.standingThroughADrop(status: .standing)
        // The rest fix and its repeats at 12 s and 24 s; none while the link is down (no fix came to buffer); at the
        // reconnect at once (the 36 s repeat was due), then every 12 s: each a fix of where the car stands.
        #expect(sent.map(\.t) == [0, 12, 24, 50, 62, 74, 86, 98, 110, 122, 134, 146, 158, 170, 182, 194])
        #expect(sent.allSatisfy { !$0.noFix })
    }

    @Test func aPhoneThatDoesNotSayItStandsRepeatsNoFixFromBeforeTheDrop() {
        // Moving (for all it says) under its distance filter: its last fix is not where the car is, and after the
        // drop nothing claims it is.
        let sent = Self.standingThroughADrop(status: .current)
        #expect(sent.allSatisfy { $0.t <= 24 || $0.noFix })
    }
}
