import Foundation
import HailAppDoubles
import HailCore
import HailTestSupport
import Testing

@testable import HailRider

/// The doubles HailAppDoubles ships for SwiftUI previews drive a real `RiderModel` through a ride.
@Suite("Preview doubles")
@MainActor
struct PreviewDoublesTests {
    @Test func aRiderOnThePreviewDoublesGetsADriverAndSeesTheCarComeDownTheApproach() async throws {
        let clock = ManualClock()
        let model = RiderModel(
            api: PreviewTripAPI(), channel: PreviewLiveTripChannel(clock: clock), cursors: InMemoryCursorStore(),
            timeline: Timeline(clock: clock, now: { Date() }))
        model.screenVisibilityChanged(true)
        await model.launch()
        await model.requestRide(pickup: PreviewRide.pickup, dropoff: PreviewRide.dropoff, product: .economy)
        #expect(model.screen.phase == .driverAssigned)
        #expect(model.screen.driver?.name == "Camille")
        // One position a second along the approach, the manual clock moved by hand once the channel sleeps.
        for seq in 1...PreviewRide.approach.count {
            try await until(model.changes(), "position \(seq)") { model.driverLocation?.seq == Int64(seq) }
            if seq < PreviewRide.approach.count {
                await clock.sleepers(atLeast: 1)
                clock.advance(by: .seconds(1))
            }
        }
        #expect(model.driverLocation?.coordinate == PreviewRide.approach.last)
        model.stop()
    }
}
