import HailThreads

/// Redis connections on threads of their own, for commands (the geo index, publishing), behind a queue of at
/// most `capacity` commands; each caller waits at most the endpoint's `timeout` (`ThreadPoolError` after it).
public final class RedisClient: Sendable {
    private let threads: ThreadPool<RedisConnection>
    /// Where the server is.
    public let endpoint: RedisEndpoint

    /// Prepares `size` connections to `endpoint`; each connects on first use, on its own thread.
    public init(endpoint: RedisEndpoint, size: Int = 2, capacity: Int = 1024) {
        self.endpoint = endpoint
        threads = ThreadPool(
            resources: (0..<max(1, size)).map { _ in RedisConnection(endpoint: endpoint) }, name: "hail-redis",
            capacity: capacity, closedError: RedisError.closed, release: { $0.close() })
    }

    /// Checks that the server answers.
    public func ping() async throws {
        let reply = try await run { try $0.command(["PING"]).checked() }
        guard reply.text == "PONG" else { throw RedisError.unexpected("PING answered \(reply)") }
    }

    /// Lets queued commands finish, then closes the connections.
    public func close() { threads.close() }

    func run<T: Sendable>(_ body: @escaping @Sendable (RedisConnection) throws -> T) async throws -> T {
        try await threads.run(within: endpoint.timeout, body)
    }
}
