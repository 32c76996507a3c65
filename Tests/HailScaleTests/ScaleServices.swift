import Foundation
import HailScale
import Testing

/// The throwaway PostgreSQL and Redis that `scripts/services.sh` starts; tests needing one skip without it.
enum ScaleServices {
    static let postgresURL = ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"]
    static let redisURL = ProcessInfo.processInfo.environment["HAIL_REDIS_URL"]
    static let hasPostgres = postgresURL != nil
    static let hasRedis = redisURL != nil

    /// A name no other run uses, for schemas, key prefixes and ids.
    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Opens the stores in a fresh schema; `body` may open more instances on the same schema.
    static func withFreshSchema(_ body: (String, String) async throws -> Void) async throws {
        let url = try #require(postgresURL)
        let schema = uniqueName("hail_test")
        do {
            try await body(url, schema)
        } catch {
            await dropSchema(url: url, schema: schema)
            throw error
        }
        await dropSchema(url: url, schema: schema)
    }

    private static func dropSchema(url: String, schema: String) async {
        guard let pool = try? await PostgresPool.connect(url: url, size: 1, migrations: []) else { return }
        _ = try? await pool.run { connection in try connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        pool.close()
    }
}
