import Foundation

/// Where a Redis server is, and how long Hail waits for it, parsed from `redis://host:port/db?timeout=seconds`.
public struct RedisEndpoint: Sendable, Hashable {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int
    /// The logical database selected after connecting.
    public var database: Int
    /// The longest a connect or a command waits for Redis (the socket's send and receive timeout, and a caller's
    /// deadline on the command's thread): past it the command fails, its connection is dropped and reopened by
    /// the next command, and the request that needed it answers 503.
    public var timeout: Duration

    /// The default `timeout`: far above a healthy Redis's answer (well under a millisecond on a LAN) and far
    /// below an app's own 10 s, so a request that meets a silent Redis still answers 503 in time.
    public static let defaultTimeout = Duration.seconds(2)

    /// Creates an endpoint.
    public init(host: String = "127.0.0.1", port: Int = 6379, database: Int = 0, timeout: Duration = defaultTimeout) {
        self.host = host
        self.port = port
        self.database = database
        self.timeout = timeout
    }

    /// Parses `redis://host[:port][/db][?timeout=seconds]`; passwords and TLS are not supported yet.
    public init(url: String) throws {
        guard let components = URLComponents(string: url), components.scheme == "redis" else {
            throw RedisError.configuration("not a redis:// URL: \(url)")
        }
        guard components.user == nil, components.password == nil else {
            throw RedisError.configuration("Redis authentication is not supported yet")
        }
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard path.isEmpty || Int(path) != nil else { throw RedisError.configuration("bad database in \(url)") }
        var timeout = Self.defaultTimeout
        for item in components.queryItems ?? [] {
            guard item.name == "timeout" else {
                throw RedisError.configuration("unknown parameter \(item.name) in \(url) (only timeout is known)")
            }
            guard let seconds = item.value.flatMap(Double.init), seconds >= 0.1, seconds <= 60 else {
                throw RedisError.configuration("timeout in \(url) must be seconds from 0.1 to 60")
            }
            timeout = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        self.init(
            host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: components.port ?? 6379,
            database: Int(path) ?? 0, timeout: timeout)
    }
}
