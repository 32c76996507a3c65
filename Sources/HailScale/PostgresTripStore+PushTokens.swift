import Foundation
import HailProtocol
import HailServer

/// The push tokens (`PushTokenStore`, required by `TripStore`), in the same database as the trips.
extension PostgresTripStore {
    /// Stores the principal's one device in one transaction; another principal with the same token loses it.
    public func saveDevice(_ device: DeviceTokenRecord) async throws {
        try await pool.run { connection in
            try connection.transaction {
                try connection.query(
                    "DELETE FROM push_devices WHERE token = $1 AND principal <> $2", [device.token, device.principal])
                try connection.query(
                    """
                    INSERT INTO push_devices (principal, token, environment, bundle_id, updated_at)
                    VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (principal) DO UPDATE SET token = excluded.token, environment = excluded.environment,
                        bundle_id = excluded.bundle_id, updated_at = excluded.updated_at
                    """,
                    [
                        device.principal, device.token, device.environment.rawValue, device.bundleID,
                        device.updatedAt.timeIntervalSince1970,
                    ])
            }
        }
    }

    /// The principal's device.
    public func device(principal: String) async throws -> DeviceTokenRecord? {
        try await pool.run { connection in
            try connection.query(
                "SELECT principal, token, environment, bundle_id, updated_at FROM push_devices WHERE principal = $1",
                [principal]
            ).first.map { row in
                DeviceTokenRecord(
                    principal: try row.string(0), token: try row.string(1),
                    environment: PushEnvironment(rawValue: try row.string(2)) ?? .production,
                    bundleID: try row.optionalString(3), updatedAt: Date(timeIntervalSince1970: try row.double(4)))
            }
        }
    }

    /// Forgets the principal's device.
    public func removeDevice(principal: String) async throws {
        try await pool.run { connection in
            _ = try connection.query("DELETE FROM push_devices WHERE principal = $1", [principal])
        }
    }

    /// Stores the trip's Live Activity token.
    public func saveLiveActivity(_ activity: LiveActivityTokenRecord) async throws {
        try await pool.run { connection in
            _ = try connection.query(
                """
                INSERT INTO live_activity_tokens (trip_id, rider_id, token, updated_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (trip_id) DO UPDATE SET rider_id = excluded.rider_id, token = excluded.token,
                    updated_at = excluded.updated_at
                """,
                [activity.tripID, activity.riderID, activity.token, activity.updatedAt.timeIntervalSince1970])
        }
    }

    /// The trip's Live Activity token.
    public func liveActivity(tripID: String) async throws -> LiveActivityTokenRecord? {
        try await pool.run { connection in
            try connection.query(
                "SELECT trip_id, rider_id, token, updated_at FROM live_activity_tokens WHERE trip_id = $1", [tripID]
            ).first.map { row in
                LiveActivityTokenRecord(
                    tripID: try row.string(0), riderID: try row.string(1), token: try row.string(2),
                    updatedAt: Date(timeIntervalSince1970: try row.double(3)))
            }
        }
    }

    /// Forgets the trip's Live Activity token.
    public func removeLiveActivity(tripID: String) async throws {
        try await pool.run { connection in
            _ = try connection.query("DELETE FROM live_activity_tokens WHERE trip_id = $1", [tripID])
        }
    }

    /// Forgets `token` wherever it is.
    public func removePushToken(_ token: String) async throws {
        try await pool.run { connection in
            try connection.transaction {
                try connection.query("DELETE FROM push_devices WHERE token = $1", [token])
                try connection.query("DELETE FROM live_activity_tokens WHERE token = $1", [token])
            }
        }
    }
}
