import Foundation
import Testing

@testable import HailServer

/// How a draining node pairs a watcher with its driver: by the trip in the watcher's path, and by which trips'
/// positions arrived while the drain watched.
@Suite struct DrainPairingTests {
    @Test func aTripStreamsPathNamesItsTripAndNoOtherPathDoes() {
        #expect(BackendServer.watchedTrip(path: "/v1/trips/trip-42/live") == "trip-42")
        #expect(BackendServer.watchedTrip(path: "/v1/drivers/me/live") == nil)
        #expect(BackendServer.watchedTrip(path: "/v1/fleet/live") == nil)
        #expect(BackendServer.watchedTrip(path: "/v1/trips//live") == nil)
        #expect(BackendServer.watchedTrip(path: "/v1/trips/trip-42/live/extra") == nil)
    }

    @Test func positionsAreNotedOnlyOnceADrainWatchesAndEachReportTakesThemOnce() {
        let sightings = PositionSightings()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        sightings.saw("a", at: t0)
        #expect(sightings.take() == [:])
        sightings.watch()
        sightings.saw("a", at: t0.addingTimeInterval(1))
        sightings.saw("b", at: t0.addingTimeInterval(2))
        sightings.saw("a", at: t0.addingTimeInterval(3))
        #expect(sightings.take() == ["a": t0.addingTimeInterval(3), "b": t0.addingTimeInterval(2)])
        #expect(sightings.take() == [:])
    }
}
