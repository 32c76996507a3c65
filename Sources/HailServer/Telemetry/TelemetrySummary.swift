import Foundation
import HailCore

/// What one telemetry batch says, read as intervals: between two consecutive samples the app was as the first
/// says. Pure, and per batch, so any node can read any batch (the apps start each batch with the last sample of
/// the one before, so no interval is lost between batches).
///
/// An interval longer than `maximumGapSeconds` is skipped: the app was suspended or killed in it, and nothing is
/// known of it. Battery counts only over intervals that were active and unplugged at both ends, with a level at
/// both ends that did not rise (a rise means the phone charged in between).
public struct TelemetrySummary: Sendable, Hashable {
    /// Seconds the app was active.
    public var activeSeconds = 0.0
    /// Of those, seconds the driver's location was degraded.
    public var degradedSeconds = 0.0
    /// Seconds active on battery with a known level at both ends.
    public var unpluggedActiveSeconds = 0.0
    /// Battery percentage points lost over those seconds.
    public var drainedPercent = 0.0

    /// The longest interval read, seconds.
    public static let maximumGapSeconds: TimeInterval = 3600
    /// The least time on battery a batch must cover for its drain rate to be observed: below it one percentage
    /// point of the level's step is most of the reading.
    public static let minimumSecondsForRate: TimeInterval = 300

    /// The summary of `samples`, oldest first.
    public init(samples: [DeviceSample]) {
        for (earlier, later) in zip(samples, samples.dropFirst()) {
            let gap = later.at.timeIntervalSince(earlier.at)
            guard gap > 0, gap <= Self.maximumGapSeconds, earlier.active else { continue }
            activeSeconds += gap
            if earlier.degraded { degradedSeconds += gap }
            guard earlier.batteryState == .unplugged, later.batteryState == .unplugged,
                let from = earlier.batteryLevel, let to = later.batteryLevel, to <= from
            else { continue }
            unpluggedActiveSeconds += gap
            drainedPercent += (from - to) * 100
        }
    }

    /// Percentage points lost per hour active on battery; nil below `minimumSecondsForRate`.
    public var drainPercentPerHour: Double? {
        guard unpluggedActiveSeconds >= Self.minimumSecondsForRate else { return nil }
        return drainedPercent / (unpluggedActiveSeconds / 3600)
    }
}
