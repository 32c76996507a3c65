/// What a node says at start about a backend reached in a way an attacker on the network could use: Redis off this
/// machine without TLS or without a password, PostgreSQL off this machine without a verified certificate. The node
/// still starts (a private network may be trusted on purpose); the operator is told, once, in plain words.
///
/// Pure: it reads the endpoint and the PostgreSQL URL's keywords given to it.
enum BackendExposure {
    /// One line per exposed backend, naming what is missing and where the fix is documented.
    static func warnings(redis: RedisEndpoint?, postgresKeywords: [String: String]?, environment: [String: String])
        -> [String]
    {
        var lines: [String] = []
        if let redis, !PostgresTLSDefault.isLocal(redis.host) {
            var missing: [String] = []
            if redis.tls == nil { missing.append("TLS (rediss://)") }
            if redis.credentials == nil { missing.append("a password") }
            if !missing.isEmpty {
                lines.append(
                    "Redis at \(redis.host):\(redis.port) is reached without \(missing.joined(separator: " or ")): "
                        + "whoever reaches it can put any frame on any phone (docs/DEPLOY.md, "
                        + "\"Backends inside the trust boundary\")")
            }
        }
        if let keywords = postgresKeywords, PostgresTLSDefault.isRemote(keywords: keywords, environment: environment) {
            let mode = PostgresTLSDefault.mode(keywords: keywords, environment: environment)
            if mode != "verify-full" {
                let hosts = PostgresTLSDefault.hosts(keywords: keywords, environment: environment)
                lines.append(
                    "PostgreSQL at \(hosts.joined(separator: ",")) is reached with sslmode=\(mode): the server's "
                        + "certificate and name are not both verified (docs/DEPLOY.md, "
                        + "\"Backends inside the trust boundary\")")
            }
        }
        return lines
    }
}
