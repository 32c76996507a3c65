import Foundation
import HailAppSeams
import HailCore
import HailProtocol

/// A `LiveTripChannel` for SwiftUI previews: `hello`, the trip assigned, then the car along
/// `PreviewRide.approach`, one position every `interval` on a clock of the preview's choosing, stamped now.
public struct PreviewLiveTripChannel<C: Clock>: LiveTripChannel where C.Duration == Duration {
    private let clock: C
    private let interval: Duration

    /// A channel whose car moves every `interval` of `clock`.
    public init(clock: C, interval: Duration = .seconds(1)) {
        self.clock = clock
        self.interval = interval
    }

    /// The preview ride's frames; they end after the last position.
    public func open(tripID: String, after cursor: Int64?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        let (clock, interval) = (self.clock, self.interval)
        return AsyncThrowingStream { continuation in
            let task = Task {
                continuation.yield(.hello(serverTime: Date()))
                continuation.yield(.tripUpdated(PreviewRide.trip(.driverAssigned, version: 2)))
                for (index, coordinate) in PreviewRide.approach.enumerated() {
                    let seq = Int64(index + 1)
                    // A resumed stream starts after the cursor, as the server's does.
                    if let cursor, seq <= cursor { continue }
                    let now = Date()
                    continuation.yield(
                        .driverMoved(
                            DriverMoved(
                                seq: seq, coordinate: coordinate, heading: 35, receivedAt: now, fixedAt: now,
                                etaSeconds: 240 - 20 * index, etaTarget: .pickup)))
                    do { try await clock.sleep(for: interval) } catch { break }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension PreviewLiveTripChannel where C == ContinuousClock {
    /// A channel on the real clock, a position a second.
    public init() { self.init(clock: ContinuousClock()) }
}
