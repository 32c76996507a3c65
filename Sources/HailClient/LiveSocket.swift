import Foundation
import HailAppSeams
import HailProtocol

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
/// (so an iOS app links no C library).
public final class SocketConnector: Sendable {
    #if os(Linux)
        private let client: WebSocketClient
    #endif

    /// Creates a connector; on Linux this starts one libwebsockets client context shared by its sockets.
    public init() throws(CallError) {
        #if os(Linux)
            do { client = try WebSocketClient() } catch {
                throw .noAnswer("cannot start the WebSocket client: \(error)")
            }
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
        #if os(Linux)
            do {
                return LiveSocket(try await client.connect(to: full, headers: headers))
            } catch {
                throw .noAnswer("cannot open \(url): \(error)")
            }
        #else
            guard let target = URL(string: full) else { throw .noAnswer("bad URL \(url)") }
            var request = URLRequest(url: target)
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            return LiveSocket(URLSession.shared.webSocketTask(with: request))
        #endif
    }

    /// Closes the shared client context (Linux); sockets still open are closed.
    public func shutdown() async {
        #if os(Linux)
            await client.shutdown()
        #endif
    }
}

/// One open live stream.
public final class LiveSocket: Sendable {
    /// Frames in arrival order; the stream finishes when the socket closes.
    public let frames: AsyncStream<SocketFrame>
    #if os(Linux)
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
        private let task: URLSessionWebSocketTask

        init(_ task: URLSessionWebSocketTask) {
            self.task = task
            frames = AsyncStream { continuation in
                let reader = Task {
                    while !Task.isCancelled {
                        do {
                            switch try await task.receive() {
                            case .string(let text): continuation.yield(.text(text))
                            case .data(let data): continuation.yield(.binary(data))
                            @unknown default: break
                            }
                        } catch {
                            break
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in reader.cancel() }
            }
            task.resume()
        }

        /// Sends a text frame.
        @discardableResult
        public func send(text: String) -> Bool {
            task.send(.string(text)) { _ in }
            return task.closeCode == .invalid
        }

        /// Sends a binary frame.
        @discardableResult
        public func send(binary: Data) -> Bool {
            task.send(.data(binary)) { _ in }
            return task.closeCode == .invalid
        }

        /// Closes with a code and reason.
        public func close(code: UInt16 = 1000, reason: String = "") {
            task.cancel(
                with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure,
                reason: Data(reason.utf8))
        }

        /// Waits for the close and tells how it went.
        public func closed() async -> SocketClose {
            for await _ in frames {}
            return SocketClose(
                code: UInt16(task.closeCode.rawValue),
                reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
    #endif
}
