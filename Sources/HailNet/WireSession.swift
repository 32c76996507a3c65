import CLibWebSockets
import Foundation
import Synchronization

/// Loop-side state of one lws connection (wsi): its protocol state machines and the runtime objects and buffers
/// their actions act on. Not Sendable: only the owning engine actor, which runs on the loop thread, ever touches
/// it; other tasks refer to it by `id`.
final class WireSession {
    /// Process-unique; the key of the engine's table and the id of the session's `WebSocketConnection`.
    let id: UInt64
    /// The lws connection; nil once lws has destroyed it.
    var wsi: OpaquePointer?
    /// Where the engine's `SessionTable` keeps this session in its sweep order (-1 when not tracked).
    var tableSlot = -1

    /// The HTTP request/response cycle: made at the connection's first request head, dropped at an upgrade.
    var http: HTTPRequestStateMachine?
    /// lws reported the end of the current request's body (a runtime fact the 413's close waits for).
    var bodyEnded = false
    /// A 413 has gone out with its body still arriving: close once the rest has been read (half-closed).
    var closeWhenBodyEnds = false
    /// The WebSocket's machine: from the upgrade filter (server) or the connect call (client) to the end.
    var webSocket: WebSocketStateMachine?

    /// The open WebSocket, from the handshake until lws reports it closed.
    var connection: WebSocketConnection?
    /// Reads this connection on the loop (a `.handle` decision); nil for `messages` consumers.
    var inboundHandler: (any WebSocketInboundHandler)?
    /// The chunks of the message being received, while the machine says `.append`; empty between messages.
    var assemblyBuffer: [UInt8] = []

    // Client connect: what `ClientEngine.connect` was given, kept for the handshake.
    /// The connect call, resumed or failed once, when the machine says so.
    var connectContinuation: CheckedContinuation<WebSocketConnection, any Error>?
    /// The handshake's target, for the connection and for the failure message.
    var clientRequest: WebSocketRequest?
    /// Extra header fields for the handshake.
    var clientHeaders: [(String, String)] = []
    /// The loop handler to make once the client handshake completes.
    var pendingHandler: (@Sendable (WebSocketConnection) -> any WebSocketInboundHandler)?
    /// C strings handed to lws_client_connect_via_info, kept until the session ends.
    var cStrings: [UnsafeMutablePointer<CChar>] = []

    /// A session with no machine yet: the first callback decides what the connection speaks.
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
