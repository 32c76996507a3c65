import Foundation
import HailScale
import HailTesting
import Testing

/// The scaled shape as docs/DEPLOY.md tells an operator to run it: PostgreSQL over TLS (`verify-full`, a
/// scram-sha-256 password, no plain connections accepted) and Redis over TLS only, as an ACL user allowed exactly
/// `RedisACL`'s commands, keys and channels. A whole ride on it shows those rights are enough and the TLS paths
/// carry every call; both servers are the test's own.
@Suite("A ride on PostgreSQL and Redis over TLS with passwords", .serialized)
struct SecuredBackendsRideTests {
    @Test func aWholeRideRunsOnTLSBackendsAndTheLeastPrivilegedRedisUser() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let schema = "hail_secured"
        let redisPassword = "ride-redis-3e9d"
        let redis = try PrivateTLSRedis(
            certificates: certificates, adminPassword: "ride-admin-0a4f",
            users: [["hail", "on", ">" + redisPassword] + RedisACL.rules(prefix: schema + ":")])
        try await redis.start()
        defer { redis.stop() }
        let postgres = try PrivateTLSPostgres(certificates: certificates, password: "ride-pg-8c1b")
        try await postgres.start()
        defer { postgres.stop() }

        let postgresURL = postgres.url(query: "?sslmode=verify-full&sslrootcert=\(certificates.caFile)")
        let redisURL = "rediss://hail:\(redisPassword)@localhost:\(redis.port)?cacert=\(certificates.caFile)"
        let server = try await BackendDeadlineTests.serve(
            postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redisURL, schema: schema)
        try await LoopbackRideTests.rideToTheEnd(on: server)
        await server.stop()

        // Redis denied nothing Hail sent: a refused command, key or channel would be in the ACL log.
        let denials = try await redis.administer(["ACL", "LOG"])
        #expect(
            denials.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            "the ACL denied something Hail sent: \(denials)")
    }
}
