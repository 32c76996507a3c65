import Foundation
import HailTesting
import Testing

@testable import HailScale

/// PostgreSQL over TLS with `sslmode` from the URL: a server of the test's own (`PrivateTLSPostgres`) that takes
/// only TLS connections with scram-sha-256 passwords, on certificates the test makes.
@Suite("PostgreSQL over TLS with sslmode from the URL", .serialized)
struct PostgresTLSTests {
    static let password = "pg-pass-2b8e"

    /// The first error `PostgresPool.connect` throws for `url`.
    static func refusal(_ url: String) async -> PostgresError? {
        await #expect(throws: PostgresError.self) {
            let pool = try await PostgresPool.connect(url: url, size: 1, migrations: [])
            pool.close()
        }
    }

    @Test func verifyFullConnectsWithAPasswordAndRefusesWhatItMust() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let postgres = try PrivateTLSPostgres(certificates: certificates, password: Self.password)
        try await postgres.start()
        defer { postgres.stop() }

        let url = postgres.url(query: "?sslmode=verify-full&sslrootcert=\(certificates.caFile)")
        let stores = try await PostgresTripStores.open(url: url, schema: "hail_tls", connections: 1)
        defer { stores.close() }
        let session = try await stores.pool.run { connection in
            try connection.query("SELECT ssl::text, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        }
        #expect(session.map(\.values) == [["true", "TLSv1.3"]])

        // No TLS: the server has no pg_hba line for it.
        let plain = await Self.refusal(postgres.url(query: "?sslmode=disable"))
        #expect(plain?.code == .connection)
        #expect(plain?.message.contains(#"no pg_hba.conf entry for host "127.0.0.1", user "postgres""#) == true)
        #expect(plain?.message.contains("no encryption") == true)

        // The certificate names localhost; verify-full to 127.0.0.1 must not accept it.
        let wrongHost = await Self.refusal(
            postgres.url(host: "127.0.0.1", query: "?sslmode=verify-full&sslrootcert=\(certificates.caFile)"))
        #expect(wrongHost?.message.contains(#"server certificate for "localhost""#) == true)
        #expect(wrongHost?.message.contains(#"does not match host name "127.0.0.1""#) == true)

        // A CA that signed nothing of the server's.
        let wrongCA = await Self.refusal(
            postgres.url(query: "?sslmode=verify-full&sslrootcert=\(certificates.otherCAFile)"))
        #expect(wrongCA?.message.contains("certificate verify failed") == true)

        // A wrong password is named as such, and not repeated.
        let wrong = "not-it-44c0"
        let refused = await Self.refusal(
            postgres.url(password: wrong, query: "?sslmode=verify-full&sslrootcert=\(certificates.caFile)"))
        #expect(refused?.message.contains(#"password authentication failed for user "postgres""#) == true)
        #expect(refused.map { "\($0)" }?.contains(wrong) == false)
    }

    @Test func aHostOffThisMachineGetsVerifyFullUnlessTheURLOrEnvironmentSaysOtherwise() {
        let none: [String: String] = [:]
        #expect(
            PostgresTLSDefault.parameters(keywords: ["host": "db.internal"], environment: none).map(\.1) == [
                "verify-full"
            ])
        #expect(
            PostgresTLSDefault.parameters(keywords: ["hostaddr": "10.0.0.5"], environment: none).map(\.1) == [
                "verify-full"
            ])
        // One remote host among several is enough.
        #expect(
            PostgresTLSDefault.parameters(keywords: ["host": "127.0.0.1,db.internal"], environment: none).map(\.1) == [
                "verify-full"
            ])
        for local in ["127.0.0.1", "localhost", "::1", "[::1]", "/var/run/postgresql", "127.0.0.1,localhost"] {
            #expect(PostgresTLSDefault.parameters(keywords: ["host": local], environment: none).isEmpty, "\(local)")
        }
        #expect(PostgresTLSDefault.parameters(keywords: [:], environment: none).isEmpty)
        #expect(
            PostgresTLSDefault.parameters(keywords: [:], environment: ["PGHOST": "db.internal"]).map(\.1) == [
                "verify-full"
            ])
        #expect(
            PostgresTLSDefault.parameters(keywords: ["host": "db", "sslmode": "require"], environment: none).isEmpty)
        #expect(PostgresTLSDefault.parameters(keywords: ["host": "db"], environment: ["PGSSLMODE": "disable"]).isEmpty)
    }

    @Test func aURLLibpqCannotReadIsRefusedWithoutItsPassword() {
        let error = #expect(throws: PostgresError.self) {
            _ = try PostgresConnection.keywords(of: "postgresql://hail:se%zzcret@db.internal/hail")
        }
        #expect(error?.code == .configuration)
        #expect(error?.message == #"bad PostgreSQL URL: invalid percent-encoded token: "***""#)
    }
}
