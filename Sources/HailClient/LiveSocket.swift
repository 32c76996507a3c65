import Foundation
import HailAppSeams
import HailProtocol
import HailTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if os(Linux)
    import HailNet
#endif

/// A frame received on a live stream.
public enum SocketFrame: Sendable, Hashable {
    /// JSON text.
    case text(String)
    /// The compact binary location batch.
    case binary(Data)
}

/// How a stream ended.
public struct SocketClose: Sendable, Hashable {
    /// The WebSocket close code (1006 when the connection just died).
    public var code: UInt16
    /// The reason the peer gave.
    public var reason: String

    /// Creates a close.
    public init(code: UInt16, reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// Opens WebSockets: HailNet's libwebsockets client on Linux, URLSessionWebSocketTask on Apple platforms
/// (so an iOS app links no C library), through `TaskSocket`, which keeps the Linux client's contract.
///
/// CI also compiles the URLSession branch on Linux, under `-DHAIL_URLSESSION_TRANSPORT` (FoundationNetworking has
/// the types; scripts/availability.py type-checks HailClient that way).
public final class SocketConnector: Sendable {
    #if os(Linux) && !HAIL_URLSESSION_TRANSPORT
        private let client: WebSocketClient
    #else
        private let session: URLSession
        private let timeline: Timeline
    #endif

    /// Creates a connector; on Linux this starts one libwebsockets client context shared by its sockets. On Apple
    /// platforms `timeline` times the open timeout and the keepalive (`SocketSessionMachine`).
    public init(timeline: Timeline = .system()) throws(CallError) {
        #if os(Linux) && !HAIL_URLSESSION_TRANSPORT
            do { client = try WebSocketClient() } catch {
                throw .noAnswer("cannot start the WebSocket client: \(error)")
            }
        #else
            session = .shared
            self.timeline = timeline
        #endif
    }

    /// Connects to `url` (`ws://host:port/path?query`), sending `token` as `access_token` and the client header.
    public func connect(_ url: String, token: String, client info: ClientInfo? = nil) async throws(CallError)
        -> LiveSocket
    {
        let separator = url.contains("?") ? "&" : "?"
        let full = "\(url)\(separator)\(HailHeader.accessTokenQueryParameter)=\(PercentEncoding.encode(token))"
        var headers: [(String, String)] = []
        if let info { headers.append((HailHeader.client, info.headerValue)) }
        #if os(Linux) && !HAIL_URLSESSION_TRANSPORT
            do {
                return LiveSocket(try await client.connect(to: full, headers: headers))
            } catch {
                throw .noAnswer("cannot open \(url): \(error)")
            }
        #else
            guard let target = URL(string: full) else { throw .noAnswer("bad URL \(url)") }
            var request = URLRequest(url: target)
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            // Connected only once the server has spoken (its hello), as on Linux: see SocketSessionMachine.
            let socket = TaskSocket(task: session.webSocketTask(with: request), timeline: timeline)
            do { try await socket.open() } catch { throw .noAnswer("cannot open \(url): \(error)") }
            return LiveSocket(socket)
        #endif
    }

    /// Closes the shared client context (Linux); sockets still open are closed.
    public func shutdown() async {
        #if os(Linux) && !HAIL_URLSESSION_TRANSPORT
            await client.shutdown()
        #endif
    }
}

/// One open live stream.
public final class LiveSocket: Sendable {
    /// Frames in arrival order; the stream finishes when the socket closes.
    public let frames: AsyncStream<SocketFrame>
    #if os(Linux) && !HAIL_URLSESSION_TRANSPORT
        private let connection: WebSocketConnection

        init(_ connection: WebSocketConnection) {
            self.connection = connection
            let messages = connection.messages
            frames = AsyncStream { continuation in
                let task = Task {
                    for await message in messages {
                        switch message {
                        case .text(let text): continuation.yield(.text(text))
                        case .binary(let bytes): continuation.yield(.binary(Data(bytes)))
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        /// Sends a text frame; false when the socket is closing.
        @discardableResult
        public func send(text: String) -> Bool { connection.send(text: text) }

        /// Sends a binary frame; false when the socket is closing.
        @discardableResult
        public func send(binary: Data) -> Bool { connection.send(binary: Array(binary)) }

        /// Closes with a code and reason.
        public func close(code: UInt16 = 1000, reason: String = "") { connection.close(code: code, reason: reason) }

        /// Waits for the close and tells how it went.
        public func closed() async -> SocketClose {
            let info = await connection.closed()
            return SocketClose(code: info.code, reason: info.reason)
        }
    #else
        private let socket: TaskSocket<URLSessionWebSocketTask>

        init(_ socket: TaskSocket<URLSessionWebSocketTask>) {
            self.socket = socket
            frames = socket.frames
        }

        /// Sends a text frame; false when the socket has ended.
        @discardableResult
        public func send(text: String) -> Bool { socket.send(.text(text)) }

        /// Sends a binary frame; false when the socket has ended.
        @discardableResult
        public func send(binary: Data) -> Bool { socket.send(.binary(binary)) }

        /// Closes with a code and reason.
        public func close(code: UInt16 = 1000, reason: String = "") { socket.close(code: code, reason: reason) }

        /// Waits for the close and tells how it went (1006 when the connection just died).
        public func closed() async -> SocketClose { await socket.closed() }
    #endif
}
