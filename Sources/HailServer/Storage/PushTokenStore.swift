import Foundation
import HailProtocol

/// A principal's device and where its pushes go: one per principal, a newer registration replacing the older.
public struct DeviceTokenRecord: Codable, Sendable, Hashable {
    /// Whose device (`rider:r-1`, `driver:d-1`).
    public var principal: String
    /// The APNs device token, lower-case hex.
    public var token: String
    /// The APNs the token belongs to.
    public var environment: PushEnvironment
    /// The app's bundle id, or nil for the server's configured topic.
    public var bundleID: String?
    /// Server time of the registration.
    public var updatedAt: Date

    /// Creates a record.
    public init(principal: String, token: String, environment: PushEnvironment, bundleID: String?, updatedAt: Date) {
        self.principal = principal
        self.token = token
        self.environment = environment
        self.bundleID = bundleID
        self.updatedAt = updatedAt
    }
}

/// The push token of the Live Activity a rider's app started for one trip.
public struct LiveActivityTokenRecord: Codable, Sendable, Hashable {
    /// The trip the activity shows.
    public var tripID: String
    /// The trip's rider.
    public var riderID: String
    /// The activity's push token, lower-case hex.
    public var token: String
    /// Server time of the registration.
    public var updatedAt: Date

    /// Creates a record.
    public init(tripID: String, riderID: String, token: String, updatedAt: Date) {
        self.tripID = tripID
        self.riderID = riderID
        self.token = token
        self.updatedAt = updatedAt
    }
}

/// Device and Live Activity push tokens, kept in the trip store so they survive a restart (SQLite embedded,
/// PostgreSQL scaled).
public protocol PushTokenStore: Sendable {
    /// Stores `device` as its principal's one device; another principal holding the same token loses it
    /// (the phone changed hands, or its user signed in again under another account).
    func saveDevice(_ device: DeviceTokenRecord) async throws
    /// The principal's device, if one is registered.
    func device(principal: String) async throws -> DeviceTokenRecord?
    /// Forgets the principal's device (sign-out); nothing when none is registered.
    func removeDevice(principal: String) async throws
    /// Stores the trip's Live Activity token, replacing an older one.
    func saveLiveActivity(_ activity: LiveActivityTokenRecord) async throws
    /// The trip's Live Activity token, if one is registered.
    func liveActivity(tripID: String) async throws -> LiveActivityTokenRecord?
    /// Forgets the trip's Live Activity token (the trip ended).
    func removeLiveActivity(tripID: String) async throws
    /// Forgets `token` wherever it is stored: APNs said it is no longer valid.
    func removePushToken(_ token: String) async throws
}
