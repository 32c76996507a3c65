import Foundation
import HailTime

/// Samples the node's clock against a shared reference every `interval` and sets `hail_clock_offset_seconds`:
/// nothing two nodes compare depends on their clocks any more, but their dates (a fix's age, a fare's minutes,
/// a token's expiry, a push's timestamp) are only as right as the clock, so an operator is told when it drifts.
public struct ClockOffsetMonitor: Sendable {
    private let reference: any ClockReference
    private let time: Timeline
    private let metrics: ServerMetrics
    private let interval: Duration
    /// Time since the monitor was made on a monotonic clock: what an exchange's round trip is measured on.
    private let elapsed: @Sendable () -> Duration

    /// Exchanges per sampling; the quickest one counts.
    static let exchanges = 3

    /// A monitor of the node's clock (`time`) against `reference`, its round trips measured on the monotonic clock.
    public init(
        reference: any ClockReference, time: Timeline, metrics: ServerMetrics, interval: Duration = .seconds(15)
    ) {
        self.init(reference: reference, time: time, metrics: metrics, interval: interval, roundTrips: ContinuousClock())
    }

    /// A monitor whose round trips are measured on `roundTrips` (a test's manual clock).
    public init<C: Clock>(
        reference: any ClockReference, time: Timeline, metrics: ServerMetrics, interval: Duration = .seconds(15),
        roundTrips: C
    ) where C.Duration == Duration {
        self.reference = reference
        self.time = time
        self.metrics = metrics
        self.interval = interval
        let start = roundTrips.now
        elapsed = { start.duration(to: roundTrips.now) }
    }

    /// Takes one sampling: the quickest of `exchanges` exchanges (nil when the reference did not answer), and sets
    /// the gauge from it.
    @discardableResult
    public func sample() async -> ClockOffsetSample? {
        var samples: [ClockOffsetSample] = []
        for _ in 0..<Self.exchanges {
            let sentAt = time.now()
            let started = elapsed()
            guard let answer = try? await reference.referenceTime() else { continue }
            let roundTrip = (elapsed() - started).timeInterval
            samples.append(ClockOffsetSample(sentAt: sentAt, roundTrip: roundTrip, reference: answer))
        }
        guard let best = ClockOffsetSample.best(samples) else { return nil }
        metrics.clockOffset(best.offset, reference: reference.name)
        return best
    }

    /// Samples every `interval` until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            await sample()
            do { try await time.sleep(for: interval) } catch { return }
        }
    }
}
