import Foundation

/// What the rider's map may claim about the driver's pin, from the age of its last fix.
///
/// Age runs from when the fix was taken, in server time (`DriverLocation.ageOrigin`: the server's estimate
/// `fixedAt`, or `receivedAt` from a server that sends only that), to `serverNow` (the device clock corrected
/// by `ServerClock`), so a phone whose clock is minutes off still sees the right age, and a fix that waited on
/// the driver's phone or a slow uplink is as old as the car's position it shows. The thresholds are
/// the design's: live under 6 s, updating from 6 s up to 20 s, locating from 20 s on (the boundary
/// itself is locating, as in the design's sketch) or when there is no fix at all.
public struct PinFreshness: Sendable, Hashable {
    /// How much the screen may claim.
    public enum Level: String, Sendable, Hashable, CaseIterable {
        /// Under 6 s: animate the car and show the ETA.
        case live
        /// 6 to 20 s: keep the pin where it is, stop animating.
        case updating
        /// 20 s or more, or no fix: no pin confidence and no minute count.
        case locating
    }

    /// Ages below this are live.
    public static let liveBelow: TimeInterval = 6
    /// Ages from this on are locating.
    public static let locatingFrom: TimeInterval = 20
    /// Ages from this on show "Driver's location may be delayed".
    public static let delayedBannerFrom: TimeInterval = 15

    /// How much the screen may claim.
    public let level: Level
    /// Seconds since the fix was taken (or received), or nil with no fix. A fix stamped slightly in the
    /// future (offset error) counts as age 0.
    public let age: TimeInterval?

    /// Grades the published position `location` (nil: none yet) at `serverNow`.
    public init(of location: DriverLocation?, serverNow: Date) {
        self.init(receivedAt: location?.ageOrigin, serverNow: serverNow)
    }

    /// Grades a fix whose age counts from `receivedAt` (server time) at `serverNow`.
    public init(receivedAt: Date?, serverNow: Date) {
        guard let receivedAt else {
            level = .locating
            age = nil
            return
        }
        let age = max(0, serverNow.timeIntervalSince(receivedAt))
        self.age = age
        switch age {
        case ..<Self.liveBelow: level = .live
        case ..<Self.locatingFrom: level = .updating
        default: level = .locating
        }
    }

    /// True when the screen shows "Driver's location may be delayed" (from 15 s, or with no fix).
    public var showsDelayedBanner: Bool {
        guard let age else { return true }
        return age >= Self.delayedBannerFrom
    }

    /// True when the car may be animated between fixes.
    public var animates: Bool { level == .live }

    /// True when an ETA in minutes may be shown.
    public var allowsETA: Bool { level != .locating }
}
