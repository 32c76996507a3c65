import Foundation
import HailCore
import HailDriver
import HailRoads
import HailTesting
import HailTime
import Synchronization
import Testing

@testable import HailSim

@Suite("The simulated car on a manual clock")
struct SimulatedCarTests {
    static let start = Coordinate(lat: 43.7300, lng: 7.4200)
    static let stop = Coordinate(lat: 43.7309, lng: 7.4200)

    /// Drives 100 m that the route times at 10 s, for `seconds` ticks of the manual clock; returns the fixes.
    static func drive(noise: Double, seed: UInt64, seconds: Int) async -> (car: SimulatedCar, fixes: [LocationPoint]) {
        let clock = ManualClock()
        let car = SimulatedCar(
            start: start, timeline: Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0)),
            speedFactor: 2, noiseMeters: noise, random: SplitMix64(seed: seed))
        await car.apply(LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false))
        await car.drive(Route(distance: 100, duration: 10, coordinates: [start, stop], edges: []))
        let received = Mutex<[LocationPoint]>([])
        let reader = Task {
            for await point in car.fixes() { received.withLock { $0.append(point) } }
        }
        for _ in 0..<seconds {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        reader.cancel()
        await reader.value
        return (car, received.withLock { $0 })
    }

    @Test func itDrivesTheRouteAtTheScaledRoadSpeedAndStaysQuietWhenParked() async {
        let (car, fixes) = await Self.drive(noise: 0, seed: 1, seconds: 9)
        // Twice the route's 10 m/s: a fix every second past the 5 m filter, parked after 5 s.
        #expect(fixes.map { $0.t.timeIntervalSince1970 } == [1, 2, 3, 4, 5])
        #expect(await car.isStopped)
        #expect(await car.position == Self.stop)
        #expect(fixes.last.map { Coordinate(lat: $0.lat, lng: $0.lng) } == Self.stop)
        #expect(fixes.allSatisfy { abs($0.speed - 20) < 0.1 && abs($0.heading) < 0.01 })
    }

    @Test func theNoiseIsSeededAndOfTheConfiguredSize() async {
        let first = await Self.drive(noise: 4, seed: 42, seconds: 6).fixes
        let again = await Self.drive(noise: 4, seed: 42, seconds: 6).fixes
        let other = await Self.drive(noise: 4, seed: 43, seconds: 6).fixes
        #expect(first == again)
        #expect(first != other)
        #expect(first.count == 5)
        // Within five standard deviations of the true line (a 1-in-a-million miss per axis).
        let line = Route(distance: 100, duration: 5, coordinates: [Self.start, Self.stop], edges: [])
        for (index, fix) in first.enumerated() {
            let truth = line.position(atSeconds: Double(index + 1))!.coordinate
            #expect(Coordinate(lat: fix.lat, lng: fix.lng).distance(to: truth) < 4 * 5 * 1.5)
            #expect(fix.accuracy == 8)
        }
    }

    @Test func inATunnelItHasNoFixAndSaysSoAndParkedItStandsWithOne() async throws {
        let clock = ManualClock()
        let car = SimulatedCar(
            start: Self.start, timeline: Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0)),
            speedFactor: 2, noiseMeters: 0, random: SplitMix64(seed: 1),
            tunnels: [SimulatedCar.Segment(from: Self.start, to: Self.stop)])
        await car.apply(LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false))
        await car.drive(Route(distance: 100, duration: 10, coordinates: [Self.start, Self.stop], edges: []))
        let statuses = Mutex<[FixStatus]>([])
        let (told, tell) = AsyncStream.makeStream(of: Void.self)
        let listener = Task {
            for await status in car.fixStatus() {
                statuses.withLock { $0.append(status) }
                tell.yield()
            }
        }
        try await within(60, "the car's first fix status") { for await _ in told { return } }
        let received = Mutex<[LocationPoint]>([])
        let reader = Task {
            for await point in car.fixes() { received.withLock { $0.append(point) } }
        }
        for _ in 0..<3 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        // The whole road is a tunnel: no fix comes, and none can be had on demand.
        #expect(await car.currentFix() == nil)
        for _ in 0..<4 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        // Out at the end and parked: the stationary update (5 s) carried where it stands, and a fix on demand is
        // that one while it is under 5 s old, as the shipped live-updates source answers; then none.
        let parked = await car.currentFix()
        #expect(parked?.coordinate == Self.stop)
        #expect(parked?.t == Date(timeIntervalSince1970: 5))
        for _ in 0..<3 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        #expect(await car.currentFix() == nil)
        reader.cancel()
        await reader.value
        // The listener runs on its own task: cancelled at once it could miss statuses the car already reported.
        try await within(60, "the car's statuses after the tunnel") {
            for await _ in told where statuses.withLock({ $0.count }) >= 3 { return }
        }
        listener.cancel()
        #expect(received.withLock { $0.map(\.t.timeIntervalSince1970) } == [5])
        #expect(statuses.withLock { $0 } == [.current, .unavailable, .standing])
    }

    @Test func waitingAtThePickupItStandsWithOneFixAndARelaunchedAppHearsItAgain() async throws {
        let clock = ManualClock()
        let car = SimulatedCar(
            start: Self.start, timeline: Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0)),
            speedFactor: 1, noiseMeters: 0, random: SplitMix64(seed: 1))
        await car.apply(LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false))
        // Parked from the start: one stationary live update with its fix, then CoreLocation's silence.
        let first = Mutex<[LocationPoint]>([])
        let app = Task { for await point in car.fixes() { first.withLock { $0.append(point) } } }
        for _ in 0..<3 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        app.cancel()
        await app.value
        #expect(first.withLock { $0.map(\.t.timeIntervalSince1970) } == [1])
        #expect(first.withLock { $0.first?.coordinate } == Self.start)
        // The app killed and relaunched: a new source, a fresh mapping, and the car stands with a fix again.
        let second = Mutex<[LocationPoint]>([])
        let relaunched = Task { for await point in car.fixes() { second.withLock { $0.append(point) } } }
        for _ in 0..<2 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        relaunched.cancel()
        await relaunched.value
        #expect(second.withLock { $0.map(\.t.timeIntervalSince1970) } == [4])
        var statuses = car.fixStatus().makeAsyncIterator()
        #expect(await statuses.next() == .standing)
    }
}
