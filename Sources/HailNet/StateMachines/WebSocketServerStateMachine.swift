/// One server WebSocket from the upgrade filter to the end; pure: the runtime performs every action it returns.
///
/// Until LWS_CALLBACK_ESTABLISHED it only keeps the handshake's request; from then on the frame events
/// (`WebSocketFrameHost`) run the shared `WebSocketFrameStateMachine`, and answer `.ignore` before.
struct WebSocketServerStateMachine: Sendable, WebSocketFrameHost {
    /// Larger inbound messages close the connection with 1009.
    let maxMessageBytes: Int
    /// When to ping a quiet peer and when to give up on it.
    let keepalive: Keepalive

    private var state: State = .awaitingUpgrade

    /// A machine for a connection that has not asked to upgrade yet.
    init(maxMessageBytes: Int, keepalive: Keepalive) {
        self.maxMessageBytes = maxMessageBytes
        self.keepalive = keepalive
    }

    private enum State {
        /// No upgrade request yet.
        case awaitingUpgrade
        /// The upgrade passed the filter; lws completes the handshake before Swift decides, so the request waits
        /// here for ESTABLISHED.
        case upgrading(WebSocketRequest)
        /// Open, closing or closed, as the frame machine says.
        case established(WebSocketFrameStateMachine)
        /// Transient, while the frame machine is mutated in place.
        case modifying
    }

    // MARK: Actions

    /// What the runtime answers the upgrade filter.
    enum UpgradeAction: Equatable {
        /// Let lws complete the handshake (return 0).
        case allowUpgrade
        /// Refuse the upgrade (return -1): no WebSocket handler is installed.
        case refuseUpgrade
    }

    /// What the runtime does when the handshake completed.
    enum EstablishAction: Equatable {
        /// Create the `WebSocketConnection` for this request, count it open, and run the handler's decision.
        case startHandler(WebSocketRequest)
        /// No upgrade request was recorded: return -1.
        case closeConnection

        /// Same case and payload, requests compared field by field (WebSocketRequest itself is not Equatable).
        static func == (lhs: EstablishAction, rhs: EstablishAction) -> Bool {
            switch (lhs, rhs) {
            case (.startHandler(let left), .startHandler(let right)):
                return left.path == right.path && left.query == right.query && left.headers == right.headers
                    && left.remoteAddress == right.remoteAddress && left.requestID == right.requestID
            case (.closeConnection, .closeConnection):
                return true
            default:
                return false
            }
        }
    }

    // MARK: Events

    /// LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: the peer asks to upgrade with `request`.
    mutating func upgradeRequested(_ request: WebSocketRequest, handlerInstalled: Bool) -> UpgradeAction {
        guard handlerInstalled else { return .refuseUpgrade }
        switch state {
        case .awaitingUpgrade, .upgrading:
            state = .upgrading(request)
            return .allowUpgrade
        case .established, .modifying:
            return .refuseUpgrade
        }
    }

    /// LWS_CALLBACK_ESTABLISHED: the handshake completed at `now`, which counts as hearing from the peer.
    mutating func established(now: ContinuousClock.Instant) -> EstablishAction {
        guard case .upgrading(let request) = state else { return .closeConnection }
        state = .established(
            WebSocketFrameStateMachine(maxMessageBytes: maxMessageBytes, keepalive: keepalive, now: now))
        return .startHandler(request)
    }

    /// Runs `body` on the frame machine once established; before that returns `notEstablished`.
    mutating func withFrame<Result>(
        notEstablished: Result, _ body: (inout WebSocketFrameStateMachine) -> Result
    ) -> Result {
        guard case .established(var frame) = state else { return notEstablished }
        state = .modifying
        defer { state = .established(frame) }
        return body(&frame)
    }
}
