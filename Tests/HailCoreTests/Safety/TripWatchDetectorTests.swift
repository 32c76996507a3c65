import Foundation
import HailCore
import Testing

/// The pure detectors of route deviation and long stops, fed positions with their times by hand.
@Suite("Route deviation and long stop detectors, pure")
struct TripWatchDetectorTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// A plan due north from the origin, 2 km long.
    static let origin = Coordinate(lat: 43.7300, lng: 7.4200)
    static let plan = [origin, Coordinate(lat: 43.7480, lng: 7.4200)]
    /// Metres east of the plan at `north` metres up it.
    static func at(north: Double, east: Double) -> Coordinate {
        let metresPerDegree = Coordinate.earthRadiusMeters * .pi / 180
        return Coordinate(
            lat: origin.lat + north / metresPerDegree,
            lng: origin.lng + east / (metresPerDegree * cos(origin.lat * .pi / 180)))
    }

    static func time(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test func distanceToThePlanIsMeasuredToTheNearestSegment() {
        #expect(
            (RouteDeviationDetector.distance(from: Self.at(north: 500, east: 120), to: Self.plan) * 10).rounded()
                == 1200)
        // Before the start of the plan the nearest point is its first.
        #expect(RouteDeviationDetector.distance(from: Self.at(north: -300, east: 400), to: Self.plan).rounded() == 500)
        #expect(RouteDeviationDetector.distance(from: Self.origin, to: []) == .infinity)
    }

    @Test func aCarThatLeavesTheCorridorAndKeepsGoingIsOneDeviationAfterTenSeconds() {
        var detector = RouteDeviationDetector(plan: Self.plan)
        var reports: [RouteDeviationDetector.Deviation] = []
        // On the plan for 20 s, then a wrong turn east at 10 m/s from 20 s on: out of the 100 m corridor at 31 s.
        for second in 0...60 {
            let east = second <= 20 ? 0 : Double(second - 20) * 10
            if let deviation = detector.observe(Self.at(north: 400, east: east), at: Self.time(Double(second))) {
                reports.append(deviation)
            }
        }
        #expect(reports.count == 1)
        #expect(reports.first?.since == Self.time(31))
        #expect((reports.first?.distanceMeters).map { $0.rounded() } == 210)
    }

    @Test func aCarThatComesBackOrIsReroutedIsNoDeviation() {
        var detector = RouteDeviationDetector(plan: Self.plan)
        // Out to 150 m, then back towards the plan: never as far as when it left the corridor... after 10 s.
        let easts: [Double] = [0, 110, 150, 150, 140, 130, 120, 110, 105, 104, 103, 102, 101, 50, 0]
        var reports = 0
        for (second, east) in easts.enumerated() {
            if detector.observe(Self.at(north: 400, east: east), at: Self.time(Double(second))) != nil { reports += 1 }
        }
        #expect(reports == 0)
        // A reported re-route replaces the plan: the same drive along the new plan alarms nobody.
        var rerouted = RouteDeviationDetector(plan: Self.plan)
        rerouted.replan([Self.at(north: 400, east: 0), Self.at(north: 400, east: 2000)], destination: nil)
        for second in 0...60 {
            #expect(
                rerouted.observe(Self.at(north: 400, east: Double(second) * 10), at: Self.time(Double(second))) == nil)
        }
    }

    @Test func aStopOfThreeMinutesAwayFromTheDropoffIsReportedOnceAt180s() {
        var detector = LongStopDetector(dropoff: Self.at(north: 2000, east: 0))
        var reports: [(Int, LongStopDetector.LongStop)] = []
        for second in stride(from: 0, through: 400, by: 5) {
            // Matched positions wobble by up to 8 m around where the car stands.
            let wobble = Double(second % 3) * 4
            if let stop = detector.observe(Self.at(north: 500 + wobble, east: 0), at: Self.time(Double(second))) {
                reports.append((second, stop))
            }
        }
        #expect(reports.map(\.0) == [180])
        #expect(reports.first?.1.since == Self.time(0))
    }

    @Test func noLongStopAtTheDropoffInATunnelsGapOrInAJam() {
        var atDropoff = LongStopDetector(dropoff: Self.at(north: 2000, east: 0))
        var inGap = LongStopDetector(dropoff: Self.at(north: 2000, east: 0))
        var inJam = LongStopDetector(dropoff: Self.at(north: 2000, east: 0))
        var reports = 0
        for second in stride(from: 0, through: 400, by: 5) {
            let t = Self.time(Double(second))
            if atDropoff.observe(Self.at(north: 1950, east: 0), at: t) != nil { reports += 1 }
            // A position every 35 s, each 200 m on from the last: a crawl through tunnels, never one place twice.
            if second % 35 == 0, inGap.observe(Self.at(north: Double(second / 35) * 200, east: 0), at: t) != nil {
                reports += 1
            }
            if inJam.observe(Self.at(north: 500, east: 0), at: t, jammed: true) != nil { reports += 1 }
        }
        #expect(reports == 0)
    }
}

/// The destination guard: a parallel street is another way there, a wrong turn is not.
@Suite("Route deviation towards a destination, pure")
struct RouteDeviationTowardsADestinationTests {
    typealias T = TripWatchDetectorTests

    @Test func aParallelStreetThatKeepsNearingTheDropoffIsNoDeviationAWrongTurnIs() {
        let destination = T.at(north: 2000, east: 0)
        // A street 160 m east of the plan, driven north at 10 m/s from 20 s on.
        var parallel = RouteDeviationDetector(plan: T.plan, destination: destination)
        var reports = 0
        for second in 0...60 {
            let position =
                second < 20
                ? T.at(north: 0, east: Double(second) * 8) : T.at(north: Double(second - 20) * 10, east: 160)
            if parallel.observe(position, at: T.time(Double(second))) != nil { reports += 1 }
        }
        #expect(reports == 0)
        // The same wrong turn east as without a destination: alarmed at 41 s, as before.
        var wrongTurn = RouteDeviationDetector(plan: T.plan, destination: destination)
        var at: [Int] = []
        for second in 0...60 {
            let east = second <= 20 ? 0 : Double(second - 20) * 10
            if wrongTurn.observe(T.at(north: 400, east: east), at: T.time(Double(second))) != nil { at.append(second) }
        }
        #expect(at == [41])
    }
}
