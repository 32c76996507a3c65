/// One client WebSocket from the connect call to the end; pure: the runtime performs every action it returns.
///
/// The connect is resumed or failed exactly once. After the handshake the frame events (`WebSocketFrameHost`)
/// run the shared `WebSocketFrameStateMachine`, as on the server.
struct WebSocketClientStateMachine: Sendable, WebSocketFrameHost {
    /// The failure detail when lws destroys the connection before the handshake completed.
    static let closedDuringHandshake = "connection closed during the handshake"

    /// Larger inbound messages close the connection with 1009.
    let maxMessageBytes: Int
    /// When to ping a quiet peer and when to give up on it.
    let keepalive: Keepalive

    private var state: State = .connecting

    /// A machine for a connect that has just been started.
    init(maxMessageBytes: Int, keepalive: Keepalive) {
        self.maxMessageBytes = maxMessageBytes
        self.keepalive = keepalive
    }

    private enum State {
        /// The connect call waits for the handshake.
        case connecting
        /// The connect call was failed; lws may still report the end of the connection.
        case failed
        /// Open, closing or closed, as the frame machine says.
        case established(WebSocketFrameStateMachine)
        /// Transient, while the frame machine is mutated in place.
        case modifying
    }

    // MARK: Actions

    /// What the runtime does when the handshake completed.
    enum EstablishAction: Equatable {
        /// Create the `WebSocketConnection`, count it open, and resume the connect call with it.
        case resumeConnect
        /// The connect call already failed: nothing to do.
        case ignore
    }

    /// What the runtime does when the connection failed or went away.
    enum ConnectFailureAction: Equatable {
        /// Fail the connect call with this detail (the runtime adds the target).
        case failConnect(String)
        /// Tell the app how the established connection ended (`WebSocketConnection.finish`) and count it closed.
        case finish(WebSocketCloseInfo)
        /// The connect call was already resumed or failed, and the app already told: nothing to do.
        case ignore
    }

    // MARK: Events

    /// LWS_CALLBACK_CLIENT_ESTABLISHED: the handshake completed at `now`, which counts as hearing from the peer.
    mutating func established(now: ContinuousClock.Instant) -> EstablishAction {
        guard case .connecting = state else { return .ignore }
        state = .established(
            WebSocketFrameStateMachine(maxMessageBytes: maxMessageBytes, keepalive: keepalive, now: now))
        return .resumeConnect
    }

    /// LWS_CALLBACK_CLIENT_CONNECTION_ERROR (with lws's detail), or `lws_client_connect_via_info` returned nil.
    mutating func connectionFailed(_ detail: String) -> ConnectFailureAction {
        guard case .connecting = state else { return .ignore }
        state = .failed
        return .failConnect(detail)
    }

    /// LWS_CALLBACK_WSI_DESTROY: during the handshake this fails the connect; after it, it ends the connection
    /// (unless CLIENT_CLOSED already did).
    mutating func destroyed() -> ConnectFailureAction {
        switch state {
        case .connecting:
            state = .failed
            return .failConnect(Self.closedDuringHandshake)
        case .established:
            guard case .finish(let info) = closed() else { return .ignore }
            return .finish(info)
        case .failed, .modifying:
            return .ignore
        }
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
