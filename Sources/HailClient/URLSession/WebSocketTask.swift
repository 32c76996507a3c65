import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `TaskSocket` needs of a WebSocket task: `URLSessionWebSocketTask`'s calls, so a test double can stand in for
/// it on Linux (where FoundationNetworking has the type but this machine's libcurl cannot run it).
public protocol WebSocketTask: AnyObject, Sendable {
    /// Starts the connection; returns at once, before any handshake.
    func resume()
    /// The next message; throws when the connection is over.
    func receiveFrame() async throws -> SocketFrame
    /// Queues a message; `completion` gets the error when it could not be sent.
    func sendFrame(_ frame: SocketFrame, completion: @escaping @Sendable ((any Error)?) -> Void)
    /// Sends a ping; `pong` runs with nil when the answer came, or with the error.
    func ping(pong: @escaping @Sendable ((any Error)?) -> Void)
    /// Closes with a WebSocket close code, or drops the connection when `code` is nil.
    func close(code: UInt16?, reason: String)
    /// The close code the peer sent, 0 while none has arrived.
    var peerCloseCode: Int { get }
    /// The close reason the peer sent.
    var peerCloseReason: String { get }
}

extension URLSessionWebSocketTask: WebSocketTask {
    /// The next message as a frame.
    public func receiveFrame() async throws -> SocketFrame {
        let message = try await receive()
        switch message {
        case .string(let text): return .text(text)
        case .data(let data): return .binary(data)
        #if !canImport(FoundationNetworking)
            // Apple's enum is resilient; a kind of message from a later SDK is not one Hail sends.
            @unknown default: return .text("")
        #endif
        }
    }

    /// Sends a frame.
    public func sendFrame(_ frame: SocketFrame, completion: @escaping @Sendable ((any Error)?) -> Void) {
        switch frame {
        case .text(let text): send(.string(text), completionHandler: completion)
        case .binary(let data): send(.data(data), completionHandler: completion)
        }
    }

    /// Sends a ping.
    public func ping(pong: @escaping @Sendable ((any Error)?) -> Void) { sendPing(pongReceiveHandler: pong) }

    /// Closes with `code`, or cancels when nil (1006 cannot be sent on the wire).
    public func close(code: UInt16?, reason: String) {
        guard let code, let closeCode = CloseCode(rawValue: Int(code)) else {
            cancel()
            return
        }
        cancel(with: closeCode, reason: Data(reason.utf8))
    }

    /// The peer's close code, 0 (`.invalid`) while none has arrived.
    public var peerCloseCode: Int { closeCode.rawValue }

    /// The peer's close reason.
    public var peerCloseReason: String { closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "" }
}
