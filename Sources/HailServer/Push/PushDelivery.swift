import Foundation
import HailCore

/// One push to one rider: both Apple payloads with the APNs headers they need. The sender's receiver
/// (a push gateway) holds the rider's device and Live Activity tokens and talks to APNs.
public struct PushDelivery: Codable, Sendable, Hashable {
    /// One APNs request: its headers and its JSON payload.
    public struct Request<Payload: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
        /// `apns-push-type`: `alert` or `liveactivity`.
        public var pushType: String
        /// `apns-priority`: 10 for what the rider must see now, 5 for an update that may wait for the
        /// phone's next wake-up.
        public var priority: Int
        /// `apns-topic` suffix after the app's bundle id: empty, or `.push-type.liveactivity`.
        public var topicSuffix: String
        /// `apns-expiration`: seconds since 1970 after which APNs stops trying; 0 tries once only.
        public var expiration: Int
        /// `apns-collapse-id`: a newer push with the same id replaces the older one on the phone.
        public var collapseID: String?
        /// The payload.
        public var payload: Payload
    }

    /// Unique per delivery, so a receiver can drop a retried duplicate.
    public var id: String
    /// The rider to notify, the subject of their token.
    public var riderID: String
    /// The trip.
    public var tripID: String
    /// The trip's version this push reports; a receiver drops anything older than what it sent.
    public var version: Int
    /// What happened.
    public var event: PushEvent
    /// The regular notification; nil for an ETA refresh, which only the Live Activity shows.
    public var alert: Request<AlertPayload>?
    /// The Live Activity update.
    public var liveActivity: Request<LiveActivityPayload>

    /// Both payloads for `event` on the committed `record`, made at `now`.
    public init(event: PushEvent, record: TripRecord, now: Date) {
        id = "\(record.trip.id):\(record.trip.version)"
        riderID = record.riderID
        tripID = record.trip.id
        version = record.trip.version
        self.event = event
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        alert =
            event.alerts
            ? Request(
                pushType: "alert", priority: 10, topicSuffix: "",
                expiration: seconds + Int(ApplePushPayload.alertLifetime), collapseID: record.trip.id,
                payload: ApplePushPayload.alertPayload(for: event, trip: record.trip)) : nil
        let activity = ApplePushPayload.liveActivityPayload(for: event, trip: record.trip, now: now)
        // An update past its stale date, or an end past its dismissal, is worth nothing: APNs may drop it then.
        liveActivity = Request(
            pushType: "liveactivity", priority: activity.aps.alert == nil ? 5 : 10,
            topicSuffix: ".push-type.liveactivity",
            expiration: activity.aps.staleDate ?? activity.aps.dismissalDate ?? seconds, collapseID: nil,
            payload: activity)
    }
}
