/// Limits and keepalive of a `WebSocketClient`'s connections.
public struct WebSocketClientConfiguration: Sendable {
    /// Larger inbound messages close the connection with 1009.
    public var maxInboundMessageBytes: Int = 16 << 20
    /// Seconds of silence before a ping is sent; 0 disables keepalive.
    public var pingIntervalSeconds: Int = 20
    /// Seconds without valid traffic after which the connection is dropped.
    public var idleTimeoutSeconds: Int = 60
    /// Essential messages a connection may have queued before it is closed with 4009.
    public var essentialQueueLimit: Int = 1024
    /// Disposable messages a connection may have queued before the oldest is dropped.
    public var disposableQueueLimit: Int = 64
    /// How long the busy client loop gathers ready sockets before it polls again (see
    /// `NetServerConfiguration.ioCoalescing`); zero, the default, polls at once, which suits an app's one stream.
    /// A load generator holding thousands of streams sets it.
    public var ioCoalescing: Duration = .zero
    /// Pins the client's loop thread as `NetServer` pins its loop of this index (nil, the default, leaves it to the
    /// scheduler). A load generator with one client per core pins client i like server loop i, so that the kernel
    /// hands each of its connections to the server loop on the same core.
    public var pinnedLoop: Int?
    /// Seconds `shutdown()` waits for close handshakes before dropping the rest.
    public var shutdownGraceSeconds: Double = 2
    /// The certificates a wss:// server's chain must lead to (its name is checked against the URL's host too).
    public var trust: WebSocketTrust = .system

    /// The defaults.
    public init() {}
}
