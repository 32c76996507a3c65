import Foundation

/// Where a Redis server is, parsed from `redis://host:port/db`.
public struct RedisEndpoint: Sendable, Hashable {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int
    /// The logical database selected after connecting.
    public var database: Int

    /// Creates an endpoint.
    public init(host: String = "127.0.0.1", port: Int = 6379, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `redis://host[:port][/db]`; passwords and TLS are not supported yet.
    public init(url: String) throws {
        guard let components = URLComponents(string: url), components.scheme == "redis" else {
            throw RedisError.configuration("not a redis:// URL: \(url)")
        }
        guard components.user == nil, components.password == nil else {
            throw RedisError.configuration("Redis authentication is not supported yet")
        }
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard path.isEmpty || Int(path) != nil else { throw RedisError.configuration("bad database in \(url)") }
        self.init(
            host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: components.port ?? 6379,
            database: Int(path) ?? 0)
    }
}
