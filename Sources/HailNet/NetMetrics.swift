import Synchronization

/// Live counters of one server or client, safe to read from any thread (for a /metrics endpoint).
public final class NetMetrics: Sendable {
    let openConnections = Atomic<Int>(0)
    let totalConnections = Atomic<Int>(0)
    let httpRequests = Atomic<Int>(0)
    let bytesReceived = Atomic<Int>(0)
    let bytesSent = Atomic<Int>(0)
    let messagesReceived = Atomic<Int>(0)
    let messagesSent = Atomic<Int>(0)
    let disposableDrops = Atomic<Int>(0)
    let slowConsumerCloses = Atomic<Int>(0)
    let slowRequestDrops = Atomic<Int>(0)
    let acceptedConnections = Atomic<Int>(0)
    let httpResponseWrites = Atomic<Int>(0)
    let httpInFlight = Atomic<Int>(0)
    /// The server's loops and the connections each holds: where its acceptor places the next one.
    let placement: Mutex<LoopPlacement>

    /// Counters of a server (or client) with `loops` event loops.
    init(loops: Int = 1) { placement = Mutex(LoopPlacement(loops: loops)) }

    /// A consistent-enough copy of every counter.
    public struct Snapshot: Sendable, Equatable {
        /// WebSocket connections open now.
        public var openConnections: Int
        /// WebSocket connections ever opened.
        public var totalConnections: Int
        /// HTTP requests handed to the handler (static files included).
        public var httpRequests: Int
        /// Payload bytes received (HTTP bodies and WebSocket messages).
        public var bytesReceived: Int
        /// Payload bytes sent (HTTP bodies and WebSocket messages).
        public var bytesSent: Int
        /// WebSocket messages received.
        public var messagesReceived: Int
        /// WebSocket messages written to sockets.
        public var messagesSent: Int
        /// Disposable messages dropped because their queue was full.
        public var disposableDrops: Int
        /// Connections closed with 4009 because their essential queue overflowed.
        public var slowConsumerCloses: Int
        /// HTTP connections dropped because their request did not arrive within the request timeout.
        public var slowRequestDrops: Int
        /// TCP connections the server accepted (HTTP, WebSocket and raw alike); a kept-alive client's requests
        /// share one.
        public var acceptedConnections: Int
        /// Writes (`lws_write` calls) that carried HTTP response bytes: one per response whose body fits one piece.
        public var httpResponseWrites: Int
        /// HTTP requests handed to the handler whose answer is not back yet (a drain waits for them).
        public var httpInFlight: Int
        /// TCP connections each event loop holds now (HTTP, WebSocket and raw alike, in loop order): the server
        /// places each accepted connection on the loop holding fewest, so these stay within one of each other
        /// while connections only open.
        public var connectionsPerLoop: [Int]
    }

    /// Reads every counter now.
    public func snapshot() -> Snapshot {
        Snapshot(
            openConnections: openConnections.load(ordering: .relaxed),
            totalConnections: totalConnections.load(ordering: .relaxed),
            httpRequests: httpRequests.load(ordering: .relaxed),
            bytesReceived: bytesReceived.load(ordering: .relaxed),
            bytesSent: bytesSent.load(ordering: .relaxed),
            messagesReceived: messagesReceived.load(ordering: .relaxed),
            messagesSent: messagesSent.load(ordering: .relaxed),
            disposableDrops: disposableDrops.load(ordering: .relaxed),
            slowConsumerCloses: slowConsumerCloses.load(ordering: .relaxed),
            slowRequestDrops: slowRequestDrops.load(ordering: .relaxed),
            acceptedConnections: acceptedConnections.load(ordering: .relaxed),
            httpResponseWrites: httpResponseWrites.load(ordering: .relaxed),
            httpInFlight: httpInFlight.load(ordering: .relaxed),
            connectionsPerLoop: placement.withLock { $0.counts })
    }
}
