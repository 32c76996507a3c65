import Foundation
import HailAppDoubles
import HailCore
import HailTesting
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
            try await Self.until(model, "position \(seq)") { model.driverLocation?.seq == Int64(seq) }
            if seq < PreviewRide.approach.count {
                await clock.sleepers(atLeast: 1)
                clock.advance(by: .seconds(1))
            }
        }
        #expect(model.driverLocation?.coordinate == PreviewRide.approach.last)
        model.stop()
    }

    /// Returns once `condition` holds after one of the model's steps; throws after `seconds` of real time.
    static func until(_ model: RiderModel, _ what: String, within seconds: Double = 10, _ condition: () -> Bool)
        async throws
    {
        if condition() { return }
        let (steps, continuation) = AsyncStream.makeStream(of: Void.self)
        model.progressWatchers.append(continuation)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.finish() }
        for await _ in steps where condition() { return }
        if condition() { return }
        throw HarnessError(description: "\(what): not within \(seconds) s (screen \(model.screen))")
    }
}
