import Foundation
import HailCore

/// A simulated phone's battery, drained by what the driver app asks of it: the screen and CPU always, the
/// location hardware by the accuracy the policy asks for, and the cellular radio for a tail after every send.
///
/// A model, not a measurement: the powers are round figures of the right order for a phone in a windshield mount
/// on a 12 Wh battery (one percentage point is 432 J). What it is for is the comparison between policies, which
/// it makes from the app's real sends: a send every 2 s keeps the radio awake all the time, one every 12 s
/// lets it sleep for more than half of it. Pure: time and sends go in, the level and each policy's share of the
/// drain come out.
public struct BatteryModel: Sendable, Hashable {
    /// The powers, in watts, and the battery's energy.
    public struct Physics: Sendable, Hashable {
        /// The battery's energy, joules (12 Wh).
        public var capacityJoules = 43_200.0
        /// Screen (dimmed, in a mount), CPU and the app: always drawn.
        public var baseWatts = 0.6
        /// The location hardware by the accuracy asked for; nothing with location off.
        public var locationWatts: [LocationAccuracy: Double] = [
            .best: 0.4, .nearestTenMeters: 0.2, .balanced: 0.08, .hundredMeters: 0.04,
        ]
        /// The cellular radio while it is awake.
        public var radioWatts = 0.8
        /// How long the radio stays awake after a send (its tail), seconds.
        public var radioTailSeconds = 5.0

        /// The defaults.
        public init() {}
    }

    /// How long a policy was in force, and what it cost.
    public struct Share: Sendable, Hashable, Codable {
        /// Seconds the policy was in force.
        public var seconds = 0.0
        /// Percentage points drained meanwhile.
        public var percent = 0.0
    }

    /// The powers.
    public let physics: Physics
    /// The charge, from 0 to 1.
    public private(set) var level: Double
    /// Each policy's time and drain, by `label(of:)`.
    public private(set) var byPolicy: [String: Share] = [:]
    private var at: Date
    private var radioAwakeUntil: Date?

    /// A battery at `level` at `now`.
    public init(level: Double = 1, at now: Date, physics: Physics = Physics()) {
        self.level = min(1, max(0, level))
        self.physics = physics
        at = now
    }

    /// A policy as the report names it: `best, 5 m`; `off`.
    public static func label(of policy: LocationPolicy) -> String {
        policy.isOff ? "off" : "\(policy.accuracy.rawValue), \(Int(policy.distanceFilter.rounded())) m"
    }

    /// Runs the battery to `now` under `policy` (in force since the last call).
    public mutating func advance(to now: Date, policy: LocationPolicy) {
        let seconds = now.timeIntervalSince(at)
        guard seconds > 0 else { return }
        let location = policy.isOff ? 0 : physics.locationWatts[policy.accuracy] ?? 0
        var joules = (physics.baseWatts + location) * seconds
        if let awake = radioAwakeUntil, awake > at {
            joules += physics.radioWatts * min(seconds, awake.timeIntervalSince(at))
        }
        let percent = joules / physics.capacityJoules * 100
        level = max(0, level - percent / 100)
        byPolicy[Self.label(of: policy), default: Share()].seconds += seconds
        byPolicy[Self.label(of: policy), default: Share()].percent += percent
        at = now
    }

    /// The app sent a batch at `now` (after `advance(to: now)`): the radio is awake for its tail from here.
    public mutating func sent(at now: Date) {
        radioAwakeUntil = max(radioAwakeUntil ?? now, now.addingTimeInterval(physics.radioTailSeconds))
    }
}
