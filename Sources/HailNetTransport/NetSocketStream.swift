import Foundation
import HailClient
import HailNet

/// One libwebsockets client connection as a `SocketStream`.
final class NetSocketStream: SocketStream {
    let frames: AsyncStream<SocketFrame>
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

    func send(_ frame: SocketFrame) -> Bool {
        switch frame {
        case .text(let text): connection.send(text: text)
        case .binary(let data): connection.send(binary: Array(data))
        }
    }

    func close(code: UInt16, reason: String) { connection.close(code: code, reason: reason) }

    func closed() async -> SocketClose {
        let info = await connection.closed()
        return SocketClose(code: info.code, reason: info.reason)
    }
}
