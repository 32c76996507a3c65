import Foundation

/// Weighs a driver's `arrived` or `started` against their freshest fix: a fix is evidence, so a fresh one far from
/// the pickup refuses the claim, and without a fresh one the claim is accepted but marked unverified. Pure: the
/// server passes its clock's `now`.
public enum PickupProximity {
    /// Farther than this from the pickup, metres, a fresh fix refuses the claim.
    public static let maxDistanceMeters: Double = 150
    /// A fix received longer ago than this, seconds (server clock), is not evidence either way.
    public static let freshnessSeconds: Double = 30

    /// What the fix says about the claim.
    public enum Verdict: Sendable, Hashable {
        /// A fresh fix within `maxDistanceMeters` of the pickup.
        case near(distanceMeters: Double)
        /// A fresh fix farther than `maxDistanceMeters`: refuse, naming the distance.
        case far(distanceMeters: Double)
        /// No fix received in the last `freshnessSeconds`: accept, marked unverified.
        case unverified
    }

    /// Judges a claim made at `now` by a driver whose last position is `position` (nil when none is known).
    public static func judge(_ position: DriverLocation?, pickup: Coordinate, now: Date) -> Verdict {
        guard let position, now.timeIntervalSince(position.receivedAt) <= freshnessSeconds else { return .unverified }
        let distance = position.coordinate.distance(to: pickup)
        return distance > maxDistanceMeters ? .far(distanceMeters: distance) : .near(distanceMeters: distance)
    }
}
