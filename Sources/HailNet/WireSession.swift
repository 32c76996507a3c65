import CLibWebSockets
import Foundation
import Synchronization

/// Loop-side state of one lws connection (wsi). Not Sendable: only the owning engine actor, which runs
/// on the loop thread, ever touches it; other tasks refer to it by `id`.
final class WireSession {
    let id: UInt64
    /// The lws connection; nil once lws has destroyed it.
    var wsi: OpaquePointer?

    // HTTP: one transaction at a time per connection (HTTP/1.1 without pipelining).
    /// Counts requests on this connection so a late handler result for an old one is ignored.
    var transaction: UInt64 = 0
    var request: HTTPRequest?
    var expectedBodyBytes = 0
    var bodyRejected = false
    /// lws reported the end of the request body.
    var bodyEnded = false
    /// A 413 has gone out; close once the rest of the body has been read.
    var closeWhenBodyEnds = false
    var response: PendingResponse?
    /// When the request being read must be complete; a body still arriving then is dropped (lws only
    /// times out each wait between chunks, so a body dribbled a byte at a time would never end).
    var requestDeadline: ContinuousClock.Instant?

    // WebSocket.
    var webSocketRequest: WebSocketRequest?
    var connection: WebSocketConnection?
    /// Reads this connection on the loop (a `.handle` decision); nil for `messages` consumers.
    var inboundHandler: (any WebSocketInboundHandler)?
    /// Reading the socket is switched off (decision pending, or back-pressure from the handler).
    var readingPaused = false
    var rxBuffer: [UInt8] = []
    var rxBinary = false
    var inMessage = false
    var localClose: WebSocketCloseInfo?
    var peerClose: WebSocketCloseInfo?
    var closeTimerArmed = false
    /// When the peer last sent anything (message or pong); drives keepalive.
    var lastHeard = ContinuousClock.now
    /// A ping should go out on the next writable callback.
    var pingDue = false

    // Client connect.
    var connectContinuation: CheckedContinuation<WebSocketConnection, any Error>?
    var clientHeaders: [(String, String)] = []
    /// The loop handler to make once the client handshake completes.
    var pendingHandler: (@Sendable (WebSocketConnection) -> any WebSocketInboundHandler)?
    /// C strings handed to lws_client_connect_via_info, kept until the session ends.
    var cStrings: [UnsafeMutablePointer<CChar>] = []

    init(id: UInt64) {
        self.id = id
    }

    /// The next process-unique connection id: sessions of every loop (server and client) share it.
    static func nextID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).newValue
    }

    private static let ids = Atomic<UInt64>(0)

    deinit {
        for string in cStrings { free(string) }
    }

    /// A C string that lives as long as this session.
    func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        cStrings.append(copy)
        return UnsafePointer(copy)
    }

    /// Sets the wsi's opaque pointer to this session (unretained: the engine's table owns it).
    func attach(to wsi: OpaquePointer) {
        self.wsi = wsi
        lws_set_opaque_user_data(wsi, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The session attached to `wsi`, if any.
    static func of(_ wsi: OpaquePointer) -> WireSession? {
        guard let raw = lws_get_opaque_user_data(wsi) else { return nil }
        return Unmanaged<WireSession>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Forgets the wsi and clears its opaque pointer so no later callback can reach this session.
    func detach() {
        if let wsi { lws_set_opaque_user_data(wsi, nil) }
        wsi = nil
    }
}

/// An HTTP response being written in stages.
struct PendingResponse {
    var response: HTTPResponse
    var offset = 0
    var headersSent = false
    /// Close the connection after the last byte (413: the unread body makes keep-alive impossible).
    var closeAfter = false
    var headOnly = false
}
