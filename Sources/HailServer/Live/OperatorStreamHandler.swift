import Foundation
import HailNet
import HailProtocol

/// The operator's stream (`/v1/fleet/live`) read on its loop: the shared `OperatorFeed` writes to the
/// socket; what the page sends is counted against the socket's message rate and dropped.
final class OperatorStreamHandler: WebSocketInboundHandler {
    /// The feed took the viewer: the id to leave with.
    struct Joined: Sendable { let id: UInt64 }

    private let feed: OperatorFeed
    private let services: ServerServices
    private let client: ClientInfo?
    private var bucket: TokenBucket?
    private let refused: @Sendable (RateLimitRefusal) -> Void
    private let ended: @Sendable () -> Void
    private var joined: UInt64?
    private var closed = false
    private var refusedOnce = false

    /// Joins the feed in a task; the feed sends hello at once and the snapshot with its next reading.
    init(
        services: ServerServices, client: ClientInfo?, bucket: TokenBucket?, connection: WebSocketConnection,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        feed = services.operatorFeed
        self.services = services
        self.client = client
        self.bucket = bucket
        self.refused = refused
        self.ended = ended
        services.metrics.connection(role: .operator, client: client, delta: 1)
        let feed = feed
        Task {
            let id = await feed.join { message in
                _ = connection.send(
                    message.frame.shared, priority: message.kind == .essential ? .essential : .disposable)
            }
            connection.post(event: Joined(id: id))
        }
    }

    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction {
        guard !refusedOnce, let over = bucket?.takeMessage(now: services.time.now()) else { return .proceed }
        refusedOnce = true
        refused(over)
        return .close(code: WebSocketCloseCode.rateLimited.rawValue, reason: over.message)
    }

    func event(_ event: any Sendable, on connection: WebSocketConnection) {
        guard let joined = event as? Joined else { return }
        // Closed before the feed answered: leave at once rather than stay a viewer of a dead socket.
        if closed {
            let feed = feed
            Task { await feed.leave(joined.id) }
        } else {
            self.joined = joined.id
        }
    }

    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection) {
        closed = true
        services.metrics.connection(role: .operator, client: client, delta: -1)
        if let joined {
            let feed = feed
            Task { await feed.leave(joined) }
        }
        ended()
    }
}
