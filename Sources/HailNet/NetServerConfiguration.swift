import Foundation

/// Everything a `NetServer` is started with.
public struct NetServerConfiguration: Sendable {
    /// IPv4 address to listen on.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (read it back from `NetServer.start()`).
    public var port: Int = 0
    /// Larger request bodies are answered 413 `payload_too_large` without being read.
    public var maxRequestBodyBytes: Int = 1 << 20
    /// Larger inbound WebSocket messages close the connection with 1009.
    public var maxInboundMessageBytes: Int = 1 << 20
    /// Directory whose files are served for GET requests before the handler is asked; nil for none.
    public var staticFilesDirectory: String?
    /// Seconds of WebSocket silence before a ping is sent; 0 disables keepalive.
    public var pingIntervalSeconds: Int = 20
    /// Seconds without any valid traffic (pongs included) after which a WebSocket is dropped.
    public var idleTimeoutSeconds: Int = 60
    /// Essential messages a connection may have queued before it is closed with 4009.
    public var essentialQueueLimit: Int = 256
    /// Disposable messages a connection may have queued before the oldest is dropped.
    public var disposableQueueLimit: Int = 16
    /// Inbound messages a WebSocket may have waiting for its handler; one more closes it with 4029, so a
    /// client sending faster than the server reads cannot make it hold an unbounded backlog.
    public var inboundQueueLimit: Int = 1024
    /// Headers lws does not know by name that requests should still carry (lower-case names).
    public var customHeaderNames: [String] = ["x-request-id", "idempotency-key", "x-forwarded-for", "x-real-ip"]
    /// Seconds a client has to send a whole HTTP request (head and body) or finish a WebSocket handshake;
    /// a slower one (a request dribbled a byte at a time) is disconnected.
    public var requestTimeoutSeconds: Int = 20
    /// Seconds an idle keep-alive HTTP connection is kept.
    public var keepAliveSeconds: Int = 30
    /// Event loops (threads) serving connections, each with its own lws context; the first accepts on the one
    /// listening socket and places each connection on the loop holding fewest (`LoopPlacement`). One per core by
    /// default.
    public var loopCount: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// How long a busy loop gathers ready sockets before it polls again (libev's io collect interval). A loop that
    /// has just handled events sleeps the rest of this time, so one poll returns a batch of sockets rather than one
    /// wake-up per message; an idle loop still wakes at once for the first event. It bounds the latency it adds
    /// under load and cuts the context switches that, at 17,500 drivers a second on 2 cores, set the p99
    /// (`docs/BENCHMARKS.md`, "The event loop"). Zero polls at once.
    public var ioCoalescing: Duration = .microseconds(500)
    /// Connections a loop holds before it gathers (`ioCoalescing`); below that it polls at once. A loop's gathering
    /// is a sleep each turn, so a kept-alive HTTP connection (one request, then its answer, then the next) gets at
    /// most one request per interval: with a few connections per loop (a balancer's upstream pool, wrk's eight over
    /// two loops) that sleep was the whole limit, /healthz at 0.2x nginx with the loops half idle. With this many,
    /// one request per interval each is more than a loop can answer, and gathering only saves wake-ups. 0: always.
    public var ioCoalescingFromConnections = 32
    /// Whether each loop thread runs on a core of its own (loop i on the i-th core the process may use), so the
    /// scheduler never stacks two loops on one core while another idles. With more loops than cores, loops share
    /// cores round robin.
    public var pinsLoops = true
    /// Connections opened or closed after which, once that burst has settled, malloc's free pages go back to the
    /// kernel (`HeapTrimPolicy`): what a ramp of handshakes freed stops counting in the resident memory. 0: never.
    public var heapTrimChurn = 1_000
    /// Seconds `shutdown()` waits for WebSocket close handshakes before dropping the rest.
    public var shutdownGraceSeconds: Double = 2

    /// The defaults: 127.0.0.1, a free port, 1 MiB bodies and messages, pings every 20 s.
    public init() {}
}
