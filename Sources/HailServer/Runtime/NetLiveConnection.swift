import Foundation
import HailNet
import HailTime

/// A live stream over one of HailNet's WebSocket connections.
final class NetLiveConnection: LiveConnection {
    let connection: WebSocketConnection
    let inbound: AsyncStream<LiveInbound>
    private let metrics: ServerMetrics
    private let time: Timeline

    /// Wraps `connection`; at most `inboundLimit` of its messages wait for the stream, one more closes it
    /// with 4029 (a client sending faster than the server reads cannot make it hold a backlog without end).
    init(_ connection: WebSocketConnection, metrics: ServerMetrics, time: Timeline, inboundLimit: Int = 1024) {
        self.connection = connection
        self.metrics = metrics
        self.time = time
        let messages = connection.messages
        inbound = AsyncStream(bufferingPolicy: .bufferingOldest(max(1, inboundLimit))) { continuation in
            let task = Task {
                for await message in messages {
                    let result: AsyncStream<LiveInbound>.Continuation.YieldResult
                    switch message {
                    case .text(let text): result = continuation.yield(.text(text))
                    case .binary(let bytes): result = continuation.yield(.binary(Data(bytes)))
                    }
                    if case .dropped = result {
                        connection.close(
                            code: WebSocketCloseInfo.tooManyMessagesCode,
                            reason: "more than \(inboundLimit) messages waiting to be read")
                        break
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
