import Foundation

/// Drops GPS fixes that would mislead the rider's map or the fare: invalid, too inaccurate, out of order,
/// or implying an impossible speed. The driver app runs it on every fix; the server runs the same filter
/// on what arrives, because a phone can be old, buggy or lying.
///
/// Checks run in this order and the first failure names the reason: invalid values, accuracy worse than
/// 50 m, a device time not after the last accepted fix, then an implied speed over 200 km/h. Both limits
/// are inclusive: 50 m and exactly 200 km/h pass.
///
/// Speed is measured from the last *accepted* fix, so one wild point is rejected and the next real one
/// passes. The price is that a true jump (a GPS that froze in a tunnel and then re-acquired far ahead) is
/// rejected until enough time has passed for 200 km/h to cover it; the Munich trace shows ten seconds of
/// that after a frozen stretch. The filter heals itself because the allowed distance grows with time.
public struct LocationFilter: Codable, Sendable, Hashable {
    /// Why a fix was dropped; metrics report drops by these names.
    public enum Reason: String, Codable, Sendable, Hashable, CaseIterable {
        /// A coordinate off the Earth, or a non-finite or negative accuracy, or a non-finite heading, speed or time.
        case invalid
        /// Accuracy radius worse than `maximumAccuracy`.
        case poorAccuracy
        /// Device time not after the last accepted fix (a duplicate or a late delivery).
        case outOfOrder
        /// Faster than `maximumSpeed` from the last accepted fix.
        case impossibleSpeed
    }

    /// The verdict on one fix.
    public enum Verdict: Sendable, Hashable {
        /// Keep the fix; it is now the reference for the next one.
        case accept
        /// Drop the fix for this reason; the reference is unchanged.
        case reject(Reason)
    }

    /// How many fixes the filter has accepted and dropped, by reason.
    public struct Counts: Codable, Sendable, Hashable {
        /// Fixes accepted.
        public var accepted = 0
        /// Fixes dropped as invalid.
        public var invalid = 0
        /// Fixes dropped for poor accuracy.
        public var poorAccuracy = 0
        /// Fixes dropped as out of order.
        public var outOfOrder = 0
        /// Fixes dropped for an impossible speed.
        public var impossibleSpeed = 0

        /// Creates zero counts.
        public init() {}

        /// The number dropped for `reason`.
        public subscript(reason: Reason) -> Int {
            get {
                switch reason {
                case .invalid: return invalid
                case .poorAccuracy: return poorAccuracy
                case .outOfOrder: return outOfOrder
                case .impossibleSpeed: return impossibleSpeed
                }
            }
            set {
                switch reason {
                case .invalid: invalid = newValue
                case .poorAccuracy: poorAccuracy = newValue
                case .outOfOrder: outOfOrder = newValue
                case .impossibleSpeed: impossibleSpeed = newValue
                }
            }
        }

        /// All fixes dropped, whatever the reason.
        public var rejected: Int { invalid + poorAccuracy + outOfOrder + impossibleSpeed }
    }

    /// The worst accuracy radius kept, in metres (inclusive).
    public static let maximumAccuracy: Double = 50
    /// The fastest implied speed kept, in metres per second: 200 km/h (inclusive).
    public static let maximumSpeed: Double = 200 / 3.6

    /// Slack on the speed limit so a fix at exactly 200 km/h is not dropped by a rounding error: its
    /// distance went through trigonometry and its time through `Date`. A millionth is 0.2 m/h.
    private static let speedTolerance = 1e-6

    /// The last fix accepted: the reference for order and speed.
    public private(set) var lastAccepted: LocationPoint?
    /// Accepted and dropped fixes so far.
    public private(set) var counts = Counts()

    /// Creates a filter with no history.
    public init() {}

    /// Restores a filter from its reference fix and counts, as a store kept them.
    public init(lastAccepted: LocationPoint?, counts: Counts) {
        self.lastAccepted = lastAccepted
        self.counts = counts
    }

    /// Judges `point`, updating the reference and the counts.
    public mutating func evaluate(_ point: LocationPoint) -> Verdict {
        let verdict = Self.judge(point, after: lastAccepted)
        switch verdict {
        case .accept:
            lastAccepted = point
            counts.accepted += 1
        case .reject(let reason):
            counts[reason] += 1
        }
        return verdict
    }

    /// The verdict on `point` following `reference`, without changing any state.
    public static func judge(_ point: LocationPoint, after reference: LocationPoint?) -> Verdict {
        if isInvalid(point) { return .reject(.invalid) }
        if point.accuracy > maximumAccuracy { return .reject(.poorAccuracy) }
        guard let reference else { return .accept }
        let elapsed = point.t.timeIntervalSince(reference.t)
        if !(elapsed > 0) { return .reject(.outOfOrder) }
        let distance = reference.coordinate.distance(to: point.coordinate)
        if distance > maximumSpeed * elapsed * (1 + speedTolerance) { return .reject(.impossibleSpeed) }
        return .accept
    }

    private static func isInvalid(_ point: LocationPoint) -> Bool {
        if point.coordinate.validationProblem != nil { return true }
        // CoreLocation reports a negative accuracy for a fix it could not take.
        if !point.accuracy.isFinite || point.accuracy < 0 { return true }
        // Heading and speed may be negative (unknown), but never NaN or infinite.
        if !point.heading.isFinite || !point.speed.isFinite { return true }
        return !point.t.timeIntervalSinceReferenceDate.isFinite
    }
}
