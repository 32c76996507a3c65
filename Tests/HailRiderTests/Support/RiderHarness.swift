import Foundation
import HailCore
import HailTestSupport

@testable import HailRider

/// A model on fakes and a manual clock. The phone's clock is the manual clock from the server epoch,
/// plus `skew` (a phone whose clock is wrong).
@MainActor
struct RiderHarness {
    let api: FakeTripAPI
    let channel = FakeLiveChannel()
    let cursors: any CursorStore
    let clock: ManualClock
    let model: RiderModel

    init(
        trip: Trip? = nil, api: FakeTripAPI? = nil, cursors: any CursorStore = InMemoryCursorStore(),
        clock: ManualClock = ManualClock(), skew: TimeInterval = 0,
        configuration: RiderConfiguration = RiderConfiguration(reconnect: Backoff(jitter: .none), stallSeconds: 0)
    ) {
        self.api = api ?? FakeTripAPI(trip: trip)
        self.cursors = cursors
        self.clock = clock
        model = RiderModel(
            api: self.api, channel: channel, cursors: cursors,
            timeline: Timeline(clock: clock, origin: Self.phoneTime(clock, skew: skew)),
            configuration: configuration)
    }

    nonisolated static func phoneTime(_ clock: ManualClock, skew: TimeInterval) -> Date {
        let offset = clock.now.offset.components
        let seconds = Double(offset.seconds) + Double(offset.attoseconds) * 1e-18
        return Fixtures.serverEpoch.addingTimeInterval(seconds + skew)
    }

    /// Returns once `condition` holds, checked after every step of the model; throws after `seconds`.
    func until(_ what: String, within seconds: Double = 30, _ condition: () -> Bool) async throws {
        try await HailTestSupport.until(model.changes(), what, within: seconds, condition)
    }

    /// Advances the manual clock once the model is asleep on it.
    func advance(_ seconds: Double) async {
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(Int64(seconds * 1000)))
    }
}
