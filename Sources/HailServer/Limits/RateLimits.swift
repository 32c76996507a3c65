/// The server's rate limits (a setting of `ServerConfiguration`; `hail server` flags override each one).
///
/// Sized for a city: a phone asks a few times a minute and a driver app sends a batch every 2-15 s, so a
/// token's limits are far above an honest app; an address's limits allow a carrier-grade NAT with many
/// phones behind one address. Requests from this machine's own loopback (the demo, the simulator,
/// `hail bench`, the tests) are not limited unless `limitLoopback` is set. A nil rate is no limit.
public struct RateLimits: Sendable, Hashable {
    /// HTTP requests per client address.
    public var requestsPerAddress: Rate? = Rate(perSecond: 100, burst: 500)
    /// HTTP requests per principal (the verified token's role and subject; all of a rider's tokens share one).
    public var requestsPerToken: Rate? = Rate(perSecond: 10, burst: 100)
    /// WebSocket upgrades per client address.
    public var connectionsPerAddress: Rate? = Rate(perSecond: 10, burst: 100)
    /// WebSocket upgrades per principal.
    public var connectionsPerToken: Rate? = Rate(perSecond: 1, burst: 10)
    /// Messages a client may send on one WebSocket; over it the socket is closed with 4029.
    public var messagesPerConnection: Rate? = Rate(perSecond: 20, burst: 100)
    /// Telemetry batches per principal (`POST /v1/telemetry`): an app sends one every ten minutes, a few at once
    /// after a spell offline. Checked by the API after the token, on every address, loopback included.
    public var telemetryPerToken: Rate? = Rate(perSecond: 1.0 / 60, burst: 10)
    /// WebSockets one client address may hold open at once (a client that answers pings could otherwise
    /// hold the server's file descriptors at the connection rate); one more is closed with 4029.
    public var openConnectionsPerAddress: Int? = 1000
    /// Also limit clients on 127.0.0.0/8 and ::1 (off by default: they are this machine's own tools).
    public var limitLoopback = false
    /// Peers whose `X-Forwarded-For` is believed (reverse proxies, load balancers): behind them the client
    /// address is the last forwarded one that is not itself a trusted proxy.
    public var trustedProxies: Set<String> = ["127.0.0.1", "::1"]

    /// The defaults.
    public init() {}

    /// No limit at all.
    public static let off: RateLimits = {
        var limits = RateLimits()
        limits.requestsPerAddress = nil
        limits.requestsPerToken = nil
        limits.connectionsPerAddress = nil
        limits.connectionsPerToken = nil
        limits.messagesPerConnection = nil
        limits.telemetryPerToken = nil
        limits.openConnectionsPerAddress = nil
        return limits
    }()
}
