import Foundation
import HailCore
import HailNet
import HailServer
import HailTesting
import Testing

@testable import HailScale

/// Redis spoken to as a serious deployment runs it: TLS only, the server's certificate verified, an ACL user with
/// the least Hail needs, and a password on every connection, the subscriber's reconnects included. Each test runs
/// a `redis-server` of its own (`PrivateTLSRedis`) on certificates it makes; the shared Redis is never touched.
@Suite("Redis over TLS with an ACL user and a password", .serialized)
struct RedisTLSTests {
    static let password = "hail-pass-7f3a"
    static let admin = "admin-pass-91c2"
    static let prefix = "tls:"

    /// A server whose ACL user `hail` may do exactly what `RedisACL` lists, under `prefix`.
    static func server(_ certificates: TestCertificates, clientCertificates: String = "optional") async throws
        -> PrivateTLSRedis
    {
        let redis = try PrivateTLSRedis(
            certificates: certificates, adminPassword: admin,
            users: [["hail", "on", ">" + password] + RedisACL.rules(prefix: prefix)],
            clientCertificates: clientCertificates)
        try await redis.start()
        return redis
    }

    static func url(
        _ redis: PrivateTLSRedis, user: String = "hail", password: String = password,
        host: String =
            "localhost", query: String? = nil
    ) -> String {
        "rediss://\(user):\(password)@\(host):\(redis.port)?" + (query ?? "cacert=\(redis.certificates.caFile)")
    }

    @Test func theScaledStoresWorkForTheLeastPrivilegedUserOverTLS() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates)
        defer { redis.stop() }
        let database = try TemporaryDirectory.make("hail-tls-sqlite")
        defer { try? FileManager.default.removeItem(atPath: database) }
        let backends = try await ScaledBackends.open(
            postgresURL: nil, redisURL: Self.url(redis), databasePath: database + "/hail.db", redisPrefix: Self.prefix)
        defer { backends.close() }
        #expect(backends.summary == "SQLite \(database)/hail.db, Redis localhost:\(redis.port) over TLS as user 'hail'")

        let epoch = Date(timeIntervalSince1970: 1_796_220_000)
        try await backends.geo.update(driverID: "d-1", coordinate: RedisTests.north(100), seenAt: epoch)
        let hits = try await backends.geo.nearest(to: RedisTests.center, radius: 1000, limit: 5, now: epoch)
        #expect(hits.map(\.driverID) == ["d-1"])

        let subscription = await backends.bus.subscribe(to: .trip("t-1"))
        let message = BusMessage(kind: .essential, text: #"{"type":"trip"}"#)
        await backends.bus.publish(message, to: .trip("t-1"))
        #expect(await RedisTests.first(1, of: subscription) == [message])

        // The user may touch nothing outside Hail's keys: the ACL really is in force on this connection.
        let client = RedisClient(endpoint: try RedisEndpoint(url: Self.url(redis)))
        defer { client.close() }
        let denied = await #expect(throws: RedisError.self) {
            try await client.run { try $0.command(["SET", "elsewhere", "x"]).checked() }
        }
        #expect(denied?.message.hasPrefix("NOPERM") == true)
    }

    @Test func theSubscriberAuthenticatesAgainWhenItsConnectionIsCut() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates)
        defer { redis.stop() }
        let bus = try RedisTripBus(endpoint: try RedisEndpoint(url: Self.url(redis)), prefix: Self.prefix)
        defer { bus.close() }
        let before = await bus.subscribe(to: .trip("t-2"))
        #expect(try await redis.administer(["CLIENT", "KILL", "TYPE", "pubsub"]) == "1\n")
        // The cut ends the stream (what was published meanwhile is lost); a new subscription is on a new,
        // authenticated connection, and hears what is published next.
        var ended: [BusMessage] = []
        for await message in before.messages { ended.append(message) }
        #expect(ended.isEmpty)
        let after = await bus.subscribe(to: .trip("t-2"))
        let message = BusMessage(kind: .essential, text: #"{"after":"cut"}"#)
        await bus.publish(message, to: .trip("t-2"))
        #expect(await RedisTests.first(1, of: after) == [message])
    }

    @Test func aPausedRedisEndsTheStreamsOverTLSAsItDoesInPlainTCP() async throws {
        // The subscriber's PING after a quiet second, unanswered for the URL's timeout, ends the streams: the
        // TLS stream keeps SubscriberWatch's deadline, it does not sit in a read of its own.
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates)
        defer {
            redis.resume()
            redis.stop()
        }
        let bus = try RedisTripBus(
            endpoint: try RedisEndpoint(
                url: Self.url(redis, query: "cacert=\(certificates.caFile)&timeout=0.5")), prefix: Self.prefix)
        defer { bus.close() }
        let subscription = await bus.subscribe(to: .trip("t-3"))
        redis.pause()
        let ended = await withDeadline(30) { () async -> Bool? in
            for await _ in subscription.messages {}
            return true
        }
        #expect(ended == true)
    }

    @Test func aWrongPasswordIsAClearStartupErrorThatNeverShowsThePassword() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates)
        defer { redis.stop() }
        let wrong = "not-the-password-5d1e"
        let database = try TemporaryDirectory.make("hail-tls-sqlite")
        defer { try? FileManager.default.removeItem(atPath: database) }
        for url in [Self.url(redis, password: wrong), "rediss://localhost:\(redis.port)?cacert=\(certificates.caFile)"]
        {
            let error = await #expect(throws: RedisError.self) {
                _ = try await ScaledBackends.open(
                    postgresURL: nil, redisURL: url, databasePath: database + "/hail.db", redisPrefix: Self.prefix)
            }
            #expect(error?.code == .authentication)
            #expect(!"\(error.map { "\($0)" } ?? "")".contains(wrong))
        }
        let refused = await #expect(throws: RedisError.self) {
            try await RedisClient(endpoint: try RedisEndpoint(url: Self.url(redis, password: wrong))).ping()
        }
        #expect(
            refused?.message
                == "localhost:\(redis.port) refused user 'hail': WRONGPASS invalid username-password pair or user is disabled."
        )
    }

    @Test func aServerWhoseCertificateDoesNotVerifyIsRefused() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates)
        defer { redis.stop() }
        let cases = [
            // A CA that did not sign the server's certificate.
            (Self.url(redis, query: "cacert=\(certificates.otherCAFile)"), "certificate verify failed"),
            // The right CA, but the certificate names localhost, not 127.0.0.1.
            (Self.url(redis, host: "127.0.0.1"), "certificate verify failed: IP address mismatch"),
            // The system's store, which does not hold the test's CA (the server sends it in its chain).
            (Self.url(redis, query: ""), "certificate verify failed: self-signed certificate in certificate chain"),
        ]
        for (url, reason) in cases {
            let error = await #expect(throws: RedisError.self) {
                try await RedisClient(endpoint: try RedisEndpoint(url: url)).ping()
            }
            #expect(error?.code == .connection)
            #expect(error?.message.contains(reason) == true, "\(error.map { "\($0)" } ?? "")")
        }
        // Named through `sni`, 127.0.0.1 is accepted as the certificate's localhost.
        let named = RedisClient(
            endpoint: try RedisEndpoint(
                url: Self.url(redis, host: "127.0.0.1", query: "cacert=\(certificates.caFile)&sni=localhost")))
        defer { named.close() }
        try await named.ping()
    }

    @Test func aServerThatWantsAClientCertificateTakesHailsAndRefusesNone() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates, clientCertificates: "yes")
        defer { redis.stop() }
        let without = await #expect(throws: RedisError.self) {
            try await RedisClient(endpoint: try RedisEndpoint(url: Self.url(redis))).ping()
        }
        #expect(without?.code == .connection)
        let with = RedisClient(
            endpoint: try RedisEndpoint(
                url: Self.url(
                    redis,
                    query:
                        "cacert=\(certificates.caFile)&cert=\(certificates.clientCertificateFile)&key=\(certificates.clientKeyFile)"
                )))
        defer { with.close() }
        try await with.ping()
    }

    @Test func theDefaultUsersPasswordAloneIsSentAsAUTHPassword() async throws {
        // The default user with requirepass: `rediss://:password@host`, then SELECT 3 on the same connection.
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let redis = try await Self.server(certificates)
        defer { redis.stop() }
        let client = RedisClient(
            endpoint: try RedisEndpoint(
                url: "rediss://:\(Self.admin)@localhost:\(redis.port)/3?cacert=\(certificates.caFile)"))
        defer { client.close() }
        try await client.ping()
    }
}
