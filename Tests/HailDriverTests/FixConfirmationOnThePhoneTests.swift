import Foundation
import HailCore
import HailDriver
import Testing

/// A fix the phone's speed does not explain, or the first out of a tunnel, waits for the next fix to agree with it
/// (issue 14, sixth pass: a multipath outlier out of a tunnel showed the rider's pin live where the car had been 25 s
/// before, and every true fix after it was dropped as too fast from it; one in monaco-3g drew the car 86 m off its
/// road and back).
@Suite("A fix confirmed by the next, on the phone")
struct FixConfirmationOnThePhoneTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let toPickup = LocationPolicy(activity: .toPickup, thermal: .nominal, lowPower: false)

    static func fix(north meters: Double, at seconds: Double, speed: Double = 10) -> LocationPoint {
        LocationPoint(
            lat: 43.73 + meters / Coordinate.earthRadiusMeters * 180 / .pi, lng: 7.42, accuracy: 5, heading: 0,
            speed: speed, t: start.addingTimeInterval(seconds))
    }

    /// A connected phone whose rider watches, and what it sends, by the times of the points.
    struct Phone {
        var pipeline = DriverLocationPipeline(policy: FixConfirmationOnThePhoneTests.toPickup)
        var sent: [Double] = []

        init() {
            take(pipeline.linkUp(.stream, now: FixConfirmationOnThePhoneTests.start))
            take(pipeline.riderWatchingChanged(true, now: FixConfirmationOnThePhoneTests.start))
            take(pipeline.fixStatusChanged(.current, now: FixConfirmationOnThePhoneTests.start))
        }

        mutating func take(_ actions: [DriverLocationPipeline.Action]) {
            for case .send(let batch, _) in actions {
                sent += batch.points.map { $0.t.timeIntervalSince(FixConfirmationOnThePhoneTests.start) }
                pipeline.ack(batch.seq)
            }
        }

        /// Every wake up to `seconds`, as the runtime's timer calls them.
        mutating func run(until seconds: Double) {
            let end = FixConfirmationOnThePhoneTests.start.addingTimeInterval(seconds)
            var ticks = 0
            while let wake = pipeline.nextWake, wake <= end, ticks < 100 {
                ticks += 1
                take(pipeline.tick(now: wake))
            }
        }

        mutating func fix(_ point: LocationPoint) {
            run(until: point.t.timeIntervalSince(FixConfirmationOnThePhoneTests.start))
            take(pipeline.fix(point, now: point.t))
        }

        mutating func status(_ status: FixStatus, at seconds: Double) {
            run(until: seconds)
            take(
                pipeline.fixStatusChanged(status, now: FixConfirmationOnThePhoneTests.start.addingTimeInterval(seconds))
            )
        }
    }

    @Test func anOutlierOutOfATunnelNeverLeavesThePhoneAndTheTrueFixesAfterItDo() {
        var phone = Phone()
        for second in 0...5 { phone.fix(Self.fix(north: Double(second) * 10, at: Double(second))) }
        phone.status(.unavailable, at: 5.5)
        phone.status(.current, at: 30)
        // 300 m on in truth; the first fix lands 240 m back, near where the car went in.
        phone.fix(Self.fix(north: 60, at: 30))
        for second in 31...33 { phone.fix(Self.fix(north: Double(second) * 10, at: Double(second))) }
        phone.run(until: 40)
        #expect(phone.sent == [0, 1, 2, 3, 4, 5, 31, 32, 33])
        #expect(phone.pipeline.confirmation.dropped == 1)
        // Judged from the outlier, the true fixes would have been dropped as too fast until 35 s.
        #expect(phone.pipeline.filter.counts.impossibleSpeed == 0)
        #expect(phone.pipeline.filter.lastAccepted?.t == Self.start.addingTimeInterval(33))
    }

    @Test func anOutlierASlowCarsGapLetsPastTheSpeedCheckWaitsAndIsDropped() {
        var phone = Phone()
        // 5 m/s, a fix every 2 s; then one 86 m off the road, within the 111 m that 200 km/h allows in 2 s.
        for step in 0...5 { phone.fix(Self.fix(north: Double(step) * 10, at: Double(step) * 2, speed: 5)) }
        var outlier = Self.fix(north: 60, at: 12, speed: 5)
        outlier.lng += 86 / (Coordinate.earthRadiusMeters * .pi / 180 * cos(43.73 * .pi / 180))
        phone.fix(outlier)
        #expect(phone.pipeline.confirmation.waiting == outlier)
        phone.fix(Self.fix(north: 70, at: 14, speed: 5))
        phone.fix(Self.fix(north: 80, at: 16, speed: 5))
        phone.run(until: 20)
        #expect(phone.sent == [0, 2, 4, 6, 8, 10, 14, 16])
        #expect(phone.pipeline.confirmation.dropped == 1)
        #expect(phone.pipeline.filter.counts.impossibleSpeed == 0)
        // Each true fix is explained by the speed, and went without waiting.
        #expect(phone.pipeline.confirmation.waiting == nil)
    }

    /// Issue 14, sixth pass: the fix of the moment a trip started was an outlier 110 m off; after the 3 s the car stood
    /// at the pickup the speed check let it by, and it went out at once.
    @Test func anOutlierTakenAtTheTapWaitsLikeAnyOther() {
        var phone = Phone()
        for second in 0...5 { phone.fix(Self.fix(north: Double(second) * 10, at: Double(second))) }
        phone.fix(Self.fix(north: 55, at: 6, speed: 0))
        phone.run(until: 9)
        let outlier = Self.fix(north: 165, at: 9, speed: 0)
        phone.take(phone.pipeline.freshFix(outlier, now: outlier.t))
        #expect(phone.pipeline.confirmation.waiting == outlier)
        #expect(phone.pipeline.stats.freshFixes == 0)
        // The car drives off: the next fix disagrees with it, the one after agrees with that.
        phone.fix(Self.fix(north: 60, at: 10, speed: 5))
        phone.fix(Self.fix(north: 65, at: 11, speed: 5))
        phone.run(until: 15)
        #expect(phone.sent.suffix(3) == [6, 10, 11])
        #expect(phone.pipeline.confirmation.dropped == 1)
    }

    /// A car that stood 35 s at a light and drives off reports at once: 6 m in 35 s is what its speed explains.
    @Test func aStandingCarThatDrivesOffReportsAtOnce() {
        var phone = Phone()
        for second in 0...5 { phone.fix(Self.fix(north: Double(second) * 10, at: Double(second))) }
        phone.fix(Self.fix(north: 55, at: 6, speed: 0))
        phone.status(.standing, at: 6)
        phone.status(.current, at: 40)
        phone.fix(Self.fix(north: 61, at: 41, speed: 6))
        #expect(phone.pipeline.confirmation.waiting == nil)
        // The rest fix and its keep-alives every 12 s, then the fix, in a batch within the trip's 2 s interval.
        phone.run(until: 43)
        #expect(phone.sent.suffix(4) == [6, 18, 30, 41])
    }

    @Test func theOneFixOutOfATunnelBeforeTheCarStopsGoesFiveSecondsAfterItWasTaken() {
        var phone = Phone()
        phone.fix(Self.fix(north: 0, at: 0))
        phone.status(.unavailable, at: 1)
        phone.status(.current, at: 30)
        phone.fix(Self.fix(north: 290, at: 30, speed: 0))
        #expect(phone.pipeline.nextWake == Self.start.addingTimeInterval(35))
        // The same instant again, then a fix 80 m inaccurate: each dropped and counted, and the wait goes on.
        phone.fix(Self.fix(north: 291, at: 30, speed: 0))
        var vague = Self.fix(north: 292, at: 31, speed: 0)
        vague.accuracy = 80
        phone.fix(vague)
        #expect(phone.pipeline.confirmation.dropped == 1)
        #expect(phone.pipeline.filter.counts.poorAccuracy == 1)
        #expect(phone.pipeline.confirmation.waiting?.t == Self.start.addingTimeInterval(30))
        phone.run(until: 34.9)
        #expect(phone.sent == [0])
        phone.run(until: 40)
        #expect(phone.sent == [0, 30])
        #expect(!phone.pipeline.lastFixIsStale)
    }
}
