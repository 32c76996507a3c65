/// One WebSocket's machine, whichever end this process is: what a `WireSession` holds, so the receive, write,
/// close and keepalive code the two engines share (`WebSocketIO`) runs the frame events without knowing the side.
///
/// The machines hold no message bytes (those stay in the session's assembly buffer), so taking one out of its
/// case to run an event and putting it back copies only a few words.
enum WebSocketStateMachine: Sendable, WebSocketFrameHost {
    /// A WebSocket our server accepted.
    case server(WebSocketServerStateMachine)
    /// A WebSocket our client opened.
    case client(WebSocketClientStateMachine)

    /// Runs `event` on the server machine; nil for a client WebSocket.
    mutating func withServer<Result>(_ event: (inout WebSocketServerStateMachine) -> Result) -> Result? {
        guard case .server(var machine) = self else { return nil }
        defer { self = .server(machine) }
        return event(&machine)
    }

    /// Runs `event` on the client machine; nil for a server WebSocket.
    mutating func withClient<Result>(_ event: (inout WebSocketClientStateMachine) -> Result) -> Result? {
        guard case .client(var machine) = self else { return nil }
        defer { self = .client(machine) }
        return event(&machine)
    }

    /// Runs `body` on the frame machine of either side once established; before that returns `notEstablished`.
    mutating func withFrame<Result>(
        notEstablished: Result, _ body: (inout WebSocketFrameStateMachine) -> Result
    ) -> Result {
        switch self {
        case .server(var machine):
            defer { self = .server(machine) }
            return machine.withFrame(notEstablished: notEstablished, body)
        case .client(var machine):
            defer { self = .client(machine) }
            return machine.withFrame(notEstablished: notEstablished, body)
        }
    }
}
