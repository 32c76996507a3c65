import Foundation
import HailNet

/// A live stream over one of HailNet's WebSocket connections.
final class NetLiveConnection: LiveConnection {
    let connection: WebSocketConnection
    let inbound: AsyncStream<LiveInbound>
    private let metrics: ServerMetrics
    private let time: ServerTime

    init(_ connection: WebSocketConnection, metrics: ServerMetrics, time: ServerTime) {
        self.connection = connection
        self.metrics = metrics
        self.time = time
        let messages = connection.messages
        inbound = AsyncStream { continuation in
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

    func send(_ message: BusMessage) async {
        let priority: MessagePriority = message.kind == .essential ? .essential : .disposable
        if connection.send(message.frame.shared, priority: priority), let publishedAt = message.publishedAt {
            metrics.publishToSend(time.now().timeIntervalSince(publishedAt))
        }
    }

    func close(code: UInt16, reason: String) async {
        connection.close(code: code, reason: reason)
    }
}
