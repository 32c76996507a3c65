import Foundation
import Testing

@testable import HailCore

@Suite("The iOS 17 live location updates mapped onto the LocationSource seam")
struct LiveUpdateMappingTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func fix(_ second: TimeInterval, lat: Double = 43.7384, speed: Double = 8) -> LocationPoint {
        LocationPoint(
            lat: lat, lng: 7.4246, accuracy: 5, heading: 90, speed: speed, t: start.addingTimeInterval(second))
    }

    private func run(_ updates: [LiveLocationUpdate]) -> [LiveUpdateMapping.Output] {
        var mapping = LiveUpdateMapping()
        return updates.map { mapping.map($0) }
    }

    @Test func aRedLightStandsWithTheFixItStoppedAtThenMovesOn() {
        let moving = fix(0)
        let stopped = fix(4, lat: 43.7385, speed: 0)
        let away = fix(40, lat: 43.7386)
        let outputs = run([
            LiveLocationUpdate(location: moving),
            LiveLocationUpdate(location: stopped, stationary: true),
            // CoreLocation repeats the stationary update with the same location while the car waits.
            LiveLocationUpdate(location: stopped, stationary: true),
            LiveLocationUpdate(location: away),
        ])
        #expect(
            outputs == [
                .init(fix: moving, status: .current),
                .init(fix: stopped, status: .standing),
                .init(fix: nil, status: nil),
                .init(fix: away, status: .current),
            ])
    }

    @Test func aTunnelIsNoFixAndTheLastOneIsNeverRepeated() {
        let before = fix(0)
        let after = fix(70, lat: 43.74)
        let outputs = run([
            LiveLocationUpdate(location: before),
            LiveLocationUpdate(location: nil, locationUnavailable: true),
            LiveLocationUpdate(location: nil, locationUnavailable: true),
            LiveLocationUpdate(location: after),
        ])
        #expect(
            outputs == [
                .init(fix: before, status: .current),
                .init(fix: nil, status: .unavailable),
                .init(fix: nil, status: nil),
                .init(fix: after, status: .current),
            ])
    }

    @Test func aPickupWaitStaysStandingOnOneFix() {
        let arriving = fix(0, speed: 3)
        let waiting = fix(6, speed: 0)
        let outputs = run(
            [LiveLocationUpdate(location: arriving)]
                + Array(repeating: LiveLocationUpdate(location: waiting, stationary: true), count: 5))
        #expect(outputs[0] == .init(fix: arriving, status: .current))
        #expect(outputs[1] == .init(fix: waiting, status: .standing))
        #expect(outputs[2...].allSatisfy { $0 == .init() })
    }

    @Test func permissionRevokedMidShiftIsNoFixEvenWithALocation() {
        let driving = fix(0)
        let outputs = run([
            LiveLocationUpdate(location: driving),
            LiveLocationUpdate(location: fix(5), authorizationDenied: true),
            LiveLocationUpdate(location: nil, authorizationDenied: true),
            LiveLocationUpdate(location: fix(60)),
        ])
        #expect(
            outputs == [
                .init(fix: driving, status: .current),
                .init(fix: nil, status: .unavailable),
                .init(fix: nil, status: nil),
                .init(fix: fix(60), status: .current),
            ])
    }

    @Test func movingFixesHonourTheDistanceFilterButAStatusChangeAlwaysCarriesItsFix() {
        var mapping = LiveUpdateMapping()
        let first = fix(0)
        // 0.0002 degrees of latitude is 22 m; 0.0006 is 67 m.
        let near = fix(2, lat: 43.7386)
        let far = fix(6, lat: 43.7390)
        let stopped = fix(8, lat: 43.73905, speed: 0)
        #expect(
            mapping.map(LiveLocationUpdate(location: first), distanceFilter: 50) == .init(fix: first, status: .current))
        #expect(mapping.map(LiveLocationUpdate(location: near), distanceFilter: 50) == .init())
        #expect(mapping.map(LiveLocationUpdate(location: far), distanceFilter: 50) == .init(fix: far))
        #expect(
            mapping.map(LiveLocationUpdate(location: stopped, stationary: true), distanceFilter: 50)
                == .init(fix: stopped, status: .standing))
    }

    @Test func anUpdateThatSaysNothingChangesNothing() {
        var mapping = LiveUpdateMapping()
        #expect(mapping.map(LiveLocationUpdate(location: nil)) == .init())
        #expect(mapping.status == nil)
    }
}
