import Testing

@testable import HailScale

/// A node names, at start, each backend it reaches in a way an attacker on the network could use.
@Suite("Warnings about exposed backends")
struct BackendExposureTests {
    static let guide = "(docs/DEPLOY.md, \"Backends inside the trust boundary\")"

    @Test func redisOffThisMachineWithoutTLSOrAPasswordIsNamed() throws {
        #expect(
            BackendExposure.warnings(
                redis: try RedisEndpoint(url: "redis://cache.internal:6379"), postgresKeywords: nil, environment: [:])
                == [
                    "Redis at cache.internal:6379 is reached without TLS (rediss://) or a password: whoever reaches it "
                        + "can put any frame on any phone \(Self.guide)"
                ])
        #expect(
            BackendExposure.warnings(
                redis: try RedisEndpoint(url: "redis://:pw@cache.internal"), postgresKeywords: nil, environment: [:])
                == [
                    "Redis at cache.internal:6379 is reached without TLS (rediss://): whoever reaches it can put any "
                        + "frame on any phone \(Self.guide)"
                ])
        for quiet in ["rediss://hail:pw@cache.internal", "redis://127.0.0.1:56379", "redis://localhost"] {
            #expect(
                BackendExposure.warnings(redis: try RedisEndpoint(url: quiet), postgresKeywords: nil, environment: [:])
                    .isEmpty, "\(quiet)")
        }
    }

    @Test func postgresOffThisMachineWithoutVerifyFullIsNamed() {
        #expect(
            BackendExposure.warnings(
                redis: nil, postgresKeywords: ["host": "db.internal", "sslmode": "require"], environment: [:])
                == [
                    "PostgreSQL at db.internal is reached with sslmode=require: the server's certificate and name are "
                        + "not both verified \(Self.guide)"
                ])
        #expect(
            BackendExposure.warnings(
                redis: nil, postgresKeywords: ["host": "db.internal"], environment: ["PGSSLMODE": "disable"]
            ).count
                == 1)
        // Hail's own default for a remote host, and anything local, say nothing.
        for keywords in [["host": "db.internal"], ["host": "127.0.0.1", "sslmode": "disable"], [:]] {
            #expect(
                BackendExposure.warnings(redis: nil, postgresKeywords: keywords, environment: [:]).isEmpty,
                "\(keywords)")
        }
    }
}
