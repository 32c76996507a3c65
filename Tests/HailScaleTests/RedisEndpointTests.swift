import Foundation
import HailNet
import HailTesting
import Testing

@testable import HailScale

/// `--redis` URLs: what each part becomes, what is refused, and that the password shows nowhere.
@Suite("Redis URLs with users, passwords and TLS")
struct RedisEndpointTests {
    @Test func aRedissURLCarriesTheUserThePasswordAndTheTLSSettings() throws {
        let endpoint = try RedisEndpoint(
            url: "rediss://hail:p%40ss%3Aw0rd@cache.internal:6380/2?timeout=0.5&cacert=/etc/hail/ca.pem"
                + "&cert=/etc/hail/c.pem&key=/etc/hail/c.key&sni=redis.internal")
        #expect(endpoint.host == "cache.internal")
        #expect(endpoint.port == 6380)
        #expect(endpoint.database == 2)
        #expect(endpoint.timeout == .milliseconds(500))
        #expect(endpoint.credentials == RedisCredentials(username: "hail", password: "p@ss:w0rd"))
        #expect(endpoint.credentials?.authCommand == ["AUTH", "hail", "p@ss:w0rd"])
        #expect(
            endpoint.tls
                == TLSClientSettings(
                    caFile: "/etc/hail/ca.pem", certificateFile: "/etc/hail/c.pem", keyFile: "/etc/hail/c.key",
                    serverName: "redis.internal"))
        #expect(endpoint.summary == "cache.internal:6380 over TLS as user 'hail'")
    }

    @Test func aPasswordAloneIsTheDefaultUsersAndPlainRedisHasNoTLS() throws {
        let endpoint = try RedisEndpoint(url: "redis://:s3cret@10.0.0.7")
        #expect(endpoint.credentials?.authCommand == ["AUTH", "s3cret"])
        #expect(endpoint.tls == nil)
        #expect(endpoint.port == 6379)
        #expect(endpoint.summary == "10.0.0.7:6379 as the default user")
        #expect(try RedisEndpoint(url: "rediss://cache").tls == TLSClientSettings())
        #expect(try RedisEndpoint(url: "redis://cache").credentials == nil)
    }

    @Test func thePasswordShowsInNoDescriptionOfTheEndpoint() throws {
        let endpoint = try RedisEndpoint(url: "rediss://hail:hunter2-secret@cache:6380")
        for text in [
            "\(endpoint)", String(reflecting: endpoint), "\(endpoint.credentials!)",
            String(reflecting: endpoint.credentials!),
        ] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
        var dumped = ""
        dump(endpoint, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }

    @Test func aBadURLIsRefusedWithAReasonThatHidesThePassword() {
        let cases: [(String, String)] = [
            ("http://hail:hunter2@cache", "not a redis:// or rediss:// URL: http://hail:***@cache"),
            ("redis://hail:hunter2@cache/x", "bad database in redis://hail:***@cache/x"),
            (
                "redis://hail:hunter2@cache?cacert=/ca.pem",
                "cacert in redis://hail:***@cache?cacert=/ca.pem needs TLS: write rediss://"
            ),
            ("rediss://cache?key=/k.pem", "key in rediss://cache?key=/k.pem needs cert too"),
            ("redis://hail@cache", "redis://hail@cache names a user but gives no password (user:password@host)"),
            (
                "redis://:hunter2@cache?verify=no",
                "unknown parameter verify in redis://:***@cache?verify=no (known: timeout, cacert, cert, key, sni, password_file)"
            ),
        ]
        for (url, message) in cases {
            let error = #expect(throws: RedisError.self) { try RedisEndpoint(url: url) }
            #expect(error?.code == .configuration)
            #expect(error?.message == message)
        }
    }

    @Test func aPasswordFileIsReadAndRefusedWhenOthersMayReadIt() throws {
        let directory = try TemporaryDirectory.make("hail-redis-password")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/password"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("from-a-file\nignored\n".utf8), attributes: [.posixPermissions: 0o600]))
        let endpoint = try RedisEndpoint(url: "rediss://hail@cache?password_file=\(path)")
        #expect(endpoint.credentials == RedisCredentials(username: "hail", password: "from-a-file"))

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let error = #expect(throws: RedisError.self) {
            try RedisEndpoint(url: "rediss://hail@cache?password_file=\(path)")
        }
        #expect(error?.message == "the password_file \(path) may be read by others (mode 644): chmod 600 it")
    }

    @Test func theACLUserThatDEPLOYPrintsHasExactlyRedisACLsRules() throws {
        let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/DEPLOY.md")
        let text = try String(contentsOf: deploy, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("user hail on ") })
        #expect(line.split(separator: " ").dropFirst(4).map(String.init) == RedisACL.rules())
        #expect(
            RedisACL.rules(prefix: "p:").prefix(5) == [
                "resetkeys", "~p:hail:*", "resetchannels", "&p:trip:*", "&p:driver:*",
            ])
    }
}
