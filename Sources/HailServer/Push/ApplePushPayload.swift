import Foundation
import HailCore
import HailProtocol

/// The title and body of a notification, as APNs' `aps.alert` dictionary.
public struct PushAlert: Codable, Sendable, Hashable {
    /// The bold first line.
    public var title: String
    /// The text under it.
    public var body: String

    /// Creates an alert.
    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

/// A regular notification's payload in Apple's documented shape:
/// `{"aps": {"alert": {"title", "body"}, "sound": "default", "thread-id", "interruption-level"}, "tripID", "event"}`.
public struct AlertPayload: Codable, Sendable, Hashable {
    /// The `aps` dictionary.
    public struct APS: Codable, Sendable, Hashable {
        /// What the notification says.
        public var alert: PushAlert
        /// `default`: the system sound.
        public var sound: String
        /// Groups a trip's notifications together.
        public var threadID: String
        /// `time-sensitive` for the driver's arrival, which must break through a Focus; `active` otherwise.
        public var interruptionLevel: String

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case threadID = "thread-id"
            case interruptionLevel = "interruption-level"
        }
    }

    /// The `aps` dictionary.
    public var aps: APS
    /// The trip, so a tap opens its screen.
    public var tripID: String
    /// What happened.
    public var event: PushEvent
}

/// A Live Activity update in Apple's documented shape: `{"aps": {"timestamp", "event": "update"|"end",
/// "content-state", "stale-date"?, "dismissal-date"?, "alert"?}}`.
public struct LiveActivityPayload: Codable, Sendable, Hashable {
    /// The `aps` dictionary.
    public struct APS: Codable, Sendable, Hashable {
        /// Seconds since 1970 when the server made the update; the system drops older ones.
        public var timestamp: Int
        /// `update`, or `end` for a finished trip.
        public var event: String
        /// What the activity shows.
        public var contentState: TripActivityContent
        /// When the shown ETA stops being true if no update follows (seconds since 1970).
        public var staleDate: Int?
        /// When an ended activity leaves the lock screen (seconds since 1970).
        public var dismissalDate: Int?
        /// Lights the screen for the moments that matter.
        public var alert: PushAlert?

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert
            case contentState = "content-state"
            case staleDate = "stale-date"
            case dismissalDate = "dismissal-date"
        }
    }

    /// The `aps` dictionary.
    public var aps: APS
}

/// Builds both payloads for one event; pure, `now` is a parameter.
public enum ApplePushPayload {
    /// How long an ETA on the lock screen may stand without an update.
    public static let staleAfter: TimeInterval = 120
    /// How often a running trip's Live Activity gets a fresh ETA while its driver moves: half the stale time, so
    /// one lost refresh does not grey the lock screen.
    public static let refreshEvery: TimeInterval = 60
    /// How long a finished trip stays on the lock screen.
    public static let dismissAfter: TimeInterval = 15 * 60
    /// How long APNs keeps trying to deliver an alert to a phone that is off: later, it would tell the rider
    /// something that is no longer true ("your driver is here" half an hour on).
    public static let alertLifetime: TimeInterval = 10 * 60

    /// The words for `event` on `trip`.
    public static func alert(for event: PushEvent, trip: Trip) -> PushAlert {
        let car = trip.driver.map { "\($0.carModel) \($0.plate)" } ?? "your car"
        let name = trip.driver?.name ?? "Your driver"
        switch event {
        case .driverAssigned:
            let eta = trip.etaSeconds.map { ", about \(EtaSmoother.minutes(forSeconds: $0)) min away" } ?? ""
            return PushAlert(title: "\(name) is on the way", body: "\(car)\(eta)")
        case .driverArrived:
            return PushAlert(title: "\(name) is here", body: "Look for \(car)")
        case .tripStarted:
            return PushAlert(title: "On your way", body: "Enjoy the ride with \(name)")
        case .tripCompleted:
            let fare = trip.fare.map { " Fare: \(format($0))." } ?? ""
            return PushAlert(title: "You have arrived", body: "Thanks for riding.\(fare)")
        case .tripCancelled:
            return PushAlert(title: "Trip cancelled", body: "Your trip was cancelled. You can request another.")
        case .etaRefreshed:
            let eta = trip.etaSeconds.map { "about \(EtaSmoother.minutes(forSeconds: $0)) min away" } ?? "on the way"
            return PushAlert(title: "\(name) is \(trip.state == .onTrip ? "driving you" : "on the way")", body: eta)
        case .noDriverFound:
            return PushAlert(
                title: "No driver found", body: "Nobody could take your trip. Try again in a few minutes.")
        }
    }

    /// The regular notification.
    public static func alertPayload(for event: PushEvent, trip: Trip) -> AlertPayload {
        AlertPayload(
            aps: AlertPayload.APS(
                alert: alert(for: event, trip: trip), sound: "default", threadID: trip.id,
                interruptionLevel: event == .driverArrived ? "time-sensitive" : "active"),
            tripID: trip.id, event: event)
    }

    /// The Live Activity update made at `now`.
    public static func liveActivityPayload(for event: PushEvent, trip: Trip, now: Date) -> LiveActivityPayload {
        let timestamp = Int(now.timeIntervalSince1970.rounded(.down))
        let state = TripActivityContent(trip: trip)
        return LiveActivityPayload(
            aps: LiveActivityPayload.APS(
                timestamp: timestamp, event: event.endsActivity ? "end" : "update", contentState: state,
                staleDate: event.endsActivity ? nil : timestamp + Int(staleAfter),
                dismissalDate: event.endsActivity ? timestamp + Int(dismissAfter) : nil,
                alert: event == .driverArrived || event.endsActivity ? alert(for: event, trip: trip) : nil))
    }

    /// `18.50 EUR`.
    static func format(_ money: Money) -> String {
        let magnitude = money.amountMinor.magnitude
        let cents = magnitude % 100
        return
            "\(money.amountMinor < 0 ? "-" : "")\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents) \(money.currency)"
    }
}
